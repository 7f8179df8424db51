#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// The game's rule for when to ask the server for nearby places, as a pure value.
///
/// Fetch on the first accepted fix, or when a fix is **more than** 100 m from the last fetch, or
/// **more than** 30 s after it: exactly 100 m or exactly 30 s does not fetch. Every decision
/// carries its ``Reason``: ``Reason/first``, ``Reason/moved`` when the distance rule holds
/// (whether or not the time rule also does), ``Reason/elapsed`` when only the time rule holds,
/// and ``Reason/retry`` for the first fetch allowed after a failure.
///
/// Time is the fix's own timestamp, never a clock, so a replay behaves exactly like the phone
/// did. Times are compared at whole microseconds, so `…:00.300Z` and `…:30.300Z` are exactly 30 s
/// apart even though the two `Date`s' doubles are not. Distances are great-circle metres
/// (``/LocationCore/Coordinate/distance(to:)``).
///
/// A poor fix (no position, or a horizontal accuracy worse than
/// ``Configuration/maximumHorizontalAccuracy``) never fetches and never moves the anchor.
/// After a failed fetch, fetches pause for an exponential back-off (``Configuration/retry``, a
/// ``/LocationCore/Backoff``: 1, 2, 4 … capped at 30 s, shortened by seeded jitter), counted from
/// the failure; a success resets it.
///
/// The throttle has no clock and no `async`: the caller tells it what happened with
/// ``recordFetch(center:at:)``, ``recordSuccess()``, ``recordFailure(at:)`` and
/// ``recordCancellation()``. ``MapSession`` does this for ``MapViewModel``; the rule applies to one
/// fetch at a time.
///
/// ```swift
/// var throttle = FetchThrottle()
/// if case .fetch(let reason) = throttle.decision(for: fix), let center = fix.coordinate {
///     throttle.recordFetch(center: center, at: fix.time)   // reason == .first
/// }
/// ```
public struct FetchThrottle: Sendable, Hashable {
    /// Why a fetch happens.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// No fetch has been made yet.
        case first
        /// The fix is more than ``Configuration/minimumDistance`` from the last fetch (the time
        /// rule may hold too).
        case moved
        /// Only the time rule holds: more than ``Configuration/minimumInterval`` since the last fetch.
        case elapsed
        /// The back-off after a failure has passed.
        case retry
        public var description: String { rawValue }
    }

    /// Why a fix cannot be used.
    public enum Rejection: Sendable, Hashable, CustomStringConvertible {
        /// No position: ``/LocationCore/FixMode/noFix`` or no coordinate.
        case noPosition
        /// Horizontal accuracy worse than the threshold, negative (CoreLocation's "invalid") or
        /// not finite; the value in metres.
        case inaccurate(horizontalAccuracy: Double)
        /// The fix's time is not a finite date.
        case invalidTime
        /// The fix was older than ``Configuration/maximumFixAge`` when it reached the app.
        case stale(age: Duration)

        public var description: String {
            switch self {
            case .noPosition: "no position"
            case .inaccurate(let accuracy): "accuracy \(accuracy) m"
            case .invalidTime: "invalid time"
            case .stale(let age): "\(age.fractionalSeconds) s old"
            }
        }
    }

    /// What to do with a fix.
    public enum Decision: Sendable, Hashable {
        /// Fetch now, for this reason.
        case fetch(Reason)
        /// Neither rule holds: `distance` metres and `elapsed` since the last fetch.
        case notDue(distance: Double, elapsed: Duration)
        /// A failure's back-off has not passed; the next fetch is allowed at `until`.
        case backingOff(until: Date)
        /// The fix is poor and is ignored.
        case rejected(Rejection)
    }

    /// Where and when a fetch was made (the fix that triggered it).
    public struct Anchor: Sendable, Hashable {
        /// The query centre.
        public var center: Coordinate
        /// The triggering fix's time.
        public var time: Date
        /// Creates an anchor.
        package init(center: Coordinate, time: Date) {
            self.center = center
            self.time = time
        }
    }

    /// The thresholds.
    public let configuration: Configuration
    /// The last fetch made (in flight or answered), or `nil` before the first.
    public private(set) var lastFetch: Anchor?
    /// `true` between ``recordFetch(center:at:)`` and the matching success, failure or cancellation.
    public private(set) var isAwaitingAnswer = false
    /// Failures since the last success.
    public private(set) var consecutiveFailures = 0
    /// The earliest fix time at which a retry is allowed, while backing off.
    public var retryNotBefore: Date? { retryNotBeforeMicros.map(Self.date(micros:)) }

    private var anchorBeforeFetch: Anchor?
    private var retryNotBeforeMicros: Int64?
    private var random: SplitMix64

    /// Creates a throttle that has made no fetch yet.
    ///
    /// - Parameter configuration: The thresholds; ``Configuration/game`` by default.
    public init(configuration: Configuration = .game) {
        self.configuration = configuration
        self.random = SplitMix64(seed: configuration.retry.seed)
    }

    // MARK: Deciding

    /// Whether `fix` is usable at all, or why not.
    public func assess(_ fix: Fix) -> Rejection? {
        guard fix.time.timeIntervalSinceReferenceDate.isFinite else { return .invalidTime }
        guard fix.hasPosition, fix.coordinate != nil else { return .noPosition }
        if let accuracy = fix.horizontalAccuracy {
            guard accuracy.isFinite, accuracy >= 0, accuracy <= configuration.maximumHorizontalAccuracy else {
                return .inaccurate(horizontalAccuracy: accuracy)
            }
        }
        return nil
    }

    /// Whether `fix`, reaching the app at `time`, is usable at all, or why not: ``assess(_:)`` and
    /// then, when ``Configuration/maximumFixAge`` is set, its age on arrival (a cached fix the OS
    /// hands back when the app returns from the background carries its old time).
    public func assess(_ fix: Fix, deliveredAt time: Date) -> Rejection? {
        if let rejection = assess(fix) { return rejection }
        guard let limit = configuration.maximumFixAge else { return nil }
        let age = Duration.microseconds(Self.micros(time) - Self.micros(fix.time))
        return age > limit ? .stale(age: age) : nil
    }

    /// What to do with `fix`: fetch (and why), wait, or ignore it.
    ///
    /// While a fetch is awaiting its answer the back-off does not apply: the answer decides what
    /// follows, and the distance and time rules say whether the fix deserves a follow-up.
    public func decision(for fix: Fix) -> Decision {
        decision(for: fix, deliveredAt: fix.time)
    }

    /// What to do with `fix`, handed to the app at `time` (the delivery clock, as the app's
    /// `Date()` reads it): the time rule and the back-off count on that clock, and
    /// ``assess(_:deliveredAt:)`` judges the fix's age on arrival. With `time` the fix's own time,
    /// ``decision(for:)``.
    package func decision(for fix: Fix, deliveredAt time: Date) -> Decision {
        if let rejection = assess(fix, deliveredAt: time) { return .rejected(rejection) }
        guard let center = fix.coordinate else { return .rejected(.noPosition) }
        let backingOff = consecutiveFailures > 0 && !isAwaitingAnswer ? retryNotBeforeMicros : nil
        let outcome = Self.rule(
            configuration: configuration, timeMicros: Self.micros(time), retryNotBeforeMicros: backingOff,
            lastFetchMicros: lastFetch.map { Self.micros($0.time) }, distance: { lastFetch.map { center.distance(to: $0.center) } ?? 0 })
        switch outcome {
        case .fetch(let reason): return .fetch(reason)
        case .notDue(let distance, let elapsed): return .notDue(distance: distance, elapsed: .microseconds(elapsed))
        case .backingOff(let until): return .backingOff(until: Self.date(micros: until))
        }
    }

    /// The distance and time rules alone, for a position already known to be good.
    ///
    /// - Returns: ``Reason/first``, ``Reason/moved`` or ``Reason/elapsed``, or `nil` when neither
    ///   rule holds. Ignores accuracy and back-off; ``decision(for:)`` applies both.
    public func shouldFetch(center: Coordinate, at time: Date) -> Reason? {
        let outcome = Self.rule(
            configuration: configuration, timeMicros: Self.micros(time), retryNotBeforeMicros: nil,
            lastFetchMicros: lastFetch.map { Self.micros($0.time) }, distance: { lastFetch.map { center.distance(to: $0.center) } ?? 0 })
        if case .fetch(let reason) = outcome { return reason }
        return nil
    }

    // MARK: Recording what happened

    /// A fetch centred on `center` was started for the fix at `time`; it becomes the anchor.
    public mutating func recordFetch(center: Coordinate, at time: Date) {
        anchorBeforeFetch = lastFetch
        lastFetch = Anchor(center: center, time: time)
        isAwaitingAnswer = true
    }

    /// The fetch answered: the back-off resets.
    public mutating func recordSuccess() {
        isAwaitingAnswer = false
        consecutiveFailures = 0
        retryNotBeforeMicros = nil
    }

    /// The fetch failed at `time` (fix-time base: the triggering fix's time plus the fetch's
    /// duration). Starts or lengthens the back-off.
    ///
    /// - Returns: The earliest fix time at which a retry is allowed.
    @discardableResult
    public mutating func recordFailure(at time: Date) -> Date {
        isAwaitingAnswer = false
        consecutiveFailures += 1
        let unit = random.uniform(0...1)
        let delay = configuration.retry.delayMicroseconds(afterFailures: consecutiveFailures, randomUnit: unit)
        let notBefore = Self.micros(time) + delay
        retryNotBeforeMicros = notBefore
        return Self.date(micros: notBefore)
    }

    /// The fetch was cancelled before answering: the anchor goes back to the fetch before it,
    /// so a restarted session fetches for where it is rather than trusting an answer it never got.
    public mutating func recordCancellation() {
        guard isAwaitingAnswer else { return }
        isAwaitingAnswer = false
        lastFetch = anchorBeforeFetch
    }

    // MARK: Time at microsecond resolution

    /// Microseconds since the reference date, rounded: the resolution at which times are compared.
    static func micros(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        // Dates beyond ±126,000 years are clamped so differences and sums never overflow;
        // `assess` already rejects non-finite times.
        guard value.isFinite else { return 0 }
        return Int64(max(-4e18, min(4e18, value)))
    }

    static func date(micros: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(micros) / 1_000_000)
    }
}
