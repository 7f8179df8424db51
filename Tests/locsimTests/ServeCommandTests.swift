#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim serve` as a real process on loopback, called by real clients: `locsim replay --online`,
/// URLSession, and the test itself. Port 0 everywhere: the server prints the port it bound.
@Suite(.timeLimit(.minutes(1))) struct ServeCommandTests {
    func get(_ url: String, headers: [String: String] = [:]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = 60
        // A session of its own: the shared one queues requests beyond a few per host, which would
        // hold a /audit behind the load it is meant to observe.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    struct Audit: Decodable {
        struct Client: Decodable {
            struct Entry: Decodable {
                var verdict: String
                var reason: String
                var status: Int?
            }
            var client: String
            var violations: Int
            var verdicts: [String: Int]
            var timeline: [Entry]
        }
        var violations: Int
        var next: Int?
        var clients: [Client]
    }

    /// The whole audit: its pages followed from the first (`next`), each client's timelines joined.
    func audit(_ server: ServeProcess) async throws -> Audit {
        var whole = try JSONDecoder().decode(Audit.self, from: try await get(server.base + "/audit?limit=10000").body)
        while let next = whole.next {
            let page = try JSONDecoder().decode(Audit.self, from: try await get(server.base + "/audit?limit=10000&cursor=\(next)").body)
            // Clients only ever join the end of the list; counts are the latest page's.
            var clients = page.clients
            for (index, client) in whole.clients.enumerated() where index < clients.count && clients[index].client == client.client {
                clients[index].timeline = client.timeline + clients[index].timeline
            }
            whole = Audit(violations: page.violations, next: page.next, clients: clients)
        }
        return whole
    }

    @Test("replay --online against locsim serve gives the same places and fetch log as replay --db on the same index")
    func onlineReplayMatchesDatabase() async throws {
        try await withScratchFolder("locsim-serve-command") { directory in
            let db = directory + "/sf.sqlite"
            let imported = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--db", db])
            #expect(imported.status == 0, "\(imported.stderr)")
            let server = try await ServeProcess.start(["--db", db])
            defer { server.command.stop() }
            let common = ["replay", "tracks/sf-mission-walk.gpx", "--fast", "--format", "jsonl"]
            let online = try await CLI.run(common + ["--online", server.base])
            let offline = try await CLI.run(common + ["--db", db])
            #expect(online.status == 0, "\(online.stderr)")
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(online.stdout.split(separator: "\n").count > 100)
            #expect(online.stdout == offline.stdout)
            // The server saw every fetch of the log, and answered each.
            let fetches = offline.stdout.split(separator: "\n").filter { $0.contains(#""type":"fetch""#) }.count
            let served = server.command.lines.filter { $0.text.contains(" GET /locations/nearby?") && $0.text.contains(" 200 ") }
            #expect(served.count == fetches)
            server.command.interrupt()
            #expect(try await server.command.waitForExit() == .exited(0))
        }
    }

    @Test("SIGTERM under load: every request in flight is answered in full, then exit 0")
    func sigtermLosesNoAnswer() async throws {
        // At debug the server logs each request as it arrives: the test knows when all are in.
        let server = try await ServeProcess.start(["--latency", "1500ms", "--log-level", "debug"])
        defer { server.command.stop() }
        let count = 32
        // A raw socket per request, each on a thread of its own: an empty reply is the server's,
        // not URLSession's (swift-corelibs-foundation#3292 shows as "Empty reply" under load). A
        // failed call says how the server was (once, beside two CPU hogs, the first request here
        // was closed unanswered).
        let path = "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300&limit=5"
        let expected = try await server.call("GET", path)
        #expect(expected.status == 200)
        async let answers = withThrowingTaskGroup(of: (Int, String).self) { group in
            for i in 0..<count {
                group.addTask {
                    let answer = try await server.call("GET", path, headers: ["X-Player-ID": "load-\(i)"])
                    return (answer.status, answer.body)
                }
            }
            var all: [(Int, String)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        // Once the server's log says every one of them has arrived (each is then held for the
        // latency), SIGTERM.
        try await server.command.wait(for: "\(count) requests arrived", timeout: .seconds(60)) { _ in
            let arrived = Set(server.command.child.errors.split(separator: "\n").filter { $0.contains("] arrived: GET ") }
                .compactMap { line in line.firstRange(of: "client=player:load-").map { found in line[found.upperBound...].prefix(while: \.isNumber) } })
            return arrived.count == count
        }
        server.command.child.send(SIGTERM)
        let results = try await answers
        #expect(results.count == count)
        #expect(results.allSatisfy { $0.0 == 200 && $0.1 == expected.body })
        #expect(try await server.command.waitForExit() == .exited(0))
    }

    @Test("A second signal during the drain stops at once: the held request is cut off, the audit still said and written, exit 130")
    func secondSignalForces() async throws {
        try await withScratchFolder("locsim-serve-command") { directory in
            let report = directory + "/audit.html"
            // Held for an hour: only the second signal can end this drain.
            let server = try await ServeProcess.start(["--latency", "1h", "--log-level", "debug", "--audit-report", report])
            defer { server.command.stop() }
            // Nil when the connection is closed unanswered.
            async let held = try? await server.call("GET", "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300", headers: ["X-Player-ID": "held"])
            try await server.command.wait(for: "the held request's arrival", timeout: .seconds(60)) { _ in
                server.command.child.errors.contains("client=player:held")
            }
            server.command.interrupt()
            try await server.command.wait(for: "the stopping line", timeout: .seconds(60)) { _ in
                server.command.child.errors.contains("locsim serve: stopping: ")
            }
            #expect(server.command.child.errors.contains("(1 connection open; a second signal stops at once)"), "\(server.command.child.errors)")
            server.command.interrupt()
            #expect(try await server.command.waitForExit() == .exited(130))
            // The held request got no answer: its connection was closed.
            if let answer = await held { Issue.record("the held request was answered: \(answer.status)") }
            let errors = server.command.child.errors
            let forced = try #require(errors.range(of: "locsim serve: stopped at a second SIGINT, cutting the drain short; connections closed unanswered: 1\n"), "\(errors)")
            let stopped = try #require(errors.range(of: "locsim serve: stopped; audit: "), "\(errors)")
            #expect(stopped.lowerBound < forced.lowerBound)
            #expect(errors.contains("audit report written to \(report)"))
            #expect(FileManager.default.fileExists(atPath: report))
            // The access log says it was cut off (nginx's 444), not the 200 its handler would have made.
            let log = (server.command.child.output + errors).split(separator: "\n").filter { $0.contains(" player:held GET ") }
            #expect(log.count == 1, "\(log)")
            #expect(log.first?.contains(" 444 ") == true, "\(log)")
            #expect(log.first?.contains("fault: delay, cut off by the server's stop after ") == true, "\(log)")
            #expect(log.first?.contains(" places") == false, "\(log)")
        }
    }

    @Test(
        "A SIGTERM while serve starts (reading --token-file) ends it at once saying so, exit 143, as every command's: its signals are caught from main, not from when the servers run",
        .ownThread)
    func signalDuringStart() async throws {
        try await withScratchFolder("locsim-serve-command") { directory in
            // A FIFO as the token file: once this test's open for writing returns, serve has opened
            // it and waits to read it, before any server runs; nothing is ever written.
            let tokenFile = directory + "/token"
            try #require(mkfifo(tokenFile, 0o600) == 0)
            let child = try await ChildProcess([CLI.binary, "serve", "--port", "0", "--token-file", tokenFile])
            defer { child.stop() }
            // Blocks this test's own thread (.ownThread), not the pool, until the reader is there.
            let writer = open(tokenFile, O_WRONLY)
            try #require(writer >= 0)
            defer { close(writer) }
            child.send(SIGTERM)
            let termination = try await child.waitForExit(timeout: .seconds(30))
            #expect(termination == .exited(143), "\(child.errors)")
            #expect(child.errors.contains("locsim: interrupted (SIGTERM) before writing anything"), "\(child.errors)")
            #expect(child.output.isEmpty)
        }
    }

    @Test("--log-level debug logs each request as it arrives, credentials redacted; at trace the token still never shows; the default logs no arrivals")
    func logLevel() async throws {
        let token = "t0k3n-never-logged"
        let path = "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300&access_token=\(token)"
        let server = try await ServeProcess.start(["--token", token, "--log-level", "trace"])
        defer { server.command.stop() }
        #expect(try await server.call("GET", path, headers: ["X-Player-ID": "logged"]).status == 200)
        let arrival = "arrived: GET /locations/nearby?lat=37.7599&lng=-122.4148&radius=300&access_token=REDACTED"
        try await server.command.wait(for: "the arrival line") { _ in
            server.command.child.errors.split(separator: "\n").contains { $0.contains("client=player:logged") && $0.hasSuffix(arrival) }
        }
        server.command.child.send(SIGTERM)
        #expect(try await server.command.waitForExit() == .exited(0))
        // Everything it wrote: the service group's account of its services, Hummingbird's and
        // the access log included.
        #expect(!server.command.child.errors.contains(token))
        #expect(!server.command.lines.contains { $0.text.contains(token) })

        let quiet = try await ServeProcess.start([])
        defer { quiet.command.stop() }
        #expect(try await quiet.call("GET", path).status == 200)
        quiet.command.child.send(SIGTERM)
        #expect(try await quiet.command.waitForExit() == .exited(0))
        #expect(!quiet.command.child.errors.contains("arrived:"), "\(quiet.command.child.errors)")
        #expect(quiet.command.lines.contains { $0.text.contains("GET /locations/nearby?") && $0.text.contains("access_token=REDACTED") })
    }

    @Test("The batched access log: a quiet server's line appears on its own, and no line is lost at SIGTERM")
    func accessLogIsComplete() async throws {
        let server = try await ServeProcess.start([])
        defer { server.command.stop() }
        let url = server.base + "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300&limit=5"
        // One request, then nothing: the periodic flush writes its line without more traffic.
        #expect(try await get(url, headers: ["X-Player-ID": "quiet"]).status == 200)
        try await server.command.wait(for: "the quiet request's log line", timeout: .seconds(60)) { lines in
            lines.contains { $0.text.contains(" player:quiet GET /locations/nearby?") }
        }
        // Then a burst from many clients, and SIGTERM straight after the last answer.
        let count = 200
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<count {
                group.addTask { try await self.get(url, headers: ["X-Player-ID": "burst-\(i)"]).status }
            }
            for try await status in group { #expect(status == 200) }
        }
        server.command.child.send(SIGTERM)
        #expect(try await server.command.waitForExit() == .exited(0))
        let logged = server.command.lines.filter { $0.text.contains(" GET /locations/nearby?") }
        #expect(logged.count == count + 1)
        let players = Set(logged.compactMap { $0.text.split(separator: " ").dropFirst().first.map(String.init) })
        #expect(players.count == count + 1)
        #expect(players.contains("player:burst-0") && players.contains("player:burst-\(count - 1)"))
    }

    @Test("--audit-strict: a client polling too often makes the process exit 1 and names it")
    func auditStrict() async throws {
        try await withScratchFolder("locsim-serve-command") { directory in
            let report = directory + "/audit.html"
            // An hour's interval: the three requests are too soon however slow the machine is
            // (under AddressSanitizer the second came more than 30 s after the first).
            let server = try await ServeProcess.start(["--audit-strict", "--audit-report", report, "--throttle-interval", "3600"])
            defer { server.command.stop() }
            for _ in 0..<3 {
                let answer = try await get(server.base + "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300", headers: ["X-Player-ID": "qa-loop"])
                #expect(answer.status == 200)
            }
            let audit = try await audit(server)
            #expect(audit.violations == 2)
            #expect(audit.clients.first?.timeline.map(\.verdict) == ["first", "too_soon", "too_soon"])
            // The access log goes out in batches (every 100 ms on a quiet server): wait for the line.
            try await server.command.wait(for: "the access log's too-soon line", timeout: .seconds(60)) { lines in
                lines.contains { $0.text.contains("player:qa-loop") && $0.text.contains("too_soon (TOO SOON: 0 m and ") }
            }
            server.command.interrupt()
            #expect(try await server.command.waitForExit() == .exited(1))
            #expect(server.command.child.errors.contains("player:qa-loop: 2 of 3 requests broke the fetch rule"))
            // The HTML report was written on the way out, with the client and its two violations
            // (the page's data: what `GET /audit` answers; AuditTests see it drawn).
            let html = try String(contentsOfFile: report, encoding: .utf8)
            #expect(html.contains(#""client":"player:qa-loop","requests":3,"violations":2,"#))
            #expect(html.contains(#""too_soon":2"#))
            #expect(html.contains("TOO SOON: 0 m and "))
        }
    }

    @Test("An audit report whose folder went away during the run: the audit's lines still printed, then the error")
    func auditReportFolderGone() async throws {
        try await withScratchFolder("locsim-serve-command") { directory in
            let folder = directory + "/reports"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let server = try await ServeProcess.start(["--audit-strict", "--audit-report", folder + "/audit.html", "--throttle-interval", "3600"])
            defer { server.command.stop() }
            for _ in 0..<2 {
                let answer = try await get(server.base + "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300", headers: ["X-Player-ID": "qa-gone"])
                #expect(answer.status == 200)
            }
            try FileManager.default.removeItem(atPath: folder)
            server.command.child.send(SIGTERM)
            #expect(try await server.command.waitForExit() == .exited(1))
            let errors = server.command.child.errors
            let stopped = try #require(errors.range(of: "locsim serve: stopped; audit: 2 requests from 1 client, 1 violation\n"), "\(errors)")
            // Said at the signal, before the drain: a stop under way is not a hang.
            let stopping = try #require(errors.range(of: "locsim serve: stopping: no new connections; the requests in flight are answered first ("), "\(errors)")
            #expect(stopping.lowerBound < stopped.lowerBound)
            let named = try #require(errors.range(of: "  player:qa-gone: 1 of 2 requests broke the fetch rule\n"), "\(errors)")
            let failure = try #require(errors.range(of: "locsim: error: cannot write the audit report to \(folder)/audit.html: "), "\(errors)")
            #expect(stopped.lowerBound < named.lowerBound && named.lowerBound < failure.lowerBound)
            #expect(errors.hasSuffix("hint: check that its folder still exists and can be written (it could when the command began)\n"), "\(errors)")
        }
    }

    @Test("MapViewModel's back-off after scripted failures shows in the audit as retries, never a retry storm")
    func backOffVisibleInAudit() async throws {
        try await withScratchFolder("locsim-serve-command") { directory in
            // 14 s standing still, replayed in real time; the rule's interval shortened to 2 s on both sides.
            let track = directory + "/stand.gpx"
            let made = try await CLI.run([
                "simulate", "stationary", "--at", "37.7599,-122.4148", "--duration", "14", "--out", track,
                "--start-time", "2024-11-07T18:00:00Z",
            ])
            #expect(made.status == 0, "\(made.stderr)")
            let script = directory + "/qa.json"
            try Data(#"[{}, {"status": 503}, {"status": 503}]"#.utf8).write(to: URL(fileURLWithPath: script))
            let server = try await ServeProcess.start(["--script", script, "--throttle-interval", "2"])
            defer { server.command.stop() }
            let replay = try await CLI.run([
                "replay", track, "--online", server.base, "--throttle-interval", "2", "--format", "jsonl", "--no-progress",
            ])
            #expect(replay.status == 0, "\(replay.stderr)")
            let audit = try await audit(server)
            let client = try #require(audit.clients.first)
            let verdicts = client.timeline.map(\.verdict)
            #expect(Array(verdicts.prefix(4)) == ["first", "elapsed", "retry", "retry"], "\(client.timeline)")
            #expect(client.timeline.prefix(3).map(\.status) == [200, 503, 503])
            #expect(client.violations == 0, "\(client.timeline.filter { $0.verdict != "first" && $0.verdict != "elapsed" && $0.verdict != "retry" })")
            #expect(verdicts.count >= 5)
            // Ended before its folder goes: a server still running could add a file to the folder
            // as it is removed.
            await server.command.child.stopped()
        }
    }

    @Test("--host 0.0.0.0 without --token is refused with exit 2, naming the way out; a missing --script, or a folder, is exit 1")
    func publicHostNeedsToken() async throws {
        let result = try await CLI.run(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--token"))
        #expect(result.stderr.contains("--allow-anonymous"))
        // A script that is not there is a missing input file (status 1), in the system's words.
        let badScript = try await CLI.run(["serve", "--port", "0", "--script", "/nonexistent/qa.json"])
        #expect(badScript.status == 1)
        #expect(badScript.stderr.hasPrefix("locsim: error: /nonexistent/qa.json: cannot read the script: No such file or directory\n"), "\(badScript.stderr)")
        #expect(badScript.stderr.hasSuffix("hint: check that the path names a file that exists and can be read\n"), "\(badScript.stderr)")
        // So is a folder given for it: the same status and shape, not a usage error.
        let folder = try await CLI.run(["serve", "--port", "0", "--script", "/tmp"])
        #expect(folder.status == 1, "\(folder.stderr)")
        #expect(folder.stderr.hasPrefix("locsim: error: /tmp: cannot read the script: Is a directory\n"), "\(folder.stderr)")
        let badLatency = try await CLI.run(["serve", "--port", "0", "--latency", "fast"])
        #expect(badLatency.status == 2)
        #expect(badLatency.stderr.contains("--latency"))
    }

    @Test("The token from --token-file or $LOCSIM_TOKEN (not in 'ps'); bad sources refused naming them, never echoing the token")
    func tokenSources() async throws {
        try await withScratchFolder("locsim-token") { directory in
            let file = directory + "/token", secret = "f1le-s3cret"
            try Data("\(secret)\n".utf8).write(to: URL(fileURLWithPath: file))
            for (arguments, environment, token, source) in [
                (["--token-file", file], [String: String](), secret, "--token-file"),
                ([], ["LOCSIM_TOKEN": "env-s3cret"], "env-s3cret", "$LOCSIM_TOKEN"),
            ] {
                let server = try await ServeProcess.start(arguments, environment: environment)
                defer { server.command.stop() }
                // The start-up advice names where the token came from (not a --token never given).
                try await server.command.wait(for: "the advice line") { lines in lines.contains { $0.text.contains("set the app's server base URL") } }
                let advice = server.command.lines.map(\.text).first { $0.contains("set the app's server base URL") }
                #expect(advice?.hasSuffix("with 'Authorization: Bearer <the token of \(source)>'") == true, "\(String(describing: advice))")
                #expect(try await server.call("GET", "/metrics", token: nil).status == 401, "\(arguments)")
                #expect(try await server.call("GET", "/metrics", token: token).status == 200, "\(arguments)")
                #expect(try await server.call("GET", "/metrics", token: token + "x").status == 401, "\(arguments)")
            }
            try Data("with space\n".utf8).write(to: URL(fileURLWithPath: directory + "/spaced"))
            try Data("\n\n".utf8).write(to: URL(fileURLWithPath: directory + "/empty"))
            // A token file that cannot be read is a missing input (status 1), in every command that takes one.
            let missing = directory + "/missing"
            for command in [
                ["serve", "--port", "0"], ["serve", "--port", "0", "--host", "0.0.0.0"],
                ["swarm", "--server", "http://127.0.0.1:9", "--players", "1", "--duration", "1"],
                ["replay", "tracks/sf-mission-walk.gpx", "--fast", "--online", "http://127.0.0.1:9"],
            ] {
                let result = try await CLI.run(command + ["--token-file", missing])
                #expect(result.status == 1, "\(command): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n") == [
                    "locsim: error: --token-file \(missing): cannot read it (No such file or directory)",
                    "hint: check that the path names a file that exists and can be read",
                ], "\(command)")
            }
            for (arguments, environment, message) in [
                (["--token-file", directory + "/empty"], [String: String](), "--token-file \(directory)/empty: the token is empty"),
                (["--token-file", directory + "/spaced"], [:], "--token-file \(directory)/spaced: a bearer token is visible ASCII (RFC 6750); character 5 is U+0020"),
                (["--token", "a", "--token-file", file], [:], "give --token or --token-file, not both"),
                ([], ["LOCSIM_TOKEN": "tab\tin"], "$LOCSIM_TOKEN: a bearer token is visible ASCII (RFC 6750); character 4 is U+0009"),
                ([], ["LOCSIM_TOKEN": ""], "$LOCSIM_TOKEN: the token is empty"),
            ] {
                let result = try await CLI.run(["serve", "--port", "0"] + arguments, environment: environment)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.stderr.contains(message), "\(result.stderr)")
                #expect(!result.stderr.contains("with space") && !result.stderr.contains("tab\tin"), "\(result.stderr)")
            }
        }
    }

    @Test("--log-format json: standard output is JSON lines only, from the first line; the start-up lines go to standard error")
    func jsonLogOnly() async throws {
        let server = try await ServeProcess.start(gpsd: true, ["--log-format", "json", "--player", "alice=line:35.6812,139.7671:35.6852,139.7528"])
        defer { server.command.stop() }
        #expect(try await server.call("GET", "/healthz").status == 200)
        #expect(try await server.call("GET", "/locations/nearby?lat=35.68&lng=139.76&radius=100").status == 200)
        server.command.interrupt()
        #expect(try await server.command.waitForExit() == .exited(0), "\(server.command.child.errors)")
        let lines = server.command.lines.map(\.text)
        #expect(lines.count == 2, "\(lines)")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
        }
        #expect(server.command.child.errors.contains("locsim serve: listening on http://127.0.0.1:\(server.http)"))
        #expect(server.command.child.errors.contains("locsim serve: gpsd protocol on 127.0.0.1:"))
    }

    @Test("An --audit-report path that cannot be written fails at start, before serving, naming flag and path")
    func auditReportCheckedAtStart() async throws {
        // CLI.run returns only when the process exits: a server that started would hang here
        // until the test's time limit.
        let result = try await CLI.run(["serve", "--port", "0", "--audit-report", "/nonexistent/dir/audit.html"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--audit-report /nonexistent/dir/audit.html: cannot write there"), "\(result.stderr)")
        #expect(!result.stderr.contains("listening"))
        try await withScratchFolder("locsim-audit-report") { folder in
            let directory = try await CLI.run(["serve", "--port", "0", "--audit-report", folder])
            #expect(directory.status == 1)
            #expect(directory.stderr.contains("is a directory") && directory.stderr.contains(".html"), "\(directory.stderr)")
        }
    }
}
