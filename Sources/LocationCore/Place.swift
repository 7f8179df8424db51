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

extension Place {
    /// Whether `id` is a UUID in the 8-4-4-4-12 hex form (hyphens at 8, 13, 18 and 23, hex digits
    /// of either case elsewhere), as the game's app decodes `Location.id`.
    package static func isUUID(_ id: String) -> Bool {
        guard id.utf8.count == 36 else { return false }
        for (position, byte) in id.utf8.enumerated() {
            switch position {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                else { return false }
            }
        }
        return true
    }

    /// The text by which two ids are one place: the id itself, except that a UUID's hex digits
    /// are in lower case. An app decodes `Location.id` as a `UUID`, whatever its case, so
    /// `A1B2…` and `a1b2…` are one place to it; an import treats them as one id (a repeat in a
    /// file, an update of the stored place across imports). Any other id is compared byte for byte.
    package static func identity(ofID id: String) -> String {
        guard isUUID(id), id.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) else { return id }
        return String(decoding: id.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
