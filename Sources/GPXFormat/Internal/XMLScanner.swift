import LocationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pull tokenizer for the XML that GPX uses, over a sliding byte window.
///
/// It reads the input in chunks, decoded to UTF-8 on the way (``InputDecoder``), so memory
/// stays flat whatever the file size: the window holds the current token and nothing before it.
/// A token longer than ``maximumTokenLength`` is an error, so junk (a gigabyte without a `<`)
/// fails after that many bytes, and a NUL byte, which no XML text may hold, fails at once.
/// Positions are offsets into the window and shift when it slides; locations (line, column) are
/// computed only when needed, from a running count of the lines that slid out. The reader can
/// ``mark(_:at:)`` a position to locate later: when the window slides past a mark, its location
/// is worked out on the way, at no extra cost.
///
/// Supported: elements, attributes (single or double quotes), character and predefined entity
/// references, comments, CDATA, processing instructions, a DOCTYPE (skipped). Namespace prefixes
/// are kept in names; callers compare local names.
final class XMLScanner {
    enum Token { case startTag, endTag, text, end }

    /// What the current token is, for messages.
    enum TokenKind: String {
        case text = "a text"
        case startTag = "a tag"
        case endTag = "an end tag"
        case markup = "a markup declaration"
        case comment = "a comment"
        case cdata = "a CDATA section"
        case processingInstruction = "a processing instruction"
        case doctype = "a DOCTYPE"
    }

    struct Attribute {
        var nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int
    }

    enum Failure: Error {
        case malformed(String, at: Int)
        case truncated(String)
        case io(String)
        case unsupportedEncoding(String, line: Int, column: Int)
        /// A token longer than ``maximumTokenLength`` starts at the position.
        case tooLong(TokenKind, at: Int)
    }

    /// Positions the reader can ask the location of after the window moved on.
    enum Mark { case point, capture }

    private struct MarkState {
        /// Window position, while `location` is `nil`.
        var position = 0
        var location: (line: Int, column: Int)?
    }

    /// Bytes read per refill (256 KiB in normal use; tests make it tiny to stress boundaries).
    private let chunkSize: Int
    /// The longest token (text, tag with its attributes, comment, …) in bytes of UTF-8.
    let maximumTokenLength: Int

    private let decoder: InputDecoder
    private(set) var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    private var pos = 0
    private var atEOF = false
    /// The byte just past the window is a NUL: the next refill fails there.
    private var nulFollows = false
    private var linesBefore = 1
    private var columnBefore = 0
    private var pointMark = MarkState()
    private var captureMark = MarkState()

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

    /// The encoding the input is decoded from (`nil` before the first bytes were read).
    var encoding: GPXTextEncoding? { decoder.encoding }

    /// Opens a file for streaming.
    init(path: String, chunkSize: Int = 1 << 18, maximumTokenLength: Int = 16 << 20) throws(Failure) {
        self.chunkSize = max(1, chunkSize)
        self.maximumTokenLength = max(1, maximumTokenLength)
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw .io(String(cString: strerror(errno)))
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .io(String(cString: strerror(EISDIR)))
        }
        decoder = InputDecoder(source: .file(fd), readsDeclaration: true, path: path)
        capacity = self.chunkSize + 16
        buffer = .allocate(capacity: capacity)
    }

    /// Scans bytes held in memory, in the same chunks as a file.
    ///
    /// - Parameter readsDeclaration: `false` when the bytes are UTF-8 whatever the document
    ///   declares (the bytes of a Swift string).
    init(bytes: some Collection<UInt8>, readsDeclaration: Bool, chunkSize: Int = 1 << 18, maximumTokenLength: Int = 16 << 20) {
        self.chunkSize = max(1, chunkSize)
        self.maximumTokenLength = max(1, maximumTokenLength)
        decoder = InputDecoder(source: .memory(Array(bytes)), readsDeclaration: readsDeclaration)
        capacity = self.chunkSize + 16
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
    }

    // MARK: Locations

    /// 1-based line and column (in characters) of a window position.
    func location(of position: Int) -> (line: Int, column: Int) {
        let (line, column) = Self.advance(line: linesBefore, column: columnBefore, over: buffer, count: min(position, count))
        return (line, column + 1)
    }

    /// Remembers `position` (in the window) so its location can be asked for later.
    @inline(__always)
    func mark(_ mark: Mark, at position: Int) {
        switch mark {
        case .point: pointMark = MarkState(position: position)
        case .capture: captureMark = MarkState(position: position)
        }
    }

    /// The location of a marked position, even if the window has slid past it since.
    func location(of mark: Mark) -> (line: Int, column: Int) {
        let state = mark == .point ? pointMark : captureMark
        return state.location ?? location(of: state.position)
    }

    /// A line and 0-based column moved over the first `count` bytes at `bytes` (none when
    /// `count` ≤ 0): a line feed starts the next line at column 0, and every other byte that
    /// begins a UTF-8 sequence (any but 10xxxxxx) is one column.
    @inline(__always)
    private static func advance(
        line: Int, column: Int, over bytes: UnsafeMutablePointer<UInt8>, count: Int
    ) -> (line: Int, column: Int) {
        guard count > 0 else { return (line, column) }
        var line = line
        var column = column
        // Line feeds found by memchr; only the bytes after the last one move the column.
        var i = 0
        while let found = memchr(bytes + i, 0x0A, count - i) {
            line += 1
            column = 0
            i = bytes.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
            if i == count { break }
        }
        while i < count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return (line, column)
    }

    /// The location just past the last byte read (for truncation).
    var endLocation: (line: Int, column: Int) { location(of: count) }

    // MARK: Window

    /// Moves the line count over the first `keep` bytes of the window, locating the marks that
    /// lie in them on the way.
    private func slideOut(_ keep: Int) {
        var done = 0
        var line = linesBefore
        var column = columnBefore
        func locate(_ state: inout MarkState) {
            guard state.location == nil else { return }
            if state.position >= keep {
                state.position -= keep
                return
            }
            (line, column) = Self.advance(line: line, column: column, over: buffer + done, count: state.position - done)
            done = state.position
            state.location = (line, column + 1)
        }
        if pointMark.position <= captureMark.position {
            locate(&pointMark)
            locate(&captureMark)
        } else {
            locate(&captureMark)
            locate(&pointMark)
        }
        (linesBefore, columnBefore) = Self.advance(line: line, column: column, over: buffer + done, count: keep - done)
    }

    /// Slides the window and decodes another chunk. Returns `false` at end of input.
    private func refill() throws(Failure) -> Bool {
        if atEOF { return false }
        let keep = tokenStart
        if keep > 0 {
            slideOut(keep)
            (buffer).update(from: buffer + keep, count: count - keep)
            count -= keep
            pos -= keep
            tokenStart = 0
        }
        if nulFollows { throw .malformed(Self.nulMessage, at: count) }
        // Everything in the window now belongs to the current token, which needs more.
        if count > maximumTokenLength { throw .tooLong(kindOfToken(at: 0), at: 0) }
        // A token that already spans chunks grows the reads with it, so rescanning it after each
        // refill costs linear time in all; but never past what shows it is too long.
        let want = count > chunkSize ? max(chunkSize, min(count, maximumTokenLength + 1 - count)) : chunkSize
        if capacity - count < want + 16 {
            let needed = count + want + 16
            let newCapacity = max(min(capacity * 2, maximumTokenLength + chunkSize + 16), needed)
            let newBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBuffer.update(from: buffer, count: count)
            buffer.deallocate()
            buffer = newBuffer
            capacity = newCapacity
        }
        let n: Int
        do {
            n = try decoder.decode(into: buffer + count, capacity: capacity - count, want: want)
        } catch {
            switch error {
            case .io(let reason): throw .io(reason)
            case .truncated(let message): throw .truncated(message)
            case .unsupported(let name, let line, let column): throw .unsupportedEncoding(name, line: line, column: column)
            case .invalid(let message): throw .malformed(message, at: count)
            }
        }
        if n == 0 {
            atEOF = true
            return false
        }
        if let nul = memchr(buffer + count, 0, n) {
            // Hand over what comes before it first, so earlier errors are found first.
            let before = buffer.distance(to: nul.assumingMemoryBound(to: UInt8.self)) - count
            if before == 0 { throw .malformed(Self.nulMessage, at: count) }
            count += before
            nulFollows = true
            return true
        }
        count += n
        return true
    }

    private static let nulMessage = "a NUL byte, which XML text cannot hold (is this a binary or sparse file?)"

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
            let start = pos
            tokenStart = start
            // A refill stops a token that outgrows the limit; `checkLength` catches one that
            // fitted in the window, so the outcome does not depend on where chunks end.
            if buffer[start] != UInt8(ascii: "<") {
                if let token = try scanText() {
                    try checkLength(from: start, to: textEnd)
                    return token
                }
                continue
            }
            let token = try scanMarkup()
            try checkLength(from: start, to: pos)
            if let token { return token }
        }
    }

    @inline(__always)
    private func checkLength(from start: Int, to end: Int) throws(Failure) {
        if end - start > maximumTokenLength { throw .tooLong(kindOfToken(at: start), at: start) }
    }

    /// What the token at `start` is, from its first bytes (for messages).
    private func kindOfToken(at start: Int) -> TokenKind {
        guard buffer[start] == UInt8(ascii: "<"), start + 1 < count else { return .text }
        switch buffer[start + 1] {
        case UInt8(ascii: "/"): return .endTag
        case UInt8(ascii: "?"): return .processingInstruction
        case UInt8(ascii: "!"):
            if hasPrefix("<!--", at: start) { return .comment }
            if hasPrefix("<![CDATA[", at: start) { return .cdata }
            if hasPrefix("<!DOCTYPE", at: start) { return .doctype }
            return .markup
        default: return .startTag
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
            while e < close, !buffer[e].isASCIIWhitespace { e += 1 }
            nameEnd = e
            guard nameEnd > nameStart else { throw .malformed("end tag without a name", at: pos) }
            while e < close {
                guard buffer[e].isASCIIWhitespace else { throw .malformed("unexpected text in an end tag", at: e) }
                e += 1
            }
            pos = close + 1
            return .endTag
        case UInt8(ascii: "?"):
            guard let close = try find(Array("?>".utf8), from: pos + 2, what: "a processing instruction") else {
                return nil
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
        // The list is filled as a local and put back on the way out: appending to the stored
        // property (a call, inside the access) kept the runtime's exclusivity check on each one.
        var attributes: [Attribute] = []
        swap(&attributes, &self.attributes)
        defer { swap(&attributes, &self.attributes) }
        attributes.removeAll(keepingCapacity: true)
        var i = pos + 1
        nameStart = i
        while true {
            guard let c = try byte(at: i) else { return nil }
            if c.isASCIIWhitespace || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") { break }
            if c == UInt8(ascii: "<") || c == UInt8(ascii: "=") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                throw .malformed("invalid character in an element name", at: i)
            }
            i += 1
        }
        nameEnd = i
        guard nameEnd > nameStart else { throw .malformed("'<' not followed by an element name", at: pos) }
        while true {
            guard let c = try byte(at: i) else { return nil }
            if c.isASCIIWhitespace {
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
                if n == UInt8(ascii: "=") || n.isASCIIWhitespace { break }
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
                if !s.isASCIIWhitespace { break }
                i += 1
            }
            guard let equals = try byte(at: i) else { return nil }
            guard equals == UInt8(ascii: "=") else { throw .malformed("expected '=' after an attribute name", at: i) }
            i += 1
            while true {
                guard let s = try byte(at: i) else { return nil }
                if !s.isASCIIWhitespace { break }
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
            // XML allows a name once a tag (`lat="1" lon="2" lat="0"` is not well-formed): taking
            // one of the two would move a point without a word.
            let name = bytes(attributeStart, attributeNameEnd)
            for earlier in attributes where bytes(earlier.nameStart, earlier.nameEnd).elementsEqual(name) {
                throw .malformed("attribute '\(string(attributeStart, attributeNameEnd))' given twice in one tag", at: attributeStart)
            }
            attributes.append(Attribute(nameStart: attributeStart, nameEnd: attributeNameEnd, valueStart: valueStart, valueEnd: i))
            i += 1
            guard let after = try byte(at: i) else { return nil }
            if !after.isASCIIWhitespace && after != UInt8(ascii: ">") && after != UInt8(ascii: "/") {
                throw .malformed("expected whitespace between attributes", at: i)
            }
        }
    }

    // MARK: Access

    func bytes(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: buffer + start, count: end - start)
    }

    func string(_ start: Int, _ end: Int) -> String {
        String(decoding: bytes(start, end), as: UTF8.self)
    }

    // MARK: Character data

    /// Appends the current text token's characters: entity and character references replaced
    /// (not in CDATA), and line ends normalised (see ``decodeAppend(_:_:attribute:into:)``).
    func appendText(into out: inout [UInt8]) throws(Failure) {
        if textIsCDATA {
            Self.appendLiteral(bytes(textStart, textEnd), attribute: false, into: &out)
        } else {
            try decodeAppend(textStart, textEnd, into: &out)
        }
    }

    /// Appends an attribute's value of the current tag, references replaced and whitespace
    /// normalised as XML 1.0 section 3.3.3 says.
    func appendValue(of attribute: Attribute, into out: inout [UInt8]) throws(Failure) {
        try decodeAppend(attribute.valueStart, attribute.valueEnd, attribute: true, into: &out)
    }


    /// Appends text, replacing entity and character references, with XML 1.0's normalisation of
    /// what stands literally in the file: a CR LF or a lone CR is a line feed (section 2.11), and
    /// in an attribute value every literal tab or line end is a space (section 3.3.3). Characters
    /// written as references (`&#13;`, `&#9;`) are kept as they are.
    private func decodeAppend(_ start: Int, _ end: Int, attribute: Bool = false, into out: inout [UInt8])
        throws(Failure)
    {
        let bytes = self.bytes(start, end)
        var i = 0
        while i < bytes.count {
            // The literal run up to the next reference ('&' is never part of a CR LF).
            let ampersand = bytes[i...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            Self.appendLiteral(UnsafeBufferPointer(rebasing: bytes[i..<ampersand]), attribute: attribute, into: &out)
            i = ampersand
            guard i < bytes.count else { return }
            guard let semicolon = bytes[i...].firstIndex(of: UInt8(ascii: ";")), semicolon - i <= 12 else {
                throw .malformed("'&' not followed by an entity reference", at: start + i)
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<semicolon]), as: UTF8.self)
            switch name {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                var scalarValue: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalarValue = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    scalarValue = UInt32(name.dropFirst(1))
                }
                guard let scalarValue, let scalar = Unicode.Scalar(scalarValue) else {
                    throw .malformed("unknown entity &\(name);", at: start + i)
                }
                out.append(contentsOf: String(Character(scalar)).utf8)
            }
            i = semicolon + 1
        }
    }

    /// Appends text that stands literally in the file (no references: a run between them, or
    /// CDATA) with XML 1.0's normalisation: CR LF and a lone CR are LF, and in an attribute
    /// value a tab or line end is a space.
    private static func appendLiteral(_ bytes: UnsafeBufferPointer<UInt8>, attribute: Bool, into out: inout [UInt8]) {
        var needsNormalising = false
        if attribute {
            for c in bytes where c == 0x0D || c == 0x09 || c == 0x0A {
                needsNormalising = true
                break
            }
        } else if let base = bytes.baseAddress {
            needsNormalising = memchr(base, 0x0D, bytes.count) != nil
        }
        guard needsNormalising else {
            out.append(contentsOf: bytes)
            return
        }
        for (i, c) in bytes.enumerated() {
            switch c {
            case 0x0D:
                // CR LF is one line end: the LF that follows stands for both.
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { continue }
                out.append(attribute ? 0x20 : 0x0A)
            case 0x09 where attribute, 0x0A where attribute:
                out.append(0x20)
            default:
                out.append(c)
            }
        }
    }

}

extension XMLScanner {
    /// `failure` as the error of a `format` document (`GPX`, `KML`) read from `file`, located.
    func parseError(_ failure: Failure, file: String?, format: String, fileExtension: String) -> GPXParseError {
        switch failure {
        case .io(let reason):
            return GPXParseError(.io, file: file, line: 0, column: 0, message: "cannot read: \(reason)")
        case .truncated(let message):
            let at = endLocation
            return GPXParseError(.truncated, file: file, line: at.line, column: at.column, message: message)
        case .malformed(let message, let position):
            return parseError(.malformedXML, message, at: position, file: file)
        case .unsupportedEncoding(let name, let line, let column):
            return GPXParseError(
                .unsupportedEncoding, file: file, line: line, column: column,
                message:
                    "encoding \"\(name)\" is not supported (locsim reads UTF-8, UTF-16, ISO-8859-1 and windows-1252); "
                    + "convert the file: iconv -f \(name) -t UTF-8 \(file ?? "in.\(fileExtension)") > out.\(fileExtension)")
        case .tooLong(let kind, let position):
            return parseError(
                .limitExceeded,
                "\(kind.rawValue) longer than \(Self.describeBytes(maximumTokenLength)) starts here (the most the reader holds of one text or tag; is this a \(format) file?)",
                at: position, file: file)
        }
    }

    /// `16 MiB (16777216 bytes)`, or just the bytes when not a whole number of MiB.
    static func describeBytes(_ count: Int) -> String {
        count >= 1 << 20 && count % (1 << 20) == 0 ? "\(count >> 20) MiB (\(count) bytes)" : "\(count) bytes"
    }

    /// An error of `code` at `position` of the window.
    func parseError(_ code: GPXParseError.Code, _ message: String, at position: Int, file: String?) -> GPXParseError {
        let at = location(of: position)
        return GPXParseError(code, file: file, line: at.line, column: at.column, message: message)
    }
}
