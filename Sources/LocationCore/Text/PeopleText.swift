/// Pieces of text written for people (the command's `--format text`, warnings about a file read):
/// counts with the right plural, numbers without float noise, and names that cannot break a line
/// or drive the terminal.
package enum PeopleText {
    /// `1 place`, `2 places`, `0 places`.
    ///
    /// - Parameters:
    ///   - count: How many.
    ///   - singular: The noun for one.
    ///   - plural: The noun for any other count; `singular` + `s` when not given.
    package static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// `value` rounded to at most `decimals` decimals, without trailing zeros or exponent for
    /// everyday sizes: `300`, `12.5`, `0.25` (the jsonl writer's number text).
    package static func number(_ value: Double, decimals: Int) -> String {
        var json = JSONWriter(capacity: DecimalText.maximumLength)
        json.number(value, decimals: decimals)
        return json.text
    }

    /// `value` in its shortest exact text, without a fraction when whole: `0`, `12.5`, `1e-09`
    /// (what a person wrote, not Swift's `0.0`); `nan`, `inf` and `-inf` as Swift writes them.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        var json = JSONWriter(capacity: DecimalText.maximumLength)
        json.number(value, decimals: nil)
        return json.text
    }

    /// `text` with control characters (C0, DEL, C1), the Unicode line and paragraph separators and
    /// the bidirectional controls (U+202A…U+202E, U+2066…U+2069, U+200E, U+200F, U+061C) written as
    /// escapes, `\n`, `\r`, `\t` or `\u{1B}`, so that a place name or a message from elsewhere stays
    /// on its line, cannot send terminal commands, and cannot turn the rest of its line around
    /// (`evil\u{202E}gnp.exe`). Everything else, backslash and joiners included, is kept.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
