@testable import GPXFormat
import LocationCore
import LocSimTestHelpers
import Testing

/// The reader's event queue and the line counting of the window it slides over.
@Suite(.ownThread) struct GPXReaderEventTests {
    @Test("A self-closing track, segment or route gives its start and its end, in order, around the points")
    func selfClosingContainers() throws {
        let gpx = """
            <gpx version="1.1" creator="t"><trk/><trk><trkseg/><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>\
            <rte/><wpt lat="3" lon="4"/></gpx>
            """
        let trackPoint = GPXPoint(coordinate: try Coordinate(latitude: 1, longitude: 2))
        let waypoint = GPXPoint(coordinate: try Coordinate(latitude: 3, longitude: 4))
        let expected: [GPXEvent] = [
            .trackStarted, .trackEnded(name: nil),
            .trackStarted, .segmentStarted, .segmentEnded, .segmentStarted, .point(trackPoint, .trackPoint), .segmentEnded,
            .trackEnded(name: nil),
            .routeStarted, .routeEnded(name: nil),
            .point(waypoint, .waypoint),
        ]
        for chunkSize in [1, 2, 5, 1 << 18] {
            let reader = GPXReader(bytes: Array(gpx.utf8), readsDeclaration: false, options: .strict, chunkSize: chunkSize)
            #expect(try reader.allEvents() == expected, "chunk size \(chunkSize)")
            #expect(try reader.next() == nil, "the end stays the end")
        }
    }

    @Test("An error's line and column count lines and characters over every window slid out before it")
    func locationAfterManyWindows() throws {
        var lines = ["<gpx version=\"1.1\" creator=\"t\">", "<trk><name>Zürich – 日本 🚶</name>"]
        for i in 0..<60 { lines.append("<!-- \(i) é日本🚶 --><trkseg>\r</trkseg>") }
        let last = "  é🚶<trkseg>"
        lines.append(last + "</trk>")
        let text = lines.joined(separator: "\n")
        for chunkSize in [1, 3, 7, 64, 1 << 18] {
            let reader = GPXReader(bytes: Array(text.utf8), readsDeclaration: false, options: .strict, chunkSize: chunkSize)
            let error = try #require(throws: GPXParseError.self) { try reader.allEvents() }
            #expect(error.message == "</trk> does not close <trkseg>", "chunk size \(chunkSize)")
            #expect(error.line == lines.count, "chunk size \(chunkSize)")
            #expect(error.column == last.unicodeScalars.count + 1, "chunk size \(chunkSize)")
        }
    }
}

extension GPXReader {
    /// Every event to the end of the input (the tests' one way to read a whole reader).
    func allEvents() throws -> [GPXEvent] {
        var all: [GPXEvent] = []
        while let event = try next() { all.append(event) }
        return all
    }
}
