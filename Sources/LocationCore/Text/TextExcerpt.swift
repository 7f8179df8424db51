/// How an error shows the bad input it quotes: printable text as is (`Zürich`, `東京`), and as
/// `\xHH` each byte of a control or format character (an escape sequence, a bidirectional
/// override, a line separator) and each byte that is not UTF-8; at most `limit` characters and
/// then `…`. The package's one way to echo what a user or a peer sent (an NMEA sentence, a gpsd
/// report, a query parameter): a 60 KB value becomes one short, single-line excerpt, and a control
/// character cannot break or reorder the line it is printed on.
package enum TextExcerpt {
    /// `bytes` rendered for an error message.
    package static func render(_ bytes: some Collection<UInt8>, limit: Int) -> String {
        if bytes.count <= limit, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out = ""
        var count = 0
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var index = bytes.startIndex
        func escape(_ length: Int) {
            for _ in 0..<length {
                out += "\\x" + bytes[index].hexDigits()
                index = bytes.index(after: index)
            }
        }
        while count < limit {
            switch parser.parseScalar(from: &iterator) {
            case .emptyInput:
                return out
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if isShown(scalar) {
                    out.unicodeScalars.append(scalar)
                    index = bytes.index(index, offsetBy: encoded.count)
                } else {
                    escape(encoded.count)
                }
            case .error(let length):
                escape(length)
            }
            count += 1
        }
        if index != bytes.endIndex { out += "…" }
        return out
    }

    /// Whether a character is printed as itself: not a control or format character, not a line or
    /// paragraph separator, not private or unassigned.
    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value >= 0x20 && scalar.value < 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return false
        default:
            return true
        }
    }

    /// `text` itself, cut after `limit` characters with `…` and the length it had: for a whole
    /// message or log field that carries text of the package's own (not escaped, unlike
    /// `render(_:limit:)`) with a client's value inside. No space in
    /// what is added, so a cut field of a space-separated log line stays one field.
    ///
    /// With `keepingEnd`, the last that many characters stay too, after the cut: a message that
    /// ends with its reason (`route.file: PATH: File name too long`) keeps it whatever the length
    /// of the value in its middle.
    package static func cut(_ text: String, limit: Int, keepingEnd: Int = 0) -> String {
        guard text.utf8.count > limit, text.count > limit else { return text }
        let end = min(max(0, keepingEnd), limit / 2)
        let marker = "…(\(text.count)_characters)"
        return end == 0 ? text.prefix(limit) + marker : text.prefix(limit - end) + marker + "…" + text.suffix(end)
    }

    /// `text`'s UTF-8 rendered for an error message.
    package static func render(_ text: some StringProtocol, limit: Int) -> String {
        render(text.utf8, limit: limit)
    }
}
