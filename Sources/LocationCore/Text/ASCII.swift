extension UInt8 {
    /// Space, tab, line feed or carriage return: whitespace as XML 1.0 (`S`), JSON (RFC 8259) and
    /// the text around a timestamp or number define it. The package's one whitespace test on bytes
    /// (the GPX scanner, decimal and time parsing, gpsd's JSON check).
    @inlinable package var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }

    /// Space or tab: the blanks an NMEA reader tolerates around a sentence and its fields (a
    /// line end there ends the sentence, so it is not a blank).
    @inlinable package var isASCIIBlank: Bool { self == 0x20 || self == 0x09 }

    /// The value of a hex digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: the package's one reader of
    /// hex digits (percent escapes, NMEA checksums, JSON's `\u` escapes); ``hexDigit(of:uppercase:)``
    /// and ``hexDigits(uppercase:)`` are its writers.
    @inlinable package var hexDigitValue: UInt8? {
        switch self {
        case 0x30...0x39: self - 0x30
        case 0x41...0x46: self - 0x41 + 10
        case 0x61...0x66: self - 0x61 + 10
        default: nil
        }
    }

    /// The hex digit of `nibble` (0...15): `0`–`9`, then `A`–`F` (`a`–`f` when not `uppercase`).
    @inlinable package static func hexDigit(of nibble: UInt8, uppercase: Bool = true) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : (uppercase ? 0x41 : 0x61) + nibble - 10
    }

    /// The byte as two hex digits (`0A`: an NMEA checksum, a byte in an error message, a token's
    /// name), with no allocation (a two-byte string lives inside the value).
    package func hexDigits(uppercase: Bool = true) -> String {
        String(unsafeUninitializedCapacity: 2) { out in
            out[0] = Self.hexDigit(of: self >> 4, uppercase: uppercase)
            out[1] = Self.hexDigit(of: self & 0xF, uppercase: uppercase)
            return 2
        }
    }
}
