import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

// The reference is the standard library: `description` for the text, `Double(String)` (correctly
// rounded) for reading it back.

@Suite("Decimal text", .ownThread)
struct DecimalTextTests {
    static func text(_ value: Double) -> String {
        var bytes = [UInt8](repeating: 0, count: DecimalText.maximumLength)
        let count = bytes.withUnsafeMutableBytes { DecimalText.write(value, into: $0) }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    static func text(_ value: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: DecimalText.maximumLength)
        let count = bytes.withUnsafeMutableBytes { DecimalText.write(value, into: $0) }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    @Test("Coordinates with 0 to 9 decimals are written as description writes them")
    func coordinates() {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<50_000 {
            let decimals = Int(random.next() % 10)
            let degrees = random.uniform(-180...180)
            // The double nearest to a decimal with `decimals` places, as a CSV or GPX file gives it.
            let value = Double(String(format: "%.\(decimals)f", degrees))!
            #expect(Self.text(value) == value.description, "\(value)")
        }
    }

    @Test("Coordinates as the index stores them (units of 1e-7°) take the seven-decimal path and match description")
    func indexCoordinates() {
        var random = SplitMix64(seed: 2027)
        var samples: [Int64] = [0, 1, -1, 10, 1_000, 10_000_000, -10_000_000, 1_800_000_000, -1_800_000_000, 900_000_000, 1_234_567,
                                10_485_759_999_999, 10_485_760_000_000]
        for _ in 0..<100_000 { samples.append(Int64(random.next() % 3_600_000_001) - 1_800_000_000) }
        // Beyond degrees, up to the fast path's bound of 2^20 and past it.
        for _ in 0..<20_000 { samples.append(Int64(random.next() % 20_000_000_000_000) - 10_000_000_000_000) }
        for units in samples {
            let value = Double(units) / 1e7
            #expect(Self.text(value) == value.description, "\(units)")
        }
    }

    @Test("Any finite double reads back to the same bits, in description's text where it is positional")
    func anyDouble() {
        var random = SplitMix64(seed: 7)
        var samples: [Double] = [0, -0.0, 1, -1, 0.1, 0.2, 0.30000000000000004, 0.0001, 0.00009999999999999999, 1e-5, 123_456_789,
                                 9_007_199_254_740_991, 9_007_199_254_740_992, 1e16, .greatestFiniteMagnitude,
                                 .leastNonzeroMagnitude, .leastNormalMagnitude, 179.99999999999997, -90]
        for _ in 0..<20_000 { samples.append(Double(bitPattern: random.next())) }
        // Uniform over the magnitudes the fast path covers (10^-4 … 2^53), where bit patterns rarely land.
        for _ in 0..<50_000 { samples.append((random.uniform(-4...15.9)).exp10 * (random.next() % 2 == 0 ? 1 : -1)) }
        for value in samples where value.isFinite {
            let text = Self.text(value)
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(text) for \(value)")
            #expect(text == value.description, "\(text) for \(value)")
        }
    }

    @Test("Integers")
    func integers() {
        var random = SplitMix64(seed: 3)
        var samples = [0, 1, -1, 9, 10, -10, Int.max, Int.min]
        for _ in 0..<10_000 { samples.append(Int(bitPattern: UInt(random.next())) >> Int(random.next() % 63)) }
        for value in samples { #expect(Self.text(value) == String(value)) }
    }

    // MARK: Fixed decimals

    @Test("Fixed decimals agree with glibc's printf, except where |v| × 10^d sits on a tie (ours rounds half away from zero)")
    func fixedMatchesPrintf() {
        var random = SplitMix64(seed: 11)
        var checked = 0
        for _ in 0..<60_000 {
            let decimals = Int(random.next() % 8)
            let value = random.uniform(-7...9).exp10 * (random.next() % 2 == 0 ? 1 : -1)
            let ours = DecimalText.fixed(value, decimals: decimals)
            let printf = String(format: "%.\(decimals)f", value)
            if ours == printf || printf == "-" + ours { checked += 1; continue }
            // A difference is allowed at a tie of the scaled value, or where the scaled value is past
            // 2^53 (no longer exact), and then only by one unit of the last digit.
            let scaled = value.magnitude * Foundation.pow(10, Double(decimals))
            #expect(scaled >= 9_007_199_254_740_992 || abs(scaled - scaled.rounded(.down) - 0.5) < 1e-6,
                    "\(value) with \(decimals): \(ours) vs \(printf)")
            // Both texts as integers in units of the last digit.
            func units(_ text: String) -> Int64? { Int64(text.replacingOccurrences(of: ".", with: "")) }
            if let a = units(ours), let b = units(printf) {
                #expect(abs(a - b) <= 1, "\(value) with \(decimals): \(ours) vs \(printf)")
            } else {
                Issue.record("not a fixed decimal: \(ours) or \(printf)")
            }
        }
        #expect(checked > 55_000)
    }

    @Test("Fixed decimals: exact digit count, no negative zero, half away from zero, checked at the limits")
    func fixedEdges() {
        #expect(DecimalText.fixed(12.3, decimals: 2) == "12.30")
        #expect(DecimalText.fixed(7, decimals: 0) == "7")
        #expect(DecimalText.fixed(0.5, decimals: 0) == "1")
        #expect(DecimalText.fixed(-0.5, decimals: 0) == "-1")
        #expect(DecimalText.fixed(-0.04, decimals: 1) == "0.0")
        #expect(DecimalText.fixed(-0.0, decimals: 3) == "0.000")
        #expect(DecimalText.fixed(-0.25, decimals: 3) == "-0.250")
        #expect(DecimalText.fixed(-1.05e-3, decimals: 3) == "-0.001")
        for value in [Double.infinity, -.infinity, .nan, 1e19, -1e19, .greatestFiniteMagnitude] {
            #expect(DecimalText.fixed(value, decimals: 0) == value.description)
        }
        // 9.2e18 units is the last the 64-bit path takes; beyond it, description.
        #expect(DecimalText.fixed(9.1e17, decimals: 1) == "910000000000000000.0")
        #expect(DecimalText.fixed(9.3e17, decimals: 1) == (9.3e17).description)
    }

    @Test("JSONWriter's fixed-decimal numbers are DecimalText.fixed's text written into its bytes; null when not finite")
    func fixedInJSON() {
        var random = SplitMix64(seed: 13)
        for _ in 0..<5_000 {
            let decimals = Int(random.next() % 19)
            let value = random.uniform(-9...20).exp10 * (random.next() % 2 == 0 ? 1 : -1)
            var json = JSONWriter()
            json.array { json in
                json.number(value, fixedDecimals: decimals)
                json.number(-value, fixedDecimals: decimals)
            }
            let expected = "[\(DecimalText.fixed(value, decimals: decimals)),\(DecimalText.fixed(-value, decimals: decimals))]"
            #expect(json.text == expected, "\(value) with \(decimals) decimals")
        }
        var json = JSONWriter()
        json.object { json in
            json.member("nan", .nan, fixedDecimals: 3)
            json.member("inf", -.infinity, fixedDecimals: 0)
            json.member("x", 0.125, fixedDecimals: 2)
        }
        #expect(json.text == #"{"nan":null,"inf":null,"x":0.13}"#)
    }

    @Test("Numbers rounded to decimals that are too large to have a fraction are written whole, never null (1e308 was)")
    func roundedHuge() {
        let values = [1e308, -1e308, .greatestFiniteMagnitude, 0x1p52, 123_456_789_012_345_678.0]
        var rounded = JSONWriter(), plain = JSONWriter()
        rounded.array { json in for value in values { json.number(value, decimals: 2) } }
        plain.array { json in for value in values { json.number(value) } }
        #expect(rounded.text == plain.text)
        #expect(!rounded.text.contains("null"), "\(rounded.text)")
    }

    @Test("Zero padding agrees with printf's %0*ld; a negative value pads its digits after the sign")
    func zeroPadded() {
        var random = SplitMix64(seed: 5)
        for _ in 0..<10_000 {
            let value = Int(random.next() >> (1 + random.next() % 63))
            let width = Int(random.next() % 22)
            #expect(DecimalText.zeroPadded(value, width: width) == String(format: "%0\(width)ld", value))
            let negative = DecimalText.zeroPadded(-value - 1, width: width)
            #expect(negative == "-" + String(format: "%0\(width)ld", value + 1))
        }
        #expect(DecimalText.zeroPadded(Int.min, width: 3) == String(Int.min))
    }
}

extension Double {
    fileprivate var exp10: Double { Foundation.pow(10, self) }
}
