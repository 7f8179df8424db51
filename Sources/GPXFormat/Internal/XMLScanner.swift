#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pull tokenizer for the XML that GPX uses, over a sliding byte window.
///
/// It reads the input in fixed chunks, so memory stays flat whatever the file size: the window
/// holds the current token, plus everything from the ``pinned`` position on (the reader pins the
/// start of the current point so it can report where a problem inside it is). Positions are
/// offsets into the window and shift when it slides; locations (line, column) are computed only
/// when needed, from a running count of the lines that slid out.
///
/// Supported: elements, attributes (single or double quotes), character and predefined entity
/// references, comments, CDATA, processing instructions, a DOCTYPE (skipped). Namespace prefixes
/// are kept in names; callers compare local names.
final class XMLScanner {
    enum Token { case startTag, endTag, text, end }

    struct Attribute {
        var nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int
    }

    enum Failure: Error {
        case malformed(String, at: Int)
        case truncated(String)
        case io(String)
    }

    private enum Input {
        case file(Int32)
        case memory
    }

    /// Bytes read per refill (256 KiB in normal use; tests make it tiny to stress boundaries).
    private let chunkSize: Int

    private var input: Input
    private(set) var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    private var pos = 0
    private var atEOF = false
    private var linesBefore = 1
    private var columnBefore = 0

    /// A window position that must not slide out (or `nil`).
    var pinned: Int?

    // The current token.
    private(set) var tokenStart = 0
    private(set) var nameStart = 0
    private(set) var nameEnd = 0
    private(set) var selfClosing = false
    private(set) var attributes: [Attribute] = []
    private(set) var textStart = 0
    private(set) var textEnd = 0
    /// The text token came from CDATA, so entity references are not to be decoded.
    private(set) var textIsCDATA = false
    /// The XML declaration's encoding, if any.
    private(set) var declaredEncoding: String?

    /// Opens a file for streaming.
    init(path: String, chunkSize: Int = 1 << 18) throws(Failure) {
        self.chunkSize = max(1, chunkSize)
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw .io(String(cString: strerror(errno)))
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .io("is a directory")
        }
        input = .file(fd)
        capacity = self.chunkSize * 2
        buffer = .allocate(capacity: capacity)
        try skipByteOrderMark()
    }

    /// Scans bytes held in memory.
    init(bytes: some Collection<UInt8>) {
        chunkSize = 1 << 18
        input = .memory
        capacity = max(bytes.count, 16)
        buffer = .allocate(capacity: capacity)
        _ = UnsafeMutableBufferPointer(start: buffer, count: capacity).initialize(from: bytes)
        count = bytes.count
        atEOF = true
        if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { pos = 3 }
    }

    deinit {
        if case .file(let fd) = input { close(fd) }
        buffer.deallocate()
    }

    private func skipByteOrderMark() throws(Failure) {
        while count < 3, try refill() {}
        if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { pos = 3 }
    }

    // MARK: Locations

    /// 1-based line and column (in characters) of a window position.
    func location(of position: Int) -> (line: Int, column: Int) {
        let (line, column) = Self.advance(line: linesBefore, column: columnBefore, over: buffer, count: min(position, count))
        return (line, column + 1)
    }

    /// A line and 0-based column moved over the first `count` bytes at `bytes` (none when
    /// `count` ≤ 0): a line feed starts the next line at column 0, and every other byte that
    /// begins a UTF-8 sequence (any but 10xxxxxx) is one column.
    @inline(__always)
    private static func advance(
        line: Int, column: Int, over bytes: UnsafeMutablePointer<UInt8>, count: Int
    ) -> (line: Int, column: Int) {
        var line = line
        var column = column
        var i = 0
        while i < count {
            let c = bytes[i]
            if c == 0x0A {
                line += 1
                column = 0
            } else if c & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    /// The location just past the last byte read (for truncation).
    var endLocation: (line: Int, column: Int) { location(of: count) }

    // MARK: Window

    /// Slides the window and reads another chunk. Returns `false` at end of input.
    private func refill() throws(Failure) -> Bool {
        if atEOF { return false }
        var keep = tokenStart
        if let pinned, pinned < keep { keep = pinned }
        if keep > 0 {
            // Account for the lines that slide out.
            (linesBefore, columnBefore) = Self.advance(line: linesBefore, column: columnBefore, over: buffer, count: keep)
            (buffer).update(from: buffer + keep, count: count - keep)
            count -= keep
            pos -= keep
            tokenStart -= keep
            if let p = pinned { pinned = p - keep }
        }
        if capacity - count < chunkSize {
            let newCapacity = max(capacity * 2, count + chunkSize)
            let newBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBuffer.update(from: buffer, count: count)
            buffer.deallocate()
            buffer = newBuffer
            capacity = newCapacity
        }
        guard case .file(let fd) = input else { return false }
        while true {
            let n = read(fd, buffer + count, min(chunkSize, capacity - count))
            if n > 0 {
                count += n
                return true
            }
            if n == 0 {
                atEOF = true
                return false
            }
            if errno == EINTR { continue }
            throw .io(String(cString: strerror(errno)))
        }
    }

    // MARK: Tokens

    /// Reads the next token. On return the token's fields describe it; its positions stay valid
    /// until the next call.
    func next() throws(Failure) -> Token {
        while true {
            if pos >= count {
                tokenStart = pos
                if try !refill() { return .end }
                continue
            }
            tokenStart = pos
            if buffer[pos] != UInt8(ascii: "<") {
                if let token = try scanText() { return token }
                continue
            }
            if let token = try scanMarkup() { return token }
        }
    }

    /// Text up to the next `<`. Returns `nil` when the window had to be refilled (retry).
    private func scanText() throws(Failure) -> Token? {
        let end: Int
        if let found = memchr(buffer + pos, Int32(UInt8(ascii: "<")), count - pos) {
            end = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
        } else {
            if try refill() {
                pos = tokenStart
                return nil
            }
            end = count
        }
        textStart = pos
        textEnd = end
        textIsCDATA = false
        pos = end
        return .text
    }

    /// Makes sure the window holds bytes up to `end` (or all that remain). Returns `false` when
    /// the window moved and the token must be rescanned.
    private func ensure(_ end: Int) throws(Failure) -> Bool {
        while end > count {
            if try refill() {
                pos = tokenStart
                return false
            }
            return true
        }
        return true
    }

    /// Finds `needle` at or after `from`, refilling as needed. Returns its position, or `nil`
    /// after a refill (positions moved: retry the token).
    private func find(_ needle: [UInt8], from: Int, what: String) throws(Failure) -> Int? {
        var i = from
        let first = Int32(needle[0])
        while true {
            let remaining = count - i
            if remaining >= needle.count,
                let found = memchr(buffer + i, first, remaining - needle.count + 1)
            {
                let at = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var match = true
                for k in 1..<needle.count where buffer[at + k] != needle[k] {
                    match = false
                    break
                }
                if match { return at }
                i = at + 1
                continue
            }
            if try refill() {
                pos = tokenStart
                return nil
            }
            throw .truncated("input ended inside \(what)")
        }
    }

    @inline(__always) private func byte(at index: Int) throws(Failure) -> UInt8? {
        if index < count { return buffer[index] }
        if try refill() {
            pos = tokenStart
            return nil
        }
        throw .truncated("input ended inside a tag")
    }

    private func hasPrefix(_ prefix: StaticString, at index: Int) -> Bool {
        guard index + prefix.utf8CodeUnitCount <= count else { return false }
        let p = prefix.utf8Start
        for k in 0..<prefix.utf8CodeUnitCount where buffer[index + k] != p[k] { return false }
        return true
    }

    /// A tag, comment, CDATA section, processing instruction or DOCTYPE at `pos`.
    private func scanMarkup() throws(Failure) -> Token? {
        guard let second = try byte(at: pos + 1) else { return nil }
        switch second {
        case UInt8(ascii: "/"):
            guard let close = try find([UInt8(ascii: ">")], from: pos + 2, what: "an end tag") else { return nil }
            nameStart = pos + 2
            var e = nameStart
            while e < close, !isXMLSpace(buffer[e]) { e += 1 }
            nameEnd = e
            guard nameEnd > nameStart else { throw .malformed("end tag without a name", at: pos) }
            while e < close {
                guard isXMLSpace(buffer[e]) else { throw .malformed("unexpected text in an end tag", at: e) }
                e += 1
            }
            pos = close + 1
            return .endTag
        case UInt8(ascii: "?"):
            guard let close = try find(Array("?>".utf8), from: pos + 2, what: "a processing instruction") else {
                return nil
            }
            if hasPrefix("<?xml", at: pos), close > pos + 5, isXMLSpace(buffer[pos + 5]) {
                declaredEncoding = pseudoAttribute("encoding", from: pos + 5, to: close)
            }
            pos = close + 2
            return nil
        case UInt8(ascii: "!"):
            // Make sure enough bytes are present to tell the constructs apart.
            guard try ensure(pos + 9) else { return nil }
            if hasPrefix("<!--", at: pos) {
                guard let close = try find(Array("-->".utf8), from: pos + 4, what: "a comment") else { return nil }
                pos = close + 3
                return nil
            }
            if hasPrefix("<![CDATA[", at: pos) {
                guard let close = try find(Array("]]>".utf8), from: pos + 9, what: "a CDATA section") else {
                    return nil
                }
                textStart = pos + 9
                textEnd = close
                textIsCDATA = true
                pos = close + 3
                return .text
            }
            if hasPrefix("<!DOCTYPE", at: pos) {
                var depth = 0
                var i = pos + 9
                while true {
                    guard let c = try byteForScan(at: i) else { return nil }
                    if c == UInt8(ascii: "[") { depth += 1 }
                    if c == UInt8(ascii: "]") { depth -= 1 }
                    if c == UInt8(ascii: ">") && depth <= 0 { break }
                    i += 1
                }
                pos = i + 1
                return nil
            }
            if pos + 9 > count { throw .truncated("input ended inside markup") }
            throw .malformed("unknown markup declaration", at: pos)
        default:
            return try scanStartTag()
        }
    }

    /// Like ``byte(at:)`` but names the construct being scanned in the truncation message.
    private func byteForScan(at index: Int) throws(Failure) -> UInt8? {
        if index < count { return buffer[index] }
        if try refill() {
            pos = tokenStart
            return nil
        }
        throw .truncated("input ended inside a DOCTYPE")
    }

    private func scanStartTag() throws(Failure) -> Token? {
        attributes.removeAll(keepingCapacity: true)
        var i = pos + 1
        nameStart = i
        while true {
            guard let c = try byte(at: i) else { return nil }
            if isXMLSpace(c) || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") { break }
            if c == UInt8(ascii: "<") || c == UInt8(ascii: "=") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                throw .malformed("invalid character in an element name", at: i)
            }
            i += 1
        }
        nameEnd = i
        guard nameEnd > nameStart else { throw .malformed("'<' not followed by an element name", at: pos) }
        while true {
            guard let c = try byte(at: i) else { return nil }
            if isXMLSpace(c) {
                i += 1
                continue
            }
            if c == UInt8(ascii: ">") {
                selfClosing = false
                pos = i + 1
                return .startTag
            }
            if c == UInt8(ascii: "/") {
                guard let d = try byte(at: i + 1) else { return nil }
                guard d == UInt8(ascii: ">") else { throw .malformed("expected '>' after '/'", at: i + 1) }
                selfClosing = true
                pos = i + 2
                return .startTag
            }
            // An attribute: name, '=', quoted value.
            let attributeStart = i
            while true {
                guard let n = try byte(at: i) else { return nil }
                if n == UInt8(ascii: "=") || isXMLSpace(n) { break }
                if n == UInt8(ascii: ">") || n == UInt8(ascii: "/") || n == UInt8(ascii: "<") || n == UInt8(ascii: "\"")
                    || n == UInt8(ascii: "'")
                {
                    throw .malformed("attribute without a value", at: attributeStart)
                }
                i += 1
            }
            let attributeNameEnd = i
            while true {
                guard let s = try byte(at: i) else { return nil }
                if !isXMLSpace(s) { break }
                i += 1
            }
            guard let equals = try byte(at: i) else { return nil }
            guard equals == UInt8(ascii: "=") else { throw .malformed("expected '=' after an attribute name", at: i) }
            i += 1
            while true {
                guard let s = try byte(at: i) else { return nil }
                if !isXMLSpace(s) { break }
                i += 1
            }
            guard let quote = try byte(at: i) else { return nil }
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw .malformed("attribute value must be quoted", at: i)
            }
            let valueStart = i + 1
            i = valueStart
            while true {
                guard let v = try byte(at: i) else { return nil }
                if v == quote { break }
                if v == UInt8(ascii: "<") { throw .malformed("'<' inside an attribute value", at: i) }
                i += 1
            }
            attributes.append(Attribute(nameStart: attributeStart, nameEnd: attributeNameEnd, valueStart: valueStart, valueEnd: i))
            i += 1
            guard let after = try byte(at: i) else { return nil }
            if !isXMLSpace(after) && after != UInt8(ascii: ">") && after != UInt8(ascii: "/") {
                throw .malformed("expected whitespace between attributes", at: i)
            }
        }
    }

    /// The value of a pseudo-attribute (`encoding="UTF-8"`) in the XML declaration.
    private func pseudoAttribute(_ name: String, from: Int, to: Int) -> String? {
        let text = Array(UnsafeBufferPointer(start: buffer + from, count: to - from))
        let key = Array(name.utf8)
        guard key.count <= text.count else { return nil }
        for start in 0...(text.count - key.count) where text[start..<(start + key.count)].elementsEqual(key) {
            var i = start + key.count
            while i < text.count, isXMLSpace(text[i]) || text[i] == UInt8(ascii: "=") { i += 1 }
            guard i < text.count, text[i] == UInt8(ascii: "\"") || text[i] == UInt8(ascii: "'") else { return nil }
            let quote = text[i]
            guard let close = text[(i + 1)...].firstIndex(of: quote) else { return nil }
            return String(decoding: text[(i + 1)..<close], as: UTF8.self)
        }
        return nil
    }

    // MARK: Access

    func bytes(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: buffer + start, count: end - start)
    }

    func string(_ start: Int, _ end: Int) -> String {
        String(decoding: bytes(start, end), as: UTF8.self)
    }
}
