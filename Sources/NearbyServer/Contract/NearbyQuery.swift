package import LocationCore

/// A checked `GET /locations/nearby` query: `lat`, `lng`, `radius` (metres) and `limit`.
///
/// Parsing is pure, so every bad-input row is a unit test: each failure is a ``ServerError``
/// with code ``ServerError/Code/badRequest`` naming the parameter.
///
/// | parameter | required | accepted |
/// |---|---|---|
/// | `lat` | yes | decimal degrees −90…90 |
/// | `lng` | yes | decimal degrees −180…180 |
/// | `radius` | no (the game's 5,000 m) | metres, 1…`maximumRadius` |
/// | `limit` | no (all) | a whole number 1…1,000,000 |
///
/// Numbers are plain decimals (`35.68`, `-1e-3`); `nan`, `inf`, hex and empty values are refused,
/// and so is a parameter given twice.
package struct NearbyQuery: Sendable, Hashable {
    /// The game's radius when the query names none, in metres.
    package static let defaultRadius = 5_000.0
    /// The largest `limit` accepted.
    package static let maximumLimit = 1_000_000

    /// The query point.
    package var center: Coordinate
    /// Metres.
    package var radius: Double
    /// The nearest `limit` places, or `nil` for all.
    package var limit: Int?

    /// Creates a query from values already checked.
    package init(center: Coordinate, radius: Double, limit: Int?) {
        self.center = center
        self.radius = radius
        self.limit = limit
    }

    /// Reads a query from its parameters.
    ///
    /// - Parameters:
    ///   - parameters: Name and (percent-decoded) value pairs, in request order.
    ///   - maximumRadius: The largest radius accepted, metres (the server's `--max-radius`).
    /// - Throws: ``ServerError`` (`bad_request`, with `parameter`) for the first bad parameter,
    ///   checked in the order `lat`, `lng`, `radius`, `limit`.
    package init(parameters: some Sequence<(name: Substring, value: Substring)>, maximumRadius: Double) throws(ServerError) {
        // The four names in fixed slots (first value, times given): no dictionary per request.
        var values: [(value: Substring, count: Int)] = Array(repeating: ("", 0), count: Self.names.count)
        var misnamed: (given: Substring, meant: String)?
        for (name, value) in parameters {
            guard let slot = Self.names.firstIndex(where: { $0 == name }) else {
                // Other parameters are no concern of the contract (a cache buster, a token), but
                // one that is surely meant as one of its own must not be dropped in silence.
                if misnamed == nil, let meant = Self.meant(by: name) { misnamed = (name, meant) }
                continue
            }
            if values[slot].count == 0 { values[slot].value = value }
            values[slot].count += 1
        }
        if let (given, meant) = misnamed {
            let name = TextExcerpt.render(given, limit: 64)
            throw .badRequest("\(name) is no parameter of this route: give it as \(meant) (lat, lng, radius, limit)", parameter: meant)
        }
        func single(_ name: String) throws(ServerError) -> Substring? {
            let given = values[Self.names.firstIndex(of: name)!]
            guard given.count > 0 else { return nil }
            guard given.count == 1 else { throw .badRequest("\(name) is given \(given.count) times; give it once", parameter: name) }
            return given.value
        }
        guard let latText = try single("lat") else { throw .badRequest("lat is required (degrees, -90...90)", parameter: "lat") }
        guard let lngText = try single("lng") else { throw .badRequest("lng is required (degrees, -180...180)", parameter: "lng") }
        let latitude = try Self.number(latText, name: "lat", unit: "degrees")
        guard (-90...90).contains(latitude) else {
            throw .badRequest("lat must be within -90...90 degrees, got \(TextExcerpt.render(latText, limit: 64))", parameter: "lat")
        }
        let longitude = try Self.number(lngText, name: "lng", unit: "degrees")
        guard (-180...180).contains(longitude) else {
            throw .badRequest("lng must be within -180...180 degrees, got \(TextExcerpt.render(lngText, limit: 64))", parameter: "lng")
        }
        var radius = Self.defaultRadius
        if let radiusText = try single("radius") {
            radius = try Self.number(radiusText, name: "radius", unit: "metres")
            guard radius >= 1 else { throw .badRequest("radius must be at least 1 m, got \(TextExcerpt.render(radiusText, limit: 64))", parameter: "radius") }
            guard radius <= maximumRadius else {
                throw .badRequest(
                    "radius \(radiusText) m is above this server's cap of \(Self.text(maximumRadius)) m (--max-radius)",
                    parameter: "radius")
            }
        }
        var limit: Int?
        if let limitText = try single("limit") {
            guard !limitText.isEmpty, limitText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw .badRequest("limit must be a whole number 1...\(Self.maximumLimit), got '\(TextExcerpt.render(limitText, limit: 64))'", parameter: "limit")
            }
            guard let value = Int(limitText), (1...Self.maximumLimit).contains(value) else {
                throw .badRequest("limit must be within 1...\(Self.maximumLimit), got \(TextExcerpt.render(limitText, limit: 64))", parameter: "limit")
            }
            limit = value
        }
        self.init(center: Coordinate(uncheckedLatitude: latitude, longitude: longitude), radius: radius, limit: limit)
    }

    private static let names = ["lat", "lng", "radius", "limit"]

    /// The contract's parameter a client surely meant by `name`: one of them in other letter
    /// case (`LIMIT`, `Lat`), or a common other name for a coordinate (`lon`, `latitude`).
    private static func meant(by name: Substring) -> String? {
        if let own = QueryParameters.meant(by: name, among: names) { return own }
        return switch name.lowercased() {
        case "latitude": "lat"
        case "lon", "long", "longitude": "lng"
        default: nil
        }
    }

    /// A finite decimal, or the parameter's error.
    private static func number(_ text: Substring, name: String, unit: String) throws(ServerError) -> Double {
        var copy = text
        // DecimalNumber takes digits only, so `nan` and `inf` fail here and are told apart below.
        guard let parsed = copy.withUTF8({ DecimalNumber(parsing: $0) }) else {
            let lowered = text.lowercased()
            if ["nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"].contains(lowered) {
                throw .badRequest("\(name) must be a finite number of \(unit), got \(TextExcerpt.render(text, limit: 64))", parameter: name)
            }
            throw .badRequest("\(name) must be a decimal number of \(unit), got '\(TextExcerpt.render(text, limit: 64))'", parameter: name)
        }
        guard parsed.value.isFinite else {
            throw .badRequest("\(name) must be a finite number of \(unit), got \(TextExcerpt.render(text, limit: 64))", parameter: name)
        }
        return parsed.value
    }

    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
