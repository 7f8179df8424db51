/// A place's id or kind as the stores compare it: byte for byte (SQLite's and PostgreSQL's text
/// equality), not as Swift compares strings (by canonical equivalence, so `café` in NFC and NFD
/// would be one id here and two in either database). The key of an import's id and kind tables.
package struct ExactText: Hashable, Sendable {
    package let text: String

    package init(_ text: String) { self.text = text }

    package static func == (lhs: ExactText, rhs: ExactText) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    package func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
