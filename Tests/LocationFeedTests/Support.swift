import Foundation
import LocationCore
import LocationFeed
import LocationSimulation
import LocationTestSupport
import LocSimTestHelpers
import Testing

/// Players on a `VirtualClock`: the hub runs them in (virtual) real time, the test steps the clock.
final class VirtualFeed: Sendable {
    static let start = FeedMotion.start
    let clock = VirtualClock()
    let hub: PlayerHub
    let specs: [(name: String, seed: UInt64)]
    private final class Log: Sendable {
        let updates = Locked<[PlayerHub.Update]>([])
    }
    private let log = Log()
    private let task = Locked<Task<Void, Never>?>(nil)

    /// Players walking north-east from Tokyo station with noise (so fixes carry an accuracy), 3D at 40 m.
    /// The hub's wall clock stands still at ``start`` unless `wallClock` is set: then it is
    /// ``start`` plus the virtual clock's time.
    init(names: [String] = ["alice", "bob"], noise: Double? = 4, wallClock: Bool = false) throws {
        specs = names.enumerated().map { ($0.element, UInt64($0.offset + 11)) }
        let clock = clock
        let players = try specs.map { spec in
            try FeedPlayer(
                name: spec.name, seed: spec.seed,
                provider: try Self.motion(seed: spec.seed, pacing: .realTime, noise: noise, clock: clock))
        }
        let now: @Sendable () -> Date
        if wallClock {
            now = { VirtualFeed.start.addingTimeInterval(clock.now.offset.fractionalSeconds) }
        } else {
            now = { VirtualFeed.start }
        }
        hub = try PlayerHub(players: players, now: now)
        let log = log
        _ = hub.subscribe { update in log.updates.withLock { $0.append(update) } }
    }

    /// The motion of the player with `seed` (``FeedMotion``).
    static func motion<C: Clock>(
        seed: UInt64, pacing: Pacing, noise: Double?, clock: C, duration: Double = 120
    ) throws -> SyntheticMotion<C>
    where C.Duration == Duration {
        try FeedMotion.walk(seed: seed, pacing: pacing, noise: noise, clock: clock, start: start, duration: duration)
    }

    /// The first `count` fixes of the player with `seed`, generated on their own in virtual time.
    static func reference(seed: UInt64, count: Int, noise: Double? = 4) async throws -> [Fix] {
        var fixes: [Fix] = []
        for try await fix in try motion(seed: seed, pacing: .virtual, noise: noise, clock: ContinuousClock()) {
            fixes.append(fix)
            if fixes.count == count { break }
        }
        return fixes
    }

    /// Starts the players and steps the clock a second at a time until `count` updates arrived.
    func run(until count: Int) async {
        if task.withLock({ $0 == nil }) {
            let hub = hub
            task.withLock { $0 = Task { await hub.runPlayers() } }
        }
        // A cancelled test (its time limit) ends here: the clock's waits return at once then.
        while received.count < count, !Task.isCancelled {
            await clock.waitForSleepers(specs.count)
            if received.count >= count { break }
            await clock.advance(by: .seconds(1))
        }
    }

    var received: [PlayerHub.Update] { log.updates.withLock { $0 } }

    func stop() { task.withLock { $0?.cancel() } }
}

/// The CR LF-terminated lines of a reply, without their terminators.
func lines(_ text: String) -> [Substring] {
    text.split(separator: "\r\n", omittingEmptySubsequences: true)
}

