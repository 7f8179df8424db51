/// A JSON input file that cannot be used (a scenario file, a GeoJSON route): which file, which
/// member (the key path, `trouble[2].for`, `features[0].geometry.coordinates[12]`), what is wrong.
package struct JSONFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file (or the name the text was given).
    package let source: String
    /// The key path, or `nil` when the file as a whole is wrong.
    package let keyPath: String?
    /// What is wrong.
    package let message: String

    package init(source: String, keyPath: String?, _ message: String) {
        self.source = source
        self.keyPath = keyPath
        self.message = message
    }

    /// `file: key.path: message`.
    package var description: String { "\(source): " + (keyPath.map { "\($0): " } ?? "") + message }
}
