import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import Testing

// Expected values: Tests/LocationCoreTests/Fixtures/text-escaping.json, whose read_content and
// read_attribute are what xml.etree (expat) gives back from text written with only markup
// escaped (scripts/reference/make_text_escaping_reference.py).

@Suite("GPX reader: XML 1.0 line ends and attribute whitespace", .ownThread)
struct GPXReaderTests {
    struct Case: Decodable, CustomStringConvertible {
        let input: [UInt32]
        let json: String
        let read_content: [UInt32]?
        let read_attribute: [UInt32]?

        static func text(_ scalars: [UInt32]) -> String {
            var view = String.UnicodeScalarView()
            for value in scalars { view.append(Unicode.Scalar(value)!) }
            return String(view)
        }
        var description: String { json }
    }

    static func cases() throws -> [Case] {
        let path = PackagePaths.path("Tests/LocationCoreTests/Fixtures/text-escaping.json")
        return try JSONDecoder().decode([Case].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            .filter { $0.read_content != nil }
    }

    /// Only the markup characters escaped: tabs and line ends stand literally in the file.
    static func markupEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    @Test("Literal tabs and line ends read as a conformant XML reader reads them", arguments: try cases())
    func literalWhitespace(_ testCase: Case) throws {
        let text = Self.markupEscaped(Case.text(testCase.input))
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="\(text)"><wpt lat="1" lon="2"><name>\(text)</name></wpt></gpx>
            """
        let document = try GPXDocument(string: gpx)
        // An empty <name></name> is an absent name (xml.etree's None, which the script writes as []).
        let content = Case.text(testCase.read_content ?? [])
        #expect(document.waypoints.first?.name == (content.isEmpty ? nil : content))
        #expect(document.creator == Case.text(testCase.read_attribute ?? []))
    }

    @Test("CR LF and a lone CR are line feeds in CDATA and across a whole file read from disk")
    func lineEnds() throws {
        let gpx = "<?xml version=\"1.0\"?>\r\n<gpx version=\"1.1\" creator=\"a\r\nb\">\r\n"
            + "<trk><name><![CDATA[one\r\ntwo\rthree]]>\r\nfour</name><trkseg>\r\n"
            + "<trkpt lat=\" 35.5\r\n\" lon=\"\t139.7\"><time>\r\n2024-01-01T00:00:00Z\r\n</time></trkpt>\r\n"
            + "</trkseg></trk></gpx>\r\n"
        try withScratchFolder("locsim-gpx-crlf") { folder in
            let path = folder + "/crlf.gpx"
            try Data(gpx.utf8).write(to: URL(fileURLWithPath: path))
            for document in try [GPXDocument(string: gpx), GPXDocument(contentsOfFile: path)] {
                #expect(document.creator == "a b")
                #expect(document.tracks.first?.name == "one\ntwo\nthree\nfour")
                let point = try #require(document.tracks.first?.segments.first?.first)
                #expect(point.coordinate.latitude == 35.5)
                #expect(point.coordinate.longitude == 139.7)
                #expect(point.time == Date(timeIntervalSince1970: 1_704_067_200))
            }
        }
    }

    @Test("Characters written as references are kept: &#13; stays a CR, &#9; in an attribute a tab")
    func references() throws {
        let gpx = """
            <gpx version="1.1" creator="tab&#9;line&#10;cr&#13;"><wpt lat="1" lon="2"><name>a&#13;&#10;b&#13;c</name></wpt></gpx>
            """
        let document = try GPXDocument(string: gpx)
        #expect(document.creator == "tab\tline\ncr\r")
        #expect(document.waypoints.first?.name == "a\r\nb\rc")
    }

    @Test("A literal CR just before a reference, or at the end of a text or an attribute, is a line end of its own")
    func carriageReturnAtEdges() throws {
        let gpx = "<gpx version=\"1.1\" creator=\"x\r\"><wpt lat=\"1\" lon=\"2\"><name>a\r&#10;b\r</name></wpt></gpx>"
        let document = try GPXDocument(string: gpx)
        #expect(document.creator == "x ")
        #expect(document.waypoints.first?.name == "a\n\nb\n")
    }
}
