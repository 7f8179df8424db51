import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

@Suite(.timeLimit(.minutes(1))) struct TrackStatsCommandTests {
    @Test("track stats --format json prints exactly the documented keys, matching the library")
    func json() async throws {
        let result = try await CLI.run(["track", "stats", "tracks/sf-mission-walk.gpx", "--format", "json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == [
            "tracks", "segments", "points", "route_points", "waypoints", "distance_m", "duration_s", "start", "end", "bbox",
        ])
        let text = try String(contentsOfFile: PackagePaths.path("tracks/sf-mission-walk.gpx"), encoding: .utf8)
        #expect(object["points"] as? Int == text.components(separatedBy: "<trkpt ").count - 1)
    }
}
