import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocSimTestHelpers
import Testing

/// A route from a KML file: what gpsbabel (a writer no one here wrote) puts in a KML export of a
/// walk, as a timed `gx:Track` and as a `LineString`, is the walk's own points to KML's precision;
/// every malformed part is named with its line and column.
@Suite(.timeLimit(.minutes(1))) struct KMLRouteTests {
    static func read(_ text: String) throws(GPXParseError) -> KMLLines {
        try KMLLines(bytes: Array(text.utf8), source: "r.kml")
    }

    /// gpsbabel writes 6 decimal places of a degree and 2 of a metre: the largest rounding.
    static let degrees = 0.5e-6, metres = 0.005

    @Test("gpsbabel's KML export of a shipped walk, as a gx:Track (timed) and as a LineString (untimed): the walk's points", arguments: [true, false])
    func gpsbabelExport(track: Bool) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") else {
            print("skipped: gpsbabel is not installed (scripts/bootstrap.sh installs it)")
            return
        }
        let walk = PackagePaths.path("tracks/sf-mission-walk.gpx")
        try await withScratchFolder("locsim-kml") { folder in
            let out = folder + "/walk.kml"
            let converted = try await ChildProcess.run([
                "/usr/bin/gpsbabel", "-i", "gpx", "-f", walk, "-o", track ? "kml,track=1,points=0" : "kml,points=0", "-F", out,
            ])
            #expect(converted.termination == .exited(0), "\(converted.errors)")
            let path = try ReplayPath(kmlFile: out)
            let expected = try GPXDocument(reader: try GPXReader(contentsOfFile: walk)).tracks.flatMap(\.segments).flatMap { $0 }
            #expect(path.kind == (track ? .track : .route))
            #expect(path.segments.count == 1)
            let points = path.segments.flatMap { $0 }
            try #require(points.count == expected.count)
            for (point, original) in zip(points, expected) {
                #expect(abs(point.coordinate.latitude - original.coordinate.latitude) <= Self.degrees)
                #expect(abs(point.coordinate.longitude - original.coordinate.longitude) <= Self.degrees)
                #expect(abs((point.elevation ?? .nan) - (original.elevation ?? .nan)) <= Self.metres)
                #expect(point.time == (track ? original.time : nil))
            }
        }
    }

    @Test("LineStrings in folders, placemarks and MultiGeometry, in file order; markers skipped; a gx:Track makes the file timed")
    func shapes() throws {
        let lines = try Self.read("""
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document><Folder>
              <Placemark><Point><coordinates>0,0</coordinates></Point></Placemark>
              <Placemark><LineString><coordinates>
                139.7671,35.6812,40 139.7672,35.6813
              </coordinates></LineString></Placemark>
              <Placemark><MultiGeometry><LineString><coordinates>10,20 11,21</coordinates></LineString></MultiGeometry></Placemark>
            </Folder></Document></kml>
            """)
        #expect(!lines.isTimed)
        #expect(lines.segments.map { $0.map(\.coordinate.longitude) } == [[139.7671, 139.7672], [10, 11]])
        #expect(lines.segments[0].map(\.elevation) == [40, nil])
        let track = try Self.read("""
            <kml xmlns:gx="http://www.google.com/kml/ext/2.2"><Placemark>
              <LineString><coordinates>1,2 3,4</coordinates></LineString>
              <gx:Track><when>2024-11-07T18:00:00Z</when><when>2024-11-07T18:00:10Z</when>
                <gx:coord>139.7671 35.6812 40</gx:coord><gx:coord>139.7672 35.6813</gx:coord></gx:Track>
            </Placemark></kml>
            """)
        #expect(track.isTimed)
        #expect(track.segments.count == 1, "the LineString beside a track is left out")
        #expect(track.segments[0].map(\.time) == [Date(timeIntervalSince1970: 1_731_002_400), Date(timeIntervalSince1970: 1_731_002_410)])
        #expect(track.segments[0].map(\.coordinate.latitude) == [35.6812, 35.6813])
    }

    @Test("Each malformed part is an error with its line and column", arguments: [
        ("<gpx></gpx>", "notKML", 1, 1),
        ("<kml><Placemark><Point><coordinates>1,2</coordinates></Point></Placemark></kml>", "notKML", 0, 0),
        ("<kml>\n<LineString><coordinates>1,2 3</coordinates></LineString></kml>", "invalidCoordinate", 2, 13),
        ("<kml>\n<LineString><coordinates>1,95</coordinates></LineString></kml>", "invalidCoordinate", 2, 13),
        ("<kml>\n<LineString><coordinates>1,2,high</coordinates></LineString></kml>", "invalidNumber", 2, 13),
        ("<kml><gx:Track>\n<when>soon</when><gx:coord>1 2</gx:coord></gx:Track></kml>", "invalidTime", 2, 1),
        ("<kml><gx:Track><when>2024-11-07T18:00:00Z</when>\n<gx:coord>1,2</gx:coord></gx:Track></kml>", "invalidCoordinate", 2, 1),
        ("<kml><gx:Track><when>2024-11-07T18:00:00Z</when></gx:Track></kml>", "malformedXML", 1, 49),
        ("<kml><LineString></kml>", "malformedXML", 1, 18),
        ("<kml><LineString>", "truncated", 1, 18),
    ] as [(String, String, Int, Int)])
    func malformed(text: String, code: String, line: Int, column: Int) {
        #expect {
            try Self.read(text)
        } throws: { error in
            guard let error = error as? GPXParseError else { return false }
            let matches = error.code.description == code && error.line == line && error.column == column && error.file == "r.kml"
            if !matches { print("\(text): \(error.code) \(error.line):\(error.column) \(error)") }
            return matches
        }
    }
}
