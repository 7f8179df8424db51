#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The package's one JSON writer: compact JSON as UTF-8 bytes, member by member, deterministic
/// (the same values give the same bytes). The command's jsonl records, the nearby server's bodies
/// and logs, the gpsd and feed reports and the HTML pages' data are written with it, and so are
/// `Encodable` answers (``encode(_:)``, the control API's); nothing goes through `JSONEncoder`.
/// Numbers go straight into the bytes: writing one allocates nothing.
///
/// ```swift
/// var json = JSONWriter()
/// json.object { json in
///     json.member("type", "answer")
///     json.member("id", 1)
///     json.member("alt", ifPresent: fix.altitude, decimals: 3)   // left out when nil
/// }
/// json.text   // {"type":"answer","id":1}
/// ```
///
/// Strings are escaped as little as RFC 8259 allows, the same way every time: `"` and `\` are
/// backslash-escaped, line feed, carriage return and tab become `\n`, `\r` and `\t`, the other
/// control characters U+0000…U+001F `\u00XX` (lower-case hex); everything else, non-ASCII and
/// U+007F included, is written as itself. Numbers come in two styles: ``number(_:)`` is Swift's
/// shortest round-trip text (`35.6812`, `2.0`, by ``DecimalText``), ``number(_:decimals:)`` the
/// jsonl style (rounded, a whole number without a fraction). A value that is not finite is `null`.
package struct JSONWriter: Sendable {
    /// The JSON written so far.
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value or key needs a comma before it.
    private var needsComma = false

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far, as text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// One object, its members written by `body`, as text (a report, an event's data, a line).
    package static func objectText(capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> String {
        var json = JSONWriter(capacity: capacity)
        json.object(body)
        return json.text
    }

    // MARK: Structure

    /// An object, its members written by `body`.
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    /// An array, its elements written by `body`.
    package mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(open)
        needsComma = false
        body(&self)
        bytes.append(close)
        needsComma = true
    }

    /// An array with one element per element of `elements`, each written by `body`.
    ///
    /// Inlinable so that it is specialised where it is called: unspecialised, a call from another
    /// module boxes each element larger than three words (a `Place`, a `Satellite`) in an
    /// allocation of its own.
    @inlinable
    package mutating func array<Elements: Sequence>(_ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void) {
        array { json in for element in elements { body(&json, element) } }
    }

    /// A member's key, `"name":` (a comma before it when needed); the value follows.
    @inline(__always)
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key known only at run time (a reason's or a kind's name), escaped.
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A value that is JSON text already (a report written elsewhere, a number formatted its own
    /// way), as it is.
    package mutating func json(_ text: String) {
        separate()
        put(text: text)
    }

    private mutating func put(text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func put(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    // MARK: Values

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: $0) }
    }

    /// A string given as UTF-8 bytes.
    package mutating func string(utf8 value: UnsafeBufferPointer<UInt8>) {
        separate()
        var plain = true
        for byte in value where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: value)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let start = bytes.count, room = Self.quotedBound(value.count)
        bytes.append(contentsOf: repeatElement(0, count: room))
        let written = bytes.withUnsafeMutableBytes { Self.writeQuoted(utf8: value, to: $0.baseAddress! + start) }
        bytes.removeLast(room - written)
    }

    package mutating func integer(_ value: Int) {
        separate()
        withUnsafeTemporaryAllocation(byteCount: DecimalText.maximumLength, alignment: 1) { digits in
            let count = DecimalText.write(value, into: digits)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[..<count]))
        }
    }

    /// A number in its shortest round-trip text (`35.6812`, `2.0`, `1e-07`), `null` if not finite.
    package mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        withUnsafeTemporaryAllocation(byteCount: DecimalText.maximumLength, alignment: 1) { digits in
            let count = DecimalText.write(value, into: digits)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[..<count]))
        }
    }

    /// A number as the command's jsonl writes it: rounded to `decimals` when given; a whole number
    /// below 10¹⁵ without a fraction (`800`, not `800.0`); otherwise as ``number(_:)``.
    package mutating func number(_ value: Double, decimals: Int?) {
        let value = decimals.map { Self.rounded(value, decimals: $0) } ?? value
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            integer(Int(value))
        } else {
            number(value)
        }
    }

    /// `value` rounded to `decimals` decimals, as ``number(_:decimals:)`` writes it (for a value
    /// that an `Encodable` answer holds already rounded).
    package static func rounded(_ value: Double, decimals: Int) -> Double {
        // From 2^52 on every Double is whole: nothing to round, and scaling 1e308 up would give
        // infinity (written as null: an <ele>1e308</ele> read whole, shown as no altitude).
        guard abs(value) < 0x1p52 else { return value }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    /// A number with exactly `decimals` decimals (``DecimalText/fixed(_:decimals:)``: `12.30`,
    /// `7`), as C's `%.*f` writes it; `null` if not finite.
    package mutating func number(_ value: Double, fixedDecimals decimals: Int) {
        guard value.isFinite else { return null() }
        separate()
        withUnsafeTemporaryAllocation(byteCount: DecimalText.maximumLength, alignment: 1) { digits in
            let count = DecimalText.write(value, decimals: decimals, into: digits)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[..<count]))
        }
    }

    package mutating func bool(_ value: Bool) {
        separate()
        if value { put("true") } else { put("false") }
    }

    package mutating func null() {
        separate()
        put("null")
    }

    /// A UTC time with milliseconds, `"2024-11-07T18:00:00.000Z"`.
    package mutating func timestamp(_ value: Date) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        put(text: UTCTimestamp.format(value, fractionDigits: 3))
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Members

    /// `"key":value`, `null` when `value` is nil.
    package mutating func member(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { string(value) } else { null() }
    }

    package mutating func member(_ key: StaticString, _ value: Int?) {
        self.key(key)
        if let value { integer(value) } else { null() }
    }

    /// A number in the jsonl style (``number(_:decimals:)``), `null` when nil.
    package mutating func member(_ key: StaticString, _ value: Double?, decimals: Int? = nil) {
        self.key(key)
        if let value { number(value, decimals: decimals) } else { null() }
    }

    /// A number in its shortest round-trip text (``number(_:)``), `null` if not finite.
    package mutating func member(_ key: StaticString, shortest value: Double) {
        self.key(key)
        number(value)
    }

    /// A number with exactly `decimals` decimals (``number(_:fixedDecimals:)``).
    package mutating func member(_ key: StaticString, _ value: Double, fixedDecimals decimals: Int) {
        self.key(key)
        number(value, fixedDecimals: decimals)
    }

    package mutating func member(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    /// A time (``timestamp(_:)``), `null` when nil.
    package mutating func member(_ key: StaticString, _ value: Date?) {
        self.key(key)
        if let value { timestamp(value) } else { null() }
    }

    package mutating func member(_ key: StaticString, _ values: [String]) {
        self.key(key)
        array(values) { $0.string($1) }
    }

    package mutating func member(_ key: StaticString, _ values: [Int]) {
        self.key(key)
        array(values) { $0.integer($1) }
    }

    /// `"key":value`, left out when `value` is nil.
    package mutating func member(_ key: StaticString, ifPresent value: String?) {
        if let value { member(key, value) }
    }

    package mutating func member(_ key: StaticString, ifPresent value: Int?) {
        if let value { member(key, value) }
    }

    package mutating func member(_ key: StaticString, ifPresent value: Double?, decimals: Int? = nil) {
        if let value { member(key, value, decimals: decimals) }
    }

    // MARK: Strings into reserved memory

    /// The most bytes ``writeQuoted(utf8:to:)`` writes for `count` bytes of text: two quotes and
    /// six bytes (`\u00XX`) per byte at worst.
    @inlinable package static func quotedBound(_ count: Int) -> Int { 2 + 6 * count }

    /// Writes `source` as a JSON string literal, quotes included, at `out`, which has room for
    /// ``quotedBound(_:)`` bytes: for writers that reserve a whole body first (the nearby answer).
    ///
    /// - Returns: The number of bytes written. Inlinable: the nearby body calls it three times
    /// per place.
    @inlinable
    package static func writeQuoted(utf8 source: UnsafeBufferPointer<UInt8>, to out: UnsafeMutableRawPointer) -> Int {
        var count = 0
        func put(_ byte: UInt8) {
            out.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
            count += 1
        }
        func copy(_ from: Int, _ to: Int) {
            guard to > from, let base = source.baseAddress else { return }
            (out + count).copyMemory(from: base + from, byteCount: to - from)
            count += to - from
        }
        put(UInt8(ascii: "\""))
        var runStart = 0
        for (i, byte) in source.enumerated() {
            // Every byte that needs escaping is ASCII; multi-byte UTF-8 sequences pass through.
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
            copy(runStart, i)
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
            case UInt8(ascii: "\n"): put(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): put(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): put(UInt8(ascii: "t"))
            default:
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(.hexDigit(of: byte >> 4, uppercase: false))
                put(.hexDigit(of: byte & 0xF, uppercase: false))
            }
            runStart = i + 1
        }
        copy(runStart, source.count)
        put(UInt8(ascii: "\""))
        return count
    }
}
