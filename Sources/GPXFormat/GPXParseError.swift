internal import LocationCore

/// A problem reading GPX, with where it happened.
///
/// `description` reads like a compiler diagnostic: `walk.gpx:12:5: error: lat "abc" is not a number`.
public struct GPXParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem. Extensible: match with `catch GPXParseError.Code.invalidTime`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The file could not be opened or read.
        public static let io = Code("io")
        /// The text is not well-formed XML (mismatched tags, bad syntax, unknown entity).
        public static let malformedXML = Code("malformedXML")
        /// The input ended inside an element or a markup construct.
        public static let truncated = Code("truncated")
        /// The root element is not `<gpx>`.
        public static let notGPX = Code("notGPX")
        /// A KML file (``KMLLines``) whose root is not `<kml>`, or that has no line in it.
        package static let notKML = Code("notKML")
        /// A point lacks its `lat` or `lon` attribute.
        public static let missingCoordinate = Code("missingCoordinate")
        /// A `lat`/`lon` that is not a number, not finite, or out of range.
        public static let invalidCoordinate = Code("invalidCoordinate")
        /// A `<time>` that is not an ISO-8601 timestamp.
        public static let invalidTime = Code("invalidTime")
        /// A numeric element (`ele`, `speed`, `hdop`, `sat`, …) that is not a number, or a
        /// `<fix>` that is not one of GPX's values.
        public static let invalidNumber = Code("invalidNumber")
        /// An encoding the reader does not decode (see ``GPXTextEncoding``), named in the message.
        public static let unsupportedEncoding = Code("unsupportedEncoding")
        /// Input beyond the reader's bounds: one text or tag longer than
        /// ``GPXReader/Options/maximumTokenLength``, or elements nested deeper than
        /// ``GPXReader/Options/maximumDepth``.
        public static let limitExceeded = Code("limitExceeded")

        /// Whether the problem concerns one point only, so lenient reading can go on: a bad
        /// coordinate skips the point, a bad optional value is dropped alone.
        public var isPointLevel: Bool {
            [.missingCoordinate, .invalidCoordinate, .invalidTime, .invalidNumber].contains(self)
        }

        public var description: String { name }

        /// Lets `catch GPXParseError.Code.invalidTime` match.
        public static func ~= (code: Self, error: any Error) -> Bool {
            (error as? GPXParseError)?.code == code
        }
    }

    public let code: Code
    /// The file path, or `nil` for in-memory input.
    public let file: String?
    /// 1-based line, or 0 when the problem is not tied to a position (I/O).
    public let line: Int
    /// 1-based column in characters.
    public let column: Int
    /// What is wrong, in words.
    public let message: String
    /// A ``Code/truncated`` input that ended after `<gpx>` began: a lenient reader returns what
    /// came before the cut (``GPXReader/truncation``). `false` for input that ends before any GPX.
    package internal(set) var endedAfterRootBegan = false

    init(_ code: Code, file: String?, line: Int, column: Int, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        // Quoted values are the file's bytes: control and format characters (an ESC that would
        // drive the terminal, a right-to-left override) are shown as `\xHH`, as NMEA's are.
        self.message = TextExcerpt.render(message, limit: .max)
    }

    public var description: String {
        let place = file ?? "<input>"
        if line == 0 { return "\(place): error: \(message)" }
        return "\(place):\(line):\(column): error: \(message)"
    }
}
