package import LocationCore

/// A place found by a radius query, with its distance from the query point.
package struct NearbyPlace: Sendable, Hashable {
    /// The place.
    package var place: Place
    /// Great-circle distance in metres from the query centre on the sphere of radius
    /// ``/LocationCore/Sphere/radius`` (``/LocationCore/Coordinate/distance(to:)``).
    package var distance: Double

    @inlinable
    package init(place: Place, distance: Double) {
        self.place = place
        self.distance = distance
    }
}

/// A place as stored: coordinates in integer units of 1e-7° (about 1.1 cm), the kind as a code
/// into the `placeKind` table, the level with `Int32.min` for "none".
package struct PlaceRecord: Sendable {
    /// Most UTF-8 bytes of id and name one place may have, in every store: the SQLite index's
    /// tile part (65,000 bytes, less its 4-byte count and 18 fixed bytes a place) must hold a
    /// place on its own, its 16-bit text offsets not overflowing.
    package static let maximumTextBytes = 65_000 - 4 - 18

    package var id: String
    package var name: String
    package var latitudeE7: Int32
    package var longitudeE7: Int32
    package var kindCode: UInt16
    package var level: Int32

    package static let noLevel = Int32.min

    /// The levels a place can have: every 32-bit whole number but ``noLevel``, in every import
    /// format and in the library.
    package static let levels = Int(Int32.min + 1)...Int(Int32.max)

    /// What a level is, for errors: `… is not a level (a whole number from -2147483647 to 2147483647)`.
    package static let levelRangeText = "a whole number from \(levels.lowerBound) to \(levels.upperBound)"

    /// `value` as a stored level, or nil when it is not one of ``levels``.
    package static func level(_ value: Int) -> Int32? {
        levels.contains(value) ? Int32(value) : nil
    }

    /// `value` as a stored level, or nil when it is not a whole number in ``levels``.
    package static func level(_ value: Double) -> Int32? {
        guard value == value.rounded(), value >= Double(levels.lowerBound), value <= Double(levels.upperBound) else { return nil }
        return Int32(value)
    }

    package init(id: String, name: String, latitudeE7: Int32, longitudeE7: Int32, kindCode: UInt16, level: Int32) {
        (self.id, self.name, self.latitudeE7, self.longitudeE7) = (id, name, latitudeE7, longitudeE7)
        (self.kindCode, self.level) = (kindCode, level)
    }

    /// Degrees → 1e-7° units, rounded to nearest; longitude 180 wraps to −180.
    package static func latitudeE7(_ degrees: Double) -> Int32 { Int32((degrees * 1e7).rounded()) }
    package static func longitudeE7(_ degrees: Double) -> Int32 {
        var value = Int64((degrees * 1e7).rounded())
        if value >= 1_800_000_000 { value -= 3_600_000_000 }
        return Int32(value)
    }
    /// 1e-7° units → degrees; the same Double a decimal with up to seven places parses to.
    @inline(__always) package static func degrees(_ e7: Int32) -> Double { Double(e7) / 1e7 }
}

extension NearbyPlace {
    /// The nearby query's arguments, as every backend checks them.
    ///
    /// - Throws: ``IndexError/Code/invalidArgument`` naming `radius` for a radius outside
    ///   1 m … ``/LocationCore/Sphere/halfCircumference`` (or not finite), `limit` for a limit ≤ 0.
    package static func checkQuery(radius: Double, limit: Int?) throws(IndexError) {
        guard radius.isFinite, radius >= 1, radius <= Sphere.halfCircumference else {
            throw IndexError(
                .invalidArgument,
                "radius \(radius) m is outside 1...\(Sphere.halfCircumference) m (half the Earth's circumference)",
                parameter: "radius")
        }
        if let limit, limit <= 0 {
            throw IndexError(.invalidArgument, "limit \(limit) must be > 0", parameter: "limit")
        }
    }
}
