import Foundation
import LocSimTestHelpers
import LocationCore
import LocationGPSD
import LocationTestSupport

/// One test's private receiver feed and gpsd: `gpsd -N -n -b -S PORT tcp://127.0.0.1:FEED`.
///
/// ```swift
/// let live = try await LiveGPSD.start()
/// defer { live.stop() }
/// ```
struct LiveGPSD: Sendable {
    let feed: NMEAFeed
    let daemon: GPSDDaemon

    static func start() async throws -> LiveGPSD {
        let feed = try NMEAFeed()
        do {
            // The tests unplug the receiver with a reset: gpsd must not write to the feed (see `readOnly`).
            let daemon = try await GPSDDaemon.start(feedPort: feed.port, readOnly: true)
            do {
                try await feed.acceptClient()
            } catch {
                daemon.stop()
                throw error
            }
            return LiveGPSD(feed: feed, daemon: daemon)
        } catch {
            feed.close()
            throw error
        }
    }

    var port: Int { daemon.port }

    /// A provider for this daemon on `clock`, stamping time-less status fixes with the epoch.
    func provider<C: Clock>(
        clock: C, device: String? = nil, configuration: GPSDProvider<C>.Configuration = .init()
    ) throws -> GPSDProvider<C> where C.Duration == Duration {
        try GPSDProvider(
            host: "127.0.0.1", port: port, device: device, configuration: configuration, clock: clock,
            now: { Date(timeIntervalSince1970: 0) })
    }

    /// A lock-step feed for `recorder`'s provider (already connected), with its own raw client.
    func lockStep(_ recorder: EventRecorder) async throws -> LockStepFeed {
        try await LockStepFeed(feed: feed, port: port, consumer: recorder)
    }

    func stop() {
        daemon.stop()
        feed.close()
    }

    /// What a provider of a fresh gpsd made of `sentences` fed in lock-step (``LockStepFeed``),
    /// beside what that gpsd sent its raw client.
    struct LockStepRun {
        /// Every line gpsd sent the raw client.
        let received: [RawGPSDClient.Line]
        /// gpsd's positioned `TPV` reports, in order.
        let reference: [RawGPSDClient.TPV]
        /// The provider's positioned fixes, in order.
        let fixes: [Fix]
    }

    /// Starts a gpsd and a provider of it, feeds `sentences` one at a time in lock-step (after
    /// ``LockStepFeed/activate(from:)`` with `activate`), waits until the provider has gpsd's
    /// last positioned report, and stops both.
    static func lockStepRun(_ sentences: [String], activate: Bool = false) async throws -> LockStepRun {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock()).events)
        defer { recorder.cancelNow() }
        try await recorder.wait(for: "connected") { $0.contains { if case .connected = $0 { true } else { false } } }
        // Each sentence only once gpsd has handled the one before and the provider has yielded
        // what gpsd reported for it: the provider keeps only the newest fix while its consumer is
        // behind (by design, for live data), and a loaded machine must not make a test miss an
        // epoch. The lock-step's raw client is the reference for what this gpsd sent.
        let lockStep = try await live.lockStep(recorder)
        defer { lockStep.stop() }
        if activate { try await lockStep.activate() }
        try await lockStep.send(sentences)
        let reference = lockStep.raw.tpvs.filter(\.isPositioned)
        if let last = reference.last {
            try await recorder.wait(for: "the last of \(reference.count) reports") { _ in
                recorder.positions.last.map { last.matches($0) } ?? false
            }
        }
        return LockStepRun(received: lockStep.raw.received, reference: reference, fixes: recorder.positions)
    }

    /// `count` synthetic one-second epochs walking north-east from `start`.
    static func epochs(count: Int, from start: Date = Date(timeIntervalSince1970: 1_750_000_000),
                       latitude: Double = 51.5, longitude: Double = -0.12) -> [TestNMEA.Epoch] {
        (0..<count).map { index in
            TestNMEA.epoch(
                time: start.addingTimeInterval(Double(index)),
                latitude: latitude + Double(index) * 0.0001, longitude: longitude + Double(index) * 0.0001)
        }
    }
}
