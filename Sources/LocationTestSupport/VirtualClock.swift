import LocationCore

/// A clock whose time moves only when a test moves it, for running replays, providers and the
/// map logic in virtual time.
///
/// Two ways to drive it:
///
/// - **Automatic** (`VirtualClock(autoAdvance: true)`): every `sleep` returns at once and moves
///   ``now`` forward to its deadline. A single consumer (one provider read by one task) then runs
///   as fast as it can with exact virtual times: a 40-minute walk replays in milliseconds.
/// - **Manual** (the default): sleepers wait until ``advance(by:)`` or ``advance(to:)`` passes
///   their deadline; they are resumed in deadline order (ties in the order they began sleeping).
///   ``waitForSleepers(_:dueBy:)`` is the handshake that makes this race-free without yielding in a loop:
///   it returns once the given number of tasks are asleep on the clock, so the test knows the
///   system under test has reached its next wait before it moves time.
///
/// ```swift
/// let clock = VirtualClock()
/// async let fired: Void = clock.sleep(for: .seconds(30))
/// await clock.waitForSleepers(1)
/// await clock.advance(by: .seconds(30))
/// try await fired
/// ```
///
/// Cancelling a sleeping task wakes it with `CancellationError` at once, whatever the time.
public final class VirtualClock: Clock, Sendable {
    /// A point in virtual time: an offset from the clock's start.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Time since the clock's start.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let id: UInt64
        let count: Int
        let dueBy: Instant?
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        var waiters: [Waiter] = []
        /// Sleepers and waiters given an id but not yet registered, and those of them whose task
        /// was cancelled meanwhile. A cancellation after registration (or after being resumed)
        /// is never recorded here, so neither set outlives the call that made the id.
        var unregistered: Set<UInt64> = []
        var cancelledBeforeRegistration: Set<UInt64> = []

        /// A new id for a sleeper or a waiter, not yet registered.
        mutating func makeID() -> UInt64 {
            nextID += 1
            unregistered.insert(nextID)
            return nextID
        }

        /// Marks `id` registered; `true` when its task was cancelled before that.
        mutating func register(_ id: UInt64) -> Bool {
            unregistered.remove(id)
            return cancelledBeforeRegistration.remove(id) != nil
        }

        /// Records the cancellation of an id that is not registered yet, so its registration
        /// resumes at once; a registered or resumed id is left alone.
        mutating func cancelUnregistered(_ id: UInt64) {
            if unregistered.contains(id) { cancelledBeforeRegistration.insert(id) }
        }

        /// How many tasks are asleep with a deadline at or before `dueBy` (all of them for `nil`).
        func sleeperCount(dueBy: Instant?) -> Int {
            Self.count(sleepers, dueBy: dueBy)
        }

        static func count(_ sleepers: [UInt64: Sleeper], dueBy: Instant?) -> Int {
            guard let dueBy else { return sleepers.count }
            return sleepers.values.count { $0.deadline <= dueBy }
        }

        /// Removes and returns the waiters whose sleeper count has been reached.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            let sleepers = sleepers
            waiters.removeAll { waiter in
                guard Self.count(sleepers, dueBy: waiter.dueBy) >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
    }

    private let state: Locked<State>
    private let autoAdvance: Bool

    /// Creates a clock at `t+0`.
    ///
    /// - Parameter autoAdvance: When `true`, sleeps complete at once and move the clock forward
    ///   to their deadline; when `false`, only ``advance(by:)`` and ``advance(to:)`` move time.
    public init(autoAdvance: Bool = false) {
        self.state = Locked(State(now: Instant(offset: .zero)))
        self.autoAdvance = autoAdvance
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on the clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Ids made for sleepers and waiters that are still recorded as unregistered or cancelled
    /// before registration; zero whenever no `sleep` or `waitForSleepers` call is in progress.
    var unfinishedIDCount: Int { state.withLock { $0.unregistered.count + $0.cancelledBeforeRegistration.count } }

    /// The earliest deadline among current sleepers, if any.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        // Fast path: a sleep that is already due (or, in automatic mode, any sleep) completes
        // without suspending, so long virtual replays cost a lock per fix, not a continuation.
        let isDue = state.withLock { state -> Bool in
            if deadline <= state.now { return true }
            guard autoAdvance else { return false }
            state.now = deadline
            return true
        }
        if isDue { return }
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action { case resume, cancel, wait([CheckedContinuation<Void, Never>]) }
                let action = state.withLock { state -> Action in
                    if state.register(id) { return .cancel }
                    if deadline <= state.now { return .resume }
                    if autoAdvance {
                        state.now = deadline
                        return .resume
                    }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait(state.satisfiedWaiters())
                }
                switch action {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait(let ready): for waiter in ready { waiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelUnregistered(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline is reached.
    public func advance(by duration: Duration) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `deadline` (never backwards), waking sleepers in deadline order.
    ///
    /// Each woken sleeper sees ``now`` equal to its own deadline at the moment it is resumed.
    /// Sleeps that begin after this call returns are not woken by it, even if their deadline has
    /// passed; use ``waitForSleepers(_:dueBy:)`` before advancing again.
    public func advance(to deadline: Instant) async {
        while true {
            let next = state.withLock { state -> Sleeper? in
                let due = state.sleepers.filter { $0.value.deadline <= deadline }
                guard let (id, sleeper) = due.min(by: { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }) else {
                    if state.now < deadline { state.now = deadline }
                    return nil
                }
                state.sleepers.removeValue(forKey: id)
                if state.now < sleeper.deadline { state.now = sleeper.deadline }
                return sleeper
            }
            guard let next else { return }
            next.continuation.resume()
        }
    }

    /// Returns once at least `count` tasks are asleep on the clock (with `dueBy`, asleep until
    /// that instant or earlier), or at once when the waiting task is cancelled (a test that also
    /// waits for something else, whichever comes first).
    ///
    /// This is the handshake for manual driving: the system under test reaches its next wait,
    /// then the test advances time. It suspends without polling.
    ///
    /// `dueBy` tells a new wait from an old one: after an input that makes the system under test
    /// plan an earlier wake-up (a faster pace, a shorter timeout), its previous sleep can still
    /// be on the clock until it runs again, and a plain count would be met by it.
    ///
    /// ```swift
    /// player.setSpeed(5)  // the next fix is now due in 0.2 s, not 1 s
    /// await clock.waitForSleepers(1, dueBy: clock.now.advanced(by: .milliseconds(200)))
    /// ```
    public func waitForSleepers(_ count: Int = 1, dueBy: Instant? = nil) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.register(id) || state.sleeperCount(dueBy: dueBy) >= count { return true }
                    state.waiters.append(Waiter(id: id, count: count, dueBy: dueBy, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) { return state.waiters.remove(at: index) }
                state.cancelUnregistered(id)
                return nil
            }
            waiter?.continuation.resume()
        }
    }
}
