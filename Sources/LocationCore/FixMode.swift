/// The quality of a position report, as GPS receivers and gpsd describe it.
///
/// The raw values are gpsd's `mode` values (`MODE_NO_FIX` = 1, `MODE_2D` = 2, `MODE_3D` = 3) and
/// NMEA GSA's fix type, so they cross those edges unchanged.
public enum FixMode: Int, Sendable, Hashable, Codable, Comparable, CaseIterable, CustomStringConvertible {
    /// The receiver has no position. A ``Fix`` in this mode has no coordinate.
    case noFix = 1
    /// Latitude and longitude, no trustworthy altitude.
    case twoDimensional = 2
    /// Latitude, longitude and altitude.
    case threeDimensional = 3

    public static func < (lhs: FixMode, rhs: FixMode) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `"none"`, `"2d"` or `"3d"`: the spelling used in reports and JSON lines.
    public var description: String {
        switch self {
        case .noFix: "none"
        case .twoDimensional: "2d"
        case .threeDimensional: "3d"
        }
    }

    /// Parses ``description``'s spelling (and GPX's `<fix>` values `none`, `2d`, `3d`).
    public init?(name: some StringProtocol) {
        switch name {
        case "none": self = .noFix
        case "2d": self = .twoDimensional
        case "3d": self = .threeDimensional
        default: return nil
        }
    }
}
