import Foundation
import GPXFormat
import LocationCore
@testable import LocationSimulation
import LocSimTestHelpers
import Testing

/// A route from a GeoJSON file: the positions gpsbabel (a writer no one here wrote) puts in a
/// GeoJSON export of a walk are the walk's own points; every malformed member is named.
@Suite(.timeLimit(.minutes(1))) struct GeoJSONRouteTests {
    static func read(_ text: String) throws(JSONFileError) -> ReplayPath {
        try ReplayPath(geoJSON: Array(text.utf8), source: "r.geojson")
    }

    @Test("gpsbabel's GeoJSON export of a shipped walk: the walk's points, elevations and all, as one untimed segment")
    func gpsbabelExport() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") else {
            print("skipped: gpsbabel is not installed (scripts/bootstrap.sh installs it)")
            return
        }
        let walk = PackagePaths.path("tracks/sf-mission-walk.gpx")
        try await withScratchFolder("locsim-geojson") { folder in
            let out = folder + "/walk.geojson"
            let converted = try await ChildProcess.run(["/usr/bin/gpsbabel", "-i", "gpx", "-f", walk, "-o", "geojson", "-F", out])
            #expect(converted.termination == .exited(0), "\(converted.errors)")
            let path = try ReplayPath(geoJSON: Array(try Data(contentsOf: URL(fileURLWithPath: out))), source: out)
            let document = try GPXDocument(reader: try GPXReader(contentsOfFile: walk))
            let expected = document.tracks.flatMap(\.segments).flatMap { $0 }
            #expect(path.kind == .route)
            #expect(path.segments.count == 1)
            let points = path.segments.flatMap { $0 }
            #expect(points.count == expected.count)
            #expect(points.map(\.coordinate) == expected.map(\.coordinate))
            #expect(points.map(\.elevation) == expected.map(\.elevation))
            #expect(points.allSatisfy { $0.time == nil })
        }
    }

    @Test("Feature, bare geometry, MultiLineString and GeometryCollection; markers skipped; coordTimes make a timed track")
    func shapes() throws {
        let feature = try Self.read(
            #"{"type":"Feature","properties":{"coordTimes":["2024-11-07T18:00:00Z","2024-11-07T18:00:10Z"]},"geometry":{"type":"LineString","coordinates":[[139.7671,35.6812,40],[139.7672,35.6813]]}}"#)
        #expect(feature.kind == .track)
        #expect(feature.segments.flatMap { $0 }.map(\.time) == [
            Date(timeIntervalSince1970: 1_731_002_400), Date(timeIntervalSince1970: 1_731_002_410),
        ])
        #expect(feature.segments[0][0].elevation == 40 && feature.segments[0][1].elevation == nil)
        let bare = try Self.read(#"{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8]]]}"#)
        #expect(bare.segments.map { $0.map(\.coordinate.latitude) } == [[2, 4], [6, 8]])
        let collection = try Self.read(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":null},{"type":"Feature","geometry":null},{"type":"Feature","geometry":{"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[10,20],[11,21]]}]}}]}"#)
        #expect(collection.segments.map { $0.map(\.coordinate.longitude) } == [[10, 11]])
    }

    @Test("Each malformed member is an error naming the file and the member", arguments: [
        ("not json", nil),
        (#"{"features":[]}"#, "type"),
        (#"{"type":"FeatureCollection","features":{}}"#, "features"),
        (#"{"type":"FeatureCollection","features":[]}"#, nil),
        (#"{"type":"FeatureCollection","features":[{"type":"Feature"}]}"#, "features[0].geometry"),
        (#"{"type":"Feature","geometry":{"type":"Line","coordinates":[]}}"#, "feature.geometry.type"),
        (#"{"type":"LineString","coordinates":[[1,2],[3]]}"#, "geometry.coordinates[1]"),
        (#"{"type":"LineString","coordinates":[[1,2],[200,3]]}"#, "geometry.coordinates[1]"),
        (#"{"type":"LineString","coordinates":[[1,95],[2,3]]}"#, "geometry.coordinates[0]"),
        (#"{"type":"LineString","coordinates":[[1,2,"high"]]}"#, "geometry.coordinates[0]"),
        (#"{"type":"LineString","coordinates":"1,2"}"#, "geometry.coordinates"),
        (#"{"type":"Feature","properties":{"coordTimes":["2024-11-07T18:00:00Z"]},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}"#,
         "feature.geometry.coordinates"),
        (#"{"type":"Feature","properties":{"coordTimes":["soon","later"]},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}"#,
         "feature.properties.coordTimes[0]"),
    ] as [(String, String?)])
    func malformed(text: String, keyPath: String?) {
        #expect {
            try Self.read(text)
        } throws: { error in
            guard let error = error as? JSONFileError else { return false }
            return error.keyPath == keyPath && error.description.hasPrefix("r.geojson: ")
        }
    }

    @Test("A route file that cannot be read says which and the system's reason")
    func unreadable() throws {
        try withScratchFolder("locsim-geojson") { directory in
            for (path, reason) in [("/nonexistent/walk.geojson", "No such file or directory"), (directory, "Is a directory")] {
                #expect {
                    try ReplayPath(geoJSONFile: path)
                } throws: { error in
                    (error as? JSONFileError)?.description == "\(path): cannot read the route: \(reason)"
                }
            }
        }
    }
}
