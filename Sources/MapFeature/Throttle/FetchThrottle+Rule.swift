extension FetchThrottle {
    /// The outcome of ``rule(configuration:timeMicros:retryNotBeforeMicros:lastFetchMicros:distance:)``.
    @usableFromInline
    package enum RuleOutcome: Sendable, Hashable {
        /// Fetch now, for this reason.
        case fetch(Reason)
        /// Neither rule holds: `distance` metres and `elapsedMicros` since the last fetch.
        case notDue(distance: Double, elapsedMicros: Int64)
        /// Backing off after a failure until `untilMicros`.
        case backingOff(untilMicros: Int64)
    }

    /// The game's rule on plain numbers, for a fix already known to be usable: the one place the
    /// order of the checks lives. ``decision(for:)`` and ``shouldFetch(center:at:)`` apply it to a
    /// throttle's state; a swarm of many players (the `Swarm` module) applies it to compact
    /// per-player state without keeping a `FetchThrottle` each.
    ///
    /// The order: while backing off, the back-off alone decides (``Reason/retry`` once it has
    /// passed); then ``Reason/first`` when nothing was fetched yet; then ``Reason/moved`` when
    /// `distance()` is strictly more than ``Configuration/minimumDistance``; then
    /// ``Reason/elapsed`` when strictly more than ``Configuration/minimumInterval`` has passed.
    ///
    /// - Parameters:
    ///   - configuration: The thresholds.
    ///   - timeMicros: The fix's time, in microseconds on the same base as the other times.
    ///   - retryNotBeforeMicros: While backing off (a failure since the last success and no fetch
    ///     awaiting its answer), the earliest time a retry is allowed; otherwise `nil`.
    ///   - lastFetchMicros: The last fetch's time, or `nil` before the first fetch.
    ///   - distance: Metres from the last fetch's centre; called at most once, and only when
    ///     there is a last fetch and no back-off.
    ///
    /// Package access: `FetchThrottle` and the `Swarm` module share it; apps use `decision(for:)` and `shouldFetch(center:at:)`.
    /// `metres` in whole micrometres: distances are compared so, as times are in whole
    /// microseconds, so a point placed exactly 100 m away (whose distance computes as
    /// 100.0000000005 m) is exactly 100 m and does not fetch.
    @inlinable
    package static func micrometres(_ metres: Double) -> Double { (metres * 1_000_000).rounded() }

    @inlinable
    package static func rule(
        configuration: borrowing Configuration, timeMicros: Int64, retryNotBeforeMicros: Int64?,
        lastFetchMicros: Int64?, distance: () -> Double
    ) -> RuleOutcome {
        if let notBefore = retryNotBeforeMicros {
            return timeMicros >= notBefore ? .fetch(.retry) : .backingOff(untilMicros: notBefore)
        }
        guard let lastFetchMicros else { return .fetch(.first) }
        let metres = distance()
        if micrometres(metres) > configuration.minimumDistanceMicrometres { return .fetch(.moved) }
        let elapsed = timeMicros - lastFetchMicros
        if elapsed > configuration.minimumIntervalMicros { return .fetch(.elapsed) }
        return .notDue(distance: metres, elapsedMicros: elapsed)
    }
}
