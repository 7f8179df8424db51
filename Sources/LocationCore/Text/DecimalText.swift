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
    package static var maximumLength: Int { 32 }

    /// 2⁵³: integers below it are exact.
    private static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// Writes `value` as its shortest round-trip decimal (see the type's notes) at the start of
    /// `out`, which must hold at least ``maximumLength`` bytes.
    ///
    /// - Returns: The number of bytes written.
    package static func write(_ value: Double, into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= maximumLength, "DecimalText needs \(maximumLength) bytes")
        let magnitude = value.magnitude
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
