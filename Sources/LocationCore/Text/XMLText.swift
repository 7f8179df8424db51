/// Character escaping for XML and HTML text, shared by the GPX writer and the HTML replay report.
package enum XMLText {
    /// `text` with the five characters XML predefines entities for replaced by them, and tab, line
    /// feed and carriage return by character references.
    ///
    /// `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`, `"` → `&quot;`, `'` → `&apos;`, tab → `&#9;`,
    /// line feed → `&#10;`, carriage return → `&#13;`; everything else is kept as it is. The result
    /// reads back as exactly `text` as element content and as an attribute value in either quote
    /// style, in XML 1.0 and in HTML5: a reader would turn a literal tab or line break inside an
    /// attribute into a space, and a literal CR LF anywhere into LF, but leaves the references
    /// alone. Control characters XML 1.0 forbids are not removed: the caller's text is assumed to
    /// be text.
    ///
    /// - Parameter text: Any string.
    /// - Returns: The escaped text.
    package static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let entity = entity(for: scalar) {
                out += entity
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The entity or character reference that stands for `scalar`, or `nil` when it stands for itself.
    private static func entity(for scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "&": "&amp;"
        case "<": "&lt;"
        case ">": "&gt;"
        case "\"": "&quot;"
        case "'": "&apos;"
        case "\t": "&#9;"
        case "\n": "&#10;"
        case "\r": "&#13;"
        default: nil
        }
    }
}
