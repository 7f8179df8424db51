/// A JSON value (RFC 8259) read from text: the package's JSON reader for what has no fixed type
/// or must be read as it stands, for gpsd's reports (checked before libgps sees them), gpsd
/// clients' requests, GeoJSON place files, scenarios, the nearby server's fault scripts and the
/// game server's error bodies. Typed request bodies (the control API's) are `Decodable` and read
/// with Foundation's `JSONDecoder`, as the app's own client reads the nearby answer.
///
/// Strict: one value, whitespace around it, nothing else; containers nest at most
/// `maximumDepth` deep, so hostile text cannot exhaust the stack. Objects keep their members in
/// the text's order. A name repeated in one object is refused by default (RFC 8259 leaves its
/// meaning to each reader: a file's author who wrote `"speed"` twice cannot know which counts);
/// a protocol peer's text can allow it, and then the last one counts, as in gpsd's own reader
/// and JavaScript's `JSON.parse`.
///
/// Package access: its readers are LocationGPSD, LocationFeed, Places, MapFeature (error bodies) and
/// NearbyServer (fault scripts).
package enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(name: String, value: JSONValue)])

    /// Why text is not one JSON value, and where.
    package struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// The byte reading stopped at (1 for the first), or nil when the text ended early.
        package let byte: Int?
        /// Its line and column (bytes, 1 for the first), as an editor shows them; where the text
        /// ended early, the place just after its last byte (where the missing part would go).
        package let line: Int
        package let column: Int
        package let reason: String
        /// The name repeated in one object, when that is the error: valid JSON's grammar, refused
        /// as ambiguous.
        package var repeatedName: String?

        package var description: String {
            guard byte != nil else { return "not valid JSON: the text ends early at line \(line), column \(column) (\(reason))" }
            return "\(repeatedName == nil ? "not valid" : "ambiguous") JSON at line \(line), column \(column): \(reason)"
        }
    }

    /// Reads `text` as one JSON value.
    ///
    /// - Parameters:
    ///   - maximumDepth: How deep arrays and objects may nest (1: no container inside the
    ///     outermost one).
    ///   - allowsRepeatedNames: Whether a name may appear twice in one object (the last counts).
    ///     Default false: the second is an error.
    /// - Throws: ``SyntaxError`` at the first byte that breaks the grammar, or at a repeated name.
    package init(parsing text: some Collection<UInt8>, maximumDepth: Int = 64, allowsRepeatedNames: Bool = false) throws(SyntaxError) {
        var reader = Reader(bytes: Array(text), maximumDepth: maximumDepth, allowsRepeatedNames: allowsRepeatedNames)
        // A UTF-8 byte-order mark, which Windows editors write, is no part of the value (RFC 8259 §8.1).
        if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        // UTF-16 (a Windows editor's "Unicode"), as the text readers tell it (FileSignature):
        // said as such, not as "expected a value" at column 1.
        if let utf16 = FileSignature.utf16(reader.bytes) {
            throw reader.failure("the text is \(utf16.name) (\(utf16.how)), not UTF-8; save it as UTF-8")
        }
        reader.skipSpace()
        self = try reader.value(depth: 1)
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.failure("text after the value") }
    }

    /// The value of the member named `name`, when this is an object with one (the last, when
    /// the text was read allowing a repeated name).
    package subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.name == name }?.value
    }

    /// The string, when this is one.
    package var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The number, when this is one.
    package var number: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    /// The value as an error message quotes it: `null`, `true`, `800`, `1.5`, `"fast"` (a string
    /// cut to 64 characters), `an array`, `an object`, and a number too large for a `Double`
    /// (`1e400`) as such rather than as the `null` JSON would write.
    package var text: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .number(let value) where !value.isFinite:
            return "a number too large for a Double"  // 1e400: JSON would write it as null
        case .number(let value):
            var json = JSONWriter(capacity: 32)
            json.number(value, decimals: nil)
            return json.text
        case .string(let value): return "\"\(TextExcerpt.render(value, limit: 64))\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        let maximumDepth: Int
        let allowsRepeatedNames: Bool
        var index = 0

        init(bytes: [UInt8], maximumDepth: Int, allowsRepeatedNames: Bool) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            self.allowsRepeatedNames = allowsRepeatedNames
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func failure(_ reason: String) -> SyntaxError {
            let at = min(index, bytes.count)
            let before = bytes[..<at]
            let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            return SyntaxError(
                byte: at < bytes.count ? at + 1 : nil, line: before.count { $0 == 0x0A } + 1, column: at - lineStart + 1,
                reason: reason)
        }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard let byte = current else { throw failure("expected a value") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth)") }
                return try container(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: throw failure("expected a value")
            }
        }

        mutating func container(depth: Int) throws(SyntaxError) -> JSONValue {
            let isObject = bytes[index] == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            var members: [(name: String, value: JSONValue)] = []
            var elements: [JSONValue] = []
            // The names so far with where each began, once the object is large enough that a
            // scan of its members for each new one would cost more than the set.
            var names: [String: Int]?
            var nameStarts: [Int] = []
            skipSpace()
            if !take(close) {
                while true {
                    if isObject {
                        guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                        let nameStart = index
                        let name = try string()
                        if !allowsRepeatedNames {
                            try refuseRepeat(of: name, at: nameStart, members: members, names: &names, starts: &nameStarts)
                        }
                        skipSpace()
                        guard take(UInt8(ascii: ":")) else { throw failure("expected ':'") }
                        skipSpace()
                        members.append((name, try value(depth: depth + 1)))
                    } else {
                        elements.append(try value(depth: depth + 1))
                    }
                    skipSpace()
                    if take(UInt8(ascii: ",")) {
                        skipSpace()
                        continue
                    }
                    guard take(close) else { throw failure(isObject ? "expected ',' or '}'" : "expected ',' or ']'") }
                    break
                }
            }
            return isObject ? .object(members) : .array(elements)
        }

        /// Throws when `name` (starting at byte `start`) is already one of `members`' names.
        func refuseRepeat(
            of name: String, at start: Int, members: [(name: String, value: JSONValue)], names: inout [String: Int]?,
            starts: inout [Int]
        ) throws(SyntaxError) {
            if names == nil, members.count >= 16 {
                names = Dictionary(zip(members.map(\.name), starts), uniquingKeysWith: { first, _ in first })
            }
            let earlier: Int?
            if names != nil {
                earlier = names![name]
                names![name] = earlier ?? start  // mutated in place, not copied
            } else {
                earlier = members.firstIndex { $0.name == name }.map { starts[$0] }
            }
            guard let earlier else {
                starts.append(start)
                return
            }
            var first = self
            first.index = earlier
            let firstAt = first.failure("")
            var at = self
            at.index = start
            var error = at.failure(
                "the name \"\(TextExcerpt.render(name, limit: 64))\" appears twice in one object (first at line \(firstAt.line), column \(firstAt.column))")
            error.repeatedName = name
            throw error
        }

        /// A string from its opening quote; text without escapes is taken whole.
        mutating func string() throws(SyntaxError) -> String {
            index += 1
            let start = index
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { index += 1 }
            if current == UInt8(ascii: "\"") {
                index += 1
                return try checkedText(bytes[start..<(index - 1)], from: start)
            }
            var text = Array(bytes[start..<index])
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return try checkedText(text[...], from: start)
                case UInt8(ascii: "\\"):
                    try escape(into: &text)
                case 0..<0x20:
                    index -= 1
                    throw failure("control character in a string")
                default:
                    text.append(byte)
                }
            }
            throw failure("unterminated string")
        }

        /// A string's bytes as text; bytes that are not UTF-8 are refused (RFC 8259 §8.1), not
        /// read as U+FFFD, naming the string that holds them.
        func checkedText(_ text: ArraySlice<UInt8>, from start: Int) throws(SyntaxError) -> String {
            let valid = text.withUnsafeBytes { $0.isValidUTF8 }
            guard valid else {
                var at = self
                at.index = start - 1  // its opening quote
                throw at.failure("the string here is not UTF-8")
            }
            return String(decoding: text, as: UTF8.self)
        }

        /// The escape after a backslash, appended as UTF-8.
        mutating func escape(into text: inout [UInt8]) throws(SyntaxError) {
            guard let letter = current else { throw failure("unterminated escape") }
            index += 1
            switch letter {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(letter)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = index - 2
                var scalar = try hex4()
                // A surrogate pair is one scalar; half of one is no character, and is refused
                // (as Foundation's reader does) rather than read as U+FFFD.
                if (0xD800..<0xDC00).contains(scalar), bytes[index...].starts(with: "\\u".utf8) {
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) { scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00) }
                }
                guard let character = Unicode.Scalar(scalar) else {
                    index = escapeStart
                    throw failure("half of a UTF-16 surrogate pair, which is no character")
                }
                text.append(contentsOf: String(Character(character)).utf8)
            default:
                index -= 1
                throw failure("unknown escape")
            }
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = current?.hexDigitValue else { throw failure("expected four hex digits") }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func number() throws(SyntaxError) -> Double {
            let start = index
            _ = take(UInt8(ascii: "-"))
            if !take(UInt8(ascii: "0")) {
                guard digits() else { throw failure("expected a digit") }
            }
            if take(UInt8(ascii: ".")) {
                guard digits() else { throw failure("expected a digit after '.'") }
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard digits() else { throw failure("expected an exponent") }
            }
            // The grammar above is a subset of DecimalNumber's: it reads every such number.
            let read = bytes.withUnsafeBufferPointer { DecimalNumber(parsing: UnsafeBufferPointer(rebasing: $0[start..<index])) }
            guard let read else { throw failure("not a number") }
            return read.value
        }

        /// One or more decimal digits; false when there is none.
        mutating func digits() -> Bool {
            let start = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index > start
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            // `not json` is no misspelt null: the value is what is missing, as for any other word.
            guard bytes[index...].starts(with: word.utf8) else { throw failure("expected a value") }
            index += word.utf8.count
        }
    }
}
