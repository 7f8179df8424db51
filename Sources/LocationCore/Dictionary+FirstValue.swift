extension Dictionary {
    /// The value stored for `key`, after storing `value` if there was none: one hash of the key
    /// where a lookup and then an insertion take two. Numbering keys as they come
    /// (`numbers.firstValue(for: key, storing: numbers.count)`) and finding each key's first
    /// position in a list (`first.firstValue(for: key, storing: index) == index`) are its uses.
    @inlinable
    package mutating func firstValue(for key: Key, storing value: @autoclosure () -> Value) -> Value {
        // The defaulting subscript's modify access stores the default when the key is absent.
        func stored(_ slot: inout Value) -> Value { slot }
        return stored(&self[key, default: value()])
    }
}
