package import LocationCore

/// Where a synthetic mover goes. Positions are computed on the sphere of
/// ``/LocationCore/Sphere/radius`` (great circles, small circles), like the rest of the hot-path
/// geodesy.
package struct MotionPath: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case stationary(Coordinate)
        case route([Coordinate])
        case circle(center: Coordinate, radius: Double, clockwise: Bool, startBearing: Double)
        case randomWalk(start: Coordinate, turnSigma: Double, boundary: Double?)
    }

    let kind: Kind

    /// Standing still at `coordinate`, forever (bound it with a duration). Speed 0, no course.
    package static func stationary(at coordinate: Coordinate) -> MotionPath {
        MotionPath(kind: .stationary(coordinate))
    }

    /// A straight (great-circle) line from `start` to `end`; ends on arrival.
    package static func line(from start: Coordinate, to end: Coordinate) -> MotionPath {
        MotionPath(kind: .route([start, end]))
    }

    /// Great-circle legs through `waypoints` in order; ends on arrival at the last.
    /// One waypoint stands still for one fix.
    package static func route(through waypoints: [Coordinate]) -> MotionPath {
        MotionPath(kind: .route(waypoints))
    }

    /// Round and round a circle of `radius` metres (> 0) about `center`, forever, starting at
    /// `startBearing` degrees from the centre (0: due north of it).
    package static func circle(
        center: Coordinate, radius: Double, clockwise: Bool = true, startBearing: Double = 0
    ) -> MotionPath {
        MotionPath(kind: .circle(center: center, radius: radius, clockwise: clockwise, startBearing: startBearing))
    }

    /// A correlated random walk from `start`, forever: the heading starts uniformly random and
    /// drifts by N(0, turnSigma²·Δt) degrees per step (`turnSigma` in degrees per √second, ≥ 0).
    /// With a `boundary` (metres, > 0), a mover further than that from `start` turns back towards it.
    package static func randomWalk(from start: Coordinate, turnSigma: Double = 15, within boundary: Double? = nil)
        -> MotionPath
    {
        MotionPath(kind: .randomWalk(start: start, turnSigma: turnSigma, boundary: boundary))
    }

    /// Whether a mover on it goes on forever (standing still, a circle, a random walk) rather than
    /// arriving (a line, a route).
    package var isEndless: Bool {
        switch kind {
        case .stationary, .circle, .randomWalk: true
        case .route: false
        }
    }

    func validate() throws(SimulationError) {
        switch kind {
        case .stationary: break
        case .route(let points):
            if points.isEmpty {
                throw SimulationError(.emptyPath, parameter: "route", message: "a route needs at least one waypoint")
            }
            // Every great circle through a point passes its antipode: a leg between the two has no
            // one way (the mover would stand still, then jump half the Earth).
            for (index, (a, b)) in zip(points, points.dropFirst()).enumerated() {
                let antipode = Coordinate(uncheckedLatitude: -a.latitude, longitude: a.longitude > 0 ? a.longitude - 180 : a.longitude + 180)
                if b.distance(to: antipode) < 1 {
                    throw SimulationError(
                        .invalidParameter, parameter: points.count == 2 ? "to" : "route[\(index + 1)]",
                        message: "\(b) is the antipode of \(a) (opposite sides of the Earth): every great circle joins them, "
                            + "so the way between them is not one line; go through a waypoint between them")
                }
            }
        case .circle(_, let radius, _, let startBearing):
            try SimulationError.check(radius, in: 0.001...10_000_000, parameter: "circle.radius", unit: "m")
            try SimulationError.check(startBearing, in: -360...360, parameter: "circle.startBearing", unit: "°")
        case .randomWalk(_, let turnSigma, let boundary):
            try SimulationError.check(turnSigma, in: 0...360, parameter: "randomWalk.turnSigma", unit: "°/√s")
            if let boundary {
                try SimulationError.check(boundary, in: 0.001...20_000_000, parameter: "randomWalk.boundary", unit: "m")
            }
        }
    }
}
