import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

@Suite(.ownThread) struct FileErrorTextTests {
    /// Foundation's errors for a missing file, a directory and a file used as a folder, and
    /// the POSIX error each stands for.
    @Test("Foundation file errors read as the system's reason, with no NSCocoaErrorDomain dump")
    func reasons() throws {
        try withScratchFolder("locsim-file-error") { directory in
            let file = directory + "/file"
            try "x".write(toFile: file, atomically: false, encoding: .utf8)
            let cases: [(String, @Sendable () throws -> Void, Int32)] = [
                ("missing", { _ = try String(contentsOfFile: directory + "/missing", encoding: .utf8) }, ENOENT),
                ("directory", { _ = try String(contentsOfFile: directory, encoding: .utf8) }, EISDIR),
                ("file as folder", { try FileManager.default.createDirectory(atPath: file + "/sub", withIntermediateDirectories: true) }, ENOTDIR),
                ("list a missing folder", { _ = try FileManager.default.contentsOfDirectory(atPath: directory + "/missing") }, ENOENT),
            ]
            for (name, operation, code) in cases {
                let error = try #require(throws: (any Error).self, "\(name)") { try operation() }
                let reason = FileErrorText.reason(for: error)
                #expect(reason == String(cString: strerror(code)), "\(name): \(reason)")
                #expect(!reason.contains("Domain") && !reason.contains("UserInfo"), "\(name): \(reason)")
            }
        }
    }
}
