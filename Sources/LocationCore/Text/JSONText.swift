/// JSON string literals, for the places that write JSON by hand (a gpsd `?WATCH` command, the
/// command line's deterministic output) instead of through `JSONEncoder`.
///
/// The escaping is the minimal one RFC 8259 requires, and the same every time, so equal input gives
/// byte-identical output: `"` and `\` are backslash-escaped, line feed, carriage return and tab
/// become `\n`, `\r` and `\t`, the other control characters U+0000…U+001F become `\u00XX` (lower-case
/// hex), and everything else, non-ASCII and U+007F included, is written as itself (UTF-8 in the
/// output). The forward slash is not escaped.
package enum JSONText {
    /// `value` as a JSON string literal, quotes included.
    ///
    /// - Parameter value: Any string; every Unicode scalar is representable.
    /// - Returns: The literal, e.g. `"a\"b"` for `a"b`.
    package static func quoted(_ value: String) -> String {
        var out = ""
        appendQuoted(value, to: &out)
        return out
    }

    /// Appends `value` as a JSON string literal, quotes included, to `out`.
    ///
    /// - Parameters:
    ///   - value: Any string; every Unicode scalar is representable.
    ///   - out: The text being written.
    package static func appendQuoted(_ value: String, to out: inout String) {
        out += "\""
        // Most strings (keys, ids, timestamps) need no escape: append them whole, not scalar by
        // scalar (the difference is most of the time `locsim replay` spends writing a line).
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            return true
        }
        if plain ?? value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
