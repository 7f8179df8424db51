/// A position on the WGS-84 ellipsoid, in degrees.
///
/// Latitude lies in −90…90 and longitude in −180..<180. A longitude of exactly 180 is
/// normalised to −180 (the same meridian), so every meridian has one spelling. Any other value
/// outside those ranges, and any non-finite value, is rejected with a ``CoordinateError``:
/// nothing is clamped or wrapped silently.
///
/// ```swift
/// let tokyo = try Coordinate(latitude: 35.6812, longitude: 139.7671)
/// let osaka = try Coordinate(latitude: 34.7025, longitude: 135.4959)
/// tokyo.distance(to: osaka)           // 402_966 m on the sphere
/// tokyo.geodesicDistance(to: osaka)   // WGS-84 geodesic
/// ```
public struct Coordinate: Sendable, Hashable, Codable {
    /// Latitude in degrees, −90…90, positive north.
    public let latitude: Double
    /// Longitude in degrees, −180..<180, positive east.
    public let longitude: Double

    /// Creates a coordinate, validating both components.
    ///
    /// - Parameters:
    ///   - latitude: WGS-84 latitude in degrees, −90…90.
    ///   - longitude: WGS-84 longitude in degrees, −180…180; 180 becomes −180.
    /// - Throws: ``CoordinateError`` naming the component and the value when either is
    ///   non-finite or out of range.
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite else { throw CoordinateError(.notFinite, component: .latitude, value: latitude) }
        guard longitude.isFinite else { throw CoordinateError(.notFinite, component: .longitude, value: longitude) }
        guard (-90.0...90.0).contains(latitude) else {
            throw CoordinateError(.outOfRange, component: .latitude, value: latitude)
        }
        guard (-180.0...180.0).contains(longitude) else {
            throw CoordinateError(.outOfRange, component: .longitude, value: longitude)
        }
        self.latitude = latitude
        self.longitude = longitude == 180 ? -180 : longitude
    }

    /// Creates a coordinate from values the caller has already validated or produced by
    /// geodesy on valid input (for example a longitude already wrapped into −180..<180).
    ///
    /// - Important: Only for values known to be in range; the check is a debug assertion.
    @inlinable
    package init(uncheckedLatitude latitude: Double, longitude: Double) {
        assert(latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && longitude >= -180 && longitude <= 180)
        self.latitude = latitude
        self.longitude = longitude == 180 ? -180 : longitude
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try container.decode(Double.self, forKey: .latitude)
        let longitude = try container.decode(Double.self, forKey: .longitude)
        do {
            try self.init(latitude: latitude, longitude: longitude)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: error.component == .latitude ? .latitude : .longitude,
                in: container, debugDescription: error.description)
        }
    }
}

extension Coordinate: CustomStringConvertible {
    /// `"35.6812000,139.7671000"`: seven decimals, about 1 cm.
    public var description: String {
        "\(Self.formatDegrees(latitude)),\(Self.formatDegrees(longitude))"
    }

    /// Formats degrees with seven decimals without Foundation's formatter.
    static func formatDegrees(_ value: Double) -> String {
        let scaled = (value * 1e7).rounded()
        let negative = scaled < 0
        let magnitude = Int64(abs(scaled))
        let whole = magnitude / 10_000_000
        let fraction = String(magnitude % 10_000_000)
        let padded = String(repeating: "0", count: 7 - fraction.count) + fraction
        return (negative ? "-" : "") + "\(whole).\(padded)"
    }
}

/// Why a latitude or longitude was rejected.
public struct CoordinateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// NaN or infinity.
        public static let notFinite = Code("not finite")
        /// Latitude outside −90…90 or longitude outside −180…180.
        public static let outOfRange = Code("out of range")
        public var description: String { name }
    }

    /// Which component was wrong.
    public enum Component: String, Sendable, Hashable {
        case latitude, longitude
    }

    public let code: Code
    public let component: Component
    public let value: Double

    init(_ code: Code, component: Component, value: Double) {
        self.code = code
        self.component = component
        self.value = value
    }

    public var description: String {
        let range = component == .latitude ? "-90...90" : "-180...180"
        return "\(component.rawValue) \(value) is \(code); expected degrees in \(range)"
    }
}

extension CoordinateError.Code {
    /// Lets `catch CoordinateError.Code.outOfRange` match a thrown ``CoordinateError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? CoordinateError)?.code == code
    }
}
