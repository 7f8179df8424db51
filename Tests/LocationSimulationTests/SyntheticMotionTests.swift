import Foundation
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

/// Every number that makes up a fix, as bit patterns, so "equal" means bit-identical (0.0 ≠ −0.0).
func bits(_ fix: Fix) -> [UInt64] {
    [
        fix.time.timeIntervalSinceReferenceDate.bitPattern, fix.coordinate?.latitude.bitPattern ?? 1,
        fix.coordinate?.longitude.bitPattern ?? 1, fix.speed?.bitPattern ?? 1, fix.course?.bitPattern ?? 1,
        fix.altitude?.bitPattern ?? 1, fix.horizontalAccuracy?.bitPattern ?? 1, UInt64(fix.mode.rawValue),
    ]
}

@Suite("SyntheticMotion", .timeLimit(.minutes(1))) struct SyntheticMotionTests {
    static let tokyo = coordinate(35.6812, 139.7671)
    static let ginza = coordinate(35.6717, 139.7650)

    static let paths: [(String, MotionPath)] = [
        ("stationary", .stationary(at: tokyo)),
        ("line", .line(from: tokyo, to: ginza)),
        ("route", .route(through: [tokyo, coordinate(35.6790, 139.7700), ginza])),
        ("circle", .circle(center: tokyo, radius: 150)),
        ("randomWalk", .randomWalk(from: tokyo, within: 500)),
    ]

    func motion(
        _ path: MotionPath, speed: SpeedProfile = .walk, seed: UInt64 = 42, duration: Double? = 900,
        noise: NoiseModel? = nil, rate: Double = 1, clock: VirtualClock = VirtualClock()
    ) throws -> SyntheticMotion<VirtualClock> {
        try SyntheticMotion(
            path: path, speed: speed, seed: seed,
            configuration: .init(rate: rate, pacing: .virtual, duration: duration, startTime: wallStart, noise: noise),
            clock: clock, now: fixedNow)
    }

    @Test("Same seed gives a bit-identical stream; another seed another stream", arguments: 0..<5)
    func reproducible(index: Int) async throws {
        let (name, path) = Self.paths[index]
        let clock = VirtualClock()
        for speed in [SpeedProfile.walk, .drive] {
            let noise = NoiseModel(seed: 9, outliers: .init(probability: 0.02), dropouts: .init(meanInterval: 120))
            let a = try await collect(motion(path, speed: speed, noise: noise), on: clock).map { bits($0.fix) }
            let b = try await collect(motion(path, speed: speed, noise: noise), on: clock).map { bits($0.fix) }
            #expect(a == b, "\(name)")
            #expect(a.count > 10, "\(name)")
            let otherNoise = try await collect(
                motion(path, speed: speed, noise: NoiseModel(seed: 10, outliers: .init(probability: 0.02))), on: clock)
            #expect(otherNoise.map { bits($0.fix) } != a, "\(name)")
            if name != "stationary" {
                let otherSeed = try await collect(motion(path, speed: speed, seed: 43), on: clock).map { bits($0.fix) }
                let clean = try await collect(motion(path, speed: speed), on: clock).map { bits($0.fix) }
                #expect(otherSeed != clean, "\(name)")
            }
        }
    }

    @Test(
        "An endless path cut by a duration knows its last fix's time before moving; without a duration it never ends; a line knows neither",
        arguments: 0..<5)
    func knownEnd(index: Int) async throws {
        let (name, path) = Self.paths[index]
        for (duration, rate) in [(10.0, 1.0), (10.6, 2.0), (7.0, 0.3)] {
            let motion = try motion(path, duration: duration, rate: rate)
            #expect(!motion.isEndless, "\(name)")
            let fixes = try await collect(motion, on: VirtualClock())
            let last = fixes.last!.fix.time.timeIntervalSince(fixes[0].fix.time)
            if path.isEndless {
                #expect(abs(try #require(motion.knownDuration) - last) < 1e-6, "\(name) \(duration) s at \(rate) Hz")
            } else {
                #expect(motion.knownDuration == nil, "\(name)")
            }
        }
        let unbounded = try motion(path, duration: nil)
        #expect(unbounded.isEndless == path.isEndless, "\(name)")
        #expect(unbounded.knownDuration == nil, "\(name)")
    }

    @Test("A line at constant speed moves exactly speed × dt per fix and ends on B")
    func line() async throws {
        let clock = VirtualClock()
        let fixes = try await collect(
            motion(.line(from: Self.tokyo, to: Self.ginza), speed: .constant(1.4), duration: nil), on: clock
        ).map(\.fix)
        let length = Self.tokyo.distance(to: Self.ginza)
        #expect(fixes.count == Int((length / 1.4).rounded(.up)) + 1)
        for (k, fix) in fixes.dropLast().enumerated() {
            #expect(abs(Self.tokyo.distance(to: fix.coordinate!) - 1.4 * Double(k)) < 1e-6)
            #expect(fix.time == wallStart.addingTimeInterval(Double(k)))
            #expect(fix.speed == 1.4)
            #expect(abs(fix.course! - fix.coordinate!.bearing(to: Self.ginza)) < 1e-9)
        }
        #expect(fixes.last?.coordinate == Self.ginza)
        #expect(fixes.last?.speed == 0)
    }

    @Test("A route passes every waypoint and takes length / speed")
    func route() async throws {
        let waypoints = [Self.tokyo, coordinate(35.6790, 139.7700), Self.ginza]
        let fixes = try await collect(
            motion(.route(through: waypoints), speed: .constant(2), duration: nil), on: VirtualClock()
        ).map(\.fix)
        let length = zip(waypoints, waypoints.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
        #expect(fixes.count == Int((length / 2).rounded(.up)) + 1)
        for waypoint in waypoints {
            let closest = fixes.map { $0.coordinate!.distance(to: waypoint) }.min()!
            #expect(closest <= 1 + 1e-6)  // within half a step (2 m per fix)
        }
    }

    @Test("A circle keeps its radius and comes round in circumference / speed")
    func circle() async throws {
        let radius = 150.0
        let fixes = try await collect(
            motion(.circle(center: Self.tokyo, radius: radius), speed: .constant(3), duration: 2 * .pi * radius / 3),
            on: VirtualClock()
        ).map(\.fix)
        for fix in fixes {
            #expect(abs(fix.coordinate!.distance(to: Self.tokyo) - radius) < 1e-6)
            let outward = Self.tokyo.bearing(to: fix.coordinate!)
            let turn = (fix.course! - outward + 360).truncatingRemainder(dividingBy: 360)
            #expect(abs(turn - 90) < 1e-6)  // clockwise: course is 90° right of the radius
        }
        // One lap later the mover is back where it started, within one 3 m step.
        #expect(fixes.last!.coordinate!.distance(to: fixes.first!.coordinate!) < 3)
    }

    @Test("A bounded random walk stays near its boundary")
    func randomWalk() async throws {
        let fixes = try await collect(
            motion(.randomWalk(from: Self.tokyo, within: 200), speed: .constant(1.4), duration: 7200),
            on: VirtualClock()
        ).map(\.fix)
        let farthest = fixes.map { $0.coordinate!.distance(to: Self.tokyo) }.max()!
        let bound: Double = 200 + 2 * 1.4
        #expect(farthest < bound)
        #expect(farthest > 100)  // it does wander
    }

    @Test("Standing still for a duration at 2 Hz")
    func stationary() async throws {
        let fixes = try await collect(
            motion(.stationary(at: Self.tokyo), duration: 10, rate: 2), on: VirtualClock()
        ).map(\.fix)
        #expect(fixes.count == 21)
        #expect(fixes.allSatisfy { $0.coordinate == Self.tokyo && $0.speed == 0 })
        #expect(fixes.last?.time == wallStart.addingTimeInterval(10))
    }

    @Test("Speed profiles: mean speed, and stops of the stated length", arguments: [("walk", SpeedProfile.walk), ("run", .run), ("cycle", .cycle), ("drive", .drive)])
    func profiles(name: String, profile: SpeedProfile) async throws {
        let fixes = try await collect(
            motion(.randomWalk(from: Self.tokyo), speed: profile, duration: 4 * 3600), on: VirtualClock()
        ).map(\.fix)
        let speeds = fixes.map { $0.speed! }
        let moving = speeds.filter { $0 > 0 }
        let mean = moving.reduce(0, +) / Double(moving.count)
        // The speed is an Ornstein–Uhlenbeck process (σ, τ): over T seconds about T/(2τ) independent
        // samples, so the mean's standard error is σ/√(T/2τ) (walk 0.010 m/s … drive 0.16 m/s over 4 h);
        // the bound is about 4 standard errors.
        let tolerance = 4 * profile.speedSigma / (4 * 3600 / (2 * profile.correlationTime)).squareRoot()
        #expect(abs(mean - profile.meanSpeed) < tolerance, "\(name)")
        #expect(speeds.allSatisfy { $0 >= 0 && $0 <= profile.meanSpeed + 4 * profile.speedSigma })
        // Stops: runs of zero speed, each within the profile's stop duration (±1 s of sampling).
        var runs: [Int] = [], run = 0
        for speed in speeds {
            if speed == 0 { run += 1 } else if run > 0 { runs.append(run); run = 0 }
        }
        let stops = try #require(profile.stops)
        #expect(runs.count > 3, "\(name)")
        #expect(runs.allSatisfy { Double($0) >= stops.duration.lowerBound - 1 && Double($0) <= stops.duration.upperBound + 1 })
    }

    @Test("Timed pacing delivers fix k at k / rate / speedFactor on the clock")
    func timed() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let provider = try SyntheticMotion(
            path: .circle(center: Self.tokyo, radius: 50), speed: .walk, seed: 1,
            configuration: .init(rate: 2, pacing: .timed(speedFactor: 4), duration: 30), clock: clock, now: fixedNow)
        let delivered = try await collect(provider, on: clock)
        let due: [Duration] = (0...60).map { Duration.seconds(Double($0) / 8) }
        #expect(delivered.map(\.at) == due)
        #expect(delivered.first?.fix.time == wallStart)  // no startTime: now() at the first fix
        #expect(delivered.last?.fix.time == wallStart.addingTimeInterval(30))
    }

    @Test("stampsSendingTime: each fix carries the time it is sent at (k / rate / speedFactor), as a receiver's; the same with virtual pacing")
    func sendingTime() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let timed = try SyntheticMotion(
            path: .circle(center: Self.tokyo, radius: 50), speed: .walk, seed: 1,
            configuration: .init(rate: 2, pacing: .timed(speedFactor: 4), duration: 30, stampsSendingTime: true), clock: clock, now: fixedNow)
        let delivered = try await collect(timed, on: clock)
        #expect(delivered.count == 61)
        #expect(delivered.allSatisfy { $0.fix.time == wallStart.addingTimeInterval($0.at.fractionalSeconds) }, "\(delivered.prefix(3))")
        #expect(delivered.last?.fix.time == wallStart.addingTimeInterval(30.0 / 4))
        // Virtual pacing sends each fix at its own offset: the stamps are the motion's.
        let virtual = try SyntheticMotion(
            path: .circle(center: Self.tokyo, radius: 50), speed: .walk, seed: 1,
            configuration: .init(rate: 2, pacing: .virtual, duration: 30, stampsSendingTime: true), clock: clock, now: fixedNow)
        var times: [Date] = []
        for try await fix in virtual { times.append(fix.time) }
        #expect(times == (0...60).map { wallStart.addingTimeInterval(Double($0) / 2) })
    }

    @Test("Pause and cancellation work on synthetic motion too")
    func pauseAndCancel() async throws {
        let clock = VirtualClock()
        let control = ReplayControl(paused: true)
        let provider = try SyntheticMotion(
            path: .circle(center: Self.tokyo, radius: 50), seed: 1, configuration: .init(), control: control,
            clock: clock, now: fixedNow)
        let consumer = Task { try await collect(provider, on: clock) }
        await clock.advance(by: .seconds(5))  // nothing delivered: held
        control.resume()
        await clock.waitForSleepers(1)  // the consumer sleeps towards its next fix
        consumer.cancel()
        let delivered = try await consumer.value
        #expect(delivered.count == 1)
        #expect(clock.sleeperCount == 0)
    }
}
