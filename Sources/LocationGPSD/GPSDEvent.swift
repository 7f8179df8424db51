package import LocationCore

/// Everything a gpsd session reports, in order: the fixes and what happened around them.
///
/// Read these from ``GPSDProvider/events`` when you need to see gaps, reconnections and device
/// changes; ``GPSDProvider`` itself yields only the ``/LocationCore/Fix`` values (with a ``/LocationCore/FixMode/noFix``
/// status marking each gap; see ``GPSDProvider``).
package enum GPSDEvent: Sendable, Hashable {
    /// A session is up: connected to the daemon and the `?WATCH` was acknowledged, so reports
    /// flow from here on.
    ///
    /// - Parameters:
    ///   - release: gpsd's release as its `VERSION` report names it (for example `"3.22"`),
    ///     or an empty string if the daemon sent none.
    case connected(release: String)
    /// A `TPV` report. Positioned (2D or 3D) when the receiver had a fix and a time; otherwise a
    /// ``/LocationCore/FixMode/noFix`` status (see ``GPSDProvider`` for the mapping).
    case fix(Fix)
    /// gpsd activated a receiver (a `DEVICE` report with a non-zero `activated`).
    case deviceActivated(path: String)
    /// gpsd deactivated a receiver (a `DEVICE` report with `"activated":0`): it was unplugged,
    /// its feed closed, or gpsd gave up on it.
    case deviceRemoved(path: String)
    /// The connection could not be made, gpsd rejected the `?WATCH`, or the connection was lost.
    /// A gap in the fixes starts here. When the
    /// provider is configured to retry, a ``retrying(attempt:after:)`` follows; otherwise the
    /// sequence ends by throwing the same error.
    case disconnected(GPSDError)
    /// The provider will try to connect again after `delay` (on its clock).
    ///
    /// - Parameters:
    ///   - attempt: 1 for the first retry after a failure, counting up until a session is up again.
    ///   - after: The back-off delay before this attempt.
    case retrying(attempt: Int, after: Duration)
    /// The daemon sent an `ERROR` report, with its message.
    ///
    /// In answer to the `?WATCH` (for example `No such device as /dev/ttyUSB9` when the provider
    /// names a device gpsd does not have) the session has failed: a
    /// ``disconnected(_:)`` with ``GPSDError/Code/watchRejected`` follows, then a retry or the
    /// throw, as for a connection that could not be made. Once reports flow, the session goes on.
    case daemonError(String)
    /// gpsd sent a `SKY` the provider could not read (a member libgps 3.22 does not know, a
    /// string where a number goes; why, and the report's start), the first of a run of them.
    /// The fixes go without the receiver's sky (``/LocationCore/ReceiverReport/sky``) until a
    /// `SKY` is read again; the session goes on.
    case skyUnreadable(String)
}
