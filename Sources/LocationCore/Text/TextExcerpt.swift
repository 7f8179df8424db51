/// How an error shows the bad input it quotes: printable ASCII as is, any other byte as `\xHH`,
/// at most `limit` characters and then `…`. The package's one way to echo what a user or a peer
/// sent (an NMEA sentence, a gpsd report, a query parameter): a 60 KB value becomes one short,
/// single-line excerpt, and a control character cannot break the line it is printed on.
package enum TextExcerpt {
    /// `bytes` rendered for an error message.
    package static func render(_ bytes: some Collection<UInt8>, limit: Int) -> String {
        if bytes.count <= limit, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out = ""
        var count = 0
        for byte in bytes {
            if count >= limit {
                out += "…"
                break
            }
            count += 1
            if byte >= 0x20 && byte < 0x7F {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + hexDigits(byte)
            }
        }
        return out
    }

    /// `text` itself, cut after `limit` characters with `…` and the length it had: for a whole
    /// message or log field that carries text of the package's own (not escaped, unlike
    /// `render(_:limit:)`) with a client's value inside. No space in
    /// what is added, so a cut field of a space-separated log line stays one field.
    package static func cut(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit, text.count > limit else { return text }
        return text.prefix(limit) + "…(\(text.count)_characters)"
    }

    /// `text`'s UTF-8 rendered for an error message.
    package static func render(_ text: some StringProtocol, limit: Int) -> String {
        render(text.utf8, limit: limit)
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        return String(String.UnicodeScalarView([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]))
    }
}
