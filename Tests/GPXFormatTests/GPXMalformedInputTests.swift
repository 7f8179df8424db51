import Foundation
import GPXFormat
import LocationCore
import Testing
import LocSimTestHelpers

/// Each case marks with `⟨` where the error must be reported; the marker is removed before
/// parsing and its line and column are the expected location.
struct MalformedCase: CustomTestStringConvertible, Sendable {
    var label: String
    var marked: String
    var code: GPXParseError.Code
    var testDescription: String { label }

    var text: String { marked.replacingOccurrences(of: "⟨", with: "") }

    /// 1-based line and column of the marker; at the end of the input when there is none.
    var expectedLocation: (line: Int, column: Int) {
        let prefix = marked.components(separatedBy: "⟨").first!
        let lines = prefix.components(separatedBy: "\n")
        return (lines.count, lines.last!.count + 1)
    }
}

let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\">\n<trk><trkseg>\n"
let tail = "</trkseg></trk>\n</gpx>\n"
let good = "<trkpt lat=\"1\" lon=\"2\"><time>2024-01-01T00:00:00Z</time></trkpt>\n"

let malformedCases: [MalformedCase] = [
    .init(label: "lat is not a number", marked: head + good + "  ⟨<trkpt lat=\"abc\" lon=\"2\"></trkpt>\n" + tail, code: .invalidCoordinate),
    .init(label: "lat is out of range", marked: head + "⟨<trkpt lat=\"95\" lon=\"2\"/>\n" + tail, code: .invalidCoordinate),
    .init(label: "lon is out of range", marked: head + "⟨<trkpt lat=\"5\" lon=\"-180.5\"/>\n" + tail, code: .invalidCoordinate),
    .init(label: "lat is NaN", marked: head + "⟨<trkpt lat=\"NaN\" lon=\"2\"/>\n" + tail, code: .invalidCoordinate),
    .init(label: "lon is missing", marked: head + good + good + "⟨<trkpt lat=\"1\"/>\n" + tail, code: .missingCoordinate),
    .init(label: "lat is missing on a waypoint", marked: "<gpx>\n  ⟨<wpt lon=\"1\"/>\n</gpx>", code: .missingCoordinate),
    .init(label: "time cannot be parsed", marked: head + "<trkpt lat=\"1\" lon=\"2\">\n   ⟨<time>2024-13-01T00:00:00Z</time></trkpt>\n" + tail, code: .invalidTime),
    .init(label: "time is free text", marked: head + "<trkpt lat=\"1\" lon=\"2\">⟨<time>yesterday</time></trkpt>\n" + tail, code: .invalidTime),
    .init(label: "elevation is not a number", marked: head + "<trkpt lat=\"1\" lon=\"2\">⟨<ele>high</ele></trkpt>\n" + tail, code: .invalidNumber),
    .init(label: "truncated inside a point", marked: head + good + "<trkpt lat=\"1\" lon=\"2\"><ele>3</ele>⟨", code: .truncated),
    .init(label: "truncated inside a tag", marked: head + good + "<trkpt lat=\"1\" lo⟨", code: .truncated),
    .init(label: "truncated inside a comment", marked: head + "<!-- never closed\n⟨", code: .truncated),
    .init(label: "mismatched end tag", marked: head + "<trkpt lat=\"1\" lon=\"2\">⟨</trkseg>\n" + tail, code: .malformedXML),
    .init(label: "unknown entity", marked: "<gpx creator=\"a\"><trk><name>Fish ⟨&chips; walk</name></trk></gpx>", code: .malformedXML),
    .init(label: "an attribute twice in one tag", marked: head + good + "<trkpt lat=\"37.9\" lon=\"-122.2\" ⟨lat=\"0\"/>\n" + tail, code: .malformedXML),
    .init(label: "unquoted attribute", marked: "<gpx>\n<wpt lat=⟨1 lon=\"2\"/></gpx>", code: .malformedXML),
    .init(label: "not a GPX file", marked: "<?xml version=\"1.0\"?>\n⟨<kml><Placemark/></kml>", code: .notGPX),
    .init(label: "empty input", marked: "⟨", code: .truncated),
    .init(label: "text after the document", marked: "<gpx></gpx>\n⟨trailing", code: .malformedXML),
    .init(label: "a declared encoding the reader cannot decode", marked: "<?xml version=\"1.0\" encoding=\"⟨GB2312\"?><gpx></gpx>", code: .unsupportedEncoding),
    .init(label: "a NUL byte", marked: head + "<trkpt lat=\"1\" lon=\"2\"><name>ab⟨\u{0}cd</name></trkpt>\n" + tail, code: .malformedXML),
    .init(label: "a NUL byte after the document", marked: "<gpx></gpx>\n⟨\u{0}", code: .malformedXML),
]

@Suite(.ownThread) struct GPXMalformedInputTests {
    @Test("Each bad input gets a typed error naming file, line and column", arguments: malformedCases)
    func strict(_ example: MalformedCase) throws {
        try withScratchFolder("locsim-gpx-malformed") { folder in
            let path = folder + "/bad.gpx"
            try example.text.write(toFile: path, atomically: true, encoding: .utf8)
            do throws(GPXParseError) {
                let document = try GPXDocument(contentsOfFile: path)
                Issue.record("expected \(example.code), read \(document)")
            } catch {
                #expect(error.code == example.code, "\(error)")
                #expect(error.file == path)
                #expect(error.line == example.expectedLocation.line, "\(error)")
                #expect(error.column == example.expectedLocation.column, "\(error)")
                #expect(error.description.hasPrefix("\(path):\(error.line):\(error.column): error: "))
            }
        }
    }

    @Test("Lenient mode skips points with bad coordinates, drops bad values alone, and keeps the rest")
    func lenient() throws {
        let text = head + good
            + "<trkpt lat=\"abc\" lon=\"2\"><time>2024-01-01T00:00:01Z</time></trkpt>\n"
            + good
            + "<trkpt lat=\"1\" lon=\"3\"><time>not a time</time><ele>oops</ele></trkpt>\n"
            + "<trkpt lon=\"2\"/>\n"
            + good + tail
        let reader = GPXReader(string: text, options: .lenient)
        let document = try GPXDocument(reader: reader)
        // The point with a bad time and a bad elevation is kept, without them.
        let points = document.tracks[0].segments[0]
        #expect(points.count == 4)
        #expect(points[2].coordinate.longitude == 3 && points[2].time == nil && points[2].elevation == nil)
        #expect(reader.skippedPoints == 2)
        #expect(reader.droppedValues == 2)
        #expect(reader.problems.map(\.code) == [.invalidCoordinate, .invalidTime, .invalidNumber, .missingCoordinate])
        #expect(reader.problems.map(\.line) == [5, 7, 7, 8])
        let line = text.components(separatedBy: "\n")[6]
        func column(of tag: String) -> Int { line.distance(from: line.startIndex, to: line.range(of: tag)!.lowerBound) + 1 }
        #expect(reader.problems.map(\.column) == [1, column(of: "<time>"), column(of: "<ele>"), 1])
    }

    @Test("A bad coordinate's message quotes the attribute as the file has it", arguments: [
        ("<trkpt lat=\"4x7.5\" lon=\"8.5\"/>", "lat \"4x7.5\" is not a number"),
        ("<trkpt lat=\"47.5\" lon=\" 8,5 \"/>", "lon \" 8,5 \" is not a number"),
        ("<trkpt lat=\"91.000000000000001\" lon=\"8.5\"/>", "lat \"91.000000000000001\" is "),
        ("<trkpt lat=\"47.5\" lon=\"-180.5\"/>", "lon \"-180.5\" is "),
        ("<trkpt lon=\"8.5\"/>", "<trkpt> has no lat attribute"),
        ("<trkpt lat=\"47.5\"/>", "<trkpt> has no lon attribute"),
    ])
    func coordinateMessages(_ point: String, _ message: String) {
        #expect {
            _ = try GPXDocument(string: head + point + "\n" + tail)
        } throws: { error in
            (error as? GPXParseError)?.message.contains(message) == true
        }
    }

    @Test("A value's control and format characters are quoted as \\xHH: an ESC cannot drive the terminal, U+202E cannot turn the line", arguments: [
        ("<trkpt lat=\"35.6\u{1B}[31m8\" lon=\"8.5\"/>", #"lat "35.6\x1B[31m8" is not a number"#),
        ("<trkpt lat=\"1\" lon=\"2\"><time>2024\u{1B}]0;PWNED\u{07}-01-01T00:00:00Z</time></trkpt>", #"<time> "2024\x1B]0;PWNED\x07-01-01T00:00:00Z""#),
        ("<trkpt lat=\"1\" lon=\"2\"><ele>1\u{202E}2</ele></trkpt>", #"<ele> "1\xE2\x80\xAE2" is not a number"#),
    ])
    func controlCharactersEscaped(_ point: String, _ message: String) {
        #expect {
            _ = try GPXDocument(string: head + point + "\n" + tail)
        } throws: { error in
            guard let error = error as? GPXParseError else { return false }
            return error.message.contains(message) && !error.description.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }
        }
    }

    @Test("Lenient mode still stops at malformed XML")
    func lenientMalformed() {
        #expect(throws: GPXParseError.self) {
            _ = try GPXDocument(string: head + "<trkpt lat=\"1\" lon=\"2\"></trk>", options: .lenient)
        }
    }

    @Test("A missing file is an I/O error naming the path")
    func missingFile() {
        #expect {
            _ = try GPXReader(contentsOfFile: "/nonexistent/walk.gpx")
        } throws: { error in
            let error = error as? GPXParseError
            return error?.code == .io && error?.description.contains("/nonexistent/walk.gpx") == true
        }
    }
}
