/// A base-10 number read from ASCII bytes: `[+-]digits[.digits][(e|E)[+-]digits]`.
///
/// The one decimal reader behind GPX coordinates and elevations, CSV coordinates and NMEA fields.
/// It gives two things at once:
///
/// - ``value``, the correctly rounded `Double` (the same bits `Double(String)` gives). The
///   common case, up to 15 or 16 significant digits and a power of ten within 10^±22, is one
///   exact integer multiplied or divided by one exact power of ten, so it allocates nothing;
///   anything else is handed to the standard library's parser.
/// - the exact decimal: ``significand`` (the first significant digits, at most 19) times
///   10^``exponent``, with ``droppedDigitCount`` saying how many digits after those were cut
///   (truncated, not rounded). NMEA reads its fixed-point degrees and minutes from these.
///
/// At least one digit is required, before or after the point: `.5`, `5.` and `+1` are numbers;
/// `""`, `-`, `.`, `e5`, `1e`, `1.2.3`, `--1` and anything with other bytes (spaces, `nan`,
/// `inf`, hex, non-ASCII digits) are not. Callers trim their own whitespace first and turn `nil`
/// into their own error, which knows the row, field or file position.
///
/// ```swift
/// let number = text.withUTF8 { DecimalNumber(parsing: $0) }
/// // "-12.50" → isNegative, significand 1250, exponent -2, value -12.5
/// ```
package struct DecimalNumber: Sendable, Hashable {
    /// The most significant digits ``significand`` can hold (every 19-digit integer fits in `UInt64`).
    package static let maximumSignificandDigits = 19

    /// Whether the text starts with `-` (also for zero, whose ``value`` is then `-0.0`).
    package let isNegative: Bool
    /// The kept significant digits as an integer: leading zeros do not count, zeros after the
    /// first non-zero digit do (`0.0250` → 250). Zero when every digit is a zero.
    package let significand: UInt64
    /// The power of ten of the significand's last digit, including the `e` part: the number is
    /// ``significand`` × 10^`exponent` when nothing was dropped. Without an `e` part it is minus
    /// the count of kept decimals (`0.0250` → -4, `12` → 0), and above zero only when integer
    /// digits were dropped. An `e` part beyond ±10¹² in magnitude saturates there.
    package let exponent: Int
    /// How many significant digits after the kept ones were cut (zeros included); 0 when the
    /// text had no more significant digits than were kept.
    package let droppedDigitCount: Int
    /// The correctly rounded nearest `Double`, from all the digits (dropped ones included):
    /// ±infinity beyond the `Double` range, ±0 below it. Never NaN.
    package let value: Double

    /// Whether ``significand`` × 10^``exponent`` is exactly the written number.
    package var isExact: Bool { droppedDigitCount == 0 }

    /// Reads a whole buffer as one decimal number.
    ///
    /// - Parameters:
    ///   - bytes: the number's ASCII bytes and nothing else: no surrounding whitespace.
    ///   - maximumDigits: how many significant digits to keep in ``significand``, 1 through
    ///     ``maximumSignificandDigits`` (the default); digits after those are counted in
    ///     ``droppedDigitCount``. It does not affect ``value``, which always uses every digit.
    ///   - allowsExponent: whether an `e`/`E` exponent part is accepted (`true`, the default;
    ///     NMEA fields have none).
    /// - Returns: `nil` when the bytes are not exactly one number in that syntax.
    package init?(
        parsing bytes: UnsafeBufferPointer<UInt8>, keepingDigits maximumDigits: Int = maximumSignificandDigits,
        allowsExponent: Bool = true
    ) {
        precondition(
            (1...Self.maximumSignificandDigits).contains(maximumDigits),
            "a significand keeps 1...\(Self.maximumSignificandDigits) digits")
        var i = bytes.startIndex
        let end = bytes.endIndex
        guard i < end else { return nil }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative || bytes[i] == UInt8(ascii: "+") { i += 1 }
        var significand: UInt64 = 0
        var kept = 0
        var dropped = 0
        var exponent = 0
        // Wrapping arithmetic cannot wrap here: at most 19 digits go into the significand, and the
        // counts are bounded by the buffer's length.
        // Integer digits. Leading zeros carry nothing; a digit past the kept ones raises the exponent.
        let integerStart = i
        while i < end {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if significand != 0 || digit != 0 {
                if kept < maximumDigits {
                    significand = significand &* 10 &+ UInt64(digit)
                    kept &+= 1
                } else {
                    dropped &+= 1
                    exponent &+= 1
                }
            }
            i += 1
        }
        var digitCount = i - integerStart
        // Decimals. Leading zeros lower the exponent like kept digits do; cut digits leave it.
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < end {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if kept < maximumDigits {
                    exponent &-= 1
                    if significand != 0 || digit != 0 {
                        significand = significand &* 10 &+ UInt64(digit)
                        kept &+= 1
                    }
                } else {
                    dropped &+= 1
                }
                i += 1
            }
            digitCount += i - fractionStart
        }
        guard digitCount > 0 else { return nil }
        if i < end {
            guard allowsExponent, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return nil }
            i += 1
            var exponentNegative = false
            if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            var sawExponentDigit = false
            while i < end {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                // Saturates far outside Double's range (and far inside Int's).
                written = min(written * 10 + Int(digit), 1_000_000_000_000)
                sawExponentDigit = true
                i += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentNegative ? -written : written
        }

        let value: Double
        if significand == 0 {
            value = negative ? -0.0 : 0
        } else if dropped == 0, significand < 1 << 53, exponent >= -22, exponent <= 22 {
            // Both operands are exact, so the one rounding of × or ÷ is the correct rounding.
            let exact = Double(significand)
            let magnitude = exponent < 0 ? exact / exactPowersOfTen[-exponent] : exact * exactPowersOfTen[exponent]
            value = negative ? -magnitude : magnitude
        } else {
            // The syntax checked above is a subset of what Double(String) reads.
            guard let parsed = Double(String(decoding: bytes, as: UTF8.self)) else { return nil }
            value = parsed
        }
        self.isNegative = negative
        self.significand = significand
        self.exponent = exponent
        self.droppedDigitCount = dropped
        self.value = value
    }
}

/// 10⁰ … 10²²: every one is exactly representable in a `Double`. Written as literals so the
/// table is laid out at compile time (no lazy initialisation on each access).
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
]

extension Coordinate {
    /// Why a `LAT,LON` text is not a coordinate (shown after the flag or key it was given for).
    package enum TextProblem: Error, Equatable, CustomStringConvertible {
        /// Not two parts around one comma.
        case shape
        /// A part that is not a decimal number, as written.
        case notANumber(CoordinateError.Component, String)
        /// Two numbers that are no coordinate (out of range).
        case invalid(CoordinateError)

        package var description: String {
            switch self {
            case .shape: "must be LAT,LON in decimal degrees, such as 35.6812,139.7671"
            case .notANumber(let component, let text): "the \(component.rawValue) '\(text)' is not a number (LAT,LON in decimal degrees)"
            case .invalid(let error): "the \(error)"
            }
        }
    }

    /// The coordinate `LAT,LON` in decimal degrees says (spaces around either number are
    /// ignored), as `--from 37.76,-122.42` and a scenario's route legs take it, or why it says none.
    package static func parse(latitudeLongitude text: some StringProtocol) -> Result<Coordinate, TextProblem> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .failure(.shape) }
        func number(_ part: some StringProtocol) -> Double? {
            var digits = String(part.filter { $0 != " " })
            return digits.withUTF8 { DecimalNumber(parsing: $0)?.value }
        }
        guard let latitude = number(parts[0]) else { return .failure(.notANumber(.latitude, String(parts[0]))) }
        guard let longitude = number(parts[1]) else { return .failure(.notANumber(.longitude, String(parts[1]))) }
        do throws(CoordinateError) {
            return .success(try Coordinate(latitude: latitude, longitude: longitude))
        } catch {
            return .failure(.invalid(error))
        }
    }
}
