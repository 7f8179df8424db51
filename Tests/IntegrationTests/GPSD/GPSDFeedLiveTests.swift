import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import LocationFeed
import LocationGPSD
import LocationSimulation
import NMEAFormat
import Testing

/// The feed server on a real port, watched by real gpsd clients the tests start: gpspipe,
/// Python's `gps` module, and this project's `GPSDProvider` through libgps, and compared with a
/// real gpsd fed the same NMEA. (Runs in scripts/test.sh's second process, with the other
/// live-gpsd suites.)
@Suite(.timeLimit(.minutes(1)))
struct GPSDFeedLiveTests {
    static let gpspipe: String? = ["/usr/bin/gpspipe", "/usr/local/bin/gpspipe"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let python = "/usr/bin/python3"
    static var hasPythonGPS: Bool {
        FileManager.default.isExecutableFile(atPath: python)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gps/__init__.py")
    }

    /// NMEA's resolution as gpsd passes it on (the same figures as LocationGPSDTests' round trip):
    /// half of 1e-5 minute of arc, of 2 decimals of altitude and course, of 3 decimals of a knot,
    /// of HDOP's 2 decimals × 19 m; then gpsd's JSON decimals (3 for speed and eph, 4 for altitude
    /// and track, 9 for lat/lon).
    static let degrees = 1e-7
    static let metres = 0.005 + 5e-5 + 1e-9
    static let metresPerSecond = 0.0005 * 1852 / 3600 + 0.0005 + 1e-9
    static let courseDegrees = 0.005 + 5e-5 + 1e-9
    static let accuracy = 0.005 * 19 + 0.0005 + 1e-9
    /// Comparing locsim's report with gpsd's adds locsim's own JSON rounding (the same decimals).
    static let parityMetres = metres + 5e-5
    static let parityMetresPerSecond = metresPerSecond + 0.0005
    static let parityCourseDegrees = courseDegrees + 5e-5
    static let parityAccuracy = accuracy + 0.0005

    @Test("gpspipe -w gets VERSION, DEVICES, WATCH, then TPV and SKY reports of the player's own fixes", .enabled(if: gpspipe != nil, "needs gpspipe (apt-get install gpsd-clients)"))
    func gpspipeJSON() async throws {
        let feed = try await LiveFeed.start(names: ["alice", "bob"])
        defer { feed.stop() }
        let reference = try await feed.reference("alice")
        let pipe = try await ChildProcess([Self.gpspipe!, "-w", "-n", "14", "127.0.0.1:\(feed.port)"])
        defer { pipe.stop() }
        #expect(try await pipe.waitForExit(timeout: .seconds(60)) == .exited(0), "\(pipe.errors)")
        // "\r\n" is one Character in Swift: split the bytes.
        let bytes = Array(pipe.output.utf8)
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        try #require(lines.count == 14, "\(pipe.output)")
        #expect(!pipe.output.contains("null"))
        #expect(lines.allSatisfy { $0.hasSuffix("\r") }, "CR LF line ends")
        let reports = try lines.map { try object($0) }
        #expect(reports.prefix(3).map { $0["class"] as? String } == ["VERSION", "DEVICES", "WATCH"])
        let paths = (reports[1]["devices"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == ["/dev/locsim/alice", "/dev/locsim/bob"])
        var checked = 0
        for report in reports.dropFirst(3) {
            let kind = report["class"] as? String
            #expect(kind == "TPV" || kind == "SKY")
            guard kind == "TPV", report["device"] as? String == "/dev/locsim/alice" else { continue }
            let stamp = try #require(report["time"] as? String)
            let time = try #require(UTCTimestamp.parse(stamp))
            let fix = try #require(reference[time], "a TPV at \(time) the player never had")
            #expect(abs((report["lat"] as? Double ?? .nan) - fix.coordinate!.latitude) <= 5e-10 + 1e-12)
            #expect(abs((report["lon"] as? Double ?? .nan) - fix.coordinate!.longitude) <= 5e-10 + 1e-12)
            #expect(abs((report["eph"] as? Double ?? .nan) - fix.horizontalAccuracy!) <= 5e-4 + 1e-9)
            checked += 1
        }
        #expect(checked > 0)
    }

    @Test(
        "A GPX player's TPV reports carry speed and track, though the file has neither",
        .enabled(if: gpspipe != nil, "needs gpspipe (apt-get install gpsd-clients)"))
    func gpxPlayerReportsSpeedAndTrack() async throws {
        let path = PackagePaths.path("tracks/sf-mission-walk.gpx")
        let replay = try GPXReplay(
            path: ReplayPath(document: GPXDocument(reader: GPXReader(contentsOfFile: path))),
            configuration: .init(pacing: .timed(speedFactor: LiveFeed.speed), timestamps: .rebased), clock: ContinuousClock(),
            now: { Date() })
        let feed = try await LiveFeed.start(players: [FeedPlayer(name: "walker", seed: 1, provider: replay)])
        defer { feed.stop() }
        let pipe = try await ChildProcess([Self.gpspipe!, "-w", "-n", "12", "127.0.0.1:\(feed.port)"])
        defer { pipe.stop() }
        #expect(try await pipe.waitForExit(timeout: .seconds(60)) == .exited(0), "\(pipe.errors)")
        // "\r\n" is one Character in Swift: split the bytes.
        let lines = Array(pipe.output.utf8).split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        let reports = try lines.map { try object($0) }.filter { $0["class"] as? String == "TPV" }
        try #require(reports.count >= 4, "\(pipe.output)")
        for report in reports {
            // A walk: metres per second a person walks at, a track in gpsd's 0..<360.
            let speed = try #require(report["speed"] as? Double, "no speed: \(report)")
            let track = try #require(report["track"] as? Double, "no track: \(report)")
            #expect((0..<6).contains(speed) && (0..<360).contains(track), "\(report)")
        }
    }

    @Test("gpspipe -r gets the NMEA sentences, which read back as the player's fixes", .enabled(if: gpspipe != nil, "needs gpspipe (apt-get install gpsd-clients)"))
    func gpspipeNMEA() async throws {
        let feed = try await LiveFeed.start()
        defer { feed.stop() }
        let reference = try await feed.reference("alice")
        let pipe = try await ChildProcess([Self.gpspipe!, "-r", "-n", "30", "127.0.0.1:\(feed.port)"])
        defer { pipe.stop() }
        #expect(try await pipe.waitForExit(timeout: .seconds(60)) == .exited(0), "\(pipe.errors)")
        let sentences = Array(pipe.output.utf8).split(separator: UInt8(ascii: "\n"))
            .map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasPrefix("$") }
        try #require(sentences.count >= 8, "\(pipe.output)")
        var options = NMEAReader.Options.lenient
        options.accuracyModel = .gpsd
        var reader = NMEAReader(options: options)
        let text = sentences.joined(separator: "\n") + "\n"
        let fixes = try reader.read(Array(text.utf8)) + reader.finish()
        // gpspipe stops after 30 lines, most likely inside an epoch: the last fix may lack the
        // sentences after the cut (GGA's HDOP), so it is not compared.
        try #require(fixes.count >= 2, "\(fixes)")
        for read in fixes.dropLast() {
            let fix = try #require(reference[read.time], "an NMEA fix at \(read.time) the player never had")
            #expect(abs(read.coordinate!.latitude - fix.coordinate!.latitude) <= Self.degrees)
            #expect(abs(read.coordinate!.longitude - fix.coordinate!.longitude) <= Self.degrees)
            #expect(abs(read.horizontalAccuracy! - fix.horizontalAccuracy!) <= Self.accuracy)
        }
    }

    @Test("Python's gps module reads the player's fixes", .enabled(if: hasPythonGPS, "needs /usr/bin/python3 with python3-gps"))
    func pythonGPS() async throws {
        let feed = try await LiveFeed.start()
        defer { feed.stop() }
        let reference = try await feed.reference("alice")
        let script = """
            import gps, json, sys
            session = gps.gps(host="127.0.0.1", port=int(sys.argv[1]), mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
            seen = 0
            while seen < 5:
                report = session.next()
                if report["class"] == "TPV" and "lat" in report:
                    print(json.dumps({"time": report["time"], "lat": report["lat"], "lon": report["lon"],
                                      "mode": report["mode"], "speed": report["speed"]}), flush=True)
                    seen += 1
            """
        let child = try await ChildProcess([Self.python, "-c", script, String(feed.port)])
        defer { child.stop() }
        #expect(try await child.waitForExit(timeout: .seconds(60)) == .exited(0), "\(child.errors)")
        let reports = try child.output.split(separator: "\n").map { try object($0) }
        #expect(reports.count == 5)
        for report in reports {
            let stamp = try #require(report["time"] as? String)
            let time = try #require(UTCTimestamp.parse(stamp))
            let fix = try #require(reference[time])
            #expect(abs((report["lat"] as? Double ?? .nan) - fix.coordinate!.latitude) <= 5e-10 + 1e-12)
            #expect(abs((report["lon"] as? Double ?? .nan) - fix.coordinate!.longitude) <= 5e-10 + 1e-12)
            #expect(report["mode"] as? Int == 3)
            #expect(abs((report["speed"] as? Double ?? .nan) - fix.speed!) <= 5e-4 + 1e-9)
        }
    }

    @Test(
        "WATCH requests as PyPI clients send them (no ';' or line end; 'enable' alone) are answered as a real gpsd 3.22 answers them",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func bareWatchAsRealGPSD() async throws {
        try await withRealGPSDBeside { feed, _, daemon in
            // For each request and server: the WATCH answer's enable/json/nmea, and from locsim
            // whether a TPV followed (gps3 sends the first form, gpsd-py3 the second). The real
            // gpsd here has no device, so only its WATCH answer is read.
            let script = """
                import json, socket, sys, time
                def ask(port, request, want_tpv):
                    s = socket.create_connection(("127.0.0.1", port), timeout=5)
                    data = b""
                    while b"\\n" not in data:
                        data += s.recv(4096)
                    s.sendall(request.encode())
                    # The loop ends on what it waits for (a TPV, or a WATCH saying json false);
                    # the deadline only bounds a failure, so a loaded machine does not fail it.
                    deadline = time.time() + 10
                    watch, tpv = None, False
                    s.settimeout(0.2)
                    while time.time() < deadline:
                        try:
                            chunk = s.recv(65536)
                        except socket.timeout:
                            continue
                        if not chunk:
                            break
                        data += chunk
                        for line in data.split(b"\\r\\n"):
                            if line.startswith(b'{"class":"WATCH"'):
                                w = json.loads(line)
                                watch = {k: w[k] for k in ("enable", "json", "nmea")}
                            tpv = tpv or line.startswith(b'{"class":"TPV"')
                        if watch is not None and (tpv or not want_tpv or not watch["json"]):
                            break
                    s.close()
                    return {"watch": watch, "tpv": tpv}
                for request in ['?WATCH={"enable":true,"json":true}', '?WATCH={"enable":true};', '?WATCH={"json":true};']:
                    print(json.dumps({"request": request, "locsim": ask(int(sys.argv[1]), request, True), "gpsd": ask(int(sys.argv[2]), request, False)}), flush=True)
                """
            let child = try await ChildProcess([Self.python, "-c", script, String(feed.port), String(daemon.port)])
            defer { child.stop() }
            #expect(try await child.waitForExit(timeout: .seconds(60)) == .exited(0), "\(child.errors)")
            let rows = try child.output.split(separator: "\n").map { try object($0) }
            try #require(rows.count == 3, "\(child.output)")
            for row in rows {
                let locsim = try #require(row["locsim"] as? [String: Any]), gpsd = try #require(row["gpsd"] as? [String: Any])
                let locsimWatch = locsim["watch"] as? [String: Bool], gpsdWatch = gpsd["watch"] as? [String: Bool]
                #expect(locsimWatch != nil && locsimWatch == gpsdWatch, "\(row)")
            }
            // The bare JSON request streams reports; 'enable' alone streams none, from either.
            #expect((rows[0]["locsim"] as? [String: Any])?["tpv"] as? Bool == true, "\(rows[0])")
            #expect((rows[1]["locsim"] as? [String: Any])?["tpv"] as? Bool == false, "\(rows[1])")
            // A WATCH that does not say 'enable' enables: JSON alone streams, from either.
            #expect((rows[2]["locsim"] as? [String: Any])?["tpv"] as? Bool == true, "\(rows[2])")
        }
    }

    @Test(
        "A player added or removed is a DEVICE report to JSON watchers, as a real gpsd reports a receiver plugged in or unplugged (gpsdctl)",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func hotplugAsRealGPSD() async throws {
        let watch = #"?WATCH={"enable":true,"json":true};"# + "\n"
        @Sendable func devices(_ client: SocketLines, _ path: String) -> [[String: Any]] {
            client.lines.compactMap { line in
                guard line.hasPrefix(#"{"class":"DEVICE""#), let report = try? object(Substring(line)) else { return nil }
                return report["path"] as? String == path ? report : nil
            }
        }

        // locsim: bob joins alice through the hub (as POST /players does), then leaves.
        let feed = try await LiveFeed.start()
        defer { feed.stop() }
        let locsimClient = try SocketLines(port: feed.port, request: watch)
        defer { locsimClient.stop() }
        try await locsimClient.wait("locsim's WATCH answer") { $0.lines.contains { $0.hasPrefix(#"{"class":"WATCH""#) } }
        let bob = "/dev/locsim/bob"
        try feed.hub.add(
            FeedPlayer(
                name: "bob", seed: 12,
                provider: try FeedMotion.walk(seed: 12, pacing: .timed(speedFactor: 10), noise: 4, clock: ContinuousClock(), duration: 600)))
        try await locsimClient.wait("bob's DEVICE report") { devices($0, bob).contains { $0["activated"] is String } }
        #expect(feed.hub.remove("bob"))
        try await locsimClient.wait("bob's removal") { devices($0, bob).contains { $0["activated"] as? Int == 0 } }

        // A real gpsd: a second receiver plugged in and unplugged with gpsdctl.
        try await withScratchFolder("locsim-hotplug") { folder in
            let first = try NMEAFeed()
            defer { first.close() }
            let daemon = try await GPSDDaemon.start(feedPort: first.port, controlSocket: folder + "/gpsd.sock")
            defer { daemon.stop() }
            try await first.acceptClient(timeout: .seconds(30))
            let gpsdClient = try SocketLines(port: daemon.port, request: watch)
            defer { gpsdClient.stop() }
            try await gpsdClient.wait("gpsd's WATCH answer") { $0.lines.contains { $0.hasPrefix(#"{"class":"WATCH""#) } }
            let second = try NMEAFeed()
            defer { second.close() }
            let plugged = "tcp://127.0.0.1:\(second.port)"
            try await daemon.control("add", plugged)
            try await second.acceptClient(timeout: .seconds(30))
            _ = try await second.send(LiveGPSD.epochs(count: 3).flatMap(\.sentences), pace: .milliseconds(20))
            try await gpsdClient.wait("gpsd's DEVICE report naming the driver") { devices($0, plugged).contains { $0["driver"] is String } }
            try await daemon.control("remove", plugged)
            try await gpsdClient.wait("gpsd's removal") { devices($0, plugged).contains { $0["activated"] as? Int == 0 } }

            // The removal is the same line. The addition has the members of gpsd's report once it
            // knows the receiver's driver (gpsd first sends path and activation alone), and `flags`,
            // which gpsd adds once it has seen the receiver's fixes (a simulated player has them).
            let removal = { (client: SocketLines, path: String) in client.lines.filter { $0.contains(#""activated":0"#) && $0.contains(path) } }
            #expect(removal(locsimClient, bob).map { $0.replacingOccurrences(of: bob, with: plugged) } == removal(gpsdClient, plugged))
            let locsimAdded = try #require(devices(locsimClient, bob).first)
            let gpsdAdded = try #require(devices(gpsdClient, plugged).last { $0["driver"] != nil })
            #expect(Set(locsimAdded.keys).subtracting(["flags"]) == Set(gpsdAdded.keys), "locsim \(locsimAdded), gpsd \(gpsdAdded)")
            #expect(locsimAdded["flags"] as? Int == 1)
            let stamp = try #require(locsimAdded["activated"] as? String)
            #expect(try #require(gpsdAdded["activated"] as? String).count == stamp.count, "same time format: \(stamp)")
            // Ended before its folder goes: gpsd keeps its control socket there.
            await daemon.stopped()
        }
    }

    @Test(
        "GPSDProvider (libgps) gets the same fixes from locsim's server as from a real gpsd fed its NMEA",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func parityWithRealGPSD() async throws {
        try await withRealGPSDBeside { feed, nmea, daemon in

            // Both sides watched through libgps before the relay starts, so both see the same epochs.
            let direct = EventRecorder(try GPSDProvider(port: feed.port, clock: ContinuousClock(), now: { Date() }).events)
            defer { direct.cancelNow() }
            let relayed = EventRecorder(try GPSDProvider(port: daemon.port, clock: ContinuousClock(), now: { Date() }).events)
            defer { relayed.cancelNow() }
            // And the sky: each side's SKY reports, read as they come.
            let ourSky = try RawGPSDClient(port: feed.port)
            defer { ourSky.stop() }
            let theirSky = try RawGPSDClient(port: daemon.port)
            defer { theirSky.stop() }
            let isConnected: @Sendable ([GPSDEvent]) -> Bool = { $0.contains { if case .connected = $0 { true } else { false } } }
            try await direct.wait(for: "the provider watching locsim", isConnected)
            try await relayed.wait(for: "the provider watching gpsd", isConnected)
            try await ourSky.waitUntilWatching()
            try await theirSky.waitUntilWatching()
            // locsim's NMEA, line by line, into the real gpsd's receiver feed.
            let relay = try NMEARelay(from: feed.port, into: nmea)
            defer { relay.stop() }

            // The epochs both reported. An epoch is complete on gpsd's side once a later one has
            // begun: the newest may still be missing its GGA (a 2D report without altitude), so it
            // is not compared yet. gpsd's side is the later one, so its reports are what to await.
            @Sendable func common() -> [Date] {
                let relayedTimes = Set(relayed.positions.map(\.time))
                guard let newest = relayedTimes.max() else { return [] }
                return direct.positions.filter { $0.time < newest && relayedTimes.contains($0.time) }.map(\.time)
            }
            var relayFailure: String?
            do {
                try await relayed.wait(for: "12 epochs both sides reported", timeout: .seconds(90)) { _ in common().count >= 12 }
            } catch {
                relayFailure = await relay.stopped() ?? "\(error)"
            }
            let common = common()
            let progress =
                "relay: \(relayFailure ?? "ok"); direct \(direct.fixCount) fixes (\(direct.summary.suffix(200))), relayed "
                + "\(relayed.fixCount) (\(relayed.summary.suffix(200))); gpsd: \(daemon.log)"
            try #require(common.count >= 12, "\(progress)")
            for time in common {
                let mine = try #require(direct.fixes.last { $0.time == time })
                // gpsd reports an epoch once per sentence; its last report has everything.
                let theirs = try #require(relayed.fixes.last { $0.time == time })
                #expect(mine.mode == theirs.mode, "mode at \(time)")
                #expect(abs(mine.coordinate!.latitude - theirs.coordinate!.latitude) <= Self.degrees, "latitude at \(time)")
                #expect(abs(mine.coordinate!.longitude - theirs.coordinate!.longitude) <= Self.degrees, "longitude at \(time)")
                #expect(abs((mine.altitude ?? .nan) - (theirs.altitude ?? .nan)) <= Self.parityMetres, "altitude at \(time)")
                #expect(abs((mine.speed ?? .nan) - (theirs.speed ?? .nan)) <= Self.parityMetresPerSecond, "speed at \(time)")
                #expect(abs((mine.course ?? .nan) - (theirs.course ?? .nan)) <= Self.parityCourseDegrees, "course at \(time)")
                #expect(
                    abs((mine.horizontalAccuracy ?? .nan) - (theirs.horizontalAccuracy ?? .nan)) <= Self.parityAccuracy,
                    "accuracy at \(time)")
            }
            // The SKY gpsd makes of locsim's GSA (satellites used) and GSV (satellites in view) is
            // one locsim sent itself: the same satellites, elevations, azimuths, signals and use.
            let theirs = theirSky.received.compactMap { Self.skySatellites($0.text) }.filter { !$0.isEmpty }
            let ours = Set(ourSky.received.compactMap { Self.skySatellites($0.text) })
            try #require(!theirs.isEmpty, "gpsd reported no satellites; gpsd: \(daemon.log)")
            #expect(theirs.count >= 6, "gpsd's SKY reports with satellites: \(theirs.count)")
            for sky in theirs {
                #expect(ours.contains(sky), "gpsd's sky \(sky) is none of locsim's \(ours.count)")
            }
            #expect(theirs.allSatisfy { $0.filter(\.used).count == SkyModel.inUse && $0.count == SkyModel.inView })
            // And a relay of that gpsd (its provider, as `serve --player NAME=gpsd://` runs it)
            // passes that sky on: each relayed fix's sky, written as the feed writes it, is one
            // locsim sent.
            let relayedSkies = relayed.positions.compactMap { fix in
                fix.receiver?.sky.flatMap { Self.skySatellites(GPSDReport.skyObject(device: "relay", time: fix.time, sky: $0)) }
            }.filter { !$0.isEmpty }
            #expect(relayedSkies.count >= 6, "relayed fixes with a sky: \(relayedSkies.count)")
            for sky in relayedSkies {
                #expect(ours.contains(sky), "the relayed sky \(sky) is none of locsim's \(ours.count)")
            }
        }
    }

    /// The `python3` on `PATH`, where scripts/bootstrap.sh installs the PyPI gpsd clients.
    static let pathPython: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    static let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let cgps: String? = ["/usr/bin/cgps", "/usr/local/bin/cgps"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let gpxlogger: String? = ["/usr/bin/gpxlogger", "/usr/local/bin/gpxlogger"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Three positions from a PyPI client (`gps3`, `gpsd-py3` or `gpsdclient`), one JSON line each
    /// (gps3: what it shows within 15 s, up to three; see ``clientsSideBySide(client:)``).
    static let pypiClients = """
        import json, sys, time
        which, port = sys.argv[1], int(sys.argv[2])
        def say(t, lat, lon): print(json.dumps({"time": str(t), "lat": lat, "lon": lon}), flush=True)
        if which == "gps3":
            from gps3 import gps3
            socket = gps3.GPSDSocket(); socket.connect("127.0.0.1", port); socket.watch()
            stream, seen, deadline = gps3.DataStream(), [], time.monotonic() + 15
            # `for line in socket` polls without waiting (a busy loop); next(timeout=1) waits.
            while len(seen) < 3 and time.monotonic() < deadline:
                line = socket.next(timeout=1)
                if line:
                    stream.unpack(line)
                    if stream.TPV["lat"] != "n/a" and stream.TPV["time"] not in seen:
                        say(stream.TPV["time"], stream.TPV["lat"], stream.TPV["lon"]); seen.append(stream.TPV["time"])
        elif which == "gpsd-py3":
            import gpsd
            gpsd.connect("127.0.0.1", port)
            seen = []
            while len(seen) < 3:
                packet = gpsd.get_current()
                if packet.mode >= 2 and packet.time not in seen:
                    say(packet.time, packet.lat, packet.lon); seen.append(packet.time)
                time.sleep(0.1)
        elif which == "gpsdclient":
            from gpsdclient import GPSDClient
            with GPSDClient(host="127.0.0.1", port=port) as client:
                for seen, report in enumerate(client.dict_stream(filter=["TPV"], convert_datetime=False)):
                    say(report["time"], report["lat"], report["lon"])
                    if seen == 2: break
        """

    /// A gpsd client users run, for ``clientsSideBySide(client:)``.
    enum Client: String, CaseIterable, Sendable {
        case gps3, gpsdPy3 = "gpsd-py3", gpsdclient, pythonGPS = "Python's gps", gpspipe = "gpspipe -w", gpxlogger, cgps

        var isAvailable: Bool {
            switch self {
            case .gps3, .gpsdPy3, .gpsdclient: GPSDFeedLiveTests.pathPython != nil
            case .pythonGPS: GPSDFeedLiveTests.hasPythonGPS
            case .gpspipe: GPSDFeedLiveTests.gpspipe != nil
            case .gpxlogger: GPSDFeedLiveTests.gpxlogger != nil
            case .cgps: GPSDFeedLiveTests.cgps != nil && GPSDFeedLiveTests.tmux != nil
            }
        }
    }

    @Test(
        "The clients users run (gps3, gpsd-py3, gpsdclient from PyPI; Python's gps; gpspipe; gpxlogger; cgps in tmux) read locsim's player as they read a real gpsd fed the same walk",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"), arguments: Client.allCases)
    func clientsSideBySide(client: Client) async throws {
        guard client.isAvailable else {
            // Absent tools skip a test, never fail it (docs/development/testing.md).
            print("skipped: \(client.rawValue) is not installed (scripts/bootstrap.sh installs gpsd-clients, tmux, python3-gps and the PyPI clients)")
            return
        }
        // gps3 reads each line through a new buffered file and drops the rest of that read: it sees
        // a TPV only when a read begins with one. locsim writes each fix's TPV first, with its SKY,
        // in one write; gpsd writes an epoch's reports one by one as the sentences come, so a gps3
        // slowed by a busy machine reads mid-epoch and can miss every TPV for seconds (seen beside
        // two CPU hogs: 2 positions in 20 s while a watcher beside it read 20 TPVs, 1.07 s apart at
        // most; in a full run of the suite, none in its 15 s). Against gpsd, what gps3 prints must
        // be true positions, however few, and the watcher beside it must read at least three TPVs:
        // gpsd sent them, and that leg is the reference of what the client manages. Against
        // locsim, three, as every client.
        try await withRealGPSDBeside(speed: client == .gps3 ? 1 : LiveFeed.speed) { feed, nmea, daemon in
            let relay = try NMEARelay(from: feed.port, into: nmea)
            defer { relay.stop() }
            let reference = try await feed.reference("alice")
            for (server, port) in [("locsim", feed.port), ("gpsd", daemon.port)] {
                let what = "\(client.rawValue) on \(server)"
                // A watcher of our own beside the client: when the client sees too little, it
                // says whether the server went quiet or the client missed what came.
                let beside = try RawGPSDClient(port: port)
                defer { beside.stop() }
                do {
                    let lossy = client == .gps3 && server == "gpsd"
                    try await Self.readSideBySide(client, port: port, what: what, reference: reference, minimum: lossy ? 0 : 3)
                    if lossy {
                        let sent = beside.received.filter { $0.text.hasPrefix(#"{"class":"TPV""#) }.count
                        #expect(sent >= 3, "\(what): gpsd sent \(sent) TPV reports")
                    }
                } catch {
                    let arrivals = beside.received.filter { $0.text.hasPrefix(#"{"class":"TPV""#) }.map(\.receivedAt)
                    let gaps = zip(arrivals, arrivals.dropFirst()).map { $1 - $0 }
                    let since = arrivals.last.map { ContinuousClock.now - $0 }
                    throw HarnessError(
                        "\(what): \(error)\nbeside it, a watcher read \(arrivals.count) TPV reports, longest gap "
                            + "\(gaps.max() ?? .zero), the last \(since.map { "\($0)" } ?? "never") ago; locsim: clients "
                            + "\(feed.server.clients), dropped \(feed.server.droppedReports); relay: \(relay.status); gpsd: \(daemon.log)")
                }
            }
        }
    }

    /// One leg of ``clientsSideBySide(client:)``: `client` watching `port` shows the player's positions.
    static func readSideBySide(_ client: Client, port: Int, what: String, reference: [Date: Fix], minimum: Int) async throws {
                if client == .cgps {
                    // The fix and the sky: 11 satellites seen, 8 used (gpsd's from locsim's GSA and GSV).
                    let screen = try await Self.cgpsScreen(port: port) { $0.contains("Seen 11/Used  8") && $0.contains("3D FIX") }
                    // Thrown, not expected: the caller then says what the watcher beside cgps read,
                    // the relay's state and gpsd's log.
                    guard screen.contains("Seen 11/Used  8") && screen.contains("3D FIX") else {
                        throw HarnessError("cgps showed no 3D fix with 11 seen and 8 used within 10 s:\n\(screen)")
                    }
                    let latitude = screen.firstMatch(of: /Latitude:\s+([0-9.]+) N/).flatMap { Double($0.output.1) }
                    #expect(
                        latitude.map { value in reference.values.contains { abs($0.coordinate!.latitude - value) <= 5e-9 + Self.degrees } } == true,
                        "\(what): latitude \(String(describing: latitude))")
                    return
                }
                let positions = try await Self.positions(of: client, port: port)
                #expect(positions.count >= minimum, "\(what): \(positions)")
                // Each is the player's position at that time, to NMEA's precision (gpsd's side).
                for (stamp, latitude, longitude) in positions {
                    guard let stamp, let time = UTCTimestamp.parse(stamp.replacingOccurrences(of: " ", with: "T")),
                        let fix = reference.first(where: { abs($0.key.timeIntervalSince(time)) < 0.006 })?.value,
                        let coordinate = fix.coordinate, let latitude, let longitude
                    else {
                        Issue.record("\(what): \(stamp ?? "no time") \(String(describing: latitude)) is no fix of the walk")
                        continue
                    }
                    #expect(abs(latitude - coordinate.latitude) <= Self.degrees + 1e-9, "\(what) at \(stamp)")
                    #expect(abs(longitude - coordinate.longitude) <= Self.degrees + 1e-9, "\(what) at \(stamp)")
                }
    }

    /// The first positions (time, latitude, longitude) `client` shows watching `port`.
    static func positions(of client: Client, port: Int) async throws -> [(String?, Double?, Double?)] {
        func fromJSONLines(_ text: String) throws -> [(String?, Double?, Double?)] {
            // Lines may end in CR LF, one Character in Swift: split on either.
            try text.split(whereSeparator: \.isNewline).map { line in
                let report = try object(line)
                return (report["time"] as? String, report["lat"] as? Double, report["lon"] as? Double)
            }
        }
        switch client {
        case .gps3, .gpsdPy3, .gpsdclient, .pythonGPS:
            let arguments =
                client == .pythonGPS ? [python, "-c", pythonGPSClient, String(port)] : [pathPython!, "-c", pypiClients, client.rawValue, String(port)]
            let run = try await ChildProcess(arguments)
            defer { run.stop() }
            let ended = try await run.waitForExit(timeout: .seconds(20))
            guard ended == .exited(0) else { throw HarnessError("\(client.rawValue) ended \(ended): \(run.errors)") }
            return try fromJSONLines(run.output)
        case .gpspipe:
            // gpspipe buffers what it writes to a pipe: it is read once it has ended.
            let pipe = try await ChildProcess([gpspipe!, "-w", "-n", "20", "127.0.0.1:\(port)"])
            defer { pipe.stop() }
            let ended = try await pipe.waitForExit(timeout: .seconds(20))
            guard ended == .exited(0) else { throw HarnessError("gpspipe ended \(ended): \(pipe.errors)") }
            let positioned = pipe.output.split(whereSeparator: \.isNewline).filter {
                $0.contains(#""class":"TPV""#) && $0.contains(#""lat":"#)
            }
            return try fromJSONLines(positioned.joined(separator: "\n"))
        case .gpxlogger:
            // A GPX track on standard output.
            let logger = try await ChildProcess([gpxlogger!, "127.0.0.1:\(port)"])
            defer { logger.stop() }
            try await logger.wait(for: "three track points") { logger.output.components(separatedBy: "<trkpt").count > 3 }
            let points = try Regex(#"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">\s*(?:<ele>[^<]*</ele>\s*)?<time>([^<]+)</time>"#)
            return logger.output.matches(of: points).map { match in
                (
                    match.output[3].substring.map(String.init), match.output[1].substring.flatMap { Double($0) },
                    match.output[2].substring.flatMap { Double($0) }
                )
            }
        case .cgps:
            throw HarnessError("cgps shows a screen, not positions")
        }
    }

    /// Three positioned TPVs through Debian's Python `gps` module, one JSON line each.
    static let pythonGPSClient = """
        import gps, json, sys
        session = gps.gps(host="127.0.0.1", port=int(sys.argv[1]), mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
        seen = 0
        while seen < 3:
            report = session.next()
            if report["class"] == "TPV" and "lat" in report:
                print(json.dumps({"time": report["time"], "lat": report["lat"], "lon": report["lon"]}), flush=True)
                seen += 1
        """

    /// What the cgps pane says after cgps has ended, with its exit status.
    static let cgpsEnded = "locsim-test: cgps ended with status"

    /// What `cgps` shows, run in a detached tmux session watching `port`, once `ready` holds of
    /// its screen (or after 10 s); the session is closed before this returns.
    ///
    /// A terminal program's screen changes with no event of its own, so the pane's output is
    /// piped (`pipe-pane`) through a FIFO into a `cat` this test reads: each time cgps draws, the
    /// test is woken and reads the screen again (`capture-pane`). Each screen has a tmux server
    /// of its own (`-S`, no configuration file): the two legs run at once, and on one shared
    /// server the first leg's `kill-session` ends the server while the other leg's `new-session`
    /// is connecting ("server exited unexpectedly"). tmux leaves its socket behind when the
    /// server is killed: it goes with the scratch folder it is in, as does the FIFO.
    static func cgpsScreen(port: Int, until ready: (String) -> Bool) async throws -> String {
        try await withScratchFolder("locsim-cgps") { folder in
            let socket = folder + "/tmux.socket"
            let fifo = folder + "/screen.fifo"
            guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("mkfifo \(fifo): errno \(errno)") }
            let drawn = try await ChildProcess(["/bin/cat", fifo])
            defer { drawn.stop() }
            let server = [tmux!, "-S", socket, "-f", "/dev/null"]
            // cgps's last words stay on the screen if it ends (a pane whose program exits is gone, and
            // with it what cgps said on the way out), and the screen says how it ended.
            let command = "\(cgps!) 127.0.0.1:\(port); echo \"\(Self.cgpsEnded) $?\"; exec sleep 600"
            let opened = try await ChildProcess.run(
                server + ["new-session", "-d", "-s", "cgps", "-x", "100", "-y", "30", command])
            guard opened.termination == .exited(0) else { throw HarnessError("tmux: \(opened.errors)") }
            var screen = ""
            do {
                let piped = try await ChildProcess.run(server + ["pipe-pane", "-o", "-t", "cgps", "exec cat > '\(fifo)'"])
                guard piped.termination == .exited(0) else { throw HarnessError("tmux pipe-pane: \(piped.errors)") }
                let deadline = ContinuousClock.now + .seconds(10)
                while true {
                    // What the pane wrote so far, before reading the screen: a draw after this wakes
                    // the wait below even if it came before the wait began.
                    let written = drawn.output.utf8.count
                    let captured = try await ChildProcess.run(server + ["capture-pane", "-p", "-t", "cgps"])
                    guard captured.termination == .exited(0) else {
                        throw HarnessError("tmux capture-pane: \(captured.errors); the screen before: \(screen)")
                    }
                    screen = captured.output
                    if screen.contains(Self.cgpsEnded) { throw HarnessError("cgps ended before showing the fix:\n\(screen)") }
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard !ready(screen), left > .zero else { break }
                    do {
                        try await drawn.wait(for: "cgps to draw again", timeout: left) { drawn.output.utf8.count > written }
                    } catch is HarnessError {
                        break  // 10 s without the screen wanted: the caller's expectations show this one
                    }
                }
            } catch {
                _ = try? await ChildProcess.run(server + ["kill-server"])
                throw error
            }
            _ = try await ChildProcess.run(server + ["kill-server"])
            return screen
        }
    }

    /// One satellite of a SKY report, as gpsd writes it from NMEA (whole units).
    struct SkySatellite: Hashable, CustomStringConvertible {
        let prn: Int, elevation: Double, azimuth: Double, signal: Double, used: Bool
        var description: String { "\(prn)@\(elevation)/\(azimuth) \(signal) dB\(used ? " used" : "")" }
    }

    /// The satellites of a `SKY` report line, or nil for another line.
    static func skySatellites(_ line: String) -> [SkySatellite]? {
        guard line.hasPrefix(#"{"class":"SKY""#),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return nil }
        let satellites = object["satellites"] as? [[String: Any]] ?? []
        return satellites.map { satellite in
            SkySatellite(
                prn: satellite["PRN"] as? Int ?? -1, elevation: satellite["el"] as? Double ?? .nan,
                azimuth: satellite["az"] as? Double ?? .nan, signal: satellite["ss"] as? Double ?? .nan,
                used: satellite["used"] as? Bool ?? false)
        }.sorted { $0.prn < $1.prn }
    }

    /// A feed, and beside it a real gpsd reading an NMEA feed of its own (connected), for the
    /// tests that hold locsim to gpsd; everything stops when `body` returns.
    private func withRealGPSDBeside(
        speed: Double = LiveFeed.speed, _ body: (LiveFeed, NMEAFeed, GPSDDaemon) async throws -> Void
    ) async throws {
        let feed = try await LiveFeed.start(speed: speed)
        defer { feed.stop() }
        let nmea = try NMEAFeed()
        defer { nmea.close() }
        let daemon = try await GPSDDaemon.start(feedPort: nmea.port)
        defer { daemon.stop() }
        try await nmea.acceptClient(timeout: .seconds(30))
        try await body(feed, nmea, daemon)
    }
}

/// locsim's NMEA (a `?WATCH` with `nmea`), line by line, into a real gpsd's receiver feed, until
/// ``stop()``.
private final class NMEARelay: Sendable {
    private let lines: SocketLines
    private let pump: Task<String?, Never>
    /// Sentences written into gpsd's feed so far, and when the last was.
    private let written = Locked<(count: Int, last: ContinuousClock.Instant?)>((0, nil))

    init(from port: Int, into nmea: NMEAFeed) throws {
        let lines = try SocketLines(port: port, request: #"?WATCH={"enable":true,"nmea":true};"# + "\n")
        self.lines = lines
        let written = written
        pump = Task {
            var forwarded = 0
            while !Task.isCancelled {
                do {
                    try await lines.wait("locsim's next NMEA line", timeout: .seconds(3600)) { [forwarded] in
                        $0.lines.count > forwarded
                    }
                } catch {
                    return Task.isCancelled ? nil : "locsim's NMEA stopped: \(error)"
                }
                let received = lines.lines
                for line in received[forwarded...] where line.hasPrefix("$") {
                    do {
                        try nmea.write(String(line.dropLast(line.hasSuffix("\r") ? 1 : 0)))
                        written.withLock { $0 = ($0.count + 1, ContinuousClock.now) }
                    } catch {
                        return "the relay to gpsd failed: \(error)"
                    }
                }
                forwarded = received.count
            }
            return nil
        }
    }

    /// How far it got: sentences written, and how long ago the last was.
    var status: String {
        let (count, last) = written.withLock { $0 }
        return "\(count) sentences written, the last \(last.map { "\(ContinuousClock.now - $0)" } ?? "never") ago"
    }

    func stop() {
        pump.cancel()
        lines.stop()
    }

    /// Stops, and says why the relay failed, if it did.
    func stopped() async -> String? {
        stop()
        return await pump.value
    }
}
