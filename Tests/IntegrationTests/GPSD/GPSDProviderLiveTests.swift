#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocSimTestHelpers
import LocationCore
import LocationGPSD
import LocationTestSupport
import Testing

/// The provider against a real gpsd that each test starts on a private loopback port
/// (`gpsd -N -n -S PORT tcp://127.0.0.1:FEED`) and stops in a `defer`, even when it fails.
@Suite(.enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"), .timeLimit(.minutes(1)))
struct GPSDProviderLiveTests {
    @Test("Fixes carry exactly the positions and times the receiver sent")
    func streamsFixes() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock()).events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "connected", isConnected)
        // In lock-step: the provider keeps only the newest fix while its consumer is behind, and
        // a loaded machine must not make this test miss an epoch.
        let lockStep = try await live.lockStep(recorder)
        defer { lockStep.stop() }
        try await lockStep.activate()

        // gpsd may report an epoch only when the next one starts, so one more is sent than checked.
        let epochs = LiveGPSD.epochs(count: 6)
        try await lockStep.send(epochs.flatMap(\.sentences))
        let checked = epochs.dropLast()
        try await recorder.wait(for: "\(checked.count) epochs") { _ in
            Set(recorder.positions.map(\.time)).count >= checked.count
        }
        for epoch in checked {
            let fixes = recorder.positions.filter { $0.time == epoch.time }
            let fix = try #require(fixes.last, "no fix at \(epoch.time)")
            let coordinate = try #require(fix.coordinate)
            #expect(abs(coordinate.latitude - epoch.latitude) < 1e-9)
            #expect(abs(coordinate.longitude - epoch.longitude) < 1e-9)
            #expect(fix.mode == .threeDimensional)
            #expect(fix.source == .gpsd)
        }
        // Every positioned fix is one of the epochs sent, at its own time.
        for fix in recorder.positions {
            let epoch = try #require(epochs.first { $0.time == fix.time }, "unexpected fix \(fix)")
            #expect(abs(fix.coordinate!.latitude - epoch.latitude) < 1e-9)
        }
    }

    @Test("Waiting for a daemon retries with capped exponential back-off, then connects")
    func waitsForDaemon() async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        let port = try LoopbackSocket.freePort()
        let clock = VirtualClock()
        let backoff = try Backoff(initialDelay: .milliseconds(100), multiplier: 2, maximumDelay: .milliseconds(350))
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: port, configuration: .init(waitForDaemon: true, backoff: backoff),
            clock: clock, now: { Date(timeIntervalSince1970: 0) })
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }

        for attempt in 1...4 {
            try await recorder.wait(for: "retry \(attempt)") { retries(in: $0).count >= attempt }
            await clock.waitForSleepers(1)
            if attempt < 4 { await clock.advance(by: backoff.delay(afterFailures: attempt)) }
        }
        let delays = retries(in: recorder.recorded)
        #expect(delays == (1...4).map { backoff.delay(afterFailures: $0) })
        #expect(delays.last == backoff.maximumDelay, "the cap applies")
        for event in recorder.recorded {
            if case .disconnected(let error) = event {
                #expect(error.code == .connectionRefused)
                #expect(error.description.contains("127.0.0.1:\(port)"))
            }
        }

        // gpsd appears; the pending retry connects.
        let daemon = try await GPSDDaemon.start(feedPort: feed.port, port: port)
        defer { daemon.stop() }
        await clock.advance(by: backoff.maximumDelay)
        try await recorder.wait(for: "connected", isConnected)
    }

    @Test("gpsd killed mid-stream and restarted: the gap is reported (to the fix view's event hook too) and fixes resume")
    func killAndRestart() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let clock = VirtualClock()
        let provider = try live.provider(clock: clock, configuration: .resilient)
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }
        // The Fix view, told the session's other events as they happen (reportingEvents).
        let told = Locked<[GPSDEvent]>([])
        let fixes = FixCollector(provider.reportingEvents { event in told.withLock { $0.append(event) } })
        defer { fixes.cancelNow() }
        try await recorder.wait(for: "connected", isConnected)

        // The Fix view's own session subscribes at its own pace: feed epochs until both saw fixes.
        let lastBefore = try await live.feedEpochs {
            !recorder.positions.isEmpty && fixes.current.contains(where: \.hasPosition)
        }

        try await live.daemon.kill(SIGKILL)
        try await recorder.wait(for: "the gap") { events in
            events.contains { if case .disconnected(let error) = $0 { error.code == .daemonClosed } else { false } }
        }
        try await recorder.wait(for: "a retry") { !retries(in: $0).isEmpty }
        // The Fix view marks the gap with one status fix, never a position.
        try await fixes.wait { $0.last.map { !$0.hasPosition } ?? false }
        // Its hook heard the loss before the marker was returned, and never a fix.
        let heard = told.withLock { $0 }
        #expect(heard.contains { if case .disconnected(let error) = $0 { error.code == .daemonClosed } else { false } }, "\(heard)")
        #expect(!heard.contains { if case .fix = $0 { true } else { false } })

        let restarted = try await live.daemon.restarted()
        defer { restarted.stop() }
        try await live.feed.acceptClient()
        await clock.waitForSleepers(2)
        await clock.advance(by: .seconds(1))
        try await recorder.wait(for: "reconnected") { events in events.filter(isConnected).count == 2 }

        let after = LiveGPSD.epochs(count: 4, from: lastBefore.addingTimeInterval(100))
        try await live.feed.send(after.flatMap(\.sentences), pace: .milliseconds(2))
        try await recorder.wait(for: "fixes after the restart") { _ in
            recorder.positions.contains { $0.time >= after[0].time }
        }
        try await fixes.wait { fixes in fixes.last.map { $0.hasPosition && $0.time >= after[0].time } ?? false }
        // The hook told the whole story in order: connected, disconnected, retrying, connected again.
        let story = told.withLock { $0 }
        #expect(story.filter(isConnected).count == 2, "\(story)")
        #expect(!retries(in: story).isEmpty, "\(story)")
        #expect(story.firstIndex(where: isConnected) == 0, "\(story)")
    }

    @Test("Fail-fast: killing gpsd ends the sequence with daemonClosed naming host:port")
    func failFastOnKill() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock()).events)
        try await recorder.wait(for: "connected", isConnected)
        try await live.daemon.kill(SIGKILL)
        let end = try await recorder.waitForEnd()
        guard case .failure(let error) = end else { Issue.record("expected a throw, got \(end)"); return }
        let gpsdError = try #require(error as? GPSDError)
        #expect(gpsdError.code == .daemonClosed)
        #expect(gpsdError.description.contains("127.0.0.1:\(live.port)"))
    }

    /// Runs `body`, adding gpsd's log to its error: twice (in CI and a fresh clone) no removal
    /// came within 30 s of the feed closing, and only gpsd's log can say why.
    private static func sayingWhatGPSDDid<T>(_ live: LiveGPSD, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw HarnessError("\(error); gpsd: \(live.daemon.log.suffix(3_000))")
        }
    }

    @Test("Receiver unplugged (the feed closes): the removal is reported")
    func deviceRemoved() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock()).events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "connected", isConnected)
        try await live.feed.send(LiveGPSD.epochs(count: 3).flatMap(\.sentences), pace: .milliseconds(2))
        try await recorder.wait(for: "a fix") { _ in !recorder.positions.isEmpty }

        live.feed.close()
        try await Self.sayingWhatGPSDDid(live) {
            try await recorder.wait(for: "device removal") { events in
                events.contains { $0 == .deviceRemoved(path: live.daemon.devicePath) }
            }
        }
        #expect(recorder.end == nil, "removal of a device not named is reported, not fatal")
    }

    @Test("The named device unplugged with fail-fast: reported, then deviceRemoved is thrown")
    func namedDeviceRemovedFailsFast() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock(), device: live.daemon.devicePath).events)
        try await recorder.wait(for: "connected", isConnected)
        try await live.feed.send(LiveGPSD.epochs(count: 3).flatMap(\.sentences), pace: .milliseconds(2))
        try await recorder.wait(for: "a fix") { _ in !recorder.positions.isEmpty }

        live.feed.close()
        let end = try await Self.sayingWhatGPSDDid(live) { try await recorder.waitForEnd() }
        #expect(recorder.recorded.contains(.deviceRemoved(path: live.daemon.devicePath)))
        guard case .failure(let error) = end else { Issue.record("expected a throw, got \(end)"); return }
        #expect((error as? GPSDError)?.code == .deviceRemoved)
        #expect((error as? GPSDError)?.detail == live.daemon.devicePath)
    }

    @Test("The named device unplugged with reconnection on: reported, and the provider keeps listening")
    func namedDeviceRemovedKeepsListening() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let provider = try live.provider(clock: VirtualClock(), device: live.daemon.devicePath, configuration: .resilient)
        let recorder = EventRecorder(provider.events)
        defer { recorder.cancelNow() }
        let fixes = FixCollector(provider)
        defer { fixes.cancelNow() }
        try await recorder.wait(for: "connected", isConnected)
        try await live.feedEpochs { !recorder.positions.isEmpty && fixes.current.contains(where: \.hasPosition) }

        live.feed.close()
        try await recorder.wait(for: "removal") { $0.contains(.deviceRemoved(path: live.daemon.devicePath)) }
        // The Fix view marks the gap with one status fix.
        try await fixes.wait { $0.last.map { !$0.hasPosition } ?? false }
        // Still listening: a provider that had ended would not notice gpsd going away. Stopping
        // the daemon now is reported as a disconnection, and the provider stays to retry.
        live.daemon.stop()
        try await recorder.wait(for: "the daemon's disconnection after the removal") { events in
            events.contains { if case .disconnected = $0 { true } else { false } }
        }
        #expect(recorder.end == nil, "still listening for the device to come back")
    }

    @Test("A named device gpsd does not have, with fail-fast: gpsd's ERROR is reported, then watchRejected is thrown")
    func unknownDeviceFailsFast() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let unknown = "/dev/locsim-no-such-receiver"
        let recorder = EventRecorder(try live.provider(clock: VirtualClock(), device: unknown).events)
        let end = try await recorder.waitForEnd()
        // gpsd's own words, as the daemon sent them.
        let messages = recorder.recorded.compactMap { if case .daemonError(let text) = $0 { text } else { nil } }
        #expect(messages.count == 1 && messages[0].contains(unknown), "\(recorder.summary)")
        #expect(!recorder.recorded.contains(where: isConnected), "\(recorder.summary)")
        guard case .failure(let error) = end, let gpsdError = error as? GPSDError else {
            Issue.record("expected a GPSDError, got \(end)")
            return
        }
        #expect(gpsdError.code == .watchRejected)
        #expect(gpsdError.detail.contains(unknown) && gpsdError.detail.contains(messages[0]), "\(gpsdError)")
        #expect(gpsdError.description.contains("127.0.0.1:\(live.port)"))

        // The Fix view throws the same error instead of waiting forever for reports.
        var fixes = try live.provider(clock: VirtualClock(), device: unknown).makeAsyncIterator()
        let thrown = await #expect(throws: GPSDError.self) { _ = try await fixes.next() }
        #expect(thrown?.code == .watchRejected)
    }

    @Test("A named device gpsd does not have yet, with reconnection on: retries until gpsd has it, then streams")
    func unknownDeviceRetriesUntilPresent() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        // The receiver the provider asks for: gpsd only learns of it when restarted with it.
        let laterFeed = try NMEAFeed()
        defer { laterFeed.close() }
        let laterDevice = "tcp://127.0.0.1:\(laterFeed.port)"
        let clock = VirtualClock()
        let recorder = EventRecorder(
            try live.provider(clock: clock, device: laterDevice, configuration: .resilient).events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "a retry") { !retries(in: $0).isEmpty }
        let rejections = recorder.recorded.compactMap { event -> GPSDError? in
            if case .disconnected(let error) = event { error } else { nil }
        }
        #expect(rejections.first?.code == .watchRejected, "\(recorder.summary)")
        #expect(recorder.recorded.contains { if case .daemonError = $0 { true } else { false } }, "\(recorder.summary)")

        await live.daemon.stopped()
        let daemon = try await GPSDDaemon.start(feedPort: laterFeed.port, port: live.port)
        defer { daemon.stop() }
        try await laterFeed.acceptClient()
        // Each retry's back-off is the only sleep on the virtual clock: wake it each time the
        // provider is asleep there, until a retry connects (one may still meet the old daemon's
        // rejection). The wait for the connection ends the waking; it throws, with the events, if
        // iteration ends or no retry connects.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    await clock.waitForSleepers(1)
                    if let next = clock.nextDeadline { await clock.advance(to: next) }
                }
            }
            group.addTask { try await recorder.wait(for: "a retry connected to the restarted gpsd", isConnected) }
            defer { group.cancelAll() }
            try await group.next()
        }
        let epochs = LiveGPSD.epochs(count: 4)
        try await laterFeed.send(epochs.flatMap(\.sentences), pace: .milliseconds(2))
        try await recorder.wait(for: "a fix from the device") { _ in !recorder.positions.isEmpty }
    }

    @Test("Cancelling a consumer blocked on a silent daemon ends the iteration")
    func cancellationEndsIteration() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock()).events)
        try await recorder.wait(for: "connected", isConnected)
        // No data flows: the reader thread sits in gps_waiting.
        await recorder.cancel()
        let end = try await recorder.waitForEnd()
        #expect((try? end.get()) != nil, "cancellation ends the sequence normally")
    }
}

// MARK: - Helpers

private func isConnected(_ event: GPSDEvent) -> Bool {
    if case .connected = event { true } else { false }
}

private func isConnected(_ events: [GPSDEvent]) -> Bool { events.contains(where: isConnected) }

private func retries(in events: [GPSDEvent]) -> [Duration] {
    events.compactMap { if case .retrying(_, let delay) = $0 { delay } else { nil } }
}

extension LiveGPSD {
    /// Feeds one synthetic epoch at a time, pausing 20 ms after each, until `condition` holds:
    /// for views that subscribe and consume at their own pace. Gives up after `timeout`, which
    /// is generous because a loaded machine can hold the consuming tasks back for seconds.
    ///
    /// - Returns: The time of the last epoch fed.
    @discardableResult
    func feedEpochs(
        timeout: Duration = .seconds(30), until condition: () -> Bool
    ) async throws -> Date {
        let deadline = ContinuousClock.now + timeout
        var time = Date(timeIntervalSince1970: 1_750_000_000)
        var sent = 0
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("condition not met after \(sent) epochs in \(timeout)")
            }
            let offset = Double(sent) * 0.0001
            let epoch = LiveGPSD.epochs(count: 1, from: time, latitude: 51.5 + offset, longitude: -0.12 + offset)[0]
            try await feed.send(epoch.sentences, pace: .milliseconds(2))
            sent += 1
            time.addTimeInterval(1)
            try await Task.sleep(for: .milliseconds(20))
        }
        return time.addingTimeInterval(-1)
    }
}

/// Iterates the provider's `Fix` view in a task and records what it yields.
private final class FixCollector: Sendable {
    private let fixes = Locked<[Fix]>([])
    private let task = Locked<Task<Void, Never>?>(nil)
    private let failure = Locked<String?>(nil)
    /// Signalled after each fix, and ended with the view.
    private let changes = Changes()

    init<C: Clock>(_ provider: GPSDProvider<C>) where C.Duration == Duration {
        let handle = Task { [self] in
            do {
                for try await fix in provider {
                    fixes.withLock { $0.append(fix) }
                    changes.signal()
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            changes.end()
        }
        task.withLock { $0 = handle }
    }

    var current: [Fix] { fixes.withLock { $0 } }

    /// Waits until `condition` holds for the fixes so far, checking it after each one; when the
    /// view ends first, the error says what it threw.
    func wait(timeout: Duration = .seconds(30), _ condition: @escaping @Sendable ([Fix]) -> Bool) async throws {
        try await changes.wait(
            for: "the Fix view", timeout: timeout,
            account: { [self] in "got \(current.map { $0.hasPosition ? "fix" : "nofix" }); error: \(failure.withLock { $0 } ?? "none")" }
        ) { [self] in condition(current) }
    }

    func cancelNow() { task.withLock { $0?.cancel() } }
}
