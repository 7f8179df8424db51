import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import Testing

/// Expected values computed by `scripts/reference/make_gpx_reference.py` (gpxpy parsing,
/// GeographicLib WGS-84 geodesics) and committed under Fixtures/reference.
struct GPXReference: Decodable, CustomTestStringConvertible {
    struct Point: Decodable {
        var index: Int?
        var lat: Double
        var lon: Double
        var ele: Double?
        var time: Double?
        var name: String?
    }
    struct Box: Decodable {
        var min_lat: Double, min_lon: Double, max_lat: Double, max_lon: Double
    }
    var file: String
    var tracks: Int
    var segments: Int
    var points: Int
    var route_points: Int
    var waypoints: Int
    var distance_m: Double
    var duration_s: Double?
    var track_names: [String?]
    var bbox: Box?
    var sampled_track_points: [Point]
    var route_point_records: [Point]
    var waypoint_records: [Point]

    var testDescription: String { file }

    static let fixtures = Bundle.module.resourcePath! + "/Fixtures"

    static func load(_ name: String) throws -> GPXReference {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/reference/" + name + ".json"))
        return try JSONDecoder().decode(GPXReference.self, from: data)
    }

    /// Where the GPX file the reference describes lives: the fixtures, or ../shared/data/tracks.
    var path: String {
        let fixture = Self.fixtures + "/" + file
        return FileManager.default.fileExists(atPath: fixture) ? fixture : SharedData.path("tracks/" + file)
    }

    static let projectFixtures = ["bom-gpx10", "garmin-extensions", "antimeridian", "untimed-route"]
    static let sharedRecordings = ["berkeley-run-2015", "orinda-walk-2018", "tokyo-iphone-2018"]
}

@Suite(.ownThread) struct GPXReferenceTests {
    func check(_ reference: GPXReference) throws {
        let stats = try GPXStatistics(reader: GPXReader(contentsOfFile: reference.path))
        #expect(stats.tracks == reference.tracks)
        #expect(stats.segments == reference.segments)
        #expect(stats.points == reference.points)
        #expect(stats.routePoints == reference.route_points)
        #expect(stats.waypoints == reference.waypoints)
        // Our geodesic agrees with GeographicLib to well under a millimetre per pair.
        #expect(abs(stats.distance - reference.distance_m) <= 0.001, "distance \(stats.distance) vs \(reference.distance_m)")
        if let expected = reference.duration_s {
            #expect(abs(try #require(stats.duration) - expected) < 1e-6)
        } else {
            #expect(stats.duration == nil)
        }
        let box = try #require(stats.bounds)
        let expectedBox = try #require(reference.bbox)
        #expect(box.minLatitude == expectedBox.min_lat && box.maxLatitude == expectedBox.max_lat)
        #expect(box.minLongitude == expectedBox.min_lon && box.maxLongitude == expectedBox.max_lon)

        let document = try GPXDocument(contentsOfFile: reference.path)
        #expect(document.tracks.map(\.name) == reference.track_names)
        let points = document.tracks.flatMap { $0.segments.flatMap { $0 } }
        for expected in reference.sampled_track_points {
            let point = points[try #require(expected.index)]
            expectSame(point, expected)
        }
        let routePoints = document.routes.flatMap(\.points)
        for (point, expected) in zip(routePoints, reference.route_point_records) { expectSame(point, expected) }
        for (point, expected) in zip(document.waypoints, reference.waypoint_records) { expectSame(point, expected) }
    }

    func expectSame(_ point: GPXPoint, _ expected: GPXReference.Point, sourceLocation: SourceLocation = #_sourceLocation) {
        // Both parsers round decimals correctly, so coordinates are bit-identical (+180 is -180 here).
        #expect(point.coordinate.latitude == expected.lat, sourceLocation: sourceLocation)
        #expect(point.coordinate.longitude == (expected.lon == 180 ? -180 : expected.lon), sourceLocation: sourceLocation)
        #expect(point.elevation == expected.ele, sourceLocation: sourceLocation)
        if let time = expected.time {
            let actual = point.time?.timeIntervalSince1970 ?? .nan
            #expect(abs(actual - time) < 1e-6, "time \(actual) vs \(time)", sourceLocation: sourceLocation)
        } else {
            #expect(point.time == nil, sourceLocation: sourceLocation)
        }
        #expect(point.name == expected.name, sourceLocation: sourceLocation)
    }

    @Test("Project fixtures match gpxpy and GeographicLib", arguments: GPXReference.projectFixtures)
    func projectFixtures(name: String) throws {
        try check(GPXReference.load(name))
    }

    @Test(
        "Real phone recordings match gpxpy and GeographicLib",
        .enabled(if: SharedData.isPresent, SharedData.absentReason),
        arguments: GPXReference.sharedRecordings)
    func sharedRecordings(name: String) throws {
        try check(GPXReference.load(name))
    }

    @Test("Every GPX in ../shared/data/tracks has a committed reference", .enabled(if: SharedData.isPresent, SharedData.absentReason))
    func everySharedTrackIsCovered() {
        let names = SharedData.files(in: "tracks", withExtension: "gpx").map {
            URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent
        }
        #expect(!names.isEmpty)
        #expect(Set(names).isSubset(of: Set(GPXReference.sharedRecordings)), "run scripts/reference/make_gpx_reference.py")
    }

    @Test("The Tokyo recording's repeated and backwards timestamps are kept as data, in file order",
          .enabled(if: SharedData.isPresent, SharedData.absentReason))
    func keepsOutOfOrderTimes() throws {
        let document = try GPXDocument(contentsOfFile: SharedData.path("tracks/tokyo-iphone-2018.gpx"))
        let times = document.tracks.flatMap { $0.segments.flatMap { $0 } }.compactMap(\.time)
        let repeated = zip(times, times.dropFirst()).filter { $0 == $1 }.count
        #expect(times.count == 4142)
        #expect(repeated > 0)
    }
}
