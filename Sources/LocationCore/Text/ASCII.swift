extension UInt8 {
    /// Space, tab, line feed or carriage return: whitespace as XML 1.0 (`S`), JSON (RFC 8259) and
    /// the text around a timestamp or number define it. The package's one whitespace test on bytes
    /// (the GPX scanner, decimal and time parsing, gpsd's JSON check).
    @inlinable package var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }

    /// Space or tab: the blanks an NMEA reader tolerates around a sentence and its fields (a
    /// line end there ends the sentence, so it is not a blank).
    @inlinable package var isASCIIBlank: Bool { self == 0x20 || self == 0x09 }
}
