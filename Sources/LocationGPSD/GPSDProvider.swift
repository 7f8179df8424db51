#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore

/// Live fixes from gpsd (a USB GPS dongle, or any receiver gpsd reads), through libgps.
///
/// Each iteration opens its own connection to the daemon, subscribes with
/// `?WATCH={"enable":true,"json":true}` (limited to ``device`` when one is named), and yields a
/// ``/LocationCore/Fix`` for every `TPV` report:
///
/// - A report with mode 2D or 3D **and** a time becomes a positioned fix. The field mapping
///   (mode, lat/lon, altMSL/altHAE, speed, track → course, eph or epx/epy → horizontal accuracy,
///   epv → vertical accuracy, the `timespec` time) is documented in one place: the table on
///   `Fix.init(gpsd:receivedAt:)` in `Internal/Fix+GPSD.swift`, repeated in `docs/guides/gps-dongle.md`.
/// - Any other report (mode 0 or 1, or no time, as gpsd's first report after start-up often has)
///   is never a position: it is yielded as a status, ``/LocationCore/Fix/noFix(time:source:)``, whose `time` is
///   the report's own time when it has one and otherwise the wall-clock time of reception
///   (from `now`). Check ``/LocationCore/Fix/hasPosition``.
/// - A gap is marked with one ``/LocationCore/Fix/noFix(time:source:)`` stamped `now()`: when the connection is
///   lost (with ``Configuration/reconnect``) and when gpsd reports a device removed (unless
///   ``Configuration/marksGaps`` is off).
///
/// For the details of a gap (which error, which device, each retry and its delay) iterate
/// ``events`` instead: the same session as a sequence of ``GPSDEvent``. Or keep iterating fixes
/// and be told the rest as it happens: ``reportingEvents(to:)``.
///
/// Live data keeps only the newest fix while the consumer is slow; a recorder keeps every one
/// (``Configuration/recording``, up to ``Configuration/recordingBacklog``). Blocking reads of
/// gpsd's socket (`poll`, `recv`) run on a dedicated thread per iteration, never on Swift's
/// cooperative pool. Cancelling the iterating task (or dropping the iterator) closes the
/// connection promptly: the socket is shut down at once, and the reader polls at most every
/// 250 ms as a fallback.
///
/// Faults, per ``Configuration``:
///
/// | fault                          | ``Configuration/failFast`` (default)           | ``Configuration/resilient`` |
/// |--------------------------------|------------------------------------------------|-----------------------------|
/// | no gpsd at host:port           | throws ``GPSDError/Code/connectionRefused``    | retries with capped exponential back-off |
/// | gpsd killed or restarted       | throws ``GPSDError/Code/daemonClosed``         | a `.noFix` marks the gap; reconnects with back-off and resumes |
/// | the named ``device`` removed   | a `.noFix`, then throws ``GPSDError/Code/deviceRemoved`` | a `.noFix`; fixes resume if gpsd re-activates it |
/// | the named ``device`` unknown to gpsd | throws ``GPSDError/Code/watchRejected`` (gpsd's message) | a `.noFix`; re-subscribes with back-off until gpsd has it |
/// | another device removed         | a `.noFix`; goes on                            | a `.noFix`; goes on |
///
/// Back-off delays are slept on the injected `clock`, so tests drive reconnection in virtual time.
///
/// ```swift
/// let gpsd = try GPSDProvider(
///     host: "127.0.0.1", port: 2947, configuration: .resilient, clock: ContinuousClock(), now: { Date() })
/// for try await fix in gpsd where fix.hasPosition {
///     print(fix.coordinate!, fix.horizontalAccuracy ?? .nan)
/// }
/// ```
package struct GPSDProvider<C: Clock>: LocationProvider where C.Duration == Duration {
    package typealias Element = Fix

    /// The daemon's host name or address.
    package let host: String
    /// The daemon's TCP port, 1...65535.
    package let port: Int
    /// The one device path to watch (as gpsd names it, e.g. `/dev/ttyACM0`), or `nil` for all.
    package let device: String?
    /// How absent or lost daemons are handled.
    package let configuration: Configuration
    let clock: C
    let now: @Sendable () -> Date
    /// Told every event that is not a fix, before the iterator goes on (``reportingEvents(to:)``).
    var eventReport: (@Sendable (GPSDEvent) async -> Void)?

    /// Creates a provider; nothing connects until iteration starts.
    ///
    /// - Parameters:
    ///   - host: gpsd's host name or address; default `127.0.0.1`.
    ///   - port: gpsd's TCP port, 1...65535; default 2947.
    ///   - device: Watch only this device path; `nil` (default) watches every device gpsd has.
    ///   - configuration: Fault handling; default ``Configuration/failFast``.
    ///   - clock: The clock back-off delays are slept on.
    ///   - now: Wall-clock time, to stamp status fixes that carry no time of their own.
    /// - Throws: ``GPSDError/Code/invalidArgument`` for an empty host, a port outside 1...65535,
    ///   or a back-off whose delays are not positive and finite (naming the field).
    package init(
        host: String = "127.0.0.1",
        port: Int = 2947,
        device: String? = nil,
        configuration: Configuration = Configuration(),
        clock: C,
        now: @escaping @Sendable () -> Date
    ) throws(GPSDError) {
        guard !host.isEmpty else {
            throw GPSDError(.invalidArgument, host: host, port: port, detail: "host is empty")
        }
        guard (1...65_535).contains(port) else {
            throw GPSDError(.invalidArgument, host: host, port: port, detail: "port \(port) is outside 1...65535")
        }
        self.host = host
        self.port = port
        self.device = device
        self.configuration = configuration
        self.clock = clock
        self.now = now
    }

    /// The same sessions as ``GPSDEvent`` values: fixes plus connections, losses, retries and
    /// device changes.
    package var events: GPSDEventSequence<C> { GPSDEventSequence(provider: self) }

    package func makeAsyncIterator() -> Iterator {
        Iterator(events: events.makeAsyncIterator(), now: now, report: eventReport, marksGaps: configuration.marksGaps)
    }

    /// The same fixes, with the session's other events (connected, disconnected, each retry,
    /// devices activated and removed, gpsd's errors) handed to `report` as they happen, before
    /// the fix or gap marker they come with is returned: a consumer of fixes that also tells the
    /// connection's story, with the gap rule kept here, in one place.
    ///
    /// ```swift
    /// let gpsd = try GPSDProvider(configuration: .resilient, clock: ContinuousClock(), now: { Date() })
    ///     .reportingEvents { event in print(event) }
    /// for try await fix in gpsd { … }   // prints "disconnected(…)", "retrying(…)" between fixes
    /// ```
    ///
    /// - Parameter report: Awaited for each event other than ``GPSDEvent/fix(_:)``, on the
    ///   iterating task.
    package func reportingEvents(to report: @escaping @Sendable (GPSDEvent) async -> Void) -> GPSDProvider {
        var provider = self
        provider.eventReport = report
        return provider
    }

    /// Iterates one gpsd session's fixes.
    ///
    /// - Important: One consumer per iterator; each iterator holds its own connection.
    package struct Iterator: AsyncIteratorProtocol {
        private var events: GPSDEventSequence<C>.Iterator
        private let now: @Sendable () -> Date
        private let report: (@Sendable (GPSDEvent) async -> Void)?
        /// A gap marker was yielded and no fix has followed yet: one marker per gap.
        private var inGap = false
        /// Whether gaps are marked at all (``Configuration/marksGaps``).
        private let marksGaps: Bool

        init(
            events: GPSDEventSequence<C>.Iterator, now: @escaping @Sendable () -> Date,
            report: (@Sendable (GPSDEvent) async -> Void)?, marksGaps: Bool
        ) {
            self.events = events
            self.now = now
            self.report = report
            self.marksGaps = marksGaps
        }

        /// The next fix (positioned or a `.noFix` status), or `nil` when the task was cancelled.
        ///
        /// - Throws: ``GPSDError`` as ``GPSDProvider`` describes for its ``Configuration``.
        package mutating func next() async throws -> Fix? {
            while let event = try await events.next() {
                switch event {
                case .fix(let fix):
                    inGap = false
                    return fix
                case .disconnected, .deviceRemoved:
                    await report?(event)
                    guard marksGaps, !inGap else { continue }
                    inGap = true
                    return .noFix(time: now(), source: .gpsd)
                case .connected, .deviceActivated, .retrying, .daemonError, .skyUnreadable:
                    await report?(event)
                }
            }
            return nil
        }
    }
}

@available(*, unavailable)
extension GPSDProvider.Iterator: Sendable {}
