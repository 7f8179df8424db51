import LocationCore

/// A byte-level RFC 4180 CSV reader: comma-separated, `"`-quoted fields that may hold commas,
/// newlines and doubled quotes; `\n` or `\r\n` line ends; a UTF-8 byte-order mark is skipped,
/// and a file that starts with a UTF-16 one (a spreadsheet's "Unicode" export) is read as the
/// text it holds; blank lines are skipped. Works on the bytes in place and makes a `String` only
/// when asked.
/// The package's one CSV reader: place imports and `locsim index query --queries`.
package struct CSVReader {
    package struct Field {
        package var start: Int
        package var end: Int
        /// Quoted with `""` escapes inside, so the bytes need unescaping.
        package var hasEscapedQuotes: Bool
    }

    package let bytes: [UInt8]
    package let path: String
    private var position: Int
    private var nextLine = 1
    /// The 1-based line on which the last record returned by ``next(into:)`` starts.
    package private(set) var line = 0

    /// - Throws: ``IndexError/Code/malformedRow`` for a file that starts with a UTF-16
    ///   byte-order mark but is not UTF-16 (a lone surrogate, an odd last byte), with its line.
    package init(bytes: [UInt8], path: String) throws(IndexError) {
        self.bytes = try Self.utf8(bytes, path: path)
        self.path = path
        position = self.bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// `bytes` as UTF-8: as they are, unless they start with a UTF-16 byte-order mark (`FF FE`
    /// little-endian, `FE FF` big-endian), then their text transcoded. Text that is not UTF-16 is
    /// an error, as bad UTF-8 is: never replaced in silence.
    static func utf8(_ bytes: [UInt8], path: String) throws(IndexError) -> [UInt8] {
        let littleEndian: Bool
        if bytes.starts(with: [0xFF, 0xFE]) {
            littleEndian = true
        } else if bytes.starts(with: [0xFE, 0xFF]) {
            littleEndian = false
        } else {
            return bytes
        }
        var units = stride(from: 2, to: bytes.count - 1, by: 2).lazy.map { index in
            littleEndian
                ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
                : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
        }.makeIterator()
        var decoder = UTF16()
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count)
        var line = 1
        while true {
            switch decoder.decode(&units) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
                UTF8.encode(scalar) { text.append($0) }
            case .emptyInput:
                guard bytes.count % 2 == 0 else {
                    throw IndexError(.malformedRow, "the file ends half-way through a UTF-16 character (an odd number of bytes)", path: path, line: line)
                }
                return text
            case .error:
                throw IndexError(.malformedRow, "not UTF-16 text here (a lone surrogate), though the file starts with a UTF-16 byte-order mark", path: path, line: line)
            }
        }
    }

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// Reads the next record's fields into `fields`; false at the end of the input.
    /// - Throws: ``IndexError/Code/malformedRow`` for an unterminated quoted field.
    package mutating func next(into fields: inout [Field]) throws(IndexError) -> Bool {
        fields.removeAll(keepingCapacity: true)
        let count = bytes.count
        // Skip blank lines.
        while position < count && (bytes[position] == Self.newline || bytes[position] == Self.carriageReturn) {
            if bytes[position] == Self.newline { nextLine += 1 }
            position += 1
        }
        guard position < count else { return false }
        line = nextLine
        while true {
            if position < count && bytes[position] == Self.quote {
                position += 1
                let start = position
                var escaped = false
                while true {
                    guard position < count else {
                        throw IndexError(
                            .malformedRow, "a quoted field is not closed; add the closing \"", path: path, line: line)
                    }
                    let byte = bytes[position]
                    if byte == Self.quote {
                        if position + 1 < count && bytes[position + 1] == Self.quote {
                            escaped = true
                            position += 2
                            continue
                        }
                        break
                    }
                    if byte == Self.newline { nextLine += 1 }
                    position += 1
                }
                fields.append(Field(start: start, end: position, hasEscapedQuotes: escaped))
                position += 1  // closing quote
                // Anything between the closing quote and the separator is an error.
                if position < count && bytes[position] != Self.comma && bytes[position] != Self.newline
                    && bytes[position] != Self.carriageReturn
                {
                    throw IndexError(
                        .malformedRow, "unexpected text after a closing quote in field \(fields.count)", path: path,
                        line: line)
                }
            } else {
                let start = position
                while position < count {
                    let byte = bytes[position]
                    if byte == Self.comma || byte == Self.newline || byte == Self.carriageReturn { break }
                    position += 1
                }
                fields.append(Field(start: start, end: position, hasEscapedQuotes: false))
            }
            if position < count && bytes[position] == Self.comma {
                position += 1
                continue
            }
            // End of record.
            if position < count && bytes[position] == Self.carriageReturn { position += 1 }
            if position < count && bytes[position] == Self.newline {
                position += 1
                nextLine += 1
            }
            return true
        }
    }

    /// The field's text, unescaped.
    package func string(_ field: Field) -> String {
        if field.hasEscapedQuotes {
            var unescaped: [UInt8] = []
            unescaped.reserveCapacity(field.end - field.start)
            var index = field.start
            while index < field.end {
                unescaped.append(bytes[index])
                index += bytes[index] == Self.quote ? 2 : 1
            }
            return String(decoding: unescaped, as: UTF8.self)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[field.start..<field.end]), as: UTF8.self)
        }
    }

    /// Whether the field's bytes are valid UTF-8 (so `string` loses nothing).
    func isValidUTF8(_ field: Field) -> Bool {
        bytes.withUnsafeBytes { buffer in UnsafeRawBufferPointer(rebasing: buffer[field.start..<field.end]).isValidUTF8 }
    }

    /// The field as a decimal number (surrounding spaces allowed), or nil if it is not one.
    ///
    /// ``DecimalNumber`` reads `[+-]digits[.digits][(e|E)[+-]digits]`, correctly rounded. Nothing
    /// else is a number here: `nan`, `inf` and hexadecimal floats, which `Double(String)` would
    /// take, get the row's "is not a number" error.
    package func double(_ field: Field) -> Double? {
        var start = field.start, end = field.end
        while start < end && bytes[start] == UInt8(ascii: " ") { start += 1 }
        while end > start && bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return bytes.withUnsafeBufferPointer { buffer in
            let text = UnsafeBufferPointer(rebasing: buffer[start..<end])
            return DecimalNumber(parsing: text)?.value
        }
    }

    /// The field as a whole number in Int32 range (surrounding spaces allowed), or nil.
    func int32(_ field: Field) -> Int32? {
        let text = string(field)
        return Int32(text.trimmingSpaces)
    }

    /// The row just read as a header: each name lower-cased, without surrounding spaces.
    ///
    /// - Throws: ``IndexError/Code/badHeader`` when a name appears twice (`id,name,lat,lon,name`):
    ///   which of the two holds the value would be a guess, and a wrong guess imports in silence.
    package func header(_ fields: [Field]) throws(IndexError) -> [String] {
        let names = fields.map { string($0).trimmingSpaces.lowercased() }
        var seen: [String: Int] = [:]
        for (index, name) in names.enumerated() where !name.isEmpty {
            if let first = seen[name] {
                throw IndexError(
                    .badHeader, "the header names the column '\(name)' twice (columns \(first + 1) and \(index + 1)); name each once",
                    path: path, line: line, column: name)
            }
            seen[name] = index
        }
        return names
    }

    /// Whether the field is empty or only spaces.
    package func isBlank(_ field: Field) -> Bool {
        bytes[field.start..<field.end].allSatisfy { $0 == UInt8(ascii: " ") }
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces.
    var trimmingSpaces: Substring {
        var sub = Substring(self)
        while sub.first == " " { sub.removeFirst() }
        while sub.last == " " { sub.removeLast() }
        return sub
    }
}
