#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// A direct ISO-8601 / RFC 3339 timestamp parser and formatter.
///
/// `ISO8601DateFormatter` costs about 29 µs per timestamp on Linux; this costs well under 1 µs
/// and allocates nothing while parsing.
///
/// Accepted: `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds of any length (`.5`, `.123456`),
/// then `Z`, `±hh:mm`, `±hhmm`, `±hh`, or nothing (taken as UTC, which GPX prescribes). A lower-case
/// `t`/`z` and a space instead of `T` are accepted too. A leap second, `:60` in the last minute of a
/// UTC day, is accepted and folds into the next day's first second; `:60` in any other minute is
/// refused.
package enum UTCTimestamp {
    /// Parses the bytes of a timestamp; surrounding ASCII whitespace is ignored.
    ///
    /// - Returns: `nil` when the text is not a valid timestamp (the caller names where it was).
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        parseZoned(bytes)?.date
    }

    /// ``parse(_:)-(UnsafeBufferPointer<UInt8>)``, and whether the text gave its zone (`Z` or an
    /// offset): where a person types a time (`--start-time`, a scenario's `start`), one without a
    /// zone is refused rather than taken as UTC, which a person in Tokyo did not mean.
    package static func parseZoned(_ bytes: UnsafeBufferPointer<UInt8>) -> (date: Date, hasZone: Bool)? {
        var i = bytes.startIndex
        var end = bytes.endIndex
        while i < end, bytes[i].isASCIIWhitespace { i += 1 }
        while end > i, bytes[end - 1].isASCIIWhitespace { end -= 1 }

        func digits(_ count: Int) -> Int? {
            guard end - i >= count else { return nil }
            var value = 0
            for _ in 0..<count {
                let d = Int(bytes[i]) &- 48
                guard d >= 0 && d <= 9 else { return nil }
                value = value * 10 + d
                i += 1
            }
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < end, bytes[i] == c else { return false }
            i += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")),
            let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2)
        else { return nil }
        guard i < end, bytes[i] == UInt8(ascii: "T") || bytes[i] == UInt8(ascii: "t") || bytes[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")),
            let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var fraction = 0.0
        if i < end, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: ",") {
            i += 1
            // Digits beyond the 15th cannot change a Double of seconds; they are read and ignored.
            var numerator: Int64 = 0
            var denominator = 1.0
            var count = 0
            while i < end {
                let d = Int64(bytes[i]) &- 48
                guard d >= 0 && d <= 9 else { break }
                if count < 15 {
                    numerator = numerator * 10 + d
                    denominator *= 10
                }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            fraction = Double(numerator) / denominator
        }

        var offsetSeconds = 0
        let hasZone = i < end
        if i < end {
            let c = bytes[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                i += 1
                guard let oh = digits(2), oh <= 23 else { return nil }
                var om = 0
                if i < end {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = digits(2), m <= 59 else { return nil }
                    om = m
                }
                offsetSeconds = (oh * 3600 + om * 60) * (c == UInt8(ascii: "+") ? 1 : -1)
            } else {
                return nil
            }
        }
        guard i == end else { return nil }
        // A leap second is the last second of a UTC day (23:59:60Z, 08:59:60+09:00): `12:30:60`
        // is no time at all, not 12:31:00.
        if second == 60 {
            let minuteOfDay = ((hour * 60 + minute - offsetSeconds / 60) % 1440 + 1440) % 1440
            guard minuteOfDay == 1439 else { return nil }
        }

        let days = CivilCalendar.days(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return (Date(timeIntervalSince1970: Double(whole) + fraction), hasZone)
    }

    /// Parses a string.
    package static func parse(_ string: some StringProtocol) -> Date? {
        var copy = String(string)
        return copy.withUTF8 { parse($0) }
    }

    /// Parses a string, saying whether it gave its zone (``parseZoned(_:)-(UnsafeBufferPointer<UInt8>)``).
    package static func parseZoned(_ string: some StringProtocol) -> (date: Date, hasZone: Bool)? {
        var copy = String(string)
        return copy.withUTF8 { parseZoned($0) }
    }

    /// Parses a byte collection.
    package static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Date? {
        Array(bytes).withUnsafeBufferPointer { parse($0) }
    }

    /// The largest distance from 1970 that ``format(_:fractionDigits:)`` writes as it is, in
    /// seconds (about 31.7 million years); dates beyond saturate to it.
    package static let formattableSeconds = 1e15

    /// Formats `date` as UTC with `fractionDigits` decimals (0…9), rounded to the nearest unit:
    /// `2018-11-29T01:48:58.000Z`.
    ///
    /// Defined for every `Date`, never trapping: a date more than ``formattableSeconds`` from
    /// 1970 is written as the bound on its side (years of more than four digits are written in
    /// full), and a not-a-number time as 1970-01-01T00:00:00Z.
    package static func format(_ date: Date, fractionDigits: Int = 3) -> String {
        let digits = max(0, min(9, fractionDigits))
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        // Split into whole seconds and a fraction before scaling: t × 10⁹ overflows Int64
        // from the year 2262 on. (t − ⌊t⌋ is exact in floating point.)
        let raw = date.timeIntervalSince1970
        let t = raw.isNaN ? 0 : min(formattableSeconds, max(-formattableSeconds, raw))
        let whole = t.rounded(.down)
        var seconds = Int64(whole)
        var fraction = Int64(((t - whole) * Double(scale)).rounded())
        if fraction == scale {
            fraction = 0
            seconds += 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = CivilCalendar.civil(fromDays: Int(days))
        if (0...9999).contains(y) {
            // The common case, written as bytes: `YYYY-MM-DDTHH:MM:SS[.f…]Z`.
            return String(unsafeUninitializedCapacity: 30) { buffer in
                var at = 0
                func put(_ value: Int, _ width: Int) {
                    var value = value
                    for offset in stride(from: width - 1, through: 0, by: -1) {
                        buffer[at + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                        value /= 10
                    }
                    at += width
                }
                func put(_ byte: Unicode.Scalar) {
                    buffer[at] = UInt8(ascii: byte)
                    at += 1
                }
                put(y, 4); put("-"); put(m, 2); put("-"); put(d, 2); put("T")
                put(Int(secondOfDay / 3600), 2); put(":"); put(Int(secondOfDay % 3600 / 60), 2); put(":")
                put(Int(secondOfDay % 60), 2)
                if digits > 0 {
                    put(".")
                    put(Int(fraction), digits)
                }
                put("Z")
                return at
            }
        }
        var out = ""
        out.reserveCapacity(30)
        out += pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        out += pad(Int(secondOfDay / 3600), 2) + ":" + pad(Int(secondOfDay % 3600 / 60), 2) + ":"
        out += pad(Int(secondOfDay % 60), 2)
        if digits > 0 { out += "." + pad(Int(fraction), digits) }
        return out + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String { DecimalText.zeroPadded(value, width: width) }

}
