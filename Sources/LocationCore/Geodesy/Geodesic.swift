// PLACEHOLDER: the WGS-84 geodesic solver is being written (issue 2). Until then these entry
// points answer on the sphere so dependants compile. Not to be released in this state.

/// The solution of the inverse geodesic problem between two points.
public struct GeodesicSolution: Sendable, Hashable {
    /// Length of the geodesic in metres.
    public var distance: Double
    /// Azimuth at the start, degrees clockwise from north, −180…180.
    public var initialAzimuth: Double
    /// Azimuth at the end (forward direction), degrees clockwise from north, −180…180.
    public var finalAzimuth: Double
}

/// Geodesics on an ellipsoid of revolution.
public struct Geodesic: Sendable {
    /// Equatorial radius in metres.
    public let equatorialRadius: Double
    /// Flattening.
    public let flattening: Double

    public init(equatorialRadius: Double, flattening: Double) {
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }

    /// The WGS-84 ellipsoid: a = 6,378,137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Solves the inverse problem: shortest geodesic from `start` to `end`.
    public func inverse(from start: Coordinate, to end: Coordinate) -> GeodesicSolution {
        GeodesicSolution(
            distance: start.distance(to: end), initialAzimuth: start.bearing(to: end), finalAzimuth: end.bearing(to: start))
    }
}

extension Coordinate {
    /// Length in metres of the shortest WGS-84 geodesic to `other`.
    public func geodesicDistance(to other: Coordinate) -> Double {
        Geodesic.wgs84.inverse(from: self, to: other).distance
    }
}
