/// The JSON of a gpsd request argument: one flat object of strings, booleans and numbers
/// (gpsd's own parser takes no more). Small and strict, so a bad request gets an exact reason.
enum FlatJSON {
    enum Value: Equatable {
        case bool(Bool)
        case number(Double)
        case string(String)
    }

    struct ParseError: Error {
        let message: String
    }

    /// The members of `{ "key": value, ... }` in order.
    static func parseObject(_ text: Substring) throws(ParseError) -> [(String, Value)] {
        var scanner = Scanner(bytes: Array(text.utf8))
        scanner.skipBlanks()
        try scanner.expect(UInt8(ascii: "{"))
        var members: [(String, Value)] = []
        scanner.skipBlanks()
        if scanner.peek == UInt8(ascii: "}") {
            scanner.index += 1
        } else {
            while true {
                scanner.skipBlanks()
                let key = try scanner.string()
                scanner.skipBlanks()
                try scanner.expect(UInt8(ascii: ":"))
                scanner.skipBlanks()
                members.append((key, try scanner.value()))
                scanner.skipBlanks()
                if scanner.peek == UInt8(ascii: ",") {
                    scanner.index += 1
                    continue
                }
                try scanner.expect(UInt8(ascii: "}"))
                break
            }
        }
        scanner.skipBlanks()
        guard scanner.index == scanner.bytes.count else { throw ParseError(message: "text after the object at byte \(scanner.index + 1)") }
        return members
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipBlanks() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(ParseError) {
            guard peek == byte else {
                throw ParseError(message: "expected '\(Character(Unicode.Scalar(byte)))' at byte \(index + 1)")
            }
            index += 1
        }

        mutating func string() throws(ParseError) -> String {
            try expect(UInt8(ascii: "\""))
            var out: [UInt8] = []
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let next = peek, [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/")].contains(next) else {
                        throw ParseError(message: "unsupported escape at byte \(index)")
                    }
                    out.append(next)
                    index += 1
                case 0..<0x20:
                    throw ParseError(message: "control character in a string at byte \(index)")
                default:
                    out.append(byte)
                }
            }
            throw ParseError(message: "unterminated string")
        }

        mutating func value() throws(ParseError) -> Value {
            switch peek {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try word("true"); return .bool(true)
            case UInt8(ascii: "f"): try word("false"); return .bool(false)
            default:
                let start = index
                while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
                {
                    index += 1
                }
                guard index > start, let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                    throw ParseError(message: "expected a string, true, false or a number at byte \(start + 1)")
                }
                return .number(number)
            }
        }

        mutating func word(_ text: String) throws(ParseError) {
            let expected = Array(text.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw ParseError(message: "expected \(text) at byte \(index + 1)")
            }
            index += expected.count
        }
    }
}
