import LocationCore

extension GPSDProvider {
    /// How a ``GPSDProvider`` treats an absent or lost daemon.
    ///
    /// The default fails fast: no daemon, or a lost connection, ends the sequence with a
    /// ``GPSDError``. ``resilient`` waits for the daemon and reconnects after losses, which is
    /// what a field test with a USB dongle wants.
    public struct Configuration: Sendable, Hashable {
        /// Retry (with ``backoff``) when the first connection fails or gpsd rejects the `?WATCH`
        /// (it does not have the named device yet), instead of throwing
        /// ``GPSDError/Code/connectionRefused`` or ``GPSDError/Code/watchRejected``.
        public var waitForDaemon: Bool
        /// After a session was up, reconnect (with ``backoff``) when the daemon goes away, and keep
        /// listening when the named device is removed, instead of throwing
        /// ``GPSDError/Code/daemonClosed`` or ``GPSDError/Code/deviceRemoved``.
        public var reconnect: Bool
        /// The delays between attempts.
        public var backoff: Backoff

        /// - Parameters:
        ///   - waitForDaemon: Retry the first connection; default `false`.
        ///   - reconnect: Reconnect after losing the daemon; default `false`.
        ///   - backoff: Delays between attempts; default 250 ms doubling up to 8 s, unlimited attempts.
        public init(waitForDaemon: Bool = false, reconnect: Bool = false, backoff: Backoff = Backoff()) {
            self.waitForDaemon = waitForDaemon
            self.reconnect = reconnect
            self.backoff = backoff
        }

        /// Fail on the first problem (the default).
        public static var failFast: Configuration { Configuration() }

        /// Wait for the daemon and reconnect after losses, with the default back-off.
        public static var resilient: Configuration { Configuration(waitForDaemon: true, reconnect: true) }
    }

    /// Capped exponential back-off: `initialDelay × multiplierⁿ⁻¹`, never more than `maximumDelay`.
    public struct Backoff: Sendable, Hashable {
        /// The delay before the first retry; > 0.
        public var initialDelay: Duration
        /// The factor between consecutive delays; ≥ 1.
        public var multiplier: Double
        /// The cap on any delay; ≥ `initialDelay`.
        public var maximumDelay: Duration
        /// Give up (throwing the last error) after this many retries in a row; `nil` retries forever.
        public var maximumAttempts: Int?

        public init(
            initialDelay: Duration = .milliseconds(250),
            multiplier: Double = 2,
            maximumDelay: Duration = .seconds(8),
            maximumAttempts: Int? = nil
        ) {
            self.initialDelay = initialDelay
            self.multiplier = multiplier
            self.maximumDelay = maximumDelay
            self.maximumAttempts = maximumAttempts
        }

        /// What is wrong with these values, naming the field; nil when they are usable.
        var problem: String? {
            if initialDelay <= .zero { return "backoff.initialDelay must be > 0, got \(initialDelay)" }
            if !multiplier.isFinite { return "backoff.multiplier must be a finite number, got \(multiplier)" }
            if maximumDelay < initialDelay {
                return "backoff.maximumDelay (\(maximumDelay)) must be ≥ initialDelay (\(initialDelay))"
            }
            if let maximumAttempts, maximumAttempts < 0 {
                return "backoff.maximumAttempts must be ≥ 0 or nil, got \(maximumAttempts)"
            }
            return nil
        }

        /// The delay before retry number `attempt`.
        ///
        /// - Parameter attempt: 1 for the first retry after a failure; values below 1 count as 1.
        /// - Returns: `min(initialDelay × multiplier^(attempt−1), maximumDelay)`, with a multiplier
        ///   below 1 counted as 1 (delays never shrink) and an infinite one reaching the cap at the
        ///   second retry; a NaN one counts as 1. An `initialDelay` of zero or less is returned as
        ///   it is. (``GPSDProvider`` itself refuses a multiplier that is not finite, and an
        ///   initial delay that is not positive.)
        public func delay(forAttempt attempt: Int) -> Duration {
            guard initialDelay > .zero else { return initialDelay }
            let cap = maximumDelay.fractionalSeconds
            let factor = multiplier.isNaN ? 1 : Swift.max(multiplier, 1)
            var delay = initialDelay.fractionalSeconds
            var step = 1
            while step < attempt, delay < cap {
                delay *= factor
                step += 1
            }
            if delay >= cap { return maximumDelay }
            // Whole nanoseconds while they fit an Int64 (about 292 years); beyond, the Double itself.
            let nanoseconds = (delay * 1e9).rounded()
            return nanoseconds < 9.2e18 ? .nanoseconds(Int64(nanoseconds)) : .seconds(delay)
        }
    }
}
