#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore

/// A route given as legs (a scenario's `{"legs": […]}`): from a start, through each leg's
/// waypoints to its end at its own speed or motion profile, standing still for the leg's stop
/// before the next leg sets off from where it ended. The motion of each leg is ``SyntheticMotion``
/// on a route (its profile's speed variation and short stops, seeded by the scenario's seed and
/// the leg's index), so the same legs and seed give the same fixes.
package struct RouteLegs: Sendable, Hashable {
    /// One leg.
    package struct Leg: Sendable, Hashable {
        /// Where the leg goes: its start (the route's start, or the previous leg's end), its
        /// `via` points, its `to`.
        package var through: [Coordinate]
        /// How fast.
        package var speed: SpeedProfile
        /// How long the player stands at the leg's end.
        package var stop: Duration

        package init(through: [Coordinate], speed: SpeedProfile, stop: Duration) {
            self.through = through
            self.speed = speed
            self.stop = stop
        }
    }

    package var legs: [Leg]
    /// The time of the first fix.
    package var start: Date
    /// The seed of the legs' motion.
    package var seed: UInt64

    package init(legs: [Leg], start: Date, seed: UInt64) {
        self.legs = legs
        self.start = start
        self.seed = seed
    }

    /// The legs walked `rate` times a second, paced by `pacing` on `clock`: each leg's fixes, then
    /// its stop's, one after the other, every fix later than the one before.
    ///
    /// - Throws: ``SimulationError`` for a rate or speed out of range (a scenario file's values
    ///   are checked when it is read).
    package func motion<C: Clock<Duration>>(rate: Double = 1, pacing: Pacing, clock: C) throws(SimulationError) -> Motion<C> {
        // Every leg's mover is made here, so a value out of range fails now rather than mid-walk.
        for (index, leg) in legs.enumerated() {
            _ = try SyntheticMotion(
                path: .route(through: leg.through), speed: leg.speed, seed: seed &+ UInt64(index),
                configuration: .init(rate: rate, pacing: pacing, startTime: start), clock: clock, now: { start })
        }
        return Motion(route: self, rate: rate, pacing: pacing, clock: clock)
    }

    /// The fixes of ``RouteLegs/motion(rate:pacing:clock:)``.
    package struct Motion<C: Clock<Duration>>: LocationProvider {
        let route: RouteLegs
        let rate: Double
        let pacing: Pacing
        let clock: C

        package func makeAsyncIterator() -> Iterator { Iterator(motion: self) }

        package struct Iterator: AsyncIteratorProtocol {
            let motion: Motion
            /// The leg now walked, and whether it is at its stop.
            var leg = 0
            var stopping = false
            var current: SyntheticMotion<C>.Iterator?
            var last: Fix?

            package mutating func next() async throws -> Fix? { try await next(isolation: nil) }

            package mutating func next(isolation actor: isolated (any Actor)?) async throws -> Fix? {
                while true {
                    if current == nil {
                        guard let part = try nextPart() else { return nil }
                        current = part.makeAsyncIterator()
                    }
                    guard let fix = try await current?.next(isolation: actor) else {
                        current = nil
                        continue
                    }
                    // A part starts where and when the one before ended: that fix is sent once.
                    if let last, fix.time <= last.time { continue }
                    last = fix
                    return fix
                }
            }

            /// The next leg's mover, or its stop's; nil after the last.
            private mutating func nextPart() throws(SimulationError) -> SyntheticMotion<C>? {
                let route = motion.route
                while leg < route.legs.count {
                    let current = route.legs[leg]
                    let start = last?.time ?? route.start
                    var configuration = SyntheticMotion<C>.Configuration(rate: motion.rate, pacing: motion.pacing, startTime: start)
                    if !stopping {
                        stopping = true
                        return try SyntheticMotion(
                            path: .route(through: current.through), speed: current.speed, seed: route.seed &+ UInt64(leg),
                            configuration: configuration, clock: motion.clock, now: { start })
                    }
                    leg += 1
                    stopping = false
                    if current.stop > .zero, let end = last?.coordinate ?? current.through.last {
                        configuration.duration = current.stop.fractionalSeconds
                        return try SyntheticMotion(
                            path: .stationary(at: end), seed: route.seed, configuration: configuration, clock: motion.clock, now: { start })
                    }
                }
                return nil
            }
        }
    }
}

@available(*, unavailable)
extension RouteLegs.Motion.Iterator: Sendable {}
