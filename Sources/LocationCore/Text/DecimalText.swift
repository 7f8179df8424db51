/// Writes numbers as decimal ASCII straight into a byte buffer, for writers that produce
/// thousands of numbers per answer (the nearby server's JSON) and cannot afford a `String` each.
///
/// ``write(_:into:)-(Double,_)`` gives the text Swift's `description` gives (`35.6812`, `2.0`,
/// `-0.5`) for every finite value from 0.0001 up to 2⁵³ that it can write positionally, found
/// as the fewest decimals `k` whose nearest integer `n = round(|v| × 10^k)` divides back,
/// `n / 10^k`, to exactly `v`. Both `n` (below 2⁵³) and `10^k` (k ≤ 22) are exact doubles and the
/// division is correctly rounded, so the text is the decimal that reads back to the same bits,
/// by construction. Every other value (zero's sign aside: tiny, huge, with 17 significant
/// digits that need `k` beyond the exact range, not finite) is copied from `description`.
///
/// ```swift
/// var bytes = [UInt8](repeating: 0, count: DecimalText.maximumLength)
/// let count = bytes.withUnsafeMutableBytes { DecimalText.write(139.7671, into: $0) }   // "139.7671"
/// ```
package enum DecimalText {
    /// The most bytes one number takes (`description` of a `Double` is at most 24).
    @inlinable package static var maximumLength: Int { 32 }

    /// 2⁵³: integers below it are exact.
    private static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// Writes `value` as its shortest round-trip decimal (see the type's notes) at the start of
    /// `out`, which must hold at least ``maximumLength`` bytes.
    ///
    /// - Returns: The number of bytes written.
    package static func write(_ value: Double, into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= maximumLength, "DecimalText needs \(maximumLength) bytes")
        let magnitude = value.magnitude
        // Seven decimals first: every coordinate of the index (stored in units of 10⁻⁷ degree)
        // is found with one trial instead of up to eight. If `n / 10⁷` gives back `v`, `n` less
        // its trailing zeros is the answer the loop below finds: below 2²⁰ two decimals of at
        // most seven places are 10⁻⁷ apart, far more than the spacing of doubles there, so no
        // decimal with fewer places reads back to `v` unless it is `n` without trailing zeros,
        // and `round(v × 10^k)` is that integer (its rounding error is far below ½).
        if magnitude >= 0.0001, magnitude < 1_048_576 {
            let significand = UInt64(magnitude * 10_000_000 + 0.5)
            if Double(significand) / 10_000_000 == magnitude {
                return writeSevenDecimals(significand, negative: value.sign == .minus, into: out)
            }
        }
        if value.isFinite, magnitude >= 0.0001 || magnitude == 0, magnitude < exactIntegerLimit {
            var k = 0
            // 10^k by repeated multiplication: every product up to 10²² is exact.
            var power = 1.0
            while k <= 17 {
                let scaled = magnitude * power
                if scaled >= exactIntegerLimit { break }
                // The nearest integer without a call into libm: below 2⁵² adding ½ is exact and
                // truncation rounds it; from 2⁵² on every double is already an integer.
                let significand = scaled < 4_503_599_627_370_496 ? UInt64(scaled + 0.5) : UInt64(scaled)
                if Double(significand) / power == magnitude {
                    return writeFixed(significand: significand, decimals: k, negative: value.sign == .minus, into: out)
                }
                k += 1
                power *= 10
            }
        }
        var text = value.description
        return text.withUTF8 { utf8 in
            out.copyMemory(from: UnsafeRawBufferPointer(utf8))
            return utf8.count
        }
    }

    /// Writes `value` in decimal digits at the start of `out` (at least ``maximumLength`` bytes).
    ///
    /// - Returns: The number of bytes written.
    package static func write(_ value: Int, into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= maximumLength, "DecimalText needs \(maximumLength) bytes")
        var at = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            at = 1
        }
        return at + writeDigits(value.magnitude, minimumCount: 1, into: out, at: at)
    }

    /// `value` rounded to exactly `decimals` decimals (0…18), the way people and fixed-width
    /// formats want numbers (`12.30`, `-0.5`, `7`): half away from zero, no exponent, no locale,
    /// and no sign on a value that rounds to zero. The one fixed-decimal formatter of the package
    /// (track statistics, NMEA fields, reports, logs).
    ///
    /// Exact while |value| × 10^decimals is below 2⁵³ (a coordinate to 7 decimals, a distance in
    /// metres to 3); beyond that the product is rounded once more and the last digit may be one
    /// off the exact decimal.
    ///
    /// Checked, never a trap: a value that is not finite, or too large for `decimals` decimals in
    /// 64 bits (|value| × 10^decimals ≥ 9.2 × 10¹⁸), is written as `description` writes it
    /// (`inf`, `1e+19`).
    ///
    /// ```swift
    /// DecimalText.fixed(12.3, decimals: 2)    // "12.30"
    /// DecimalText.fixed(-0.5, decimals: 0)    // "-1"
    /// DecimalText.fixed(-0.04, decimals: 1)   // "0.0", never "-0.0"
    /// DecimalText.fixed(1e19, decimals: 0)    // "1e+19"
    /// ```
    package static func fixed(_ value: Double, decimals: Int) -> String {
        text(capacity: maximumLength) { write(value, decimals: decimals, into: $0) }
    }

    /// Writes ``fixed(_:decimals:)``'s text of `value` at the start of `out`, which must hold at
    /// least ``maximumLength`` bytes.
    ///
    /// - Returns: The number of bytes written.
    package static func write(_ value: Double, decimals: Int, into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition((0...18).contains(decimals), "DecimalText.fixed: decimals must be 0…18, got \(decimals)")
        precondition(out.count >= maximumLength, "DecimalText needs \(maximumLength) bytes")
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded()
        guard value.isFinite, scaled < 9.2e18 else {
            var text = value.description
            return text.withUTF8 { utf8 in
                out.copyMemory(from: UnsafeRawBufferPointer(utf8))
                return utf8.count
            }
        }
        let units = UInt64(scaled)
        let unit = UInt64(scale)
        var at = 0
        if value < 0 && units != 0 {
            out[0] = UInt8(ascii: "-")
            at = 1
        }
        at += writeDigits(UInt(units / unit), minimumCount: 1, into: out, at: at)
        guard decimals > 0 else { return at }
        out[at] = UInt8(ascii: ".")
        return at + 1 + writeDigits(UInt(units % unit), minimumCount: decimals, into: out, at: at + 1)
    }

    /// `value` in decimal digits, zero-padded on the left to `width` digits (`7` → `"07"`); a
    /// negative value gets its sign before the padded digits. The package's one zero-pad (NMEA
    /// fields, timestamps, clocks).
    package static func zeroPadded(_ value: Int, width: Int) -> String {
        text(capacity: max(width, 20) + 1) { out in
            var at = 0
            if value < 0 {
                out[0] = UInt8(ascii: "-")
                at = 1
            }
            return at + writeDigits(value.magnitude, minimumCount: width, into: out, at: at)
        }
    }

    /// The bytes `write` puts in a buffer of `capacity` bytes (it returns how many), as a
    /// `String`. Written on the stack first: a `String` of up to 15 bytes lives inside the value,
    /// with no allocation, where `String(unsafeUninitializedCapacity:)` allocates for any
    /// capacity over 15; so the short numbers of NMEA fields and gpsd reports cost none.
    private static func text(capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) -> String {
        withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { out in
            String(decoding: UnsafeRawBufferPointer(rebasing: out[..<write(out)]), as: UTF8.self)
        }
    }

    /// `significand / 10⁷` with its trailing zeros dropped (`.0` for a whole number), as
    /// ``writeFixed(significand:decimals:negative:into:)`` writes it after trimming, but with
    /// divisions by constants only (the compiler turns them into multiplications).
    private static func writeSevenDecimals(_ significand: UInt64, negative: Bool, into out: UnsafeMutableRawBufferPointer) -> Int {
        var at = 0
        if negative {
            out[0] = UInt8(ascii: "-")
            at = 1
        }
        at += writeDigits(UInt(significand / 10_000_000), minimumCount: 1, into: out, at: at)
        out[at] = UInt8(ascii: ".")
        at += 1
        var fraction = significand % 10_000_000
        guard fraction != 0 else {
            out[at] = UInt8(ascii: "0")
            return at + 1
        }
        var decimals = 7
        while fraction % 10 == 0 {
            fraction /= 10
            decimals -= 1
        }
        for i in stride(from: at + decimals - 1, through: at, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        return at + decimals
    }

    /// `significand / 10^decimals` with exactly `decimals` decimals (`.0` when there are none, as
    /// `description` writes whole numbers).
    private static func writeFixed(significand: UInt64, decimals: Int, negative: Bool, into out: UnsafeMutableRawBufferPointer)
        -> Int
    {
        var at = 0
        if negative {
            out[0] = UInt8(ascii: "-")
            at = 1
        }
        if decimals == 0 {
            at += writeDigits(UInt(significand), minimumCount: 1, into: out, at: at)
            out[at] = UInt8(ascii: ".")
            out[at + 1] = UInt8(ascii: "0")
            return at + 2
        }
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        at += writeDigits(UInt(significand / scale), minimumCount: 1, into: out, at: at)
        out[at] = UInt8(ascii: ".")
        at += 1
        return at + writeDigits(UInt(significand % scale), minimumCount: decimals, into: out, at: at)
    }

    /// The digits of `value`, zero-padded on the left to `minimumCount`, at `at`.
    private static func writeDigits(_ value: UInt, minimumCount: Int, into out: UnsafeMutableRawBufferPointer, at: Int) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        count = max(count, minimumCount)
        var remaining = value
        for i in stride(from: at + count - 1, through: at, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        return count
    }
}
