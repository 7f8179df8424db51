package import LocationCore

extension GPSDProvider {
    /// How a ``GPSDProvider`` treats an absent or lost daemon.
    ///
    /// The default fails fast: no daemon, or a lost connection, ends the sequence with a
    /// ``GPSDError``. ``resilient`` waits for the daemon and reconnects after losses, which is
    /// what a field test with a USB dongle wants.
    package struct Configuration: Sendable, Hashable {
        /// Retry (with ``backoff``) when the first connection fails or gpsd rejects the `?WATCH`
        /// (it does not have the named device yet), instead of throwing
        /// ``GPSDError/Code/connectionRefused`` or ``GPSDError/Code/watchRejected``.
        package var waitForDaemon: Bool
        /// After a session was up, reconnect (with ``backoff``) when the daemon goes away, and keep
        /// listening when the named device is removed, instead of throwing
        /// ``GPSDError/Code/daemonClosed`` or ``GPSDError/Code/deviceRemoved``.
        package var reconnect: Bool
        /// The delays between attempts, and how many to make (``/LocationCore/Backoff/maximumAttempts``;
        /// its jitter is not used).
        package var backoff: Backoff
        /// Mark a lost connection or a removed device with a status fix (``/LocationCore/Fix/noFix(time:source:)``
        /// stamped `now`) among the fixes, so a consumer of fixes alone knows of the gap. A relay
        /// that passes the receiver's own reports on turns it off: gpsd itself reports no `TPV`
        /// for a receiver it cannot read (the gap is told as events either way).
        package var marksGaps: Bool

        /// - Parameters:
        ///   - waitForDaemon: Retry the first connection; default `false`.
        ///   - reconnect: Reconnect after losing the daemon; default `false`.
        ///   - backoff: Delays between attempts; default ``standardBackoff``.
        ///   - marksGaps: A status fix for each gap; default `true`.
        package init(waitForDaemon: Bool = false, reconnect: Bool = false, backoff: Backoff = standardBackoff, marksGaps: Bool = true) {
            self.waitForDaemon = waitForDaemon
            self.reconnect = reconnect
            self.backoff = backoff
            self.marksGaps = marksGaps
        }

        /// 250 ms, doubling, capped at 8 s, no jitter, unlimited attempts: a dongle plugged in or
        /// gpsd restarted is picked up within seconds.
        package static var standardBackoff: Backoff {
            do {
                return try Backoff(initialDelay: .milliseconds(250), multiplier: 2, maximumDelay: .seconds(8))
            } catch {
                preconditionFailure("the standard gpsd back-off is valid: \(error)")
            }
        }

        /// Fail on the first problem (the default).
        package static var failFast: Configuration { Configuration() }

        /// Wait for the daemon and reconnect after losses, with the default back-off.
        package static var resilient: Configuration { Configuration(waitForDaemon: true, reconnect: true) }
    }
}
