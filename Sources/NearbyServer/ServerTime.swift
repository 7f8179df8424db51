#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
