import CommandTestHelpers
import Foundation
import LocSimTestHelpers
import Testing

/// `.geojson` and `.kml` routes wherever locsim reads a walk: gpsbabel's export of a shipped walk
/// gives the GPX's statistics and replays; a bad file is refused naming where it is wrong.
@Suite(.timeLimit(.minutes(1))) struct RouteFileCommandTests {
    /// One route format, as gpsbabel writes it and as a bad file of it reads.
    struct Format: Sendable, CustomStringConvertible {
        var fileExtension: String
        /// gpsbabel's `-o` for it.
        var gpsbabel: String
        /// `track stats` figures that must equal the GPX's.
        var sameAsGPX: [String]
        /// What a replay's first line starts with.
        var firstLine: String
        /// A bad file, and what the error names.
        var bad: String
        var badAt: @Sendable (String) -> String
        var description: String { fileExtension }
    }

    static let formats = [
        // An untimed route: the same points, so the same length.
        Format(
            fileExtension: "geojson", gpsbabel: "geojson", sameAsGPX: ["points", "distance_m"], firstLine: #"{"type":"fix""#,
            bad: #"{"type":"LineString","coordinates":[[1,2],[200,3]]}"#, badAt: { "\($0): geometry.coordinates[1]: " }),
        // A timed gx:Track: the same points and duration, from the walk's own first time.
        Format(
            fileExtension: "kml", gpsbabel: "kml,track=1,points=0", sameAsGPX: ["points", "duration_s"],
            firstLine: #"{"type":"fix","t":"2024-11-07T17:20:00.000Z""#,
            bad: "<kml>\n<LineString><coordinates>1,2 3</coordinates></LineString></kml>\n", badAt: { "\($0):2:13: " }),
    ]

    @Test("A route file that does not exist: its path and the system's reason, and the same hint for every format",
          arguments: ["gpx", "nmea", "kml", "geojson"])
    func missing(fileExtension: String) async throws {
        let path = "/nonexistent/walk.\(fileExtension)"
        for command in [["replay", path, "--fast", "--geodata", "geodata"], ["track", "stats", path]] {
            let result = try await CLI.run(command)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.first?.hasPrefix("locsim: error: \(path): cannot ") == true, "\(result.stderr)")
            #expect(lines.first?.hasSuffix(": No such file or directory") == true, "\(result.stderr)")
            #expect(lines.last == "hint: check that the path names a file that exists and can be read", "\(result.stderr)")
        }
    }

    @Test("track stats and replay read gpsbabel's export of a walk; a bad file names where it is wrong", arguments: formats)
    func statsAndReplay(format: Format) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel") else {
            print("skipped: gpsbabel is not installed (scripts/bootstrap.sh installs it)")
            return
        }
        try await withScratchFolder("locsim-route-command") { directory in
            let walk = "tracks/sf-mission-walk.gpx", route = directory + "/walk." + format.fileExtension
            let converted = try await ChildProcess.run(
                ["/usr/bin/gpsbabel", "-i", "gpx", "-f", PackagePaths.path(walk), "-o", format.gpsbabel, "-F", route])
            #expect(converted.termination == .exited(0), "\(converted.errors)")
            func stats(_ file: String) async throws -> [String: Any] {
                let result = try await CLI.run(["track", "stats", file, "--format", "json"])
                #expect(result.status == 0, "\(result.stderr)")
                return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            }
            let fromGPX = try await stats(walk), fromRoute = try await stats(route)
            for key in format.sameAsGPX {
                #expect(fromRoute[key] as? Double == fromGPX[key] as? Double, "\(key): \(fromRoute) vs \(fromGPX)")
            }
            let replay = try await CLI.run(["replay", route, "--fast", "--format", "jsonl", "--geodata", "geodata", "--radius", "100"])
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect(replay.stdout.hasPrefix(format.firstLine), "\(replay.stdout.prefix(120))")
            #expect(replay.stdout.contains(#""type":"fetch""#))
            let bad = directory + "/bad." + format.fileExtension
            try format.bad.write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try await CLI.run(["replay", bad, "--fast", "--geodata", "geodata"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains(format.badAt(bad)), "\(refused.stderr)")
        }
    }
}
