/// Character escaping for XML and HTML text, shared by the GPX writer and the HTML replay report.
public enum XMLText {
    /// `text` with the five characters XML predefines entities for replaced by them.
    ///
    /// `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`, `"` → `&quot;`, `'` → `&apos;`; everything else is
    /// kept as it is. The result is safe as element content and as an attribute value in either
    /// quote style, in XML 1.0 and in HTML5 (which defines the same five entities). Control
    /// characters XML 1.0 forbids are not removed: the caller's text is assumed to be text.
    ///
    /// - Parameter text: Any string.
    /// - Returns: The escaped text.
    public static func escaped(_ text: String) -> String {
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

    /// The predefined entity that stands for `scalar`, or `nil` when it stands for itself.
    private static func entity(for scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "&": "&amp;"
        case "<": "&lt;"
        case ">": "&gt;"
        case "\"": "&quot;"
        case "'": "&apos;"
        default: nil
        }
    }
}
