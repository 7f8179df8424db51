import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim swarm --server` against a real `locsim serve` on loopback, whose fetch-rule audit
/// judges every request. The game runs 10× faster than real time, so the server's interval rule
/// is scaled to match (3 s, with its 1 s tolerance); distances are not scaled.
@Suite(.timeLimit(.minutes(1))) struct SwarmLiveCommandTests {
    static let serveArguments = ["--throttle-interval", "3", "--audit-tolerance", "1", "--log-format", "json"]
    /// 200 players, 60 s of game time in 6 s, all opening the app within the first 1.5 s. In the
    /// middle of the Pacific, where the default index has no places: the answers are empty, so a
    /// debug-built server on a busy machine answers at once even under this load (a 5 km answer in
    /// Tokyo has 2,800 places), and a player ignoring the rule sends at nearly every fix.
    static func swarmArguments(_ base: String) -> [String] {
        [
            "swarm", "--server", base, "--players", "200", "--speed", "10", "--duration", "60s", "--ramp", "15s", "--seed", "5",
            "--area", "0,-150,2000",
        ]
    }

    struct Summary: Decodable {
        struct ErrorCount: Decodable, Equatable {
            var kind: String
            var count: Int
            var first: String
        }
        var players: Int
        var misbehaving: [String]
        var requests: Int
        var answered: Int
        var failed: Int
        var unanswered: Int
        var by_kind: [String: Int]
        var status_codes: [[String: Int]]
        var errors: [ErrorCount]

        /// `status_codes` as status → count.
        var statuses: [Int: Int] {
            Dictionary(uniqueKeysWithValues: status_codes.compactMap { entry in entry["status"].map { ($0, entry["count"] ?? 0) } })
        }
    }

    static func summary(_ stdout: String) throws -> Summary {
        let last = try #require(stdout.split(separator: "\n").last)
        #expect(last.hasPrefix(#"{"type":"swarm_summary""#))
        return try JSONDecoder().decode(Summary.self, from: Data(last.utf8))
    }

    @Test("Ctrl-C while the first requests are held by the server: the summary, exit 0, no 'is the server running' failure")
    func interruptedBeforeAnyAnswer() async throws {
        // Every request held (answered 503 only at the server's shutdown), so none is answered.
        let server = try await ServeProcess.start(["--timeout-rate", "1"])
        defer { server.command.stop() }
        let swarm = try await LiveCommand([
            "swarm", "--server", server.base, "--players", "3", "--duration", "1h", "--ramp", "0", "--area", "0,-150,2000",
            "--format", "jsonl",
        ])
        defer { swarm.stop() }
        try await swarm.wait(for: "a second with requests sent") { lines in
            lines.contains { $0.json?.type == "swarm_second" && ($0.json?.numbers["requests"] ?? 0) > 0 }
        }
        swarm.interrupt()
        #expect(try await swarm.waitForExit(timeout: .seconds(60)) == .exited(0), "\(swarm.account)")
        let summary = try Self.summary(swarm.child.output)
        #expect(summary.answered == 0 && summary.failed == 0 && summary.unanswered > 0)
        #expect(!swarm.child.errors.contains("locsim: error"), "\(swarm.child.errors)")
    }

    @Test("200 players following the rule: every request answered, and the server's audit finds no violation")
    func noViolations() async throws {
        let server = try await ServeProcess.start(Self.serveArguments)
        defer { server.command.stop() }
        let run = try await CLI.run(Self.swarmArguments(server.base) + ["--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try Self.summary(run.stdout)
        #expect(summary.players == 200)
        #expect(summary.misbehaving.isEmpty)
        #expect(summary.answered == summary.requests && summary.failed == 0 && summary.unanswered == 0)
        // Every player opened the app, and the time rule fired for many (a walker every 31 s).
        #expect(summary.by_kind["first"] == 200)
        #expect((summary.by_kind["elapsed"] ?? 0) + (summary.by_kind["moved"] ?? 0) > 100)
        // One jsonl line per wall second, then the summary; the seconds' requests add up.
        let seconds = run.stdout.split(separator: "\n").dropLast()
        #expect(seconds.count >= 6 && seconds.allSatisfy { $0.hasPrefix(#"{"type":"swarm_second""#) })
        // Every line is its record of the typed schema (docs/reference/jsonl.md): members, order, types, rounding.
        for line in run.stdout.split(separator: "\n") {
            #expect(SchemaCheck.problems(String(line)).isEmpty, "\(SchemaCheck.problems(String(line))): \(line)")
        }
        let perSecond = try seconds.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(perSecond.map { $0?["requests"] as? Int ?? 0 }.reduce(0, +) == summary.requests)
        let audit = try await ServeCommandTests().audit(server)
        #expect(audit.violations == 0, "\(audit.clients.filter { $0.violations > 0 }.map(\.client))")
        #expect(audit.clients.count == 200)
        #expect(audit.clients.map { $0.timeline.count }.reduce(0, +) == summary.requests)
        #expect(Set(audit.clients.map(\.client)) == Set((0..<200).map { "player:swarm-\($0)" }))
    }

    @Test("--misbehave 0.05: the audit names exactly the players that ignored the rule, and no other")
    func misbehavingPlayersAreCaught() async throws {
        let server = try await ServeProcess.start(Self.serveArguments)
        defer { server.command.stop() }
        let run = try await CLI.run(Self.swarmArguments(server.base) + ["--misbehave", "0.05", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try Self.summary(run.stdout)
        #expect(!summary.misbehaving.isEmpty && summary.misbehaving.count < 30)
        #expect((summary.by_kind["ignored"] ?? 0) > summary.misbehaving.count * 10)
        let audit = try await ServeCommandTests().audit(server)
        let caught = Set(audit.clients.filter { $0.violations > 0 }.map(\.client))
        #expect(caught == Set(summary.misbehaving.map { "player:" + $0 }))
        for client in audit.clients where caught.contains(client.client) {
            #expect((client.verdicts["too_soon"] ?? 0) > 5, "\(client.client): \(client.verdicts)")
        }
    }

    @Test("--scenario: the players' fixes go through its phone (fixes withheld, the app in the background); still no violation; misuse refused")
    func scenarioPlayers() async throws {
        let scenario = try DeliveryReference.write(
            #"{"device": {"platform": "ios", "distanceFilter": 30}, "app": [{"at": "20s", "state": "background"}, {"at": "40s", "state": "foreground"}]}"#,
            name: "swarm-phone")
        let server = try await ServeProcess.start(Self.serveArguments)
        defer { server.command.stop() }
        let run = try await CLI.run(Self.swarmArguments(server.base) + ["--scenario", scenario, "--scenario-share", "0.5", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let last = try #require(run.stdout.split(separator: "\n").last)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let onPhone = try #require(summary["scenario_players"] as? Int)
        #expect((60...140).contains(onPhone), "\(onPhone) of 200")
        #expect((summary["withheld"] as? Int ?? 0) > onPhone, "\(summary)")
        let audit = try await ServeCommandTests().audit(server)
        #expect(audit.clients.allSatisfy { $0.violations == 0 }, "\(audit.clients.filter { $0.violations > 0 }.map(\.client))")
        let text = try await CLI.run(Self.swarmArguments(server.base) + ["--scenario", scenario, "--duration", "20s", "--ramp", "2s"])
        #expect(text.stdout.contains("  scenario: 200 players on the phone of \(scenario); "), "\(text.stdout)\(text.stderr)")

        for (arguments, message) in [
            (["--virtual", "--scenario", scenario], "--scenario is for runs against --server"),
            (["--server", server.base, "--scenario-share", "0.5"], "--scenario-share needs --scenario FILE"),
            (["--server", server.base, "--scenario", scenario, "--scenario-share", "2"], "--scenario-share must be"),
        ] {
            let refused = try await CLI.run(["swarm", "--players", "2"] + arguments)
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
    }

    @Test("text summary and --report FILE.html; a progress line on a terminal only")
    func reportAndProgress() async throws {
        let server = try await ServeProcess.start(Self.serveArguments)
        defer { server.command.stop() }
        try await withScratchFolder("locsim-swarm-live") { directory in
            let report = directory + "/swarm.html"
            let arguments = ["swarm", "--server", server.base, "--players", "40", "--speed", "10", "--duration", "30s", "--ramp", "5s",
                             "--area", "37.7599,-122.4148,1500"]
            let piped = try await CLI.run(arguments + ["--report", report])
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout.hasPrefix("swarm: 40 players against \(server.base)"))
            #expect(piped.stdout.contains("  latency:  p50 "))
            #expect(piped.stdout.contains("  places per answer: "))
            #expect(piped.stderr.isEmpty, "no progress when piped: \(piped.stderr)")
            let html = try String(contentsOfFile: report, encoding: .utf8)
            for id in ["summary", "requests", "latency", "intervals", "status", "errors"] { #expect(html.contains("id=\"\(id)\"")) }
            let terminal = try await CLI.runOnTerminal(arguments)
            #expect(terminal.status == 0, "\(terminal.output)")
            // Players active, requests in the last second, its p50/p99, errors so far, requests so far.
            #expect(terminal.output.contains(#/\ds  players 40/40  req/s \d+  p50 \d+\.\d ms  p99 \d+\.\d ms  errors 0  requests \d+/#))
        }
    }

    @Test("--speed 1000: the summary says requests went out late in game time (the loop's 1 ms wake-ups are seconds of it), and JSONL has the figures")
    func lateAtHighSpeed() async throws {
        let server = try await ServeProcess.start(Self.serveArguments)
        defer { server.command.stop() }
        let arguments = ["swarm", "--server", server.base, "--players", "20", "--speed", "1000", "--duration", "5m", "--area", "0,-150,2000"]
        let text = try await CLI.run(arguments)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\n  late:     requests went out up to "), "\(text.stdout)")
        #expect(text.stdout.contains("this run did not keep up with --speed 1000.0"), "\(text.stdout)")
        let jsonl = try await CLI.run(arguments + ["--format", "jsonl"])
        #expect(jsonl.status == 0, "\(jsonl.stderr)")
        let last = try #require(jsonl.stdout.split(separator: "\n").last)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let latest = try #require(summary["late_max_s"] as? Double)
        #expect(latest >= 0.5, "\(last)")
        #expect(try #require(summary["late_p99_s"] as? Double) <= latest)
    }

    @Test("--tracks: players walk the repository's GPX tracks from random offsets; still no violation")
    func tracks() async throws {
        // One place near each track, not the default index's thousands: what is judged is when
        // players ask, and 40 players each taking a 2,800-place answer in Tokyo every 3 s (a debug
        // build, on a loaded machine) made their next requests leave late enough to read as early.
        try await withScratchFolder("locsim-swarm-tracks") { directory in
            try "id,name,lat,lon\ntokyo,Tokyo Station,35.6812,139.7671\nsf,Mission Dolores,37.7599,-122.4269\n".write(
                toFile: directory + "/two.csv", atomically: true, encoding: .utf8)
            let imported = try await CLI.run(["index", "import", directory + "/two.csv", "--db", directory + "/two.sqlite"])
            #expect(imported.status == 0, "\(imported.stderr)")
            let server = try await ServeProcess.start(Self.serveArguments + ["--db", directory + "/two.sqlite"])
            defer { server.command.stop() }
            let run = try await CLI.run([
                "swarm", "--server", server.base, "--players", "40", "--speed", "10", "--duration", "60s", "--ramp", "10s", "--tracks", "tracks",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("  players:  following 2 GPX tracks; opening the app over the first 10 s"))
            #expect(run.stdout.contains(" 0 failed, 0 unanswered"))
            let audit = try await ServeCommandTests().audit(server)
            #expect(audit.violations == 0)
            #expect(audit.clients.count == 40)
            let missing = try await CLI.run(["swarm", "--server", server.base, "--players", "2", "--tracks", "geodata"])
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("locsim: error: --tracks geodata: no .gpx file there"))
            // Ended before its folder goes: a server still running could add a file to the folder
            // as it is removed.
            await server.command.child.stopped()
        }
    }

    @Test("--token is sent as Authorization: Bearer; a wrong or missing one is counted as HTTP 401 by status and kind, then exit 1")
    func token() async throws {
        let server = try await ServeProcess.start(Self.serveArguments + ["--token", "s3cret"])
        defer { server.command.stop() }
        let arguments = [
            "swarm", "--server", server.base, "--players", "5", "--speed", "10", "--duration", "40s", "--ramp", "0", "--area", "0,-150,2000",
            "--format", "jsonl",
        ]
        let right = try await CLI.run(arguments + ["--token", "s3cret"])
        #expect(right.status == 0, "\(right.stderr)")
        let answered = try Self.summary(right.stdout)
        #expect(answered.requests >= 10 && answered.answered == answered.requests)
        #expect(answered.statuses == [200: answered.requests] && answered.errors.isEmpty)
        for wrongToken in [["--token", "wrong"], []] {
            let run = try await CLI.run(arguments + wrongToken)
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("locsim: error: no request to \(server.base) was answered with 200 (HTTP 401)"), "\(run.stderr)")
            #expect(run.stderr.hasSuffix("\nhint: the server refused the token: check --token, --token-file or LOCSIM_TOKEN\n"), "\(run.stderr)")
            let refused = try Self.summary(run.stdout)
            // Refused, the players back off and retry as the app does: the first fetch, then retries only.
            #expect(refused.by_kind["first"] == 5 && (refused.by_kind["retry"] ?? 0) > 0)
            #expect(refused.by_kind["first"]! + refused.by_kind["retry"]! == refused.requests)
            #expect(refused.answered == 0 && refused.failed == refused.requests)
            #expect(refused.statuses == [401: refused.requests])
            #expect(refused.errors == [.init(kind: "http", count: refused.requests, first: "HTTP 401")])
        }
        // A path that is no route of the server: the hint says what --server is.
        let wrongPath = try await CLI.run(
            ["swarm", "--server", server.base + "/wrong"] + arguments.dropFirst(3) + ["--token", "s3cret"])
        #expect(wrongPath.status == 1, "\(wrongPath.stderr)")
        #expect(wrongPath.stderr.contains("was answered with 200 (HTTP 404)\nhint: the server has no such route: --server is the base URL"), "\(wrongPath.stderr)")
    }

    @Test("a server's scripted faults (503, no answer, a malformed 200) are each failures of their kind, followed by retries")
    func faults() async throws {
        try await withScratchFolder("locsim-swarm-faults") { directory in
            let script = directory + "/faults.json"
            try #"[{"status": 503}, {"timeout": true}, {"status": 200, "body": "{\"locations\": 5}"}]"#.write(toFile: script, atomically: true, encoding: .utf8)
            let server = try await ServeProcess.start(Self.serveArguments + ["--script", script])
            defer { server.command.stop() }
            // One player, so the script's steps are its first three requests, in order.
            let run = try await CLI.run([
                "swarm", "--server", server.base, "--players", "1", "--speed", "10", "--duration", "60s", "--ramp", "0", "--area", "0,-150,2000",
                "--mix", "walk=1", "--timeout", "500ms", "--format", "jsonl",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let summary = try Self.summary(run.stdout)
            #expect(summary.errors == [
                .init(kind: "http", count: 1, first: "HTTP 503"), .init(kind: "malformed", count: 1, first: #"the answer is not {"locations":[…]}"#),
                .init(kind: "timeout", count: 1, first: "timed out"),
            ])
            #expect(summary.failed == 3 && summary.answered == summary.requests - 3 && summary.answered > 0)
            // The timed-out request has no status; the malformed answer's status was 200.
            #expect(summary.statuses == [200: summary.requests - 2, 503: 1])
            #expect(summary.by_kind["first"] == 1 && summary.by_kind["retry"] == 3)
            #expect((summary.by_kind["elapsed"] ?? 0) + (summary.by_kind["moved"] ?? 0) == summary.requests - 4)
            // Ended before its folder goes: a server still running could add a file to the folder
            // as it is removed.
            await server.command.child.stopped()
        }
    }

    @Test("a server slower than --timeout: every request times out, then exit 1 with a hint naming --timeout")
    func slowerThanTimeout() async throws {
        let server = try await ServeProcess.start(Self.serveArguments + ["--latency", "2s"])
        defer { server.command.stop() }
        let run = try await CLI.run([
            "swarm", "--server", server.base, "--players", "2", "--speed", "10", "--duration", "10s", "--ramp", "0", "--area", "0,-150,2000",
            "--timeout", "300ms",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("was answered with 200 (timed out)\nhint: no answer came within --timeout 300ms:"), "\(run.stderr)")
    }

    @Test("nothing listening: every request fails to connect, so a run of hours stops after 5 s saying why; the summary still comes, then exit 1 with a hint")
    func serverDown() async throws {
        try await LoopbackSocket.withRefusingPort { port in
            let run = try await CLI.run(["swarm", "--server", "http://127.0.0.1:\(port)", "--players", "5", "--duration", "7d", "--ramp", "0"])
            #expect(run.status == 1)
            #expect(run.stdout.contains("  errors:   connect "))
            #expect(run.stderr.hasPrefix(
                "locsim swarm: stopping: no request reached http://127.0.0.1:\(port) in 5 s, every one failed to connect\n"
                    + "locsim: error: no request to http://127.0.0.1:\(port) was answered with 200"), "\(run.stderr)")
            #expect(run.stderr.contains("\nhint: is the server running there"))
        }
    }

    @Test("a host no resolver knows (.invalid, RFC 2606): each failure says 'no such host', and so does the hint")
    func noSuchHost() async throws {
        let run = try await CLI.run(["swarm", "--server", "http://no-such-host.invalid:8080", "--players", "2", "--speed", "20", "--duration", "4s", "--ramp", "0"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("(first: cannot connect: no-such-host.invalid:8080: no such host)"), "\(run.stdout)")
        #expect(run.stderr.hasSuffix("\nhint: check the host name in --server, or give an address such as 127.0.0.1\n"), "\(run.stderr)")
    }

    @Test("bad options stop before anything runs, naming the flag", arguments: [
        (["--server", "https://x"], "--server: https is not supported"),
        (["--server", "http://h:0"], "--server: the port must be 1…65535"),
        (["--server", "http://h/東京"], "--server: the path may hold only URL characters"),
        (["--server", "http://h/a b"], "--server: the path may hold only URL characters"),
        (["--server", "http://h", "--speed", "0"], "--speed must be between"),
        (["--server", "http://h", "--misbehave", "2"], "--misbehave must be between"),
        (["--server", "http://h", "--fail-rate", "0.1"], "--fail-rate is for --virtual"),
        (["--server", "http://h", "--format", "json"], "--format json is for --virtual (against a server, each request is reported as it is made): give --format jsonl"),
        (["--server", "HTTP://h:0"], "--server: the port must be 1…65535"),  // the scheme in any case, as RFC 3986 has it
        (["--virtual", "--misbehave", "0.1"], "--misbehave is for runs against --server"),
        ([], "say where to send the requests with --server URL"),
    ])
    func badOptions(extra: [String], message: String) async throws {
        let run = try await CLI.run(["swarm", "--players", "3"] + extra)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
