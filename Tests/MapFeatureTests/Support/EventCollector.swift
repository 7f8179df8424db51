import LocationCore
import LocationTestSupport
import MapFeature

/// Collects a model's events and lets a test wait, without polling, until one has happened.
@MainActor
final class EventCollector {
    private(set) var events: [MapEvent] = []
    private var waiters: [(predicate: (MapEvent) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// The hook to pass as `onEvent`.
    var hook: @MainActor (MapEvent) -> Void { { [unowned self] in self.record($0) } }

    var log: ReplayLog { ReplayLog(events: events) }

    func record(_ event: MapEvent) {
        events.append(event)
        var remaining: [(predicate: (MapEvent) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in waiters {
            if waiter.predicate(event) { waiter.continuation.resume() } else { remaining.append(waiter) }
        }
        waiters = remaining
    }

    /// Returns once an event matching `predicate` has been recorded (at once if one already was).
    func wait(for predicate: @escaping (MapEvent) -> Bool) async {
        if events.contains(where: predicate) { return }
        await withCheckedContinuation { waiters.append((predicate, $0)) }
    }

    /// Waits for the accepted fix at `time`.
    func waitForFix(_ fix: Fix) async {
        await wait { if case .fixAccepted(let accepted) = $0.kind { accepted == fix } else { false } }
    }
}

