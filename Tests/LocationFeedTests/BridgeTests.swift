#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocSimTestHelpers
import LocationCore
import LocationFeed
import LocationTestSupport
import Testing

/// The forwarder's failure events, as text.
final class FailureLog: Sendable {
    let errors = Locked<[String]>([])
}

@Suite("Bridges: the Android emulator console and the iOS Simulator", .timeLimit(.minutes(1)))
struct BridgeTests {
    static let token = "k3Yt0kenA1"

    static func fix(_ latitude: Double, _ longitude: Double, altitude: Double? = 40, speed: Double? = nil, second: Double = 0) throws -> Fix {
        var fix = Fix(
            time: Date(timeIntervalSince1970: 1_767_225_600 + second),
            coordinate: try Coordinate(latitude: latitude, longitude: longitude), altitude: altitude, source: .synthetic)
        fix.speed = speed
        return fix
    }

    /// The line the console must receive, written with C's printf rather than the library's formatter.
    static func expectedLine(_ fix: Fix) -> String {
        let coordinate = fix.coordinate!
        var words = ["geo", "fix", String(format: "%.7f", coordinate.longitude), String(format: "%.7f", coordinate.latitude)]
        // The emulator's `help geo fix`: [<altitude> [<satellites> [<velocity>]]], velocity in knots.
        if fix.altitude != nil || fix.speed != nil { words.append(String(format: "%.1f", fix.altitude ?? 0)) }
        if let speed = fix.speed { words += ["8", String(format: "%.3f", speed * 3600 / 1852)] }
        return words.joined(separator: " ") + "\r\n"
    }

    /// Writes a token file with `contents` in `folder` and returns its path.
    static func tokenFile(_ contents: String, in folder: String) throws -> String {
        let path = folder + "/token"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func forwarder<C: Clock>(
        _ sink: any FixSink, clock: C, interval: Duration = .zero, attempts: Int? = 0, events: FailureLog? = nil
    ) throws -> FixForwarder<C> where C.Duration == Duration {
        try FixForwarder(
            sink: sink, minimumInterval: interval,
            backoff: Backoff(initialDelay: .milliseconds(10), multiplier: 2, maximumDelay: .milliseconds(50), maximumAttempts: attempts),
            clock: clock,
            onEvent: { event in
                if case .failed(_, let error, _) = event { events?.errors.withLock { $0.append("\(error)") } }
            })
    }

    @Test("auth with the token file's token, then one 'geo fix LON LAT [ALT [SATELLITES [KNOTS]]]' per fix, CR LF, in order")
    func authenticatesAndSendsFixes() async throws {
        let console = try ConsoleStandIn(token: Self.token)
        defer { console.stop() }
        try await withScratchFolder("locsim-token") { folder in
            let tokenFile = try Self.tokenFile(Self.token + "\n", in: folder)
            let sink = EmulatorConsole(configuration: try .init(port: console.port, tokenFile: tokenFile))
            let mailbox = FixMailbox()
            let fixes = [
                try Self.fix(35.6811824, 139.7670915), try Self.fix(-33.8688, -151.2093, altitude: nil, second: 1),
                try Self.fix(0.000_000_04, 179.999_999_96, altitude: -12.26, second: 2),
                try Self.fix(35.68, 139.76, speed: 1.4, second: 3), try Self.fix(35.68, 139.76, altitude: nil, speed: 12.5, second: 4),
                try Self.fix(35.68, 139.76, speed: 0, second: 5),
            ]
            let run = Task { try await Self.forwarder(sink, clock: ContinuousClock()).run(mailbox) }
            var expected = "auth \(Self.token)\r\n"
            for fix in fixes {
                mailbox.post(fix)
                expected += Self.expectedLine(fix)
                let sent = expected
                try await console.wait { $0.first == sent }
            }
            mailbox.finish()
            try await run.value
            #expect(console.connections == [expected])
        }
    }

    @Test("A console that asks for no token gets none")
    func noAuthWhenNotAsked() async throws {
        let console = try ConsoleStandIn(token: nil)
        defer { console.stop() }
        let sink = EmulatorConsole(configuration: try .init(port: console.port, tokenFile: "/nonexistent/token"))
        let mailbox = FixMailbox()
        let fix = try Self.fix(51.5, -0.12)
        mailbox.post(fix)
        mailbox.finish()
        try await Self.forwarder(sink, clock: ContinuousClock()).run(mailbox)
        #expect(console.connections == [Self.expectedLine(fix)])
    }

    @Test("A wrong token, a missing token file and a refused fix are typed errors naming the console")
    func refusals() async throws {
        let console = try ConsoleStandIn(token: Self.token)
        defer { console.stop() }
        try await withScratchFolder("locsim-token") { folder in
            let wrong = try Self.tokenFile("not-the-token\n", in: folder)
            for (file, code, words) in [
                (wrong, EmulatorConsoleError.Code.authentication, "authentication token does not match"),
                ("/nonexistent/locsim-token", .authentication, "/nonexistent/locsim-token"),
            ] {
                let mailbox = FixMailbox()
                mailbox.post(try Self.fix(1, 2))
                let sink = EmulatorConsole(configuration: try .init(port: console.port, tokenFile: file))
                let error = await #expect(throws: EmulatorConsoleError.self) {
                    try await Self.forwarder(sink, clock: ContinuousClock()).run(mailbox)
                }
                #expect(error?.code == code)
                #expect(error?.endpoint == "127.0.0.1:\(console.port)")
                #expect(error?.description.contains(words) == true, "\(String(describing: error))")
            }
        }

        let refusing = try ConsoleStandIn(token: nil, behaviour: .refuseFixes)
        defer { refusing.stop() }
        let mailbox = FixMailbox()
        mailbox.post(try Self.fix(1, 2))
        let sink = EmulatorConsole(configuration: try .init(port: refusing.port, tokenFile: "/unused"))
        let error = await #expect(throws: EmulatorConsoleError.self) {
            try await Self.forwarder(sink, clock: ContinuousClock()).run(mailbox)
        }
        #expect(error?.code == .refused)
        #expect(error?.description.contains("KO: argument 'x' is not a number") == true)
    }

    @Test("Nothing listening, or a console that never answers: connect and timeout errors, not a hang")
    func unreachableAndSilent() async throws {
        try await LoopbackSocket.withRefusingPort { port in
            let mailbox = FixMailbox()
            mailbox.post(try Self.fix(1, 2))
            let closed = EmulatorConsole(configuration: try .init(port: port, tokenFile: "/unused"))
            let connectError = await #expect(throws: EmulatorConsoleError.self) {
                try await Self.forwarder(closed, clock: ContinuousClock()).run(mailbox)
            }
            #expect(connectError?.code == .connect)
            #expect(connectError?.endpoint == "127.0.0.1:\(port)")
            // In the system's words, as swarm says it (ConnectFailure), not NIO's nested values.
            #expect(
                connectError?.description
                    == "android emulator console 127.0.0.1:\(port): cannot connect: Connection refused (is the emulator running on this port?)",
                "\(String(describing: connectError))")

            let silent = try ConsoleStandIn(token: Self.token, behaviour: .silentAfterGreeting)
            defer { silent.stop() }
            try await withScratchFolder("locsim-token") { folder in
                let tokenFile = try Self.tokenFile(Self.token, in: folder)
                let sink = EmulatorConsole(configuration: try .init(port: silent.port, tokenFile: tokenFile, replyTimeout: .milliseconds(200)))
                let timeoutError = await #expect(throws: EmulatorConsoleError.self) {
                    try await Self.forwarder(sink, clock: ContinuousClock()).run(mailbox)
                }
                #expect(timeoutError?.code == .timeout)
            }
        }
    }

    @Test("A dropped connection is opened again and the fix that failed goes first")
    func reconnects() async throws {
        let console = try ConsoleStandIn(token: Self.token, behaviour: .dropFirstConnectionAfterOneFix)
        defer { console.stop() }
        try await withScratchFolder("locsim-token") { folder in
            let tokenFile = try Self.tokenFile(Self.token, in: folder)
            let sink = EmulatorConsole(configuration: try .init(port: console.port, tokenFile: tokenFile))
            let mailbox = FixMailbox()
            let failures = FailureLog()
            let run = Task { try await Self.forwarder(sink, clock: ContinuousClock(), attempts: 5, events: failures).run(mailbox) }
            let first = try Self.fix(10, 20)
            let second = try Self.fix(10.001, 20.001, second: 1)
            mailbox.post(first)
            try await console.wait { $0.first?.hasSuffix(Self.expectedLine(first)) == true }
            mailbox.post(second)
            try await console.wait { $0.count == 2 && $0[1].hasSuffix(Self.expectedLine(second)) }
            mailbox.finish()
            try await run.value
            #expect(console.connections == [
                "auth \(Self.token)\r\n" + Self.expectedLine(first), "auth \(Self.token)\r\n" + Self.expectedLine(second),
            ])
            #expect(failures.errors.withLock { $0.count } == 1)
        }
    }

    @Test("At most one fix per interval, in virtual time: the newest is sent, the ones between are skipped")
    func rateLimitInVirtualTime() async throws {
        let console = try ConsoleStandIn(token: nil)
        defer { console.stop() }
        let clock = VirtualClock()
        let sink = EmulatorConsole(configuration: try .init(port: console.port, tokenFile: "/unused"))
        let mailbox = FixMailbox()
        let run = Task { try await Self.forwarder(sink, clock: clock, interval: .seconds(1)).run(mailbox) }
        let fixes = try (0..<4).map { try Self.fix(35 + Double($0) / 1000, 139, second: Double($0)) }
        mailbox.post(fixes[0])
        try await console.wait { $0.first == Self.expectedLine(fixes[0]) }
        mailbox.post(fixes[1])  // due one second after the first: the forwarder waits
        await clock.waitForSleepers(1)
        mailbox.post(fixes[2])
        mailbox.post(fixes[3])
        #expect(console.connections == [Self.expectedLine(fixes[0])], "nothing more before the interval has passed")
        await clock.advance(by: .seconds(1))
        try await console.wait { $0.first == Self.expectedLine(fixes[0]) + Self.expectedLine(fixes[3]) }
        mailbox.finish()
        try await run.value
        #expect(console.connections == [Self.expectedLine(fixes[0]) + Self.expectedLine(fixes[3])])
    }

    /// A stand-in for `xcrun` (which Linux has not): a script that tells a FIFO its pid and its
    /// arguments, then does `rest`; `cat` holds the FIFO open (read and write, so it never sees
    /// an end) and the test waits on what cat prints, with no polling.
    struct StandIn {
        let directory: URL
        let reader: ChildProcess

        init() async throws {
            directory = URL(fileURLWithPath: try newScratchFolder("locsim-simctl"))
            let fifo = directory.appendingPathComponent("calls").path
            guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("mkfifo \(fifo): errno \(errno)") }
            reader = try await ChildProcess(["/bin/sh", "-c", "exec cat 0<> '\(fifo)'"])
        }

        /// Writes the script `name` and returns its path.
        func script(_ name: String, then rest: String = "") throws -> String {
            let path = directory.appendingPathComponent(name).path
            let fifo = directory.appendingPathComponent("calls").path
            try Data("#!/bin/sh\necho \"$$ $*\" > '\(fifo)'\n\(rest)\n".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            return path
        }

        /// The calls so far: pid and arguments.
        var calls: [(pid: pid_t, arguments: String)] {
            reader.output.split(separator: "\n").map { line in
                let parts = line.split(separator: " ", maxSplits: 1)
                return (pid_t(parts[0]) ?? 0, parts.count > 1 ? String(parts[1]) : "")
            }
        }

        func wait(forCalls count: Int) async throws {
            let reader = reader
            try await reader.wait(for: "\(count) simctl calls") { reader.output.split(separator: "\n").count >= count }
        }

        func stop() {
            reader.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("simctl: one 'simctl location DEVICE set LAT,LON' per fix; a failing simctl says what it printed")
    func simulatorLocation() async throws {
        let standIn = try await StandIn()
        defer { standIn.stop() }
        let recording = try standIn.script("xcrun")
        let failing = try standIn.script("xcrun-failing", then: "echo 'Invalid device: nope' >&2\nexit 148")

        let fixes = [try Self.fix(35.6811824, 139.7670915), try Self.fix(-33.8688, -151.2093, second: 1)]
        let sink = SimulatorLocation(configuration: try .init(device: "booted", executable: recording), clock: ContinuousClock())
        let mailbox = FixMailbox()
        let run = Task { try await Self.forwarder(sink, clock: ContinuousClock()).run(mailbox) }
        var expected: [String] = []
        for fix in fixes {
            mailbox.post(fix)
            let c = fix.coordinate!
            expected.append("simctl location booted set \(String(format: "%.7f", c.latitude)),\(String(format: "%.7f", c.longitude))")
            try await standIn.wait(forCalls: expected.count)
        }
        mailbox.finish()
        try await run.value
        #expect(standIn.calls.map(\.arguments) == expected)

        let failingSink = SimulatorLocation(configuration: try .init(device: "nope", executable: failing), clock: ContinuousClock())
        let again = FixMailbox()
        again.post(fixes[0])
        let error = await #expect(throws: SimulatorLocationError.self) {
            try await Self.forwarder(failingSink, clock: ContinuousClock()).run(again)
        }
        #expect(error?.message == "exit status 148: Invalid device: nope")
        #expect(throws: ConfigurationError.self) { try SimulatorLocation.Configuration(device: "--help") }
    }

    @Test("simctl: a run past its timeout is killed and the fix fails, naming the timeout; a missing xcrun says it cannot start")
    func simulatorTimeout() async throws {
        let standIn = try await StandIn()
        defer { standIn.stop() }
        let hanging = try standIn.script("xcrun-hanging", then: "exec sleep 300")
        let clock = VirtualClock()
        let sink = SimulatorLocation(configuration: try .init(device: "booted", executable: hanging, timeout: .seconds(10)), clock: clock)
        let fix = try Self.fix(35.6811824, 139.7670915)
        let sent = Task { try await sink.withSession { try await $0.send(fix) } }
        // The stand-in is running (it told the FIFO) and the timeout is waiting on the clock.
        try await standIn.wait(forCalls: 1)
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(10))
        let error = await #expect(throws: SimulatorLocationError.self) { try await sent.value }
        #expect(error?.message == "no result within 10.0 seconds; stopped")
        // Killed and reaped before the error was thrown.
        let pid = try #require(standIn.calls.first?.pid)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the stand-in \(pid) is still there")

        let missing = SimulatorLocation(
            configuration: try .init(device: "booted", executable: standIn.directory.appendingPathComponent("no-xcrun").path), clock: clock)
        let notStarted = await #expect(throws: SimulatorLocationError.self) { try await missing.withSession { try await $0.send(fix) } }
        #expect(notStarted?.message.hasPrefix("cannot start ") == true, "\(String(describing: notStarted))")
        #expect(notStarted?.message.contains("simctl needs macOS with Xcode") == true, "\(String(describing: notStarted))")
    }
}
