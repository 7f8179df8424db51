#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim serve --player … --gpsd-port`: players as gpsd devices, watched by gpspipe.
@Suite(.timeLimit(.minutes(1))) struct FeedCommandTests {
    static let gpspipe: String? = ["/usr/bin/gpspipe", "/usr/local/bin/gpspipe"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static let line = "line:35.6812,139.7671:35.6852,139.7528"
    static let start = "2026-01-01T00:00:00Z"

    @Test(
        "A synthetic and a GPX player are gpsd devices; the synthetic one moves exactly as 'locsim simulate' with its spec",
        .enabled(if: gpspipe != nil, "needs gpspipe (apt-get install gpsd-clients)"))
    func playersOverGPSD() async throws {
        let spec = "\(Self.line) --profile run --seed 5 --noise 3"
        let command = try await LiveCommand([
            "serve", "--port", "0", "--gpsd-port", "0", "--player", "alice=\(spec)",
            "--player", "bob=tracks/tokyo-marunouchi-walk.gpx", "--player-speed", "5",
        ])
        defer { command.stop() }
        let prefix = "locsim serve: gpsd protocol on 127.0.0.1:"
        try await command.wait(for: "the gpsd line", timeout: .seconds(120)) { lines in lines.contains { $0.text.hasPrefix(prefix) } }
        let announced = command.lines.first { $0.text.hasPrefix(prefix) }!.text
        let port = try #require(Int(announced.dropFirst(prefix.count).prefix { $0.isNumber }))

        let pipe = try await ChildProcess([Self.gpspipe!, "-w", "-n", "20", "127.0.0.1:\(port)"])
        defer { pipe.stop() }
        #expect(try await pipe.waitForExit(timeout: .seconds(60)) == .exited(0), "\(pipe.errors)")
        // "\r\n" is one Character in Swift: split the bytes.
        let reports = try Array(pipe.output.utf8).split(separator: UInt8(ascii: "\n")).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
        let devices = (reports[1]["devices"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(devices == ["/dev/locsim/alice", "/dev/locsim/bob"])

        // The same spec through 'locsim simulate', in virtual time: the fixes alice must have had.
        let simulated = try await CLI.run(
            ["simulate", "line", "--from", "35.6812,139.7671", "--to", "35.6852,139.7528", "--profile", "run", "--seed", "5",
             "--start-time", Self.start, "--noise", "3", "--format", "jsonl"])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        var expected: [(Double, Double)] = []
        for line in simulated.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["t"] is String, let lat = object["lat"] as? Double, let lng = object["lon"] as? Double {
                expected.append((lat, lng))
            }
        }
        try #require(!expected.isEmpty, "\(simulated.stdout.prefix(300))")
        let alice = reports.filter { $0["class"] as? String == "TPV" && $0["device"] as? String == "/dev/locsim/alice" }
        try #require(!alice.isEmpty)
        // Each TPV is one of simulate's fixes, in simulate's order; its time is the wall clock's
        // when it was sent (as a receiver's), not the path's.
        var previous = -1
        for tpv in alice {
            let (lat, lon) = (tpv["lat"] as? Double ?? .nan, tpv["lon"] as? Double ?? .nan)
            let index = try #require(
                expected.indices.first { $0 > previous && abs(expected[$0].0 - lat) <= 1e-7 && abs(expected[$0].1 - lon) <= 1e-7 },
                "alice reported \(lat),\(lon), a position simulate never had after fix \(previous)")
            previous = index
            let time = try #require(tpv["time"] as? String)
            #expect(!time.hasPrefix("2026-01-01"), "stamped with the path's time: \(time)")
        }
        #expect(reports.contains { $0["class"] as? String == "TPV" && $0["device"] as? String == "/dev/locsim/bob" })

        // SIGINT with a client still watching: one shutdown for every face, exit 0.
        let watcher = try #require(LoopbackSocket.connectTo(port: port))
        defer { close(watcher) }
        #expect(LoopbackSocket.writeAll(watcher, Array(#"?WATCH={"enable":true,"json":true};"#.utf8)))
        #expect(LoopbackSocket.waitReadable(watcher, timeout: .seconds(10)))
        command.interrupt()
        #expect(try await command.waitForExit(timeout: .seconds(30)) == .exited(0))
    }

    @Test("Bad player options are usage errors (exit 2) naming the option, before anything starts")
    func usageErrors() async throws {
        var cases: [([String], String)] = [
            (["--gpsd-port", "0", "--player", "alice"], "--player must be NAME=SPEC"),
            (["--gpsd-port", "0", "--player", "a/b=\(Self.line)"], "a player name is 1 to 32"),
            (["--gpsd-port", "0", "--player", "events=\(Self.line)"], "'events' is kept for GET /players/events"),
            (["--gpsd-port", "0", "--player", "..=\(Self.line)"], "cannot be a player name"),
            (["--gpsd-port", "0", "--player", "alice=line:35.68,139.76"], "--player alice: "),
            (["--gpsd-port", "0", "--player", "alice=\(Self.line) --map"], "--map does not apply to a player"),
            (["--gpsd-port", "0", "--player", "alice=\(Self.line)", "--player", "alice=\(Self.line)"], "two players"),
            (["--player", "alice=\(Self.line)", "--android-console", "bob=5554"], "--android-console bob=5554: no --player is named 'bob'"),
            (["--player", "alice=\(Self.line)", "--android-console", "alice=70000"], "the port must be within 1...65535"),
            (["--player", "alice=\(Self.line)", "--android-console", "alice"], "--android-console must be NAME=PORT"),
            (["--player", "alice=\(Self.line)", "--simctl", "alice=-x"], "--simctl alice=-x: a simulator UDID, name or 'booted'"),
            (["--player", "walk=tracks/sf-mission-walk.gpx --speed 3 --profile run"], "a file player takes --speed X, --loop and --start DURATION, got '--profile'"),
            (["--gpsd-port", "0", "--player", "alice=\(Self.line)", "--android-token-file", "/t"], "--android-token-file is for --android-console"),
            // The compact path goes through simulate's own parser and rules.
            (["--gpsd-port", "0", "--player", "c=circle:35.68,139.76:150"], "circle never ends by itself"),
            (["--gpsd-port", "0", "--player", "r=route:35.68,139.76:35.69,139.77:35.70,139.78 --profile fly"], "--player r: "),
            (["--gpsd-port", "0", "--player", "w=\(Self.line) --speed 5000"], "--speed"),
            (["--gpsd-port", "70000"], "--gpsd-port"),
            (["--gpsd-port", "0", "--player-speed", "0"], "--player-speed"),
            (["--gpsd-port", "0", "--host", "0.0.0.0", "--token", "t"], "--allow-anonymous"),
            // A relayed receiver: gpsd://HOST[:PORT][/DEVICE], nothing after it.
            (["--player", "f=gpsd://127.0.0.1:70000"], "--player f: the port must be a number within 1...65535, got '70000'"),
            (["--player", "f=gpsd://127.0.0.1:x/dev/ttyACM0"], "got 'x'"),
            (["--player", "f=gpsd://[::1:2947"], "'[::1:2947' has no closing ']'"),
            (["--player", "f=gpsd://[::1]2947"], "expected ':PORT' after '[::1]'"),
            // `gpsd://:2947` is the default host, as `replay --gpsd :2947` is (one host:port reader).
            (["--player", "f=gpsd://::1"], "'::1' has more than one ':' (an IPv6 address goes in brackets"),
            (["--player", "f=gpsd://127.0.0.1/"], "the device path after the address is empty"),
            (["--player", "f=gpsd://127.0.0.1 --speed 5"], "a relayed receiver takes no options"),
            // Its own feed: it would read its fixes back and publish them again without end.
            (["--gpsd-port", "12950", "--player", "f=gpsd://localhost:12950"],
             "--player f: gpsd://localhost:12950 is this server's own --gpsd-port"),
        ]
        // No Xcode here: said at once, not retried forever.
        let noXcode: [([String], String)] = [
            (["--player", "alice=\(Self.line)", "--simctl", "alice=booted"],
             "--simctl alice=booted: needs macOS with Xcode (/usr/bin/xcrun is not on this machine)")
        ]
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/xcrun") { cases += noXcode }
        for (arguments, message) in cases {
            let result = try await CLI.run(["serve", "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("A receiver behind a real gpsd, relayed live: a gpsd client of locsim gets its fixes; it takes no commands, is not made over HTTP, and outlives gpsd")
    func relayedReceiver() async throws {
        let gpspipe = try #require(Self.gpspipe, "needs gpspipe (apt-get install gpsd-clients)")
        // The receiver: a track's NMEA at 20× with its own times, through a real gpsd.
        let track = try TrackReference(PackagePaths.path("tracks/sf-mission-walk.gpx"))
        let serve = try await NMEAServe.start([track.path, "--speed", "20", "--original-times"])
        defer { serve.command.stop() }
        let daemon = try await GPSDDaemon.start(feedPort: serve.port)
        defer { daemon.stop() }
        let server = try await ServeProcess.start(gpsd: true, [
            "--token", "t0k3n", "--player", "field=gpsd://127.0.0.1:\(daemon.port)",
        ])
        defer { server.command.stop() }
        let announced = "  /dev/locsim/field: gpsd 127.0.0.1:\(daemon.port) (every device) live, seed "
        // The players' lines follow the gpsd line the start waited for: wait for them too.
        try await server.command.wait(for: "the relayed player's line") { $0.contains { $0.text.hasPrefix(announced) } }

        // A gpsd client of locsim sees the track's own points at the track's own times; one of
        // the real gpsd, at the same time, what the relay must pass on.
        let direct = try await ChildProcess([gpspipe, "-w", "-n", "60", "127.0.0.1:\(daemon.port)"])
        defer { direct.stop() }
        let pipe = try await ChildProcess([gpspipe, "-w", "-n", "40", "127.0.0.1:\(try #require(server.gpsd))"])
        defer { pipe.stop() }
        #expect(try await pipe.waitForExit(timeout: .seconds(60)) == .exited(0), "\(pipe.errors)")
        #expect(try await direct.waitForExit(timeout: .seconds(60)) == .exited(0), "\(direct.errors)")
        var gpsdByTime: [String: [String: Any]] = [:]
        var gpsdSkies: Set<String> = []
        for line in Array(direct.output.utf8).split(separator: UInt8(ascii: "\n")) {
            guard let report = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            if report["class"] as? String == "SKY" { gpsdSkies.insert(try Self.satellites(of: report)) }
            guard report["class"] as? String == "TPV", let time = report["time"] as? String else { continue }
            gpsdByTime[time] = report
        }
        let reports = try Array(pipe.output.utf8).split(separator: UInt8(ascii: "\n")).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
        let fixes = reports.filter { $0["class"] as? String == "TPV" && $0["lat"] != nil }
        #expect(fixes.count >= 5, "\(pipe.output.prefix(2_000))")
        var compared = 0
        var relayed = RelayedReport()
        for tpv in fixes {
            #expect(tpv["device"] as? String == "/dev/locsim/field")
            let time = try #require(tpv["time"] as? String)
            let point = try #require(track.points[time], "relayed a fix at \(time), not a time of the track")
            #expect(abs((tpv["lat"] as? Double ?? .nan) - point.latitude) <= TrackReference.nmeaTolerance, "latitude at \(time)")
            #expect(abs((tpv["lon"] as? Double ?? .nan) - point.longitude) <= TrackReference.nmeaTolerance, "longitude at \(time)")
            // Every member as the real gpsd gives it (its geoid separation, magnetic variation,
            // errors per axis...), as GPSDReceiverLogTests holds the relay of 30 receivers to.
            if let real = gpsdByTime[time] {
                relayed.compare(tpv, with: real, at: time)
                compared += 1
            }
        }
        #expect(compared >= 3, "fixes of the same time from both: \(compared)")
        #expect(relayed.differences.isEmpty, "\(relayed.differences.prefix(5))")
        // Its sky is the receiver's, and this one tells none (`nmea serve` writes no GSV): gpsd
        // sends no SKY, and neither does the relay (GPSDReceiverLogTests holds the relayed SKY
        // of 30 real receivers to gpsd's, member for member).
        let skies = try reports.filter { $0["class"] as? String == "SKY" }.map(Self.satellites(of:))
        #expect(gpsdSkies.isEmpty, "gpsd sent a SKY: the receiver now tells its sky; compare it")
        #expect(skies.allSatisfy(gpsdSkies.contains), "a relayed sky gpsd never sent: \(skies.first { !gpsdSkies.contains($0) } ?? "")")

        // The control API shows it, live and without controls; nobody makes one over HTTP.
        let field = try await server.waitFor("field", "a relayed fix") { $0["fix"] != nil }
        #expect(field["controllable"] as? Bool == false)
        #expect(field["state"] as? String == "playing")
        let pause = try await server.call("POST", "/players/field/control", #"{"action":"pause"}"#)
        #expect(pause.status == 409)
        #expect(pause.errorParameter == "action", "\(pause.body)")
        let added = try await server.call("POST", "/players", #"{"name":"other","spec":"gpsd://127.0.0.1:\#(daemon.port)"}"#)
        #expect(added.status == 400)
        #expect(added.errorParameter == "spec", "\(added.body)")
        #expect(added.body.contains("--player NAME=gpsd://HOST"), "\(added.body)")
        #expect(server.command.child.errors.contains("locsim serve: player field ← connected to gpsd"), "\(server.command.child.errors)")

        // gpsd goes away: the relay says so and waits for it; the server stays up and stops cleanly.
        daemon.stop()
        try await server.command.wait(for: "the relay to report the loss", timeout: .seconds(60)) { _ in
            server.command.child.errors.contains("locsim serve: player field ← disconnected")
        }
        await #expect(try server.call("GET", "/players/field").status == 200)
        server.command.interrupt()
        #expect(try await server.command.waitForExit(timeout: .seconds(30)) == .exited(0), "\(server.command.child.errors)")
    }

    /// A SKY's satellites, member for member, as one comparable text.
    static func satellites(of sky: [String: Any]) throws -> String {
        let satellites = sky["satellites"] as? [[String: Any]] ?? []
        let data = try JSONSerialization.data(withJSONObject: satellites, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    @Test("--android-console: a player's fixes reach an emulator console (a loopback stand-in) after 'auth TOKEN', as 'geo fix LON LAT ALT SATELLITES KNOTS'")
    func androidConsole() async throws {
        let token = "t0kenFromTheEmulator"
        let console = try ConsoleStandIn(token: token)
        defer { console.stop() }
        try await withScratchFolder("locsim-console") { folder in
            let tokenFile = folder + "/token"
            try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
            let command = try await LiveCommand([
                "serve", "--port", "0", "--player", "alice=\(Self.line) --profile run --seed 5", "--player-speed", "20",
                "--android-console", "alice=\(console.port)", "--android-token-file", tokenFile,
            ])
            defer { command.stop() }
            try await console.wait { ($0.first?.components(separatedBy: "geo fix ").count ?? 0) > 3 }
            command.interrupt()
            #expect(try await command.waitForExit(timeout: .seconds(30)) == .exited(0))
            let sent = try #require(console.connections.first)
            #expect(sent.hasPrefix("auth \(token)\r\n"), "\(sent.prefix(200))")
            let fixes = sent.split(separator: "\r\n").dropFirst()
            // Every line is 'geo fix LON LAT ALT SATELLITES KNOTS' on the line from Tokyo station (runs have no
            // altitude: 0, as the console cannot skip it before the speed), in order of travel.
            var previousLongitude = 139.7671 + 1e-4
            for line in fixes {
                let words = line.split(separator: " ")
                try #require(words.count == 7 && words[0] == "geo" && words[1] == "fix", "\(line)")
                #expect(words[4] == "0.0" && words[5] == "8", "\(line)")
                let knots = try #require(Double(words[6]))
                #expect(knots >= 0 && knots < 20, "a run's speed in knots: \(line)")
                let longitude = try #require(Double(words[2]))
                let latitude = try #require(Double(words[3]))
                #expect((139.7528 - 1e-4)...(139.7671 + 1e-4) ~= longitude, "\(line)")
                #expect((35.6812 - 1e-4)...(35.6852 + 1e-4) ~= latitude, "\(line)")
                #expect(longitude <= previousLongitude, "\(line) after \(previousLongitude)")
                previousLongitude = longitude
            }
            #expect(command.child.errors.contains("player alice → 127.0.0.1:\(console.port): connected"), "\(command.child.errors)")
        }
    }

    @Test("Players with no place data where serve looks: the players run, the nearby route answers 503 and /healthz says why; without players it is still an error")
    func playersWithoutPlaceData() async throws {
        // The binary outside the source tree (linked, else copied), run in an empty folder: no
        // geodata/ beside it, no share/locsim/geodata beside its bin/, no Package.swift above it.
        try await withScratchFolder("locsim-no-places") { folder in
            try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
            let binary = folder + "/bin/locsim"
            do {
                try FileManager.default.linkItem(atPath: CLI.binary, toPath: binary)
            } catch {
                try FileManager.default.copyItem(atPath: CLI.binary, toPath: binary)
            }
            let environment = ["LOCSIM_CACHE_DIR": folder + "/cache"]
            let serve = try await ChildProcess(
                [binary, "serve", "--port", "0", "--player", "alice=\(Self.line)"], environment: environment, removing: ["LOCSIM_GEODATA"],
                directory: folder)
            defer { serve.stop() }
            try await serve.wait(for: "the listening line and the no-places notice", timeout: .seconds(60)) {
                serve.output.contains("serving players only")
            }
            let prefix = "locsim serve: listening on http://127.0.0.1:"
            let line = try #require(serve.output.split(separator: "\n").first { $0.hasPrefix(prefix) })
            let port = try #require(Int(line.dropFirst(prefix.count).prefix { $0.isNumber }))
            #expect(serve.output.contains("no place data (looked in geodata, \(folder)/share/locsim/geodata)"), "\(serve.output)")
            // No advice to point the app at a route that answers 503.
            #expect(!serve.output.contains("set the app's server base URL"), "\(serve.output)")

            let nearby = try await RawHTTP.request("GET", port: port, "/locations/nearby?lat=35.68&lng=139.76")
            #expect(nearby.status == 503, "\(nearby.body)")
            #expect(((nearby.json["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("this server has no place data") == true, "\(nearby.body)")
            let health = try await RawHTTP.request("GET", port: port, "/healthz")
            #expect(health.status == 200)
            #expect(health.body.contains("degraded: no place data"), "\(health.body)")
            let players = try await RawHTTP.request("GET", port: port, "/players")
            #expect(((players.json["players"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String } == ["alice"])
            #expect(await serve.stopped() == .exited(0), "\(serve.errors)")

            // Without players, there is nothing to serve: the error says where it looked.
            let bare = try await ChildProcess(
                [binary, "serve", "--port", "0"], environment: environment, removing: ["LOCSIM_GEODATA"], directory: folder)
            #expect(try await bare.waitForExit() == .exited(1))
            #expect(bare.errors.hasPrefix("locsim: error: no place data for the default index"), "\(bare.errors)")
        }
    }

    @Test("A gpsd port in use is a run-time error (exit 1) naming host and port, with a hint")
    func portInUse() async throws {
        let (listener, port) = try LoopbackSocket.makeListener()
        defer { close(listener) }
        let result = try await CLI.run(["serve", "--port", "0", "--gpsd-port", String(port)])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("locsim: error: cannot listen for gpsd clients on 127.0.0.1:\(port)"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: choose another --gpsd-port"), "\(result.stderr)")
        // The HTTP port was bound, but a start that fails never says it listens: a script
        // waiting for that line would take the start for a success.
        #expect(!result.stdout.contains("listening on"), "\(result.stdout)")
        // Nor that it is stopping: there was never a drain to announce.
        #expect(!result.stderr.contains("stopping"), "\(result.stderr)")
        // The HTTP server is shut down gracefully, not cancelled mid-start (Hummingbird logged
        // that as an error before the one that matters).
        #expect(!result.stderr.contains("CancellationError") && !result.stderr.contains("HummingbirdCore"), "\(result.stderr)")
    }

    @Test("An HTTP port in use reads as the gpsd port's does: exit 1, host and port named, a hint")
    func httpPortInUse() async throws {
        let (listener, port) = try LoopbackSocket.makeListener()
        defer { close(listener) }
        let result = try await CLI.run(["serve", "--port", String(port)])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("locsim: error: cannot listen for HTTP clients on 127.0.0.1:\(port): "), "\(result.stderr)")
        #expect(result.stderr.contains("hint: choose another --port"), "\(result.stderr)")
        #expect(!result.stderr.contains("bind(descriptor"), "\(result.stderr)")
        #expect(!result.stderr.contains("stopping"), "\(result.stderr)")
    }

    @Test("A port below 1024 without the right to bind it: the hint says why (root or CAP_NET_BIND_SERVICE), and no 'stopping' line",
          .enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"), "needs root and runuser to act as nobody"))
    func privilegedPort() async throws {
        try await withScratchFolder("locsim-privileged-port") { folder in
            try #require(chmod(folder, 0o1777) == 0)  // nobody's cache
            let run = try await ChildProcess.run(
                ["/usr/sbin/runuser", "-u", "nobody", "--", CLI.binary, "serve", "--port", "80", "--geodata", PackagePaths.root + "/geodata"],
                environment: ["LOCSIM_CACHE_DIR": folder], directory: "/")
            #expect(run.status == 1, "\(run.errors)")
            #expect(run.errors.contains("locsim: error: cannot listen for HTTP clients on 127.0.0.1:80: Permission denied"), "\(run.errors)")
            #expect(run.errors.contains("hint: ports below 1024 need root or CAP_NET_BIND_SERVICE: choose --port 8080"), "\(run.errors)")
            #expect(!run.errors.contains("stopping"), "\(run.errors)")
        }
    }
}
