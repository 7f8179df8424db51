/// The one way a length of time is written for locsim: on the command line, in fault scripts and
/// scenario offsets.
///
/// - Seconds, bare: `30`, `1.5`.
/// - Amounts with units, largest first or in any order, each unit once: `500ms`, `30s`, `5m`,
///   `2h`, `1d`, `1h30m`, `250us`.
/// - A clock: `m:ss` or `h:mm:ss`, the seconds possibly with a fraction: `1:30`, `1:30:00`.
///
/// Digits are ASCII with an optional fraction (no sign, exponent, `inf` or spaces). A leading
/// `-` is reported as ``Problem/negative`` so the message can say so rather than "malformed".
package enum DurationText {
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case negative
        case malformed
        /// Well written, but longer than ``limit`` (a slip of the keyboard, `100000000d`).
        case tooLong
        /// More than zero but less than half a microsecond, the finest duration kept: it would
        /// be read as 0 (then refused as "got 0", or taken as none).
        case belowResolution

        package var description: String {
            switch self {
            case .negative: "must not be negative"
            case .malformed: "must be a duration such as 500ms, 30s, 5m, 2h, 1d, 1h30m, 1:30 (m:ss), 1:30:00 (h:mm:ss) or plain seconds (90, 1.5)"
            case .belowResolution: "must be 0 or at least 1us (durations are kept to the microsecond)"
            case .tooLong: "is longer than any locsim takes (at most 10^12 seconds, about 31,700 years)"
            }
        }
    }

    /// The longest duration written: about 31,700 years, far past any flag's own range, and small
    /// enough that its microseconds fit an `Int64`.
    package static let limit = 1e12

    /// The duration `text` says, or why it says none.
    package static func parse(_ text: String) -> Result<Duration, Problem> {
        if text.hasPrefix("-") {
            // Any well-written duration after the sign is negative, whatever else is wrong with it.
            return .failure(parse(String(text.dropFirst())) == .failure(.malformed) ? .malformed : .negative)
        }
        guard let seconds = text.contains(":") ? clock(text) : amounts(text) else { return .failure(.malformed) }
        guard seconds.isFinite, seconds <= limit else { return .failure(.tooLong) }
        let microseconds = Int64((seconds * 1e6).rounded())
        guard microseconds > 0 || seconds == 0 else { return .failure(.belowResolution) }
        return .success(.microseconds(microseconds))
    }

    /// `m:ss` or `h:mm:ss`: minutes and seconds below 60 after the first part.
    private static func clock(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            // Only the last part (the seconds) may have a fraction.
            guard let value = number(part, fraction: index == parts.count - 1) else { return nil }
            if index > 0, value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }

    /// Bare seconds, or amounts each with its unit.
    private static func amounts(_ text: String) -> Double? {
        guard !text.isEmpty else { return nil }
        if let seconds = number(Substring(text), fraction: true) { return seconds }
        let units: [(String, Double)] = [("ms", 1e-3), ("us", 1e-6), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        var rest = Substring(text)
        var total = 0.0
        var used: Set<String> = []
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard let value = number(digits, fraction: true) else { return nil }
            rest = rest.dropFirst(digits.count)
            // Two-letter units first: "ms" is not "m" followed by "s".
            guard let (unit, scale) = units.first(where: { rest.hasPrefix($0.0) }), used.insert(unit).inserted else { return nil }
            rest = rest.dropFirst(unit.count)
            total += value * scale
        }
        return total
    }

    /// `h:mm:ss`, or `m:ss` under an hour unless `alwaysHours`: the clock form ``parse(_:)``
    /// reads, rounded to whole seconds. Saturates at ±2⁶² seconds; not-a-number is `-`.
    package static func clockText(_ seconds: Double, alwaysHours: Bool = false) -> String {
        guard !seconds.isNaN else { return "-" }
        let total = Int(min(4.6e18, max(-4.6e18, seconds.rounded())))
        let sign = total < 0 ? "-" : ""
        let s = total.magnitude
        func two(_ n: UInt) -> String { DecimalText.zeroPadded(Int(n), width: 2) }
        return s >= 3600 || alwaysHours ? "\(sign)\(s / 3600):\(two(s % 3600 / 60)):\(two(s % 60))" : "\(sign)\(s / 60):\(two(s % 60))"
    }

    /// A plain decimal: ASCII digits, at most one point with digits on both sides. Digits past a
    /// `Double`'s range read as infinity (then too long).
    private static func number(_ text: Substring, fraction: Bool) -> Double? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...(fraction ? 2 : 1)).contains(pieces.count),
            pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        return Double(text)
    }
}
