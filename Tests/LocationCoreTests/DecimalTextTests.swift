import Foundation
import LocationCore
import Testing

// The reference is the standard library: `description` for the text, `Double(String)` (correctly
// rounded) for reading it back.

@Suite("Decimal text")
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
}

extension Double {
    fileprivate var exp10: Double { Foundation.pow(10, self) }
}
