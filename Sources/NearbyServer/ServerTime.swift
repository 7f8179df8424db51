#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import LocationCore

/// The server's sense of time, injected: a monotonic clock for delays and durations, and a wall
/// clock for the audit's and the access log's timestamps.
///
/// The command passes `ContinuousClock` and the system time; tests pass a virtual clock, so a
/// scripted 800 ms delay costs nothing.
///
/// ```swift
/// let time = ServerTime(clock: ContinuousClock(), now: { Date() })
/// ```
package struct ServerTime: Sendable {
    /// Time since the server's time source was made, on the monotonic clock.
    package let elapsed: @Sendable () -> Duration
    /// Suspends for a duration on the monotonic clock; throws `CancellationError` when cancelled.
    package let sleep: @Sendable (Duration) async throws -> Void
    /// The wall-clock time now.
    package let now: @Sendable () -> Date

    /// A time source over `clock` (delays, durations) and `now` (timestamps).
    ///
    /// - Parameters:
    ///   - clock: Any clock measured in `Duration`.
    ///   - now: The wall clock.
    package init<C: Clock>(clock: C, now: @escaping @Sendable () -> Date) where C.Duration == Duration {
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
        self.sleep = { duration in try await clock.sleep(for: duration) }
        self.now = now
    }

    /// `date` as an HTTP date (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), to the
    /// second below it, for the `Date` header of the answers the server writes itself.
    package static func httpDate(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        var (days, second) = (seconds / 86_400, seconds % 86_400)
        if second < 0 { (days, second) = (days - 1, second + 86_400) }
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]  // day 0, 1970-01-01, was a Thursday
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { DecimalText.zeroPadded(value, width: 2) }
        return "\(weekdays[(days % 7 + 11) % 7]), \(two(day)) \(months[month - 1]) \(DecimalText.zeroPadded(year, width: 4)) "
            + "\(two(second / 3_600)):\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }
}
