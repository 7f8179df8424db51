import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// Not serialized (``ScenarioCommandTests`` says why): each test runs its own child processes
/// and writes only files of its own.
@Suite(.timeLimit(.minutes(1))) struct CommandTests {
    static let commands: [[String]] = [
        [], ["replay"], ["simulate"], ["track", "stats"], ["index", "import"], ["index", "query"], ["index", "stats"],
        ["gpsd"], ["nmea", "serve"], ["serve"], ["swarm"],
    ]

    @Test("--help of every command matches its golden file", arguments: commands)
    func help(command: [String]) async throws {
        let result = try await CLI.run(command + ["--help"])
        #expect(result.status == 0)
        let name = "help-" + (command.isEmpty ? "locsim" : command.joined(separator: "-")) + ".txt"
        try CLI.expectGolden(result.stdout, name)
    }

    @Test("A --fast replay of a shipped walk gives the golden jsonl, byte for byte, every time")
    func replayGolden() async throws {
        let arguments = [
            "replay", "tracks/sf-mission-walk.gpx", "--fast", "--format", "jsonl", "--start", "40:00", "--radius", "800",
            "--geodata", "geodata",
        ]
        let first = try await CLI.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await CLI.run(arguments)
        #expect(first.stdout == second.stdout)
        try CLI.expectGolden(first.stdout, "replay-sf-mission-fast.jsonl")

        // Every line is one compact JSON object; the last is the summary.
        let lines = first.stdout.split(separator: "\n")
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["type"] is String)
            if object["type"] as? String != "summary" {
                let t = try #require(object["t"] as? String)
                #expect(t.count == 24 && t.hasSuffix("Z"), "t is ISO-8601 UTC with milliseconds: \(t)")
            }
        }
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        #expect(summary["type"] as? String == "summary")
        for key in ["fixes", "distance_m", "duration_s", "fetches_by_reason", "places_seen", "encounters", "busiest_minute_fetches"] {
            #expect(summary[key] != nil, "summary has \(key)")
        }
        #expect(lines.contains { $0.contains(#""type":"fetch""#) && $0.contains(#""reason":"first""#) })
        #expect(lines.contains { $0.contains(#""type":"places""#) && $0.contains(#""appeared":[""#) })
    }

    @Test(
        "The HTML report is self-contained and holds the map, fetches, places, timeline and summary",
        .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func htmlReport() async throws {
        try await withScratchFolder("locsim-report") { folder in
            let report = folder + "/report.html"
            let result = try await CLI.run([
                "replay", "tracks/tokyo-marunouchi-walk.gpx", "--fast", "--radius", "1500", "--report", report,
                "--geodata", "geodata",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            // Nothing to fetch: no scripts, stylesheets, images or links to elsewhere.
            #expect(HTMLPage.externalReferences(in: try String(contentsOfFile: report, encoding: .utf8)) == [])
            let html = try await HTMLPage.rendered(report)
            for element in [
                #"<svg id="map""#, #"<polyline class="track""#, #"class="fetch fetch-first""#, #"class="fetch fetch-elapsed""#,
                #"class="fetch-radius""#, #"class="place""#, #"class="encounter""#, #"<svg id="timeline""#,
                #"class="place-count""#, #"<table id="summary""#,
            ] {
                #expect(html.contains(element), "report lacks \(element)")
            }
            // The summary in the report agrees with the printed one.
            #expect(result.stdout.contains("encounters:"))
        }
    }

    @Test("Exit codes: 0 success, 1 runtime failure, 2 usage error; messages say what and where")
    func exitCodes() async throws {
        let missing = try await CLI.run(["replay", "/nonexistent/walk.gpx", "--fast"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/walk.gpx"))

        try await withScratchFolder("locsim-bad-track") { folder in
            let bad = folder + "/bad.gpx"
            try "<gpx>\n<trk><trkseg>\n<trkpt lat=\"abc\" lon=\"1\"/>\n</trkseg></trk></gpx>\n".write(toFile: bad, atomically: true, encoding: .utf8)
            let malformed = try await CLI.run(["replay", bad, "--fast"])
            #expect(malformed.status == 1)
            #expect(malformed.stderr.contains("\(bad):3:1:"), "\(malformed.stderr)")
        }

        let notIndex = try await CLI.run(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--db", "README.md"])
        #expect(notIndex.status == 1)
        #expect(notIndex.stderr.contains("not a locsim index"))

        try await LoopbackSocket.withRefusingPort { port in
            let gpsd = try await CLI.run(["replay", "--gpsd", "127.0.0.1:\(port)"])
            #expect(gpsd.status == 1)
            // The receiver's own words, not Swift type or code names.
            #expect(gpsd.stderr.hasPrefix("locsim: error: gpsd at 127.0.0.1:\(port): connection refused"), "\(gpsd.stderr)")
            #expect(!gpsd.stderr.contains("GPSDError") && !gpsd.stderr.contains("locationUnavailable"))
            // No fix came: no summary of zeros before the error.
            #expect(gpsd.stdout.isEmpty, "\(gpsd.stdout)")

            let server = try await CLI.run(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--online", "http://127.0.0.1:\(port)"])
            #expect(server.status == 0 || server.status == 1)
            #expect(server.stdout.contains("failed") || server.stderr.contains("127.0.0.1:\(port)"))

            for usage in [
                ["replay", "tracks/sf-mission-walk.gpx", "--speed", "0"],
                ["replay", "tracks/sf-mission-walk.gpx", "--fast", "--loop"],
                ["replay"],
                ["replay", "tracks/sf-mission-walk.gpx", "--no-such-option"],
                ["simulate", "circle"],
                ["simulate", "line", "--from", "95,0", "--to", "0,0"],
                ["track", "stats"],
            ] {
                let result = try await CLI.run(usage)
                #expect(result.status == 2, "\(usage) → \(result.status): \(result.stderr)")
                #expect(!result.stderr.isEmpty)
            }
            #expect(try await CLI.run(["track", "stats", "tracks/sf-mission-walk.gpx"]).status == 0)
        }
    }

    @Test("Progress appears only on a terminal, on standard error, never on piped output")
    func progressOnlyOnTTY() async throws {
        let arguments = ["replay", "tracks/tokyo-marunouchi-walk.gpx", "--speed", "1000", "--start", "58:00", "--geodata", "geodata"]
        let piped = try await CLI.run(arguments)
        #expect(piped.status == 0)
        #expect(!piped.stdout.contains("\u{1B}[K") && !piped.stderr.contains("\u{1B}[K"))
        #expect(!piped.stdout.contains("remaining"))

        let (status, output) = try await CLI.runOnTerminal(arguments)
        #expect(status == 0, "\(output)")
        #expect(output.contains("\u{1B}[K"), "the status line is redrawn in place")
        #expect(output.contains("remaining") && output.contains("fetches") && output.contains("places on map"))
        #expect(output.contains("%"))
        // A terminal that cannot redraw a line in place (an Emacs shell buffer, TERM=dumb) or
        // that does not say what it is gets no progress line.
        for term in ["dumb", nil] as [String?] {
            let (plainStatus, plain) = try await CLI.runOnTerminal(arguments, term: term)
            #expect(plainStatus == 0, "\(plain)")
            #expect(!plain.contains("\u{1B}[K") && !plain.contains("remaining"), "TERM=\(term ?? "(unset)"): \(plain.prefix(300))")
        }
    }
}
