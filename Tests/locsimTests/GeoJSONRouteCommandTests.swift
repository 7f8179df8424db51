import CommandTestHelpers
import Foundation
import LocSimTestHelpers
import Testing

/// `.geojson` routes wherever locsim reads a walk: gpsbabel's GeoJSON export of a shipped walk
/// gives the GPX's statistics (its points, so its length) and replays as a route.
@Suite(.timeLimit(.minutes(1))) struct GeoJSONRouteCommandTests {
    @Test("track stats and replay read gpsbabel's GeoJSON export of a walk; a bad one names the member")
    func statsAndReplay() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") else {
            print("skipped: gpsbabel is not installed (scripts/bootstrap.sh installs it)")
            return
        }
        let directory = NSTemporaryDirectory() + "locsim-geojson-command-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let walk = "tracks/sf-mission-walk.gpx", route = directory + "/walk.geojson"
        let converted = try await ChildProcess.run(
            ["/usr/bin/gpsbabel", "-i", "gpx", "-f", PackagePaths.path(walk), "-o", "geojson", "-F", route])
        #expect(converted.termination == .exited(0), "\(converted.errors)")
        func stats(_ file: String) async throws -> [String: Any] {
            let result = try await CLI.run(["track", "stats", file, "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        let fromGPX = try await stats(walk), fromGeoJSON = try await stats(route)
        for key in ["points", "distance_m"] {
            #expect(fromGeoJSON[key] as? Double == fromGPX[key] as? Double, "\(key): \(fromGeoJSON) vs \(fromGPX)")
        }
        let replay = try await CLI.run(["replay", route, "--fast", "--format", "jsonl", "--geodata", "geodata", "--radius", "100"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains(#""type":"fetch""#))
        let bad = directory + "/bad.geojson"
        try #"{"type":"LineString","coordinates":[[1,2],[200,3]]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try await CLI.run(["replay", bad, "--fast", "--geodata", "geodata"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(bad): geometry.coordinates[1]: "), "\(refused.stderr)")
    }

    @Test("track stats and replay read gpsbabel's KML export of a walk (a timed gx:Track: the walk's own times and duration); a bad one names its line and column")
    func kml() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") else {
            print("skipped: gpsbabel is not installed (scripts/bootstrap.sh installs it)")
            return
        }
        let directory = NSTemporaryDirectory() + "locsim-kml-command-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let walk = "tracks/sf-mission-walk.gpx", route = directory + "/walk.kml"
        let converted = try await ChildProcess.run(
            ["/usr/bin/gpsbabel", "-i", "gpx", "-f", PackagePaths.path(walk), "-o", "kml,track=1,points=0", "-F", route])
        #expect(converted.termination == .exited(0), "\(converted.errors)")
        func stats(_ file: String) async throws -> [String: Any] {
            let result = try await CLI.run(["track", "stats", file, "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        let fromGPX = try await stats(walk), fromKML = try await stats(route)
        for key in ["points", "duration_s"] {
            #expect(fromKML[key] as? Double == fromGPX[key] as? Double, "\(key): \(fromKML) vs \(fromGPX)")
        }
        let replay = try await CLI.run(["replay", route, "--fast", "--format", "jsonl", "--geodata", "geodata", "--radius", "100"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.hasPrefix(#"{"type":"fix","t":"2024-11-07T17:20:00.000Z""#), "\(replay.stdout.prefix(120))")
        let bad = directory + "/bad.kml"
        try "<kml>\n<LineString><coordinates>1,2 3</coordinates></LineString></kml>\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try await CLI.run(["replay", bad, "--fast", "--geodata", "geodata"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(bad):2:13: "), "\(refused.stderr)")
    }
}
