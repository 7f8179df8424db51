extension UnsafeRawBufferPointer {
    /// Whether the bytes are valid UTF-8, so decoding them replaces nothing with U+FFFD: the
    /// package's one check (a CSV field, a place's id and name read back from the index, a
    /// percent-decoded URL part, a token file).
    package var isValidUTF8: Bool {
        var iterator = makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
