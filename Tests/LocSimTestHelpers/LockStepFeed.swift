import Foundation
import LocationCore
import LocationGPSD
import Synchronization

/// Feeds gpsd one sentence at a time, in lock-step with the provider under test, so that the
/// provider's consumer is never behind when gpsd reports, however loaded the machine is.
///
/// The provider keeps only the newest fix while its consumer is behind, by design for live data,
/// so a test that writes sentences at a fixed pace can legitimately miss epochs on a busy
/// machine: the test's task may not run for a while. Here, before the next sentence is written:
///
/// 1. gpsd has handled the sentence: a raw client saw gpsd echo it, then answer a `?VERSION`
///    asked after it (``RawGPSDClient/sync(timeout:)``), so every report it caused has been
///    written to every client, the provider's connection included. A sentence gpsd never echoes
///    (a damaged one it discards) is given a second round trip instead.
/// 2. the provider has caught up: when gpsd sent reports for the sentence, the provider has
///    since yielded the last of them.
///
/// So only reports gpsd sends for one and the same sentence can reach the consumer as one, as
/// from any live source; reports for different sentences never do.
///
/// Create it once the provider is connected and before anything is fed, so that the raw client
/// sees every report the provider sees; stop it with `defer { lockStep.stop() }`.
final class LockStepFeed: Sendable {
    /// The reference client: every report gpsd sent, and every sentence it echoed.
    let raw: RawGPSDClient
    private let feed: NMEAFeed
    private let recorder: EventRecorder
    /// How long one step may take before the test fails: generous, since it only runs out
    /// when something is broken.
    private let timeout: Duration
    /// How many TPV reports the raw client, and how many fixes the provider, had after the last step.
    private let progress = Mutex((reports: 0, fixes: 0))

    init(feed: NMEAFeed, port: Int, recorder: EventRecorder, timeout: Duration = .seconds(30)) async throws {
        self.feed = feed
        self.recorder = recorder
        self.timeout = timeout
        raw = try RawGPSDClient(port: port, echo: true)
        do {
            try await raw.waitUntilWatching(timeout: timeout)
        } catch {
            raw.stop()
            throw error
        }
        progress.withLock { $0 = (raw.lastTPV.count, recorder.fixes.count) }
    }

    /// Writes `lines` one at a time, each only once gpsd has handled the one before and the
    /// provider has yielded what gpsd reported for it.
    func send(_ lines: [String]) async throws {
        try await onThread("locsim.test.lockstep") { [self] in
            for line in lines { try step(line) }
        }
    }

    /// Feeds no-fix epochs until gpsd has identified the receiver and told the provider so,
    /// which also lets gpsd learn the receiver's reporting cycle before the epochs a test checks.
    func activate(from start: Date = Date(timeIntervalSince1970: 1_700_000_000)) async throws {
        for second in 0..<30 {
            if recorder.recorded.contains(where: { if case .deviceActivated = $0 { true } else { false } }) { return }
            try await send(TestNMEA.noFixEpoch(time: start.addingTimeInterval(Double(second))))
        }
        throw HarnessError("gpsd never activated the feed device; events: \(recorder.summary)")
    }

    func stop() { raw.stop() }

    private func step(_ line: String) throws {
        let echoedBefore = raw.echoedCount
        try feed.write(line)
        let echoedAtAnswer = try raw.sync(timeout: timeout)
        if !raw.hasEchoed(line, in: echoedBefore..<echoedAtAnswer) {
            // Not yet read by gpsd when it answered, or discarded as damaged: after one more
            // round trip it has been read either way.
            _ = try raw.sync(timeout: timeout)
        }
        let (reports, last) = raw.lastTPV
        let previous = progress.withLock { $0 }
        if reports > previous.reports, let last {
            try recorder.waitBlocking(
                for: "the provider to yield gpsd's report \(reports) (\(last)) after \(line)", timeout: timeout
            ) { fixes in
                fixes.count > previous.fixes && fixes[previous.fixes...].contains(where: last.matches)
            }
        }
        progress.withLock { $0 = (reports, recorder.fixCount) }
    }
}
