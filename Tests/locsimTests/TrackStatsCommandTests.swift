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

    @Test("An .nmea that holds no NMEA (empty, or a GPX file misnamed) fails (status 1) saying so, not Points 0 and status 0")
    func notNMEA() async throws {
        try await withScratchFolder("locsim-track-stats") { directory in
            let misnamed = directory + "/walk.nmea"
            try FileManager.default.copyItem(atPath: PackagePaths.path("tracks/sf-mission-walk.gpx"), toPath: misnamed)
            let empty = directory + "/empty.log"
            try Data().write(to: URL(fileURLWithPath: empty))
            for (file, says) in [(misnamed, "its first line looks like XML (a GPX file? name it .gpx)"), (empty, "the file is empty")] {
                for command in [["track", "stats", file], ["replay", file, "--fast"]] {
                    let result = try await CLI.run(command)
                    #expect(result.status == 1, "\(command): \(result.stdout)")
                    #expect(result.stdout.isEmpty)
                    #expect(result.stderr.hasPrefix("locsim: error: \(file): noSentences: ") && result.stderr.contains(says), "\(result.stderr)")
                }
            }
        }
    }
}
