import LocationCore
/// A strict check of JSON syntax (RFC 8259) for one gpsd report, made before libgps sees it.
///
/// libgps's `gps_unpack` decodes what it can of damaged text without saying so, and in gpsd 3.22
/// loops forever on some of it (a stray byte after a string inside `DEVICES`'s array, found by
/// fuzzing). This check reads each byte once, builds nothing, and stops at a nesting depth that
/// gpsd never needs.
enum JSONSyntax {
    /// Deeper than any gpsd report (SKY's satellites are at depth 2).
    static let maximumDepth = 32

    /// What the check found in one report.
    struct Report {
        /// Why the text is not exactly one JSON object (surrounding whitespace aside), or nil.
        var problem: String?
        /// The value of the top-level object's `"class"` member, when it is a string.
        var topLevelClass: String?
        /// Whether `"class"` is the top-level object's first member, as gpsd writes it. libgps
        /// picks the class by the first `"class":` in the text, and gpsd 3.22's `gps_unpack`
        /// hangs on some members placed before it (a long name or value, an array).
        var classComesFirst = false
        /// The longest member name, in bytes (libgps keeps 30: JSON_ATTR_MAX).
        var longestName = 0
        /// How many top-level members are named `"class"` (gpsd writes one; gps_unpack hangs on
        /// a second one naming another class).
        var classMembers = 0
        /// How deep containers nest: 1 for a flat object, 2 when a member is an array or object.
        var depth = 0
        /// The text without whitespace outside strings (as gpsd writes it), for libgps; empty
        /// when there is a problem.
        var compact: [UInt8] = []
    }

    static func check(_ text: String) -> Report {
        var scanner = Scanner(bytes: Array(text.utf8))
        var report = Report()
        report.problem = scanner.checkObjectDocument()
        report.topLevelClass = scanner.topLevelClass
        report.classComesFirst = scanner.classIsFirstMember
        report.longestName = scanner.longestName
        report.classMembers = scanner.classMembers
        report.depth = scanner.deepest
        if report.problem == nil { report.compact = compacted(scanner.bytes) }
        return report
    }

    /// Why `text` is not exactly one JSON object (surrounding whitespace aside), or nil when it is.
    static func problem(inObject text: String) -> String? {
        check(text).problem
    }

    /// `bytes` (valid JSON) without the whitespace outside strings.
    private static func compacted(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var strings = JSONStringState()
        for byte in bytes where strings.consume(byte) || !byte.isASCIIWhitespace {
            out.append(byte)
        }
        return out
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// The top-level object's `"class"` string value, once read.
        var topLevelClass: String?
        /// The top-level object's first member is `"class"`.
        var classIsFirstMember = false
        /// Whether the top-level object's first member name was read.
        var readFirstMember = false
        /// The longest member name seen, in bytes.
        var longestName = 0
        /// Top-level members named `"class"`.
        var classMembers = 0
        /// The deepest container seen.
        var deepest = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func checkObjectDocument() -> String? {
            skipSpace()
            guard current == UInt8(ascii: "{") else { return fail("expected '{'") }
            if let problem = value(depth: 1) { return problem }
            skipSpace()
            return index == bytes.count ? nil : fail("text after the object")
        }

        func fail(_ what: String) -> String {
            index < bytes.count
                ? "not valid JSON at byte \(index + 1): \(what)" : "not valid JSON: the text ends early (\(what))"
        }

        mutating func skipSpace() {
            while let byte = current, byte.isASCIIWhitespace { index += 1 }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int) -> String? {
            guard let byte = current else { return fail("expected a value") }
            switch byte {
            case UInt8(ascii: "{"):
                return container(depth: depth, close: UInt8(ascii: "}"), isObject: true)
            case UInt8(ascii: "["):
                return container(depth: depth, close: UInt8(ascii: "]"), isObject: false)
            case UInt8(ascii: "\""):
                return string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return fail("expected a value")
            }
        }

        mutating func container(depth: Int, close: UInt8, isObject: Bool) -> String? {
            guard depth <= JSONSyntax.maximumDepth else {
                return fail("nested deeper than \(JSONSyntax.maximumDepth)")
            }
            deepest = max(deepest, depth)
            index += 1
            skipSpace()
            if expect(close) { return nil }
            while true {
                var isClass = false
                if isObject {
                    guard current == UInt8(ascii: "\"") else { return fail("expected a member name") }
                    let nameStart = index + 1
                    if let problem = string() { return problem }
                    isClass = bytes[nameStart..<(index - 1)].elementsEqual("class".utf8)
                    longestName = max(longestName, index - 1 - nameStart)
                    if isClass, depth == 1 { classMembers += 1 }
                    if depth == 1, !readFirstMember {
                        readFirstMember = true
                        classIsFirstMember = isClass
                    }
                    skipSpace()
                    guard expect(UInt8(ascii: ":")) else { return fail("expected ':'") }
                    skipSpace()
                }
                let valueStart = index
                if let problem = value(depth: depth + 1) { return problem }
                if isClass, depth == 1, topLevelClass == nil, bytes[valueStart] == UInt8(ascii: "\"") {
                    topLevelClass = String(decoding: bytes[(valueStart + 1)..<(index - 1)], as: UTF8.self)
                }
                skipSpace()
                if expect(UInt8(ascii: ",")) {
                    skipSpace()
                    continue
                }
                return expect(close) ? nil : fail(isObject ? "expected ',' or '}'" : "expected ',' or ']'")
            }
        }

        mutating func string() -> String? {
            index += 1
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return nil
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return fail("unterminated escape") }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let hex = current, hex.isHexDigit else { return fail("expected four hex digits") }
                            index += 1
                        }
                    default:
                        index -= 1
                        return fail("unknown escape")
                    }
                case 0..<0x20:
                    index -= 1
                    return fail("control character in a string")
                default:
                    continue
                }
            }
            return fail("unterminated string")
        }

        mutating func number() -> String? {
            _ = expect(UInt8(ascii: "-"))
            if !expect(UInt8(ascii: "0")) {
                guard digits() else { return fail("expected a digit") }
            }
            if expect(UInt8(ascii: ".")) {
                guard digits() else { return fail("expected a digit after '.'") }
            }
            if expect(UInt8(ascii: "e")) || expect(UInt8(ascii: "E")) {
                if !expect(UInt8(ascii: "+")) { _ = expect(UInt8(ascii: "-")) }
                guard digits() else { return fail("expected an exponent") }
            }
            return nil
        }

        /// Consumes one or more decimal digits; false when there is none.
        mutating func digits() -> Bool {
            let start = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index > start
        }

        mutating func literal(_ word: StaticString) -> String? {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard bytes.count - index >= expected.count,
                bytes[index..<(index + expected.count)].elementsEqual(expected)
            else { return fail("expected \(word)") }
            index += expected.count
            return nil
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
