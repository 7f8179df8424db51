/// A point of interest the game shows on the map (the server's `Location`).
public struct Place: Sendable, Hashable, Codable, Identifiable {
    /// Stable identifier, unique within a place set.
    public var id: String
    /// Display name.
    public var name: String
    /// Where the place is.
    public var coordinate: Coordinate
    /// A category such as `"shrine"` or `"cafe"`; empty when unknown.
    public var kind: String
    /// An optional level (difficulty, tier) the game attaches to a place.
    public var level: Int?

    @inlinable
    public init(id: String, name: String, coordinate: Coordinate, kind: String = "", level: Int? = nil) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.kind = kind
        self.level = level
    }
}
