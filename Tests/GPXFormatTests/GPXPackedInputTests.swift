import Foundation
@testable import GPXFormat
import LocSimTestHelpers
import Testing

/// A compressed GPX file (`walk.gpx` gzip'd and kept under its name) fails at its first byte
/// naming what it is and the command that unpacks it, not at a NUL somewhere in its header.
@Suite(.timeLimit(.minutes(1)))
struct GPXPackedInputTests {
    @Test("A gzip'd GPX: malformedXML at 1:1 saying it is gzip-compressed, with the command that unpacks it")
    func gzipped() async throws {
        try await withScratchFolder("locsim-gpx-packed") { folder in
            try Data(#"<?xml version="1.0"?><gpx version="1.1" creator="t"><wpt lat="1" lon="2"/></gpx>"#.utf8)
                .write(to: URL(fileURLWithPath: folder + "/plain.gpx"))
            let made = try await ChildProcess.run(["/bin/sh", "-c", "gzip -c plain.gpx > walk.gpx"], directory: folder)
            #expect(made.status == 0, "\(made.errors)")
            let path = folder + "/walk.gpx"
            #expect {
                _ = try GPXStatistics(reader: GPXReader(contentsOfFile: path, options: .lenient))
            } throws: { error in
                guard let error = error as? GPXParseError else { return false }
                return error.code == .malformedXML && error.line == 1 && error.column == 1
                    && error.message == "the file is gzip-compressed (it starts with 1F 8B): unpack it first ('gzip -dc \(path) > \(folder)/walk-unpacked.gpx')"
            }
        }
    }
}
