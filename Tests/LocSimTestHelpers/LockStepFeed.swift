public import Foundation
import LocationCore

/// What gpsd's reports reach in a lock-step test: a `GPSDProvider`'s consumer, or a `locsim gpsd`
/// process printing them. ``LockStepFeed`` waits on it after every sentence.
public protocol LockStepConsumer: Sendable {
    /// How many reports the consumer has delivered so far (fixes yielded, lines printed).
    var deliveredCount: Int { get }

    /// Whether gpsd has told the consumer that it activated the feed's device.
    var hasSeenDeviceActivation: Bool { get }

    /// A short account of what the consumer saw, for failure messages.
    var summary: String { get }

    /// Waits until the consumer has delivered `report`, gpsd's latest report, having delivered
    /// `previous` reports before gpsd sent it.
    ///
    /// - Throws: `HarnessError` after `timeout`, or when the consumer has ended.
    func waitUntilDelivered(_ report: RawGPSDClient.TPV, after previous: Int, timeout: Duration, context: String) async throws
}

/// Feeds gpsd one sentence at a time, in lock-step with the consumer under test, so that the
/// consumer is never behind when gpsd reports, however loaded the machine is.
///
/// A `GPSDProvider` keeps only the newest fix while its consumer is behind, by design for live
/// data, so a test that writes sentences at a fixed pace can legitimately miss epochs on a busy
/// machine: the test's task (or the `locsim gpsd` process) may not run for a while. Here,
/// before the next sentence is written:
///
/// 1. gpsd has handled the sentence: a raw client saw gpsd echo it, then answer a `?VERSION`
///    asked after it (``RawGPSDClient/sync(timeout:)``), so every report it caused has been
///    written to every client, the consumer's connection included. A sentence gpsd never echoes
///    (a damaged one it discards) is given a second round trip instead.
/// 2. the consumer has caught up: when gpsd sent reports for the sentence, the consumer has
///    since delivered the last of them.
///
/// So only reports gpsd sends for one and the same sentence can reach the consumer as one, as
/// from any live source; reports for different sentences never do.
///
/// Create it once the consumer is connected and before anything is fed, so that the raw client
/// sees every report the consumer sees; stop it with `defer { lockStep.stop() }`.
public final class LockStepFeed: Sendable {
    /// The reference client: every report gpsd sent, and every sentence it echoed.
    public let raw: RawGPSDClient
    private let feed: NMEAFeed
    private let consumer: any LockStepConsumer
    /// How long one step may take before the test fails: generous, since it only runs out
    /// when something is broken.
    private let timeout: Duration
    /// How many TPV reports the raw client, and how many reports the consumer, had after the last step.
    private let progress = Locked((reports: 0, delivered: 0))

    public init(feed: NMEAFeed, port: Int, consumer: any LockStepConsumer, timeout: Duration = .seconds(30)) async throws {
        self.feed = feed
        self.consumer = consumer
        self.timeout = timeout
        raw = try RawGPSDClient(port: port, echo: true)
        do {
            try await raw.waitUntilWatching(timeout: timeout)
        } catch {
            raw.stop()
            throw error
        }
        progress.withLock { $0 = (raw.lastTPV.count, consumer.deliveredCount) }
    }

    /// Writes `lines` one at a time, each only once gpsd has handled the one before and the
    /// consumer has delivered what gpsd reported for it.
    public func send(_ lines: [String]) async throws {
        for line in lines { try await step(line) }
    }

    /// Feeds no-fix epochs until gpsd has identified the receiver and told the consumer so,
    /// which also lets gpsd learn the receiver's reporting cycle before the epochs a test checks.
    public func activate(from start: Date = Date(timeIntervalSince1970: 1_700_000_000)) async throws {
        for second in 0..<30 {
            if consumer.hasSeenDeviceActivation { return }
            try await send(TestNMEA.noFixEpoch(time: start.addingTimeInterval(Double(second))))
        }
        throw HarnessError("gpsd never activated the feed device; consumer saw: \(consumer.summary)")
    }

    public func stop() { raw.stop() }

    private func step(_ line: String) async throws {
        // The socket calls block (briefly): on a thread of their own, never the cooperative pool.
        try await onThread("locsim.test.lockstep") { [raw, feed, timeout] in
            let echoedBefore = raw.echoedCount
            try feed.write(line)
            let echoedAtAnswer = try raw.sync(timeout: timeout)
            if !raw.hasEchoed(line, in: echoedBefore..<echoedAtAnswer) {
                // Not yet read by gpsd when it answered, or discarded as damaged: after one more
                // round trip it has been read either way.
                _ = try raw.sync(timeout: timeout)
            }
        }
        let (reports, last) = raw.lastTPV
        let previous = progress.withLock { $0 }
        if reports > previous.reports, let last {
            try await consumer.waitUntilDelivered(
                last, after: previous.delivered, timeout: timeout, context: "gpsd's report \(reports) (\(last)) after \(line)")
        }
        progress.withLock { $0 = (reports, consumer.deliveredCount) }
    }
}
