import Foundation
import LocSimTestHelpers
import Testing

/// The build tool that compiles the pages and the OpenAPI document in (`Sources/EmbedText`, run by
/// `Sources/EmbedTextPlugin`). SwiftPM runs it on every build; an output it leaves alone is what
/// keeps a build with nothing changed from compiling MapPages and NearbyServer again.
@Suite(.timeLimit(.minutes(1))) struct EmbedTextTests {
    /// Built beside this test bundle, as every executable of the package is.
    static let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/EmbedText"

    @Test("The literal holds the file's text whole; an output that already holds it is not written again; a changed input is")
    func writesOnlyWhatChanged() async throws {
        try await withScratchFolder("locsim-embedtext") { folder in
            let input = folder + "/page.txt", output = folder + "/page.swift"
            let text = "a \"\"\"# quote, a \\# backslash\nand a last line\n"
            try text.write(toFile: input, atomically: true, encoding: .utf8)

            func embed() async throws -> Date {
                let outcome = try await ChildProcess.run([Self.tool, input, output, "pageText"])
                #expect(outcome.status == 0, "\(outcome.errors)")
                return try #require(try FileManager.default.attributesOfItem(atPath: output)[.modificationDate] as? Date)
            }
            let first = try await embed()
            let source = try String(contentsOfFile: output, encoding: .utf8)
            // The literal's first and last line breaks are not part of its value.
            #expect(source.contains("let pageText = ##\"\"\"\n" + text + "\n\"\"\"##"), "\(source)")
            // A date in the past, so that a write would show whatever the file system's clock.
            try FileManager.default.setAttributes([.modificationDate: first.addingTimeInterval(-3_600)], ofItemAtPath: output)
            let past = try #require(try FileManager.default.attributesOfItem(atPath: output)[.modificationDate] as? Date)
            #expect(try await embed() == past, "the same text: the output is left as it is")
            try (text + "one more line\n").write(toFile: input, atomically: true, encoding: .utf8)
            #expect(try await embed() != past, "a changed input is written")
            #expect(try String(contentsOfFile: output, encoding: .utf8).contains("one more line"))
        }
    }
}
