extension UInt8 {
    /// Space, tab, line feed or carriage return: whitespace as XML 1.0 (`S`), JSON (RFC 8259) and
    /// the text around a timestamp or number define it. The package's one whitespace test on bytes
    /// (the GPX scanner, decimal and time parsing, gpsd's JSON check).
    @inlinable package var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }

    /// Space or tab: the blanks an NMEA reader tolerates around a sentence and its fields (a
    /// line end there ends the sentence, so it is not a blank).
    @inlinable package var isASCIIBlank: Bool { self == 0x20 || self == 0x09 }

    /// The value of a hex digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: the package's one reader of
    /// hex digits (percent escapes, NMEA checksums, JSON's `\u` escapes).
    @inlinable package var hexDigitValue: UInt8? {
        switch self {
        case 0x30...0x39: self - 0x30
        case 0x41...0x46: self - 0x41 + 10
        case 0x61...0x66: self - 0x61 + 10
        default: nil
        }
    }
}
