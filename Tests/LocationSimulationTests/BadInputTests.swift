import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

@Suite("Bad input gets a typed error or a documented behaviour", .timeLimit(.minutes(1))) struct BadInputTests {
    let clock = VirtualClock(autoAdvance: true)

    func replay(_ path: ReplayPath, _ configuration: GPXReplay<VirtualClock>.Configuration) throws(SimulationError)
        -> GPXReplay<VirtualClock>
    {
        try GPXReplay(path: path, configuration: configuration, clock: clock, now: fixedNow)
    }

    @Test("Speed factors outside 0.1...1000 are rejected", arguments: [0, -1, -0.0, .nan, .infinity, 1000.5, 0.05])
    func speedFactor(_ factor: Double) throws {
        let error = #expect(throws: SimulationError.self) {
            try replay(track([0, 1]), .init(pacing: .timed(speedFactor: factor)))
        }
        #expect(error?.code == .invalidSpeedFactor)
        #expect(error?.parameter == "speedFactor")
        #expect(throws: SimulationError.self) {
            try SyntheticMotion(
                path: .stationary(at: coordinate(0, 0)), seed: 1,
                configuration: .init(pacing: .timed(speedFactor: factor)), clock: clock, now: fixedNow)
        }
    }

    @Test("Speed factors at the limits are accepted", arguments: [0.1, 1000])
    func speedFactorLimits(_ factor: Double) throws {
        _ = try replay(track([0, 1]), .init(pacing: .timed(speedFactor: factor)))
    }

    @Test("An empty track, route, waypoint list or document is an emptyPath error")
    func empty() throws {
        for path in [
            ReplayPath(track: GPXTrack()), ReplayPath(track: GPXTrack(segments: [[], []])),
            ReplayPath(route: GPXRoute()), ReplayPath(waypoints: []),
        ] {
            expectError(.emptyPath) { try replay(path, .init()) }
        }
        expectError(.emptyPath) { try ReplayPath(document: GPXDocument()) }
        expectError(.emptyPath) {
            try SyntheticMotion(path: .route(through: []), seed: 1, clock: clock, now: fixedNow)
        }
    }

    @Test("A leg between antipodes (no one great circle joins them) is refused naming the waypoint; one a metre short of it is walked")
    func antipodes() throws {
        let cases: [(Coordinate, Coordinate)] = try [
            (Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 180)),
            (Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 0)),
            (Coordinate(latitude: 35.68, longitude: 139.76), Coordinate(latitude: -35.68, longitude: -40.24)),
        ]
        for (a, b) in cases {
            expectError(.invalidParameter) { try SyntheticMotion(path: .line(from: a, to: b), seed: 1, clock: clock, now: fixedNow) }
        }
        let via = try Coordinate(latitude: 10, longitude: 10)
        do {
            _ = try SyntheticMotion(path: .route(through: [via, cases[0].0, cases[0].1]), seed: 1, clock: clock, now: fixedNow)
            Issue.record("an antipodal leg was accepted")
        } catch {
            #expect(error.parameter == "route[2]" && error.message.contains("is the antipode of"), "\(error)")
        }
        // Two metres short of the antipode: one great circle, walked.
        let near = cases[0].0.destination(distance: Double.pi * Sphere.radius - 2, bearing: 90)
        _ = try SyntheticMotion(path: .line(from: cases[0].0, to: near), seed: 1, clock: clock, now: fixedNow)
    }

    @Test("A one-point track plays one fix, in every mode")
    func onePoint() async throws {
        for configuration: GPXReplay<VirtualClock>.Configuration in [
            .init(), .init(pacing: .virtual), .init(rate: 1), .init(ignoresTimestamps: true),
        ] {
            let fixes = try await collect(try replay(track([0]), configuration), on: clock)
            #expect(fixes.count == 1)
        }
        let untimed = try await collect(try replay(track([nil]), .init()), on: clock)
        #expect(untimed.map(\.fix.time) == [wallStart])
    }

    @Test("Looping a path that spans no time is a zeroLengthLoop error")
    func zeroLengthLoop() throws {
        let samePlace = ReplayPath(route: GPXRoute(points: [point(0, at: nil), point(0, at: nil)]))
        for path in [track([0]), track([5, 5, 5]), samePlace] {
            let error = #expect(throws: SimulationError.self) { try replay(path, .init(loops: true)) }
            #expect(error?.code == .zeroLengthLoop)
        }
    }

    @Test("Rates outside 0.001...100 Hz are rejected", arguments: [0, -1, .nan, 101])
    func rate(_ rate: Double) throws {
        expectError(.invalidRate) { try replay(track([0, 1]), .init(rate: rate)) }
        expectError(.invalidRate) {
            try SyntheticMotion(
                path: .stationary(at: coordinate(0, 0)), seed: 1, configuration: .init(rate: rate), clock: clock,
                now: fixedNow)
        }
    }

    @Test("Some points timed and some not: missingTimestamp naming the first untimed point")
    func mixedTimestamps() throws {
        let error = #expect(throws: SimulationError.self) { try replay(track([0, 1, nil, 3]), .init()) }
        #expect(error?.code == .missingTimestamp)
        #expect(error?.parameter == "track segment 0, point 2")
        // Documented way out: ignore the times.
        _ = try replay(track([0, 1, nil, 3]), .init(ignoresTimestamps: true))
    }

    @Test("Start offsets outside the path are rejected", arguments: [-1, .nan, 3.5])
    func startOffset(_ offset: Double) throws {
        expectError(.offsetOutOfRange) {
            try replay(track([0, 1, 3]), .init(startOffset: offset))
        }
    }

    @Test("Other parameters name themselves")
    func otherParameters() throws {
        let cases: [(GPXReplay<VirtualClock>.Configuration, String)] = [
            (.init(untimedSpeed: 0), "untimedSpeed"),
            (.init(gapThreshold: 0), "gapThreshold"),
            (.init(loopInterval: -1), "loopInterval"),
            (.init(noise: NoiseModel(seed: 1, sigma: -1)), "noise.sigma"),
            (.init(noise: NoiseModel(seed: 1, correlationTime: 0)), "noise.correlationTime"),
            (.init(noise: NoiseModel(seed: 1, outliers: .init(probability: 2))), "noise.outliers.probability"),
        ]
        for (configuration, parameter) in cases {
            let error = #expect(throws: SimulationError.self) { try replay(track([0, 1]), configuration) }
            #expect(error?.code == .invalidParameter)
            #expect(error?.parameter == parameter)
        }
        expectError(.invalidParameter) {
            try SyntheticMotion(
                path: .circle(center: coordinate(0, 0), radius: 0), seed: 1, clock: clock, now: fixedNow)
        }
        expectError(.invalidParameter) {
            try SyntheticMotion(
                path: .line(from: coordinate(0, 0), to: coordinate(0, 1)), speed: .constant(.nan), seed: 1,
                clock: clock, now: fixedNow)
        }
    }

    @Test("Errors describe themselves")
    func descriptions() throws {
        let error = #expect(throws: SimulationError.self) {
            try replay(track([0, 1]), .init(pacing: .timed(speedFactor: 0)))
        }
        #expect(error?.description == "invalid speed factor (speedFactor): 0 is outside 0.1...1000 (times real time)")
        // A range that stands for "above zero" or "no limit" is said in words, not as the
        // extreme Doubles it is checked with.
        let gap = #expect(throws: SimulationError.self) { try replay(track([0, 1]), .init(pacing: .virtual, gapThreshold: 0)) }
        #expect(gap?.message == "must be more than 0 s, got 0", "\(String(describing: gap))")
        let canyon = #expect(throws: SimulationError.self) {
            try GPSTrouble(windows: [TroubleWindow(.urbanCanyon(accuracy: -10...20), at: .seconds(1), for: .seconds(5))], seed: 1)
        }
        #expect(canyon?.message.hasPrefix("must be more than 0 and at most 1000000 m, got -10") == true, "\(String(describing: canyon))")
    }
}
