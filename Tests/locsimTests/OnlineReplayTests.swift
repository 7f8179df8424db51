import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim replay --online` against a real HTTP server on loopback (the stand-in for the game's
/// `GET /locations/nearby` that MapFeatureTests use), started and stopped by the test.
@Suite(.timeLimit(.minutes(1))) struct OnlineReplayTests {

    @Test("Places come from the server, with the bearer token; server failures back off and are reported")
    func online() async throws {
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let ok = try await CLI.run([
            "replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "49:00", "--online", base + "/ok", "--token", "secret",
            "--format", "jsonl",
        ])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains(#""type":"places","t":"2024-11-07T18:09:00.000Z","count":3,"appeared":["echo","42","accept"]"#))

        let down = try await CLI.run([
            "replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "49:00", "--online", base + "/server-error",
            "--format", "jsonl",
        ])
        // Every fetch failed: the timeline and summary are printed, then exit 1 says so.
        #expect(down.status == 1)
        #expect(down.stderr.hasPrefix("locsim: error: every fetch from \(base)/server-error failed"), "\(down.stderr)")
        #expect(down.stdout.split(separator: "\n").last?.contains(#""type":"summary""#) == true)
        let failures = down.stdout.split(separator: "\n").filter { $0.contains(#""type":"fetch_failed""#) }
        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0.contains("HTTP 500") && $0.contains("127.0.0.1:\(server.port)") })
        // Backing off: far fewer attempts than the 60 fixes of the last minute.
        #expect(failures.count < 15)
        #expect(down.stdout.contains(#""reason":"retry""#))
    }

    @Test(
        "Failed fetches are drawn in the report and listed with their errors, one for each fetch_failed line",
        .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func failuresInReport() async throws {
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        try await withScratchFolder("locsim-report") { folder in
            let report = folder + "/report.html"
            let result = try await CLI.run([
                "replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "49:00", "--online",
                "http://127.0.0.1:\(server.port)/server-error", "--format", "jsonl", "--report", report,
            ])
            // Every fetch failed: the command says so and exits 1, after writing the report.
            #expect(result.status == 1, "\(result.stderr)")
            let failed = result.stdout.split(separator: "\n").filter { $0.contains(#""type":"fetch_failed""#) }
            #expect(!failed.isEmpty)
            let html = try await HTMLPage.rendered(report)
            #expect(html.components(separatedBy: #"<g class="fetch-failed">"#).count - 1 == failed.count)
            #expect(html.components(separatedBy: #"<g class="failure-mark">"#).count - 1 == failed.count)
            #expect(html.contains("<h2>Failed fetches (\(failed.count))</h2>"))
            let rows = ReportTests.rows(html, table: "failures")
            #expect(rows.count == min(failed.count, 50))
            #expect(rows.allSatisfy { $0.count == 3 && $0[2].contains("HTTP 500") && $0[2].contains("database is down") }, "\(rows)")
        }
    }

    @Test("--online where every fetch failed (HTTP 500, bad JSON, nothing listening) ends with exit 1 and says why",
          arguments: ["/server-error", "/malformed", "down"])
    func everyFetchFailed(_ scenario: String) async throws {
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        // "down": a port where nothing can be listening for as long as the run lasts.
        try await LoopbackSocket.withRefusingPort { refused in
            let base = scenario == "down" ? "http://127.0.0.1:\(refused)" : "http://127.0.0.1:\(server.port)\(scenario)"
            let result = try await CLI.run(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "49:00", "--online", base])
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 2, "\(result.stderr)")
            #expect(lines.first?.hasPrefix("locsim: error: every fetch from \(base) failed") == true, "\(result.stderr)")
            #expect(lines.last?.hasPrefix("hint: ") == true)
            #expect(result.stdout.contains("Summary"), "the timeline and summary come first")

            // One answer is enough: the run succeeded.
            let ok = try await CLI.run(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "49:00", "--online", "http://127.0.0.1:\(server.port)/ok"])
            #expect(ok.status == 0, "\(ok.stderr)")
        }
    }

    @Test("A place that keeps its id but moves is reported as changed, and encounters use where it is now")
    func movedPlace() async throws {
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        let result = try await CLI.run([
            "replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "49:00", "--online",
            "http://127.0.0.1:\(server.port)/follow", "--format", "jsonl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        // First answer: the place 2.2 km away; the next one moves it onto the player.
        #expect(lines.contains { $0.contains(#""type":"places""#) && $0.contains(#""appeared":["follower"]"#) })
        let changed = try #require(lines.firstIndex { $0.contains(#""changed":["follower"]"#) })
        let encounter = try #require(lines.firstIndex { $0.contains(#""type":"encounter""#) && $0.contains(#""place":"follower""#) })
        #expect(changed < encounter)
    }

    @Test(
        "With --speed and a server that takes a second, answers are stamped in scaled fix time, never going back, and the follow-up is announced once per request",
        .timeLimit(.minutes(1)),
        arguments: ["slow-1s", "slow-1s-fail"])
    func slowServerAtSpeed(scenario: String) async throws {
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        let speed = 50.0
        // The last 2 min 14 s of the walk at 50×: under 3 s of wall time.
        let result = try await CLI.run([
            "replay", "tracks/sf-mission-walk.gpx", "--speed", String(speed), "--start", "48:10", "--online",
            "http://127.0.0.1:\(server.port)/\(scenario)", "--format", "jsonl", "--no-progress",
        ])
        // A server that never answers ends the run with status 1, after the timeline and summary.
        #expect(result.status == (scenario == "slow-1s" ? 0 : 1), "\(result.stderr)")
        struct Record: Decodable {
            var type: String
            var t: String?
            var id: Int?
            var in_flight: Int?
            /// A fix handed to the app later than its own time (after an answer stamped later).
            var delivered: String?
            var time: Date? { t.flatMap(LiveCommand.parseTimestamp) }
            /// When the app saw the line's event: a late fix's delivery, else its time.
            var seen: Date? { delivered.flatMap(LiveCommand.parseTimestamp) ?? time }
        }
        let objects = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        let timed = objects.filter { $0.type != "summary" }
        #expect(timed.allSatisfy { $0.time != nil }, "every line but the summary has a time")
        // Time never goes backwards in the log: a fix emitted late, after an answer stamped
        // later than its own time, says when it was delivered.
        let times = timed.compactMap(\.seen)
        let backwards = zip(times, times.dropFirst()).filter { $0.1 < $0.0 }
        #expect(backwards.isEmpty, "\(backwards.count) backward time steps, e.g. \(backwards.prefix(3))")
        // Each answer comes at least a second of real time after its request: at 50×, 50 s of fix time.
        let sent = Dictionary(
            objects.filter { $0.type == "fetch" }.compactMap { record -> (Int, Date)? in
                guard let id = record.id, let time = record.time else { return nil }
                return (id, time)
            },
            uniquingKeysWith: { first, _ in first })
        let answers = objects.filter { $0.type == "answer" || $0.type == "fetch_failed" }
        #expect(!answers.isEmpty)
        for answer in answers {
            let id = try #require(answer.id)
            let request = try #require(sent[id], "answer #\(id) without its request")
            let time = try #require(answer.time)
            #expect(time.timeIntervalSince(request) >= speed * 1, "answer #\(id) \(time.timeIntervalSince(request)) s after its request")
        }
        // "One follow-up queued": once per request in flight, however many fixes qualified meanwhile.
        let coalesced = objects.filter { $0.type == "coalesced" }.compactMap(\.in_flight)
        #expect(!coalesced.isEmpty || scenario == "slow-1s-fail", "fixes qualified while a request was in flight")
        #expect(coalesced.count == Set(coalesced).count, "coalesced lines per request: \(coalesced)")
    }
}

