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
        /// How many fixes wait while the consumer is behind. 1 (the default) keeps only the
        /// newest: live data, where a position already superseded is of no use. A recorder wants
        /// every epoch: ``recording`` keeps them while it writes, up to ``recordingBacklog``, and
        /// only then does the newest replace the last one kept.
        package var keptFixes: Int

        /// - Parameters:
        ///   - waitForDaemon: Retry the first connection; default `false`.
        ///   - reconnect: Reconnect after losing the daemon; default `false`.
        ///   - backoff: Delays between attempts; default ``standardBackoff``.
        ///   - marksGaps: A status fix for each gap; default `true`.
        ///   - keptFixes: Fixes kept for a consumer that is behind, at least 1; default 1 (the newest).
        package init(
            waitForDaemon: Bool = false, reconnect: Bool = false, backoff: Backoff = standardBackoff, marksGaps: Bool = true,
            keptFixes: Int = 1
        ) {
            precondition(keptFixes >= 1, "keptFixes must be at least 1, got \(keptFixes)")
            self.waitForDaemon = waitForDaemon
            self.reconnect = reconnect
            self.backoff = backoff
            self.marksGaps = marksGaps
            self.keptFixes = keptFixes
        }

        /// The fixes a recorder lets wait: 4,096, about 7 minutes of a receiver's reports at 10 a
        /// second (gpsd sends one per NMEA sentence).
        package static var recordingBacklog: Int { 4_096 }

        /// This configuration, keeping every fix for a recorder (up to ``recordingBacklog``).
        package var recording: Configuration {
            var copy = self
            copy.keptFixes = Self.recordingBacklog
            return copy
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
