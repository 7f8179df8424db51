import LocationCore

/// Why NMEA input was rejected or a value could not be written as NMEA.
///
/// Every error says where: the line number in the input, the 1-based field index inside the
/// sentence (0 is the address field such as `GPRMC`), the 1-based byte column of that field in
/// the line, and the sentence text itself. In lenient mode ``NMEAReader`` skips the sentence
/// instead and counts it per ``Code`` (see ``NMEAReader/Statistics``).
///
/// ```swift
/// do {
///     let sentence = try NMEASentence(parsing: "$GPRMC,123519,A,4807.038,N*00")
/// } catch NMEAError.Code.badChecksum {
///     // ...
/// }
/// ```
public struct NMEAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem. Extensible: new codes may be added in later versions.
    public struct Code: Sendable, Hashable, Comparable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The `*hh` checksum does not match the XOR of the sentence, or is not two hex digits.
        public static let badChecksum = Code("badChecksum")
        /// A complete line has no `*hh` checksum (and ``NMEAReader/Options/requiresChecksum`` is on).
        public static let missingChecksum = Code("missingChecksum")
        /// The sentence was cut short: the input ended inside it, a new `$` began before its
        /// checksum, or the checksum has fewer than two digits.
        public static let truncated = Code("truncated")
        /// A field holds text that is not valid for it (`4807.0x8`, hemisphere `Q`, month 13).
        public static let malformedField = Code("malformedField")
        /// A field the sentence cannot do without is empty (a latitude without its hemisphere,
        /// GGA's fix quality).
        public static let missingField = Code("missingField")
        /// The sentence has a number of fields no NMEA version gives that sentence type.
        public static let wrongFieldCount = Code("wrongFieldCount")
        /// A well-formed sentence of a type this module does not decode (GSV, GLL, ZDA,
        /// proprietary `$P…` sentences, AIS `!AIVDM`).
        public static let unsupportedSentence = Code("unsupportedSentence")
        /// Bytes outside any sentence: text before the `$` on a line (binary receiver output,
        /// line noise) or after the checksum.
        public static let unexpectedBytes = Code("unexpectedBytes")
        /// A line longer than ``NMEAReader/Options/maximumLineLength`` bytes.
        public static let lineTooLong = Code("lineTooLong")
        /// A position epoch arrived before any RMC sentence supplied the date and no
        /// ``NMEAReader/Options/initialDate`` was given, so no ``/LocationCore/Fix`` time can be formed.
        public static let missingDate = Code("missingDate")
        /// A value cannot be written as NMEA (non-finite, negative speed, a year outside
        /// 1980…2079, a time that rounds to 24:00:00).
        public static let invalidValue = Code("invalidValue")
        /// Reading the input file failed (open or read error).
        public static let io = Code("io")
        /// A whole file held no NMEA sentence: it is empty, or in another format (a GPX file
        /// named `.nmea`) (``NMEAFileReader/requireSentences()``), or compressed, an archive or
        /// UTF-16 text, found at its first bytes (``NMEAFileReader/next()``).
        public static let noSentences = Code("noSentences")

        /// Every code, in a stable order (useful for reports).
        public static let allCases: [Code] = [
            .badChecksum, .missingChecksum, .truncated, .malformedField, .missingField,
            .wrongFieldCount, .unsupportedSentence, .unexpectedBytes, .lineTooLong, .missingDate,
            .invalidValue, .io, .noSentences,
        ]

        /// The order of ``allCases``.
        public static func < (lhs: Code, rhs: Code) -> Bool {
            (allCases.firstIndex(of: lhs) ?? allCases.count) < (allCases.firstIndex(of: rhs) ?? allCases.count)
        }

        /// A short camel-case name such as `badChecksum`.
        public var description: String { name }
    }

    /// The kind of problem.
    public let code: Code
    /// What exactly is wrong, in words (for example `latitude minutes 61.5 ≥ 60`).
    public let message: String
    /// The input's name when the reader was given one (usually a file path), else `nil`.
    public let source: String?
    /// 1-based line number in the input, or `nil` when the error is not about a line
    /// (a single sentence parsed on its own reports line 1).
    public let line: Int?
    /// 1-based byte column in the line where the offending field (or byte) starts, if known.
    public let column: Int?
    /// 1-based index of the offending field after the address field (0 = the address field
    /// itself, for example `GPRMC`), if the error is about one field.
    public let field: Int?
    /// The sentence (or line) text, at most 200 characters, non-printable bytes shown as `\xHH`.
    public let sentence: String

    /// Creates an error. Library code fills every location it knows.
    init(
        _ code: Code, message: String, source: String? = nil, line: Int? = nil, column: Int? = nil,
        field: Int? = nil, sentence: String = ""
    ) {
        self.code = code
        // Quoted fields are the log's bytes (line noise on a serial port): control and format
        // characters are shown as `\xHH`, as in ``sentence``, never sent to the terminal.
        self.message = TextExcerpt.render(message, limit: .max)
        self.source = source
        self.line = line
        self.column = column
        self.field = field
        self.sentence = sentence
    }

    /// `file.nmea:12:18: malformedField (field 3): latitude minutes 61.5 ≥ 60 in "$GPGGA,…"`;
    /// for ``Code/io``, the message alone after the file: `file.nmea: cannot open: No such file
    /// or directory`.
    public var description: String {
        var out = ""
        if let source { out += source + ":" }
        if let line {
            out += "\(line):"
            if let column { out += "\(column):" }
        }
        if !out.isEmpty { out += " " }
        // A file that cannot be read says so in its message (`cannot open: …`); the code's
        // name would only repeat it.
        if code != .io {
            out += code.description
            if let field { out += " (field \(field))" }
            out += ": "
        }
        out += message
        if !sentence.isEmpty { out += " in \"\(sentence)\"" }
        return out
    }

    /// A copy with the input's location filled in (the reader adds what a sentence parser cannot know).
    func located(source: String?, line: Int, columnOffset: Int) -> NMEAError {
        NMEAError(
            code, message: message, source: source, line: line,
            column: column.map { $0 + columnOffset }, field: field, sentence: sentence)
    }

    /// Renders bytes for ``sentence`` (LocationCore's `TextExcerpt`): printable ASCII as is,
    /// anything else as `\xHH`, at most 200 characters.
    static func excerpt(_ bytes: some Collection<UInt8>) -> String {
        TextExcerpt.render(bytes, limit: 200)
    }
}

extension NMEAError.Code {
    /// Lets `catch NMEAError.Code.badChecksum` match a thrown ``NMEAError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? NMEAError)?.code == code
    }
}
