#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The pure, seeded state of a synthetic mover: where it is, how fast it goes, and how one time
/// step changes that. ``SyntheticMotion`` only asks it for fixes and steps it.
struct MotionSimulator: Sendable {
    private let kind: MotionPath.Kind
    private let profile: SpeedProfile
    private var random: SeededGenerator
    /// Current speed in m/s.
    private(set) var speed: Double
    private var stopRemaining = 0.0

    // Route (line) state.
    private var waypoints: [Coordinate] = []
    private var cumulative: [Double] = []
    private var travelled = 0.0
    private var leg = 0

    // Circle, random walk, stationary state.
    private(set) var position: Coordinate
    private var heading: Double = 0
    private var home: Coordinate

    /// `true` once a finite path has reached its end (the fix at arrival is the last).
    private(set) var hasArrived = false

    init(path: MotionPath, profile: SpeedProfile, seed: UInt64) {
        kind = path.kind
        self.profile = profile
        random = SeededGenerator(seed: seed)
        speed = profile.meanSpeed
        switch path.kind {
        case .stationary(let coordinate):
            position = coordinate
            home = coordinate
            speed = 0
        case .route(let points):
            waypoints = points
            cumulative = [0]
            for (a, b) in zip(points, points.dropFirst()) { cumulative.append(cumulative.last! + a.distance(to: b)) }
            position = points[0]
            home = points[0]
            if cumulative.last! == 0 {
                hasArrived = true
                speed = 0
            } else {
                heading = routeCourse()
            }
        case .circle(let center, let radius, _, let startBearing):
            heading = normalizedCourse(startBearing)
            position = center.destination(distance: radius, bearing: heading)
            home = center
        case .randomWalk(let start, _, _):
            position = start
            home = start
            heading = random.nextUnit() * 360
        }
    }

    /// The fix describing the current state at `time`.
    func fix(at time: Date, altitude: Double?) -> Fix {
        switch kind {
        case .stationary:
            return Fix(time: time, coordinate: position, altitude: altitude, speed: 0, source: .synthetic)
        case .circle(_, _, let clockwise, _):
            return Fix(
                time: time, coordinate: position, altitude: altitude, speed: speed,
                course: normalizedCourse(heading + (clockwise ? 90 : -90)), source: .synthetic)
        case .route, .randomWalk:
            return Fix(
                time: time, coordinate: position, altitude: altitude, speed: speed, course: heading, source: .synthetic)
        }
    }

    /// Moves the state on by `dt` seconds.
    mutating func advance(by dt: Double) {
        guard !hasArrived, dt > 0 else { return }
        if case .stationary = kind { return }
        let distance = stepSpeed(dt)
        switch kind {
        case .stationary:
            break
        case .route:
            travelled = min(cumulative.last!, travelled + distance)
            while leg + 1 < cumulative.count - 1 && cumulative[leg + 1] <= travelled { leg += 1 }
            let length = cumulative[leg + 1] - cumulative[leg]
            let fraction = length > 0 ? min(1, (travelled - cumulative[leg]) / length) : 1
            position = waypoints[leg].intermediate(to: waypoints[leg + 1], fraction: fraction)
            if travelled >= cumulative.last! {
                hasArrived = true
                speed = 0
                position = waypoints[waypoints.count - 1]
            }
            heading = routeCourse()
        case .circle(let center, let radius, let clockwise, _):
            // Arc length on a small circle of angular radius r/R is R·sin(r/R)·Δθ.
            let circleRadius = Sphere.radius * sin(radius / Sphere.radius)
            let turn = distance / circleRadius * 180 / .pi
            heading = normalizedCourse(heading + (clockwise ? turn : -turn))
            position = center.destination(distance: radius, bearing: heading)
        case .randomWalk(_, let turnSigma, let boundary):
            if turnSigma > 0 { heading = normalizedCourse(heading + turnSigma * dt.squareRoot() * random.nextGaussian()) }
            if let boundary, position.distance(to: home) > boundary { heading = position.bearing(to: home) }
            position = position.destination(distance: distance, bearing: heading)
        }
    }

    /// Advances the speed process by `dt` and returns the distance covered meanwhile (speed at the
    /// start of the step times `dt`).
    private mutating func stepSpeed(_ dt: Double) -> Double {
        if stopRemaining > 0 {
            stopRemaining -= dt
            if stopRemaining <= 0 {
                stopRemaining = 0
                speed = profile.meanSpeed
            }
            return 0
        }
        let distance = speed * dt
        if profile.speedSigma > 0 {
            let phi = exp(-dt / profile.correlationTime)
            let mean = profile.meanSpeed
            let next = mean + (speed - mean) * phi + profile.speedSigma * (1 - phi * phi).squareRoot() * random.nextGaussian()
            speed = min(max(0, next), mean + 4 * profile.speedSigma)
        }
        if let stops = profile.stops, random.nextUnit() < 1 - exp(-dt / stops.meanInterval) {
            stopRemaining = random.nextDouble(in: stops.duration)
            if stopRemaining > 0 { speed = 0 }
        }
        return distance
    }

    /// Course along the current route leg at the current position.
    private func routeCourse() -> Double {
        var i = leg
        while i + 1 < waypoints.count - 1 && waypoints[i] == waypoints[i + 1] { i += 1 }
        let target = waypoints[min(i + 1, waypoints.count - 1)]
        if position != target { return position.bearing(to: target) }
        // At the leg's end: keep the direction of arrival.
        let from = waypoints[i]
        return from == target ? heading : normalizedCourse(target.bearing(to: from) + 180)
    }
}
