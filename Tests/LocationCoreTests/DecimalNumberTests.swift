import LocationCore
import Testing
import LocSimTestHelpers

// The reference for `value` is the standard library's correctly rounded `Double(String)`; the
// reference for the exact parts is `DigitReference` below, which works on the text as characters
// (strip the sign, split at the point and the `e`, drop leading zeros) rather than by scanning bytes.

@Suite("Decimal numbers", .ownThread)
struct DecimalNumberTests {
    static func parse(_ text: String, keepingDigits: Int = 19, allowsExponent: Bool = true) -> DecimalNumber? {
        var copy = text
        return copy.withUTF8 { DecimalNumber(parsing: $0, keepingDigits: keepingDigits, allowsExponent: allowsExponent) }
    }

    /// Significant digits, where the point is and the `e` part, read from the text as characters.
    struct DigitReference {
        var isNegative: Bool
        /// Every significant digit: no leading zeros (all zeros → empty).
        var digits: [Character]
        /// The power of ten of the last written digit (including the `e` part).
        var lastDigitPower: Int

        init(_ text: String) {
            var body = Substring(text)
            isNegative = body.first == "-"
            if body.first == "-" || body.first == "+" { body = body.dropFirst() }
            var written = 0
            if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
                written = Int(body[body.index(after: e)...])!
                body = body[..<e]
            }
            let parts = body.split(separator: ".", omittingEmptySubsequences: false)
            let fraction = parts.count > 1 ? Array(parts[1]) : []
            digits = Array((parts[0] + fraction).drop { $0 == "0" })
            lastDigitPower = written - fraction.count
        }

        /// (significand, exponent, dropped) when at most `kept` digits are kept.
        func expected(keeping kept: Int) -> (UInt64, Int, Int) {
            guard !digits.isEmpty else { return (0, lastDigitPower, 0) }
            let dropped = max(0, digits.count - kept)
            let significand = UInt64(String(digits.prefix(kept)))!
            return (significand, lastDigitPower + dropped, dropped)
        }
    }

    /// A seeded random decimal: 1–25 significant digits, 0–25 decimals, optional sign, leading
    /// zeros, `.5` and `5.` forms, and an exponent part on about a third of them.
    static func randomDecimal(_ random: inout SplitMix64) -> String {
        let significantCount = Int.random(in: 1...25, using: &random)
        var digits = [Character(String(Int.random(in: 1...9, using: &random)))]
        for _ in 1..<significantCount { digits.append(Character(String(Int.random(in: 0...9, using: &random)))) }
        let decimals = Int.random(in: 0...25, using: &random)
        var text: String
        if decimals >= digits.count {
            let integer = Bool.random(using: &random) ? "0" : ""  // "0.05" or ".05"
            text = integer + "." + String(repeating: "0", count: decimals - digits.count) + String(digits)
        } else {
            let integer = String(digits.prefix(digits.count - decimals))
            let fraction = String(digits.suffix(decimals))
            text = integer + (decimals > 0 ? "." + fraction : (Bool.random(using: &random) ? "." : ""))
        }
        if Int.random(in: 0..<4, using: &random) == 0 {
            text = String(repeating: "0", count: Int.random(in: 1...3, using: &random)) + text
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            let sign = ["", "+", "-"][Int.random(in: 0..<3, using: &random)]
            let magnitude = Bool.random(using: &random)
                ? Int.random(in: 0...30, using: &random) : Int.random(in: 0...400, using: &random)
            text += (Bool.random(using: &random) ? "e" : "E") + sign + String(magnitude)
        }
        return ["", "+", "-"][Int.random(in: 0..<3, using: &random)] + text
    }

    @Test("20,000 seeded random decimals: value has the bits of Double(String), exact parts match the digits")
    func randomAgainstStandardLibrary() throws {
        var random = SplitMix64(seed: 0xDEC1_3A15)
        var fallbacks = 0
        for _ in 0..<20_000 {
            let text = Self.randomDecimal(&random)
            let reference = try #require(Double(text), "Double(String) rejects \(text)")
            let number = try #require(Self.parse(text), "rejected \(text)")
            #expect(number.value.bitPattern == reference.bitPattern, "\(text): \(number.value) != \(reference)")
            let digits = DigitReference(text)
            for kept in [19, 18, 15] {
                let keptNumber = try #require(Self.parse(text, keepingDigits: kept))
                let (significand, exponent, dropped) = digits.expected(keeping: kept)
                #expect(keptNumber.significand == significand, "\(text) keeping \(kept)")
                #expect(keptNumber.exponent == exponent, "\(text) keeping \(kept)")
                #expect(keptNumber.droppedDigitCount == dropped, "\(text) keeping \(kept)")
                #expect(keptNumber.isExact == (dropped == 0))
                #expect(keptNumber.isNegative == digits.isNegative)
                #expect(keptNumber.value.bitPattern == reference.bitPattern, "\(text) keeping \(kept)")
            }
            if number.droppedDigitCount > 0 || number.significand >= 1 << 53 || abs(number.exponent) > 22 { fallbacks += 1 }
        }
        // Both the exact fast path and the standard-library fallback were exercised.
        #expect(fallbacks > 2_000 && fallbacks < 18_000, "\(fallbacks) fallbacks")
    }

    @Test(
        "Edges of the exact path read as Double(String) does",
        arguments: [
            "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740991e22", "9007199254740991e23",
            "9007199254740991e-22", "9007199254740991e-23", "1e22", "1e23", "1e-22", "1e-23", "0.1", "0.3",
            "2.2250738585072014e-308", "4.9e-324", "2.4e-324", "1.7976931348623157e308", "1.7976931348623159e308",
            "1e400", "-1e400", "1e-400", "-1e-400", "-0", "+0", "0e999999999999999999999", "-0.000", "5.", ".5",
            "+1", "-.5", "1.e5", "00012.3400", "1E+5", "1e99999999999999999999", "1e-99999999999999999999",
            "123456789012345678901234567890e-40",
        ])
    func edges(_ text: String) throws {
        let reference = try #require(Double(text))
        let number = try #require(Self.parse(text))
        #expect(number.value.bitPattern == reference.bitPattern, "\(number.value) != \(reference)")
    }

    @Test(
        "Rejects what is not exactly one number",
        arguments: [
            "", "-", "+", ".", "-.", "+.", "1e", "1e+", "1e-", "1.2.3", "e5", ".e5", "--1", "+-1", "1-", " 1", "1 ",
            "1,5", "1_000", "0x1p3", "nan", "inf", "-infinity", "1e5.5", "1e5e5", "1ee5", "١", "1٫5", "１", "5\u{0}",
            "12é",
        ])
    func rejects(_ text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test("Without exponents, an e part is rejected and the rest reads the same")
    func noExponent() throws {
        #expect(Self.parse("1e5", allowsExponent: false) == nil)
        #expect(Self.parse("1E-5", allowsExponent: false) == nil)
        let plain = try #require(Self.parse("-4807.038", allowsExponent: false))
        #expect(plain == Self.parse("-4807.038"))
        #expect(plain.significand == 4_807_038 && plain.exponent == -3 && plain.isNegative)
    }

    @Test("Inputs that once crashed a copy of this parser: 30 decimals, a 25-digit integer")
    func pastCrashes() throws {
        for text in [
            "0.123456789012345678901234567890", "35.123456789012345678901234567890", "0.000000000000000000000000000001",
            "1234567890123456789012345", "-9999999999999999999999999", "1397600000000000000000",
        ] {
            let reference = try #require(Double(text))
            for kept in [1, 15, 18, 19] {
                let number = try #require(Self.parse(text, keepingDigits: kept), "\(text)")
                #expect(number.value.bitPattern == reference.bitPattern, "\(text) keeping \(kept)")
                let (significand, exponent, dropped) = DigitReference(text).expected(keeping: kept)
                #expect(number.significand == significand && number.exponent == exponent && number.droppedDigitCount == dropped)
            }
        }
        // Integer digits cut from the significand show as a positive exponent (NMEA's "too large").
        let wide = try #require(Self.parse("1234567890123456789012345", keepingDigits: 18))
        #expect(wide.significand == 123_456_789_012_345_678 && wide.exponent == 7 && wide.droppedDigitCount == 7)
        // Decimals are cut, not rounded: 18 digits of 1.99…9 stay 1.99…9.
        let long = try #require(Self.parse("1.9999999999999999999999999", keepingDigits: 18))
        #expect(long.significand == 199_999_999_999_999_999 && long.exponent == -17 && long.droppedDigitCount == 8)
        #expect(long.value == 2)
    }

    @Test("Reads only the bytes it is given, wherever they sit in a larger buffer")
    func slices() throws {
        let bytes = Array("lat=\"-33.8568\" lon=\"151.2153\"".utf8)
        let value = bytes.withUnsafeBufferPointer { DecimalNumber(parsing: UnsafeBufferPointer(rebasing: $0[5..<13]))?.value }
        #expect(value == -33.8568)
        let long = bytes.withUnsafeBufferPointer {
            DecimalNumber(parsing: UnsafeBufferPointer(rebasing: $0[5..<13]), keepingDigits: 2)?.value
        }
        #expect(long == -33.8568)  // the fallback reads the same slice, not the whole buffer
    }
}
