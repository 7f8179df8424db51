package import LocationCore

extension JSONWriter {
    /// `value` as a JSON string literal, quotes included: for expected JSON in tests (the
    /// library writes whole values with the writer, never text around a literal).
    package static func quoted(_ value: String) -> String {
        var json = JSONWriter(capacity: value.utf8.count + 2)
        json.string(value)
        return json.text
    }
}
