import Foundation
@testable import GPXFormat
import Testing
import LocSimTestHelpers

/// Junk fails in bounded time and memory: these inputs made the reader read a whole gigabyte
/// (or hold a whole huge text) before. Each test checks where reading stopped (the error's
/// position), not how long it took.
@Suite("GPX reader: junk input fails at once, where it starts", .ownThread)
struct GPXJunkInputTests {
    /// A temporary file (in a scratch folder of its own) that is removed when the test ends.
    final class TemporaryFile {
        let folder: String
        let path: String
        init(_ text: String = "") throws {
            folder = try newScratchFolder("locsim-gpx-junk")
            path = folder + "/junk.gpx"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        /// Extends the file with `count` NUL bytes without writing them (a sparse hole).
        func appendHole(_ count: UInt64) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.truncate(atOffset: try handle.seekToEnd() + count)
        }
        func append(_ text: String) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
        }
        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    func failure(_ path: String, options: GPXReader.Options = .strict) throws -> GPXParseError? {
        do {
            _ = try GPXStatistics(reader: GPXReader(contentsOfFile: path, options: options))
            return nil
        } catch {
            return error
        }
    }

    /// 1-based line and column just after `prefix`.
    func location(after prefix: String) -> (line: Int, column: Int) {
        let lines = prefix.components(separatedBy: "\n")
        return (lines.count, lines.last!.count + 1)
    }

    @Test("A 1 GB sparse file (all NUL bytes) fails at its first byte")
    func sparseFile() throws {
        let file = try TemporaryFile()
        try file.appendHole(1 << 30)
        let error = try #require(try failure(file.path))
        #expect(error.code == .malformedXML)
        #expect(error.line == 1 && error.column == 1)
        #expect(error.message.contains("NUL"), "\(error)")
    }

    @Test("A run of NUL bytes inside a name fails at the first one, not after reading the run")
    func nulRunInsideText() throws {
        let prefix = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><wpt lat=\"1\" lon=\"2\"><name>Café "
        let file = try TemporaryFile(prefix)
        try file.appendHole(64 << 20)
        try file.append("</name></wpt></gpx>\n")
        let error = try #require(try failure(file.path))
        #expect(error.code == .malformedXML && error.message.contains("NUL"), "\(error)")
        let at = location(after: prefix)
        #expect(error.line == at.line && error.column == at.column, "\(error)")
    }

    @Test("One text, tag, comment or kept element longer than the limit fails where it starts")
    func tokenLimit() throws {
        let options = GPXReader.Options(maximumTokenLength: 4096)
        let long = String(repeating: "a", count: 10_000)
        let head = "<gpx version=\"1.1\">\n<wpt lat=\"1\" lon=\"2\">"
        let cases: [(prefix: String, rest: String)] = [
            (head + "<name>", long + "</name></wpt></gpx>"),  // a text
            (head + "<desc>", long + "</desc></wpt></gpx>"),  // a text the reader skips
            (head + "\n  ", "<extensions x=\"" + long + "\"/></wpt></gpx>"),  // a tag's attribute
            ("<gpx>\n", "<!-- " + long + " --></gpx>"),  // a comment
            // A kept element whose text comes in many small pieces.
            (head + "\n", "<name>" + String(repeating: "<![CDATA[" + String(repeating: "b", count: 1000) + "]]>", count: 5) + "</name></wpt></gpx>"),
        ]
        for example in cases {
            let file = try TemporaryFile(example.prefix + example.rest)
            let error = try #require(try failure(file.path, options: options), "\(example.rest.prefix(20))")
            #expect(error.code == .limitExceeded, "\(error)")
            #expect(error.message.contains("4096 bytes"), "\(error)")
            let at = location(after: example.prefix)
            #expect(error.line == at.line && error.column == at.column, "\(error)")
            // The same text under the limit reads (lenient mode cannot skip it either way).
            let relaxed = GPXReader.Options(maximumTokenLength: 1 << 20)
            let relaxedError = try failure(file.path, options: relaxed)
            #expect(relaxedError == nil, "\(String(describing: relaxedError))")
        }
    }

    @Test("The default limit is 16 MiB: a longer <name> fails where its text starts")
    func defaultTokenLimit() throws {
        #expect(GPXReader.Options().maximumTokenLength == 16 << 20)
        let prefix = "<gpx version=\"1.1\">\n<trk><name>"
        let file = try TemporaryFile(prefix)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file.path))
        try handle.seekToEnd()
        let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<17 { try handle.write(contentsOf: block) }
        try handle.close()
        try file.append("</name></trk></gpx>\n")
        let error = try #require(try failure(file.path))
        #expect(error.code == .limitExceeded && error.message.contains("16 MiB"), "\(error)")
        let at = location(after: prefix)
        #expect(error.line == at.line && error.column == at.column, "\(error)")
    }

    @Test("Elements nested deeper than the limit fail at the first one too deep")
    func depthLimit() throws {
        let limit = GPXReader.Options().maximumDepth
        let text = "<gpx>\n" + String(repeating: "<e>\n", count: limit + 10)
        let file = try TemporaryFile(text)
        let error = try #require(try failure(file.path))
        #expect(error.code == .limitExceeded, "\(error)")
        // <gpx> is depth 1, so the element that would be one deeper than the limit is the
        // limit-th <e>, on line limit + 1.
        #expect(error.line == limit + 1 && error.column == 1, "\(error)")
    }
}
