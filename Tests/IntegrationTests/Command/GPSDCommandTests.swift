import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim gpsd`, `locsim nmea serve` and `locsim replay --gpsd` end to end, against a real gpsd
/// that each test starts on private loopback ports (`gpsd -N -n -S PORT tcp://127.0.0.1:FEED`)
/// and stops in a `defer`, with every `locsim` process, even when the test fails.
@Suite(.enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"), .timeLimit(.minutes(1)))
struct GPSDCommandTests {
    /// What every `locsim gpsd --format jsonl` fix line may hold, in the order written.
    static let fixKeys = ["type", "t", "lat", "lon", "accuracy", "mode", "alt", "vaccuracy", "speed", "course"]

    @Test("gpsd --format jsonl prints each fix gpsd reported as one compact line; SIGINT exits 0 and loses nothing")
    func jsonl() async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        let daemon = try await GPSDDaemon.start(feedPort: feed.port)
        defer { daemon.stop() }
        try await feed.acceptClient(timeout: .seconds(30))
        let command = try await LiveCommand(["gpsd", "--host", "127.0.0.1", "--port", String(daemon.port), "--format", "jsonl"])
        defer { command.stop() }
        try await command.wait(for: "the connected event") { $0.contains { $0.json?.event == "connected" } }

        // In lock-step: the provider keeps only the newest fix while the command is behind, and
        // a loaded machine must not make this test miss an epoch. Before each sentence, the
        // command has printed what gpsd reported for the one before.
        let lockStep = try await LockStepFeed(feed: feed, port: daemon.port, consumer: command)
        defer { lockStep.stop() }
        try await lockStep.activate()
        let start = Date(timeIntervalSince1970: 1_750_000_000.25)
        let epochs: [TestNMEA.Epoch] = (0..<6).map { (index: Int) -> TestNMEA.Epoch in
            TestNMEA.epoch(
                time: start.addingTimeInterval(Double(index)), latitude: 51.5 + Double(index) * 0.0001,
                longitude: -0.12 - Double(index) * 0.00013)
        }
        try await lockStep.send(epochs.flatMap(\.sentences))

        let connected = try #require(command.objects.first)
        #expect(connected.event == "connected", "the first line says where it connected")
        #expect(command.lines.first?.text.contains(#""endpoint":"127.0.0.1:\#(daemon.port)""#) == true)

        // gpsd may report an epoch only when the next one starts, so one more is sent than checked.
        let fixes = command.objects.filter { $0.type == "fix" }
        let reference = lockStep.raw.tpvs.filter(\.isPositioned)
        for epoch in epochs.dropLast() {
            let stamp = Self.stamp(epoch.time)
            let printed = fixes.filter { $0.timestamp == stamp }
            let last = try #require(printed.last, "no fix line at \(stamp); \(command.account)")
            #expect(abs(try #require(last.latitude) - epoch.latitude) <= 1e-9)
            #expect(abs(try #require(last.longitude) - epoch.longitude) <= 1e-9)
            #expect(last.mode == "3d")
            // The accuracy is gpsd's own estimate for the epoch, present when gpsd had one.
            let report = try #require(reference.last { $0.time.map(Self.stamp) == stamp })
            if let error = report.horizontalError {
                #expect(abs(try #require(last.accuracy, "accuracy at \(stamp)") - (error * 1000).rounded() / 1000) <= 1e-9)
            } else {
                #expect(last.accuracy == nil)
            }
        }
        #expect(fixes.contains { $0.accuracy != nil }, "gpsd estimates the accuracy from the DOPs sent")
        // Every fix line is one of the epochs sent, at its own time, in order, in the documented form.
        #expect(Set(fixes.map(\.timestamp)).count >= epochs.count - 1)
        let times: [Date] = fixes.map { $0.time ?? .distantPast }
        #expect(times == times.sorted())
        for line in command.lines where line.json?.type == "fix" {
            let fix = try #require(line.json)
            #expect(fix.time != nil, "t is ISO-8601 UTC with milliseconds: \(line.text)")
            let epoch = try #require(epochs.first { Self.stamp($0.time) == fix.timestamp }, "unexpected fix \(line.text)")
            #expect(abs(try #require(fix.latitude) - epoch.latitude) <= 1e-9)
            #expect(abs(try #require(fix.longitude) - epoch.longitude) <= 1e-9)
            #expect(Array(fix.keys.prefix(5)) == Array(Self.fixKeys.prefix(5)), "\(line.text)")
            #expect(fix.keys == Self.fixKeys.filter(fix.keys.contains), "members in the documented order: \(line.text)")
            #expect(!line.text.contains { $0.isWhitespace }, "compact: \(line.text)")
        }

        // Ctrl-C: exit status 0, and the output is whole: every line printed before is still
        // there, and the last one ends with a newline.
        let before = command.lines.map(\.text)
        command.interrupt()
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        let output = command.child.output
        #expect(output.hasSuffix("\n"))
        let after = command.lines
        #expect(Array(after.map(\.text).prefix(before.count)) == before)
        for line in after {
            #expect(line.json != nil, "every line is a JSON object: \(line.text)")
        }
        #expect(command.child.errors.isEmpty, "nothing on standard error: \(command.child.errors)")
    }

    @Test("gpsd in text format: a header, then a readable line per fix; SIGINT exits 0")
    func text() async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        let daemon = try await GPSDDaemon.start(feedPort: feed.port)
        defer { daemon.stop() }
        try await feed.acceptClient(timeout: .seconds(30))
        let command = try await LiveCommand(["gpsd", "--port", String(daemon.port)])
        defer { command.stop() }
        try await command.wait(for: "the header") { $0.contains { $0.text.hasPrefix("# connected to gpsd") } }
        #expect(command.lines.first?.text.hasSuffix("at 127.0.0.1:\(daemon.port)") == true, "\(command.account)")

        // A 10 Hz receiver, until the command has printed a whole epoch's fix (3D, with the
        // accuracy gpsd estimates from the GSA's DOPs; its report for the RMC alone is a 2D fix
        // without one). Most epochs reach it; under load the provider may pass on only the
        // newest, so any of them may be the one printed.
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        var epochs: [TestNMEA.Epoch] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while !command.lines.contains(where: { Self.textFix($0.text).map(Self.isWholeEpoch) ?? false }) {
            guard ContinuousClock.now < deadline else { throw HarnessError("no fix line within 30 s; \(command.account)") }
            let epoch = TestNMEA.epoch(
                time: start.addingTimeInterval(Double(epochs.count)), latitude: 35.68 + Double(epochs.count) * 0.0001,
                longitude: 139.76)
            epochs.append(epoch)
            try await feed.send(epoch.sentences)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(command.lines.contains { $0.text.hasPrefix("# device activated: tcp://127.0.0.1:\(feed.port)") })

        for line in command.lines {
            guard let fix = Self.textFix(line.text) else {
                #expect(line.text.hasPrefix("#") || line.text.hasSuffix("  no fix"), "unexpected line: \(line.text)")
                continue
            }
            let epoch = try #require(epochs.first { Self.stamp($0.time) == fix.stamp }, "unexpected fix \(line.text)")
            // Seven decimals: within half a unit of the seventh.
            #expect(abs(fix.latitude - epoch.latitude) <= 0.5e-7 + 1e-9)
            #expect(abs(fix.longitude - epoch.longitude) <= 0.5e-7 + 1e-9)
            #expect(fix.rest.first == "3d" || fix.rest.first == "2d", "\(line.text)")
        }

        // gpsd's repeated reports (one per sentence, no-fix ones alike) print once.
        let texts = command.lines.map(\.text)
        #expect(zip(texts, texts.dropFirst()).allSatisfy { $0 != $1 }, "a line repeated: \(texts)")

        command.interrupt()
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        #expect(command.child.output.hasSuffix("\n"))
    }

    @Test("nmea serve feeds a real gpsd, and gpsd --format jsonl gets the track's own points back")
    func nmeaServeThroughGPSD() async throws {
        let track = try TrackReference(PackagePaths.path("tracks/sf-mission-walk.gpx"))
        // The track's own times (2024, after gpsd 3.22's release, so not moved by 1024 weeks)
        // tie each fix to its point; 20× gives 20 points a second.
        let serve = try await NMEAServe.start([track.path, "--speed", "20", "--original-times"])
        defer { serve.command.stop() }
        let daemon = try await GPSDDaemon.start(feedPort: serve.port)
        defer { daemon.stop() }
        let command = try await LiveCommand(["gpsd", "--port", String(daemon.port), "--format", "jsonl"])
        defer { command.stop() }

        try await command.wait(for: "fixes at 20 different times") { lines in
            Set(lines.compactMap { $0.json?.type == "fix" ? $0.json?.timestamp : nil }).count >= 20
        }
        command.interrupt()
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        serve.command.interrupt()
        #expect(try await serve.command.waitForExit() == .exited(0), "\(serve.command.child.errors)")
        #expect(serve.command.child.errors.contains("served"), "it says what it served: \(serve.command.child.errors)")

        let fixes = command.objects.filter { $0.type == "fix" }
        #expect(command.lines.allSatisfy { $0.json != nil })
        let times: [Date] = fixes.map { $0.time ?? .distantPast }
        #expect(times == times.sorted(), "in order")
        for fix in fixes {
            let stamp = try #require(fix.timestamp)
            let point = try #require(track.points[stamp], "fix at \(stamp) is not a time of the track")
            #expect(abs(try #require(fix.latitude) - point.latitude) <= TrackReference.nmeaTolerance, "latitude at \(stamp)")
            #expect(abs(try #require(fix.longitude) - point.longitude) <= TrackReference.nmeaTolerance, "longitude at \(stamp)")
            #expect(fix.mode == "3d", "the track has elevations: \(stamp)")
        }
    }

    @Test("Field test: nmea serve → gpsd → replay --gpsd fetches first, then again; SIGINT prints the summary and exits 0")
    func fieldTest() async throws {
        let track = try TrackReference(PackagePaths.path("tracks/sf-mission-walk.gpx"))
        // 50×: the 30 s time rule fires every 0.6 s of wall time.
        let serve = try await NMEAServe.start([track.path, "--speed", "50", "--original-times"])
        defer { serve.command.stop() }
        let daemon = try await GPSDDaemon.start(feedPort: serve.port)
        defer { daemon.stop() }
        let replay = try await LiveCommand([
            "replay", "--gpsd", "127.0.0.1:\(daemon.port)", "--format", "jsonl", "--geodata", PackagePaths.path("geodata"),
            // Lines as they happen: the test reads them live through a pipe.
            "--flush",
        ])
        defer { replay.stop() }

        try await replay.wait(for: "a first fetch, then another, and answers") { lines in
            let objects = lines.compactMap(\.json)
            let fetches = objects.filter { $0.type == "fetch" }
            return fetches.first?.reason == "first" && fetches.count >= 3
                && objects.filter { $0.type == "answer" }.count >= 2
        }
        replay.interrupt()
        #expect(try await replay.waitForExit() == .exited(0), "\(replay.child.errors)")
        serve.command.interrupt()
        #expect(try await serve.command.waitForExit() == .exited(0), "\(serve.command.child.errors)")

        #expect(replay.child.output.hasSuffix("\n"))
        let lines = replay.lines
        for line in lines { #expect(line.json != nil, "every line is a JSON object: \(line.text)") }
        let objects = lines.compactMap(\.json)
        let summary = try #require(objects.last)
        #expect(summary.type == "summary", "the last line is the summary: \(lines.last?.text ?? "")")
        #expect(objects.dropLast().allSatisfy { $0.type != "summary" })

        // Fetches: exactly one "first", before any other, each after a fix; the others by the rules.
        let fetches = objects.filter { $0.type == "fetch" }
        #expect(fetches.first?.reason == "first")
        #expect(fetches.filter { $0.reason == "first" }.count == 1)
        #expect(fetches.dropFirst().allSatisfy { ["moved", "elapsed"].contains($0.reason) }, "\(fetches.map(\.reason))")
        let firstFix = try #require(objects.firstIndex { $0.type == "fix" })
        let firstFetch = try #require(objects.firstIndex { $0.type == "fetch" })
        #expect(firstFix < firstFetch, "a fetch follows the fix that triggered it")

        // Fix lines are the track's points, to NMEA precision, at the track's own times. A
        // report without a position (gpsd's first may have no time) is printed as rejected.
        let fixes = objects.filter { $0.type == "fix" }
        for fix in fixes where fix.latitude == nil {
            #expect(fix.strings["rejected"] != nil, "a fix line without a position says why it was rejected")
        }
        #expect(fixes.contains { $0.latitude != nil })
        for fix in fixes where fix.latitude != nil {
            let stamp = try #require(fix.timestamp)
            let point = try #require(track.points[stamp], "fix at \(stamp) is not a time of the track")
            #expect(abs(try #require(fix.latitude) - point.latitude) <= TrackReference.nmeaTolerance, "latitude at \(stamp)")
            #expect(abs(try #require(fix.longitude) - point.longitude) <= TrackReference.nmeaTolerance, "longitude at \(stamp)")
        }
        // Fetch centres are fixes' positions.
        for fetch in fetches {
            #expect(fixes.contains { $0.latitude == fetch.latitude && $0.longitude == fetch.longitude })
        }

        // The summary counts what was printed.
        #expect(summary.numbers["fixes"].map(Int.init) == fixes.count)
        #expect(summary.numbers["fetches"].map(Int.init) == fetches.count)
        #expect(summary.numbers["distance_m"].map { $0 > 0 } == true)
    }

    @Test("replay --gpsd tells its connection's story as 'locsim gpsd' does: connected, disconnected, retrying")
    func replayShowsDisconnectsAndRetries() async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        let daemon = try await GPSDDaemon.start(feedPort: feed.port)
        defer { daemon.stop() }
        let replay = try await LiveCommand([
            "replay", "--gpsd", "127.0.0.1:\(daemon.port)", "--format", "jsonl", "--geodata", PackagePaths.path("geodata"),
            "--flush",  // read live through a pipe
        ])
        defer { replay.stop() }
        try await replay.wait(for: "the connected event") { $0.contains { $0.json?.event == "connected" } }
        #expect(replay.lines.first?.text.contains(#""endpoint":"127.0.0.1:\#(daemon.port)""#) == true, "\(replay.account)")

        // gpsd goes away: the replay says so and keeps trying, instead of going quiet.
        daemon.stop()
        try await replay.wait(for: "disconnected, then retrying") { lines in
            let events = lines.compactMap(\.json?.event)
            guard let disconnected = events.firstIndex(of: "disconnected") else { return false }
            return events[disconnected...].contains("retrying")
        }
        let retry = try #require(replay.lines.first { $0.json?.event == "retrying" })
        #expect(retry.text.contains(#""attempt":1,"#) && (retry.json?.numbers["delay"] ?? 0) > 0, "\(replay.account)")

        replay.interrupt()
        #expect(try await replay.waitForExit() == .exited(0), "\(replay.child.errors)")
        #expect(replay.objects.last?.type == "summary", "\(replay.account)")
    }

    // MARK: Helpers

    static func stamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A text fix line `T  LAT,LON  MODE  ...`, split.
    static func textFix(_ line: String) -> (stamp: String, latitude: Double, longitude: Double, rest: [String])? {
        let fields = line.components(separatedBy: "  ")
        guard fields.count >= 3, LiveCommand.parseTimestamp(fields[0]) != nil else { return nil }
        let degrees = fields[1].split(separator: ",").compactMap { Double($0) }
        guard degrees.count == 2 else { return nil }
        return (fields[0], degrees[0], degrees[1], Array(fields[2...]))
    }

    /// Whether a text fix line is 3D and has an accuracy (`±x m`) and an altitude.
    static func isWholeEpoch(_ fix: (stamp: String, latitude: Double, longitude: Double, rest: [String])) -> Bool {
        fix.rest.first == "3d" && fix.rest.contains { $0.hasPrefix("±") && $0.hasSuffix(" m") }
            && fix.rest.contains { $0.hasPrefix("alt ") && $0.hasSuffix(" m") }
    }
}

@Suite(.timeLimit(.minutes(1))) struct GPSDCommandFailureTests {
    @Test("gpsd with nothing at host:port: exit status 1, and the message names 127.0.0.1:PORT")
    func noDaemon() async throws {
        try await LoopbackSocket.withRefusingPort { port in
            for format in ["text", "jsonl"] {
                let result = try await CLI.run(["gpsd", "--port", String(port), "--format", format])
                #expect(result.status == 1, "\(result.stderr)")
                #expect(result.stderr.contains("127.0.0.1:\(port)"), "\(result.stderr)")
            }
        }
    }

    @Test("gpsd --reconnect with no gpsd yet says it is not connected yet, not disconnected, then its retries; SIGINT exits 0")
    func reconnectBeforeFirstSession() async throws {
        try await LoopbackSocket.withRefusingPort { port in
            let command = try await LiveCommand(["gpsd", "--port", String(port), "--reconnect"])
            defer { command.stop() }
            try await command.wait(for: "a retry") { lines in lines.contains { $0.text.hasPrefix("# retrying in") } }
            let first = try #require(command.lines.first?.text)
            #expect(first.hasPrefix("# not connected yet: gpsd at 127.0.0.1:\(port): connection refused"), "\(first)")
            #expect(!command.lines.contains { $0.text.hasPrefix("# disconnected") })
            command.interrupt()
            #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        }
    }

    @Test(
        "gpsd --device (and replay --gpsd --device) naming a receiver gpsd does not have: exit status 1 with gpsd's message, not silence",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func unknownDevice() async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        let daemon = try await GPSDDaemon.start(feedPort: feed.port)
        defer { daemon.stop() }
        let unknown = "/dev/locsim-no-such-receiver"
        // replay --gpsd watches one device as 'locsim gpsd' does (without it, all of gpsd's as one walk).
        let replay = ["replay", "--gpsd", "127.0.0.1:\(daemon.port)", "--device", unknown, "--geodata", PackagePaths.path("geodata")]
        for command in [["gpsd", "--port", String(daemon.port), "--device", unknown, "--format", "text"], ["gpsd", "--port", String(daemon.port), "--device", unknown, "--format", "jsonl"], replay] {
            let result = try await CLI.run(command)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("watch rejected"), "\(result.stderr)")
            #expect(result.stderr.contains("No such device as \(unknown)"), "\(result.stderr)")
            #expect(result.stderr.contains("127.0.0.1:\(daemon.port)"), "\(result.stderr)")
            // gpsd answered: the hint is about the device, not whether gpsd runs.
            #expect(result.stderr.contains("hint: check the device's path"), "\(result.stderr)")
            #expect(!result.stderr.contains("is gpsd running"), "\(result.stderr)")
        }
    }
}

/// The points of a GPX track as the file states them, read with a pattern rather than with the
/// package's own reader: `t` (as `locsim` writes it) → position.
struct TrackReference {
    /// NMEA carries minutes with five decimals (`NMEAPrecision.minuteDecimals`), so a position
    /// comes back within half a unit, 0.5 × 10⁻⁵′ = 8.3 × 10⁻⁸°; gpsd's JSON has nine decimals
    /// (another 5 × 10⁻¹⁰°).
    static let nmeaTolerance = 0.5e-5 / 60 + 1e-9

    let path: String
    let points: [String: (latitude: Double, longitude: Double)]

    init(_ path: String) throws {
        self.path = path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let pattern = /<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">.*?<time>(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z<\/time>/
        var points: [String: (Double, Double)] = [:]
        for match in text.matches(of: pattern) {
            guard let latitude = Double(match.1), let longitude = Double(match.2) else { continue }
            points[match.3 + ".000Z"] = (latitude, longitude)
        }
        guard points.count == text.components(separatedBy: "<trkpt ").count - 1 else {
            throw HarnessError("\(path): read \(points.count) timed points of \(text.components(separatedBy: "<trkpt ").count - 1)")
        }
        self.points = points
    }
}
