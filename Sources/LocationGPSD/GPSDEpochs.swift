package import LocationCore

/// gpsd's reports, one fix per measurement epoch: what a phone's location service hands an app.
///
/// gpsd 3.22 reports an epoch once per NMEA sentence when it cannot tell where the receiver's
/// cycle ends (a Quectel EG25-G: two to four `TPV`s with one time, each a little more complete:
/// the first without `epv`, an L70's first without altitude or `epx`/`epy`), and a receiver
/// without a fix sends a status `TPV` (mode 0 or 1) several times a second. Counted as they come,
/// one second of a walk is four fixes and a minute without signal hundreds of "no position" lines.
///
/// The rule, kept here for every consumer (the map logic of `replay --gpsd`, `--record`):
/// - a fix with a position is held until a report with another time (or without a position)
///   shows its epoch is over; the last report with that time is the epoch's fix, since gpsd's
///   later reports of an epoch hold everything the earlier ones did;
/// - a report without a position ends the epoch in progress and is passed on at once, but only the
///   first of a run of them: the rest say nothing new until a position returns.
///
/// An epoch's fix therefore arrives with the next epoch's first report (about a second late
/// at 1 Hz); ``finish()`` hands over the last one when the reports end.
package struct GPSDEpochs: Sendable {
    /// The newest report of the epoch in progress.
    private var pending: Fix?
    /// The last report passed on had no position: further ones are the same news.
    private var inStatus = false

    /// Nothing received yet.
    package init() {}

    /// Takes gpsd's next report.
    ///
    /// - Returns: The fixes it completes, in order: the epoch before it when it has another time
    ///   or no position, then the report itself when it is the first without a position.
    package mutating func take(_ report: Fix) -> [Fix] {
        var completed: [Fix] = []
        if let pending, !report.hasPosition || pending.time != report.time {
            completed.append(pending)
            self.pending = nil
        }
        if report.hasPosition {
            pending = report
            inStatus = false
        } else if !inStatus {
            inStatus = true
            completed.append(report)
        }
        return completed
    }

    /// The reports ended: the epoch in progress, if any.
    package mutating func finish() -> Fix? {
        defer { pending = nil }
        return pending
    }
}

/// A provider's gpsd reports as one fix per epoch (``GPSDEpochs``): `replay --gpsd`'s map logic
/// sees each second of a walk once, as the app would.
///
/// When the base ends (or is cancelled) the epoch in progress is returned before the end; when
/// it throws, that epoch is returned first and the error on the next call.
package struct GPSDEpochProvider<Base: LocationProvider>: LocationProvider {
    package typealias Element = Fix

    /// The reports, each epoch possibly several times.
    package let base: Base

    /// One fix per epoch of `base`'s reports.
    package init(_ base: Base) {
        self.base = base
    }

    package func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    /// Iterates the epochs of one pass over the base.
    package struct Iterator: AsyncIteratorProtocol {
        private var base: Base.AsyncIterator
        private var epochs = GPSDEpochs()
        /// Completed fixes not yet returned, oldest first (at most two).
        private var ready: [Fix] = []
        private var ended = false
        private var failure: (any Error)?

        init(base: Base.AsyncIterator) {
            self.base = base
        }

        /// The next epoch's fix (or the first status of a run), or `nil` after the last.
        ///
        /// - Throws: What the base threw, after the epoch that was in progress.
        package mutating func next() async throws -> Fix? {
            while true {
                if !ready.isEmpty { return ready.removeFirst() }
                if let failure {
                    self.failure = nil
                    throw failure
                }
                if ended { return nil }
                do {
                    if let report = try await base.next() {
                        ready = epochs.take(report)
                        continue
                    }
                } catch {
                    failure = error
                }
                ended = true
                if let last = epochs.finish() { ready = [last] }
            }
        }
    }
}

@available(*, unavailable)
extension GPSDEpochProvider.Iterator: Sendable {}
