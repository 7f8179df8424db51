package import LocationCore

/// Where a swarm's players move: a disc on the ground. Players start inside it (uniformly, or at
/// given places such as an index's) and turn back towards its centre when they wander outside.
package struct SwarmArea: Sendable, Hashable {
    /// The centre.
    package let center: Coordinate
    /// The radius in metres, > 0 and at most half the Earth's circumference.
    package let radius: Double

    /// Creates an area, checking the radius.
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` (parameter `area.radius`).
    package init(center: Coordinate, radius: Double) throws(ConfigurationError) {
        guard radius.isFinite, radius > 0, radius <= Sphere.halfCircumference else {
            throw ConfigurationError(
                parameter: "area.radius", "must be a number of metres > 0 and ≤ \(Sphere.halfCircumference), got \(radius)")
        }
        self.center = center
        self.radius = radius
    }

    /// A point drawn uniformly (by area, on the local plane) from the disc.
    func randomPoint(using random: inout SplitMix64) -> Coordinate {
        let distance = radius * random.uniform(0...1).squareRoot()
        return center.destination(distance: distance, bearing: random.uniform(0...1) * 360)
    }
}
