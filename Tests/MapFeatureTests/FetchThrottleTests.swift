import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing
import LocSimTestHelpers

/// The rule at its edges. Positions are built with `FixScript` (great-circle offsets from an
/// origin) and every distance the rule sees is re-measured with `Coordinate.distance(to:)`, the
/// metric the rule uses, so the boundaries are checked against the real comparison.
@Suite(.ownThread) struct FetchThrottleTests {
    let script = FixScript(origin: Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671))

    /// A throttle whose last fetch was at the origin at t = 0.
    func anchored(_ configuration: FetchThrottle.Configuration = .game) -> FetchThrottle {
        var throttle = FetchThrottle(configuration: configuration)
        throttle.recordFetch(center: script.origin, at: script.time(0))
        throttle.recordSuccess()
        return throttle
    }

    @Test("The first accepted fix fetches, for reason `first`")
    func first() {
        #expect(FetchThrottle().decision(for: script.fix(at: 0)) == .fetch(.first))
    }

    @Test("99.9 m does not fetch, 100.1 m fetches as `moved`", arguments: [0.0, 90, 180, 270, 45])
    func distanceBoundary(bearing: Double) throws {
        let throttle = anchored()
        let near = script.origin.destination(distance: 99.9, bearing: bearing)
        let far = script.origin.destination(distance: 100.1, bearing: bearing)
        try #require(script.origin.distance(to: near) < 100)
        try #require(script.origin.distance(to: far) > 100)
        #expect(throttle.decision(for: script.fix(at: 1, coordinate: near)).isNotDue)
        #expect(throttle.decision(for: script.fix(at: 1, coordinate: far)) == .fetch(.moved))
    }

    @Test("A point placed exactly 100 m away does not fetch at any bearing (distances compared in whole micrometres); 2 µm further fetches",
          arguments: [0.0, 45, 90, 135, 180, 225, 270, 315])
    func distanceStrict(bearing: Double) throws {
        let throttle = anchored()
        let exact = script.origin.destination(distance: 100, bearing: bearing)
        // As computed, its distance is 100 m give or take the last bits (100.0000000005 north).
        try #require(abs(script.origin.distance(to: exact) - 100) < 1e-6)
        #expect(throttle.decision(for: script.fix(at: 1, coordinate: exact)).isNotDue)
        let beyond = script.origin.destination(distance: 100.000_002, bearing: bearing)
        #expect(throttle.decision(for: script.fix(at: 1, coordinate: beyond)) == .fetch(.moved))
        // So does the rule's own threshold taken from a measured distance.
        let measured = script.origin.distance(to: exact)
        #expect(anchored(try FetchThrottle.Configuration(minimumDistance: measured)).decision(for: script.fix(at: 1, coordinate: exact)).isNotDue)
    }

    @Test("30.00 s does not fetch, 30.25 s fetches as `elapsed`")
    func timeBoundary() {
        let throttle = anchored()
        #expect(throttle.decision(for: script.fix(at: 30.00)).isNotDue)
        #expect(throttle.decision(for: script.fix(at: 30.25)) == .fetch(.elapsed))
    }

    @Test("Sub-second timestamps: 30 s between …00.300Z and …30.300Z is exactly 30 s", arguments: [
        ("2018-06-01T03:04:00.300Z", "2018-06-01T03:04:30.300Z", false),
        ("2018-06-01T03:04:00.300Z", "2018-06-01T03:04:30.301Z", true),
        ("2018-06-01T03:04:00.999Z", "2018-06-01T03:04:30.999Z", false),
        ("2018-06-01T03:04:00.999Z", "2018-06-01T03:04:31.000Z", true),
        ("2018-06-01T03:04:59.700Z", "2018-06-01T03:05:29.700Z", false),
        ("2018-06-01T03:04:59.700Z", "2018-06-01T03:05:29.701Z", true),
    ])
    func subSecond(anchor: String, fix: String, fetches: Bool) throws {
        let anchorTime = try #require(UTCTimestamp.parse(anchor))
        let fixTime = try #require(UTCTimestamp.parse(fix))
        var throttle = FetchThrottle()
        throttle.recordFetch(center: script.origin, at: anchorTime)
        throttle.recordSuccess()
        let decision = throttle.decision(for: Fix(time: fixTime, coordinate: script.origin, source: .scripted))
        #expect(fetches ? decision == .fetch(.elapsed) : decision.isNotDue)
    }

    @Test("Moved wins when both rules hold; elapsed only when the distance rule does not")
    func reasons() {
        let throttle = anchored()
        #expect(throttle.decision(for: script.fix(at: 45, north: 150)) == .fetch(.moved))
        #expect(throttle.decision(for: script.fix(at: 45, north: 50)) == .fetch(.elapsed))
        #expect(throttle.decision(for: script.fix(at: 5, north: 150)) == .fetch(.moved))
    }

    @Test("Thresholds are configurable")
    func configurable() throws {
        let configuration = try FetchThrottle.Configuration(minimumDistance: 20, minimumInterval: .seconds(5), radius: 750)
        let throttle = anchored(configuration)
        #expect(throttle.decision(for: script.fix(at: 1, north: 25)) == .fetch(.moved))
        #expect(throttle.decision(for: script.fix(at: 5, north: 10)).isNotDue)
        #expect(throttle.decision(for: script.fix(at: 5.25, north: 10)) == .fetch(.elapsed))
        #expect(configuration.radius == 750)
    }

    @Test("The game's numbers are the defaults")
    func defaults() {
        let game = FetchThrottle.Configuration.game
        #expect(game.minimumDistance == 100)
        #expect(game.minimumInterval == .seconds(30))
        #expect(game.radius == 5_000)
        #expect(game.maximumHorizontalAccuracy == 100)
    }

    struct BadConfiguration: Sendable, CustomTestStringConvertible {
        var parameter: String
        var minimumDistance = 100.0
        var minimumInterval = Duration.seconds(30)
        var radius = 5_000.0
        var maximumHorizontalAccuracy = 100.0
        var testDescription: String { parameter }
    }

    @Test("Invalid thresholds are rejected with the parameter's name", arguments: [
        BadConfiguration(parameter: "minimumDistance", minimumDistance: -1),
        BadConfiguration(parameter: "minimumDistance", minimumDistance: .nan),
        BadConfiguration(parameter: "minimumInterval", minimumInterval: .seconds(-1)),
        BadConfiguration(parameter: "radius", radius: 0),
        BadConfiguration(parameter: "radius", radius: .infinity),
        BadConfiguration(parameter: "maximumHorizontalAccuracy", maximumHorizontalAccuracy: 0),
    ])
    func invalid(_ bad: BadConfiguration) {
        do {
            _ = try FetchThrottle.Configuration(
                minimumDistance: bad.minimumDistance, minimumInterval: bad.minimumInterval,
                radius: bad.radius, maximumHorizontalAccuracy: bad.maximumHorizontalAccuracy)
            Issue.record("accepted an invalid \(bad.parameter)")
        } catch {
            #expect(error.parameter == bad.parameter)
            #expect(error.description.hasPrefix(bad.parameter + ": "))
        }
    }

    @Test("Zero distance and zero interval are rules of their own (fetch on any movement; whenever none is in flight), as fetch-throttle.md says")
    func zeroThresholds() throws {
        let eager = try FetchThrottle.Configuration(minimumDistance: 0, minimumInterval: .zero)
        var throttle = FetchThrottle(configuration: eager)
        #expect(throttle.decision(for: script.fix(at: 0)) == .fetch(.first))
        throttle.recordFetch(center: script.origin, at: script.time(0))
        #expect(throttle.decision(for: script.fix(at: 0)) == .notDue(distance: 0, elapsed: .zero))
        #expect(throttle.decision(for: script.fix(at: 0.5)) == .fetch(.elapsed))
    }

    // MARK: Poor fixes

    @Test("A fix without a position is rejected")
    func noPosition() {
        #expect(FetchThrottle().decision(for: script.noFix(at: 0)) == .rejected(.noPosition))
    }

    @Test("Accuracy: 100 m is accepted, 100.1 m, negative and NaN are rejected, none is accepted")
    func accuracy() {
        let throttle = FetchThrottle()
        #expect(throttle.decision(for: script.fix(at: 0, accuracy: 100)) == .fetch(.first))
        #expect(throttle.decision(for: script.fix(at: 0, accuracy: nil)) == .fetch(.first))
        #expect(throttle.decision(for: script.fix(at: 0, accuracy: 100.1)) == .rejected(.inaccurate(horizontalAccuracy: 100.1)))
        #expect(throttle.decision(for: script.fix(at: 0, accuracy: -1)) == .rejected(.inaccurate(horizontalAccuracy: -1)))
        if case .rejected(.inaccurate) = throttle.decision(for: script.fix(at: 0, accuracy: .nan)) {} else {
            Issue.record("NaN accuracy accepted")
        }
    }

    @Test("The accuracy threshold is configurable")
    func accuracyConfigurable() throws {
        let throttle = FetchThrottle(configuration: try .init(maximumHorizontalAccuracy: 20))
        #expect(throttle.decision(for: script.fix(at: 0, accuracy: 20)) == .fetch(.first))
        #expect(throttle.decision(for: script.fix(at: 0, accuracy: 21)) == .rejected(.inaccurate(horizontalAccuracy: 21)))
    }

    // MARK: Back-off

    @Test("Without jitter the back-off is 1, 2, 4, 8, 16, 30, 30 s")
    func backoffSequence() throws {
        let retry = try Backoff(jitter: 0)
        var throttle = FetchThrottle(configuration: try .init(retry: retry))
        var delays: [Duration] = []
        var now = script.time(0)
        for _ in 0..<7 {
            throttle.recordFetch(center: script.origin, at: now)
            let notBefore = throttle.recordFailure(at: now)
            delays.append(VirtualTime.duration(from: now, to: notBefore))
            now = notBefore
        }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
    }

    @Test("While backing off nothing fetches, even a move; at the back-off's end a fix retries")
    func backoffGates() throws {
        var throttle = FetchThrottle(configuration: try .init(retry: Backoff(jitter: 0)))
        throttle.recordFetch(center: script.origin, at: script.time(0))
        let notBefore = throttle.recordFailure(at: script.time(0.5))
        #expect(notBefore == script.time(1.5))
        #expect(throttle.decision(for: script.fix(at: 1.4, north: 500)) == .backingOff(until: script.time(1.5)))
        #expect(throttle.decision(for: script.fix(at: 1.5)) == .fetch(.retry))
    }

    @Test("A success resets the back-off")
    func backoffResets() throws {
        var throttle = FetchThrottle(configuration: try .init(retry: Backoff(jitter: 0)))
        for step in 0..<4 {
            throttle.recordFetch(center: script.origin, at: script.time(Double(step) * 100))
            throttle.recordFailure(at: script.time(Double(step) * 100))
        }
        #expect(throttle.consecutiveFailures == 4)
        throttle.recordFetch(center: script.origin, at: script.time(500))
        throttle.recordSuccess()
        #expect(throttle.consecutiveFailures == 0)
        #expect(throttle.retryNotBefore == nil)
        #expect(throttle.decision(for: script.fix(at: 510)).isNotDue)
        throttle.recordFetch(center: script.origin, at: script.time(531))
        #expect(throttle.recordFailure(at: script.time(531)) == script.time(532))
    }

    @Test("Jitter only shortens, stays within its fraction, and is reproducible from the seed")
    func jitter() throws {
        func delays(seed: UInt64) throws -> [Duration] {
            var throttle = FetchThrottle(configuration: try .init(retry: Backoff(jitter: 0.5, seed: seed)))
            return (0..<12).map { _ in
                throttle.recordFetch(center: script.origin, at: script.time(0))
                return VirtualTime.duration(from: script.time(0), to: throttle.recordFailure(at: script.time(0)))
            }
        }
        let first = try delays(seed: 42)
        #expect(try delays(seed: 42) == first)
        #expect(try delays(seed: 43) != first)
        let nominal: [Duration] = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30, 30].map { .seconds($0) }
        for (delay, cap) in zip(first, nominal) {
            #expect(delay <= cap)
            #expect(delay >= cap / 2)
        }
    }

    @Test("The game's retry back-off is 1 s doubling to 30 s with 20 % jitter")
    func standardRetry() {
        let retry = FetchThrottle.Configuration.game.retry
        #expect(retry == FetchThrottle.Configuration.standardRetry)
        #expect(retry.initialDelay == .seconds(1) && retry.multiplier == 2 && retry.maximumDelay == .seconds(30))
        #expect(retry.jitter == 0.2 && retry.seed == 0)
    }

    // MARK: Anchor

    @Test("A cancelled fetch gives the anchor back, so a restarted session fetches again")
    func cancellationRestoresAnchor() {
        var throttle = anchored()
        throttle.recordFetch(center: script.position(north: 500), at: script.time(10))
        throttle.recordCancellation()
        #expect(throttle.lastFetch == FetchThrottle.Anchor(center: script.origin, time: script.time(0)))
        #expect(throttle.decision(for: script.fix(at: 11, north: 500)) == .fetch(.moved))
    }

    @Test("shouldFetch(center:at:) applies the two rules alone")
    func shouldFetch() {
        let throttle = anchored()
        #expect(FetchThrottle().shouldFetch(center: script.origin, at: script.time(0)) == .first)
        #expect(throttle.shouldFetch(center: script.position(north: 100.1), at: script.time(1)) == .moved)
        #expect(throttle.shouldFetch(center: script.origin, at: script.time(30)) == nil)
        #expect(throttle.shouldFetch(center: script.origin, at: script.time(30.25)) == .elapsed)
    }
}

extension FetchThrottle.Decision {
    var isNotDue: Bool {
        if case .notDue = self { return true }
        return false
    }
}
