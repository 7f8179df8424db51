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
            "time_reversals", "skipped_points", "dropped_values", "cut_off", "skipped_sentences",
        ])
        let text = try String(contentsOfFile: PackagePaths.path("tracks/sf-mission-walk.gpx"), encoding: .utf8)
        #expect(object["points"] as? Int == text.components(separatedBy: "<trkpt ").count - 1)
    }

    /// A 43-fix NMEA log `simulate` writes (a line from 2024-05-01T00:00:00Z), in `directory`.
    static func simulatedLog(in directory: String) async throws -> String {
        let log = directory + "/walk.nmea"
        let made = try await CLI.run([
            "simulate", "line", "--from", "35,139", "--to", "35.0005,139", "--start-time", "2024-05-01T00:00:00Z", "--out", log,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        return log
    }

    @Test("A fix of an NMEA log whose time goes backwards is named by the line its epoch starts on")
    func reversalLine() async throws {
        try await withScratchFolder("locsim-track-stats") { directory in
            let log = try await Self.simulatedLog(in: directory)
            // The first epoch (GSA, RMC, GGA, VTG) moved to the end: its time is then earlier than all before it.
            var lines = try String(contentsOfFile: log, encoding: .utf8).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            try #require(lines.count > 8)
            let first = Array(lines.prefix(4))
            lines.removeFirst(4)
            lines += first
            try (lines.joined(separator: "\r\n") + "\r\n").write(toFile: log, atomically: true, encoding: .utf8)
            let rmc = try #require(first.first { $0.hasPrefix("$GPRMC") })
            let line = try #require(lines.firstIndex(of: rmc)) + 1
            let stats = try await CLI.run(["track", "stats", log])
            #expect(stats.status == 0, "\(stats.stderr)")
            #expect(stats.stderr.contains("\n  \(log):\(line): warning: fix \(lines.count / 4) at 2024-05-01T00:00:00.000Z"), "\(stats.stderr)")
        }
    }

    @Test("--format json counts an NMEA log's skipped bad sentences, as standard error lists them")
    func skippedSentences() async throws {
        try await withScratchFolder("locsim-track-stats") { directory in
            let log = try await Self.simulatedLog(in: directory)
            let whole = try await CLI.run(["track", "stats", log, "--format", "json"])
            #expect(whole.status == 0 && whole.stdout.contains(#""skipped_sentences":0"#), "\(whole.stdout)")
            // The first RMC's checksum broken (so the GGA after it has no date yet: skipped too),
            // and a sentence cut off at the end.
            var lines = try String(contentsOfFile: log, encoding: .utf8).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let rmc = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC") })
            lines[rmc] = String(lines[rmc].dropLast(2)) + (lines[rmc].hasSuffix("00") ? "11" : "00")
            try (lines.joined(separator: "\r\n") + "\r\n$GPRMC,0000").write(toFile: log, atomically: true, encoding: .utf8)
            let damaged = try await CLI.run(["track", "stats", log, "--format", "json"])
            #expect(damaged.status == 0, "\(damaged.stderr)")
            #expect(damaged.stdout.contains(#""skipped_sentences":3"#), "\(damaged.stdout)")
            #expect(damaged.stderr.contains("locsim: warning: skipped 3 bad sentences in \(log) (badChecksum 1, truncated 1, missingDate 1)"), "\(damaged.stderr)")
        }
    }

    @Test("An .nmea that holds no NMEA (empty, a GPX file misnamed, gzip'd, UTF-16) fails (status 1) saying so, not Points 0 and status 0")
    func notNMEA() async throws {
        try await withScratchFolder("locsim-track-stats") { directory in
            let misnamed = directory + "/walk.nmea"
            try FileManager.default.copyItem(atPath: PackagePaths.path("tracks/sf-mission-walk.gpx"), toPath: misnamed)
            let empty = directory + "/empty.log"
            try Data().write(to: URL(fileURLWithPath: empty))
            // A log gzip'd or written as UTF-16 (a Windows shell's redirect), kept under its name.
            let (gzipped, utf16) = (directory + "/gzipped.nmea", directory + "/utf16.nmea")
            let log = directory + "/made.nmea"
            let made = try await CLI.run([
                "simulate", "line", "--from", "35,139", "--to", "35.0005,139", "--start-time", "2024-05-01T00:00:00Z", "--out", log,
            ])
            try #require(made.status == 0, "\(made.stderr)")
            for command in ["gzip -c '\(log)' > '\(gzipped)'", "iconv -f ASCII -t UTF-16 '\(log)' > '\(utf16)'"] {
                let made = try await ChildProcess.run(["/bin/sh", "-c", command])
                #expect(made.status == 0, "\(command): \(made.errors)")
            }
            for (file, says) in [
                (misnamed, "its first line looks like XML (a GPX file? name it .gpx)"), (empty, "the file is empty"),
                (gzipped, "the file is gzip-compressed (it starts with 1F 8B): unpack it first ('gzip -dc "),
                (utf16, "the file is UTF-16LE text (a byte-order mark FF FE), not ASCII: convert it first ('iconv -f UTF-16 "),
            ] {
                for command in [["track", "stats", file], ["replay", file, "--fast"]] {
                    let result = try await CLI.run(command)
                    #expect(result.status == 1, "\(command): \(result.stdout)")
                    #expect(result.stdout.isEmpty)
                    #expect(result.stderr.hasPrefix("locsim: error: \(file): noSentences: ") && result.stderr.contains(says), "\(result.stderr)")
                }
            }
        }
    }

    @Test("A log whose every sentence is damaged fails (status 1) naming the count and the first; one without a fix is no track, not one of no segment")
    func nothingRead() async throws {
        try await withScratchFolder("locsim-track-stats") { directory in
            let log = try await Self.simulatedLog(in: directory)
            let lines = try String(contentsOfFile: log, encoding: .utf8).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            // Every checksum wrong.
            let damaged = lines.map { line in String(line.dropLast(2)) + (line.hasSuffix("00") ? "11" : "00") }
            try (damaged.joined(separator: "\r\n") + "\r\n").write(toFile: log, atomically: true, encoding: .utf8)
            for command in [["track", "stats", log, "--format", "json"], ["replay", log, "--fast"]] {
                let result = try await CLI.run(command)
                #expect(result.status == 1, "\(command): \(result.stdout)")
                #expect(
                    result.stderr.hasPrefix("locsim: error: \(log): noSentences: no sentence could be read: \(lines.count) sentences, each damaged (badChecksum \(lines.count)); the first: \(log):1:"),
                    "\(result.stderr)")
            }
            // Sentences read, but no fix with a position: no track.
            try "$GPRMC,,V,,,,,,,,,,N*53\r\n$GPGGA,,,,,,0,00,99.99,,,,,,*48\r\n".write(toFile: log, atomically: true, encoding: .utf8)
            let noFix = try await CLI.run(["track", "stats", log, "--format", "json"])
            #expect(noFix.status == 0, "\(noFix.stderr)")
            #expect(noFix.stdout.contains(#""tracks":0,"segments":0,"points":0"#), "\(noFix.stdout)")
        }
    }
}
