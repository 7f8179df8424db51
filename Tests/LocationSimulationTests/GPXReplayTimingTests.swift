import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

@Suite("GPXReplay timing", .timeLimit(.minutes(1))) struct GPXReplayTimingTests {
    /// Offsets with uneven spacing, as phone apps record.
    static let offsets: [Double?] = [0, 1, 2, 5, 9, 10, 17, 30, 31, 45]

    @Test("Timed replay delivers each recorded point at its offset, times unchanged", arguments: [1.0, 10, 0.5, 0.1, 1000, 3])
    func timed(factor: Double) async throws {
        let path = track(Self.offsets)
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: path, configuration: .init(pacing: .timed(speedFactor: factor)), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        let points = path.segments[0]
        #expect(delivered.count == points.count)
        for (delivery, point) in zip(delivered, points) {
            #expect(delivery.fix.time == point.time)
            #expect(delivery.fix.coordinate == point.coordinate)
            #expect(delivery.fix.altitude == point.elevation)
            let offset = point.time!.timeIntervalSince(points[0].time!)
            #expect(delivery.at == .seconds(offset / factor))
        }
    }

    @Test("Manual clock: nothing is delivered before its deadline")
    func manualClockHoldsFixes() async throws {
        let clock = VirtualClock()
        let replay = try GPXReplay(path: track([0, 10, 20]), configuration: .init(), clock: clock, now: fixedNow)
        var iterator = replay.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first != nil)
        async let second = iterator.next()
        await clock.waitForSleepers(1)
        #expect(clock.nextDeadline == VirtualClock.Instant(offset: .seconds(10)))
        await clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await second?.time == first?.time.addingTimeInterval(10))
    }

    @Test("Virtual pacing never sleeps and keeps recorded times")
    func virtualPacing() async throws {
        let clock = VirtualClock()  // manual: a single sleep would hang this test
        let path = track(Self.offsets)
        let replay = try GPXReplay(path: path, configuration: .init(pacing: .virtual), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.map(\.fix.time) == path.segments[0].map(\.time!))
        #expect(clock.now.offset == .zero)
    }

    @Test("Rebased timestamps start at now() and follow the scaled schedule")
    func rebased() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: track(Self.offsets), configuration: .init(pacing: .timed(speedFactor: 2), timestamps: .rebased),
            clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.first?.fix.time == wallStart)
        for delivery in delivered {
            #expect(delivery.fix.time == wallStart.addingTimeInterval(delivery.at.inSeconds))
        }
        let virtual = try GPXReplay(
            path: track(Self.offsets), configuration: .init(pacing: .virtual, timestamps: .rebased), clock: clock,
            now: fixedNow)
        let times = try await collect(virtual, on: clock).map(\.fix.time)
        #expect(times == Self.offsets.map { wallStart.addingTimeInterval($0!) })
    }

    @Test("Untimed routes are walked at constant speed along the path; played faster, their fixes keep the walk's times (as --fast gives them)",
          arguments: [1.0, 10])
    func untimedRoute(factor: Double) async throws {
        let points = (0..<6).map { point($0 * $0, at: nil) }
        let path = ReplayPath(route: GPXRoute(points: points))
        let clock = VirtualClock(autoAdvance: true)
        for speed in [1.4, 5.0] {
            let replay = try GPXReplay(
                path: path, configuration: .init(pacing: .timed(speedFactor: factor), untimedSpeed: speed), clock: clock, now: fixedNow)
            #expect(!replay.analysis.isTimed)
            let start = clock.now.offset
            let delivered = try await collect(replay, on: clock)
            var distance = 0.0
            for (k, delivery) in delivered.enumerated() {
                if k > 0 { distance += points[k - 1].coordinate.geodesicDistance(to: points[k].coordinate) }
                let expected = distance / speed
                // A Date near 2023 resolves about 1.2e-7 s (one ulp of its Double), hence 1e-6.
                #expect(abs(delivery.fix.time.timeIntervalSince(wallStart) - expected) < 1e-6)
                #expect(abs((delivery.at - start).inSeconds - expected / factor) < 1e-9)
                #expect(delivery.fix.speed == speed)
                #expect(delivery.fix.coordinate == points[k].coordinate)
            }
        }
    }

    @Test("Timestamps can be ignored in favour of constant speed")
    func ignoresTimestamps() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: track(Self.offsets), configuration: .init(pacing: .virtual, ignoresTimestamps: true, untimedSpeed: 10),
            clock: clock, now: fixedNow)
        let times = try await collect(replay, on: clock).map { $0.fix.time.timeIntervalSince(wallStart) }
        // Points are about 10 m apart: about one second each at 10 m/s, exactly the WGS-84
        // geodesic length over the speed.
        let points = track(Self.offsets).segments[0]
        var distance = 0.0
        for (k, time) in times.enumerated() {
            if k > 0 { distance += points[k - 1].coordinate.geodesicDistance(to: points[k].coordinate) }
            #expect(abs(time - distance / 10) < 1e-6)
            #expect(abs(time - Double(k)) < 0.01)
        }
    }

    @Test("Resampling at 1 Hz interpolates position, altitude, speed and course on the grid")
    func resampled() async throws {
        let path = track(Self.offsets)
        let points = path.segments[0]
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: path, configuration: .init(pacing: .timed(speedFactor: 5), rate: 1), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.count == 46)
        let t0 = points[0].time!
        for (k, delivery) in delivered.enumerated() {
            let time = t0.addingTimeInterval(Double(k))
            #expect(delivery.fix.time == time)
            #expect(delivery.at == .seconds(Double(k) / 5))
            let upper = points.firstIndex { $0.time! > time } ?? points.count
            let a = points[upper - 1]
            // The track has no <speed> or <course>: every fix moves at its leg's velocity, the
            // WGS-84 geodesic's length over the leg's time and its azimuth at the leg's start
            // (the last point: the leg it ends, at its end).
            let onRecordedPoint = a.time == time || upper == points.count
            let (from, to) = upper == points.count ? (points[upper - 2], a) : (a, points[upper])
            let leg = Geodesic.wgs84.inverse(from: from.coordinate, to: to.coordinate)
            let legSeconds = to.time!.timeIntervalSince(from.time!)
            #expect(delivery.fix.speed == leg.distance / legSeconds)
            #expect(delivery.fix.course == normalizedCourse(upper == points.count ? leg.finalAzimuth : leg.initialAzimuth))
            if onRecordedPoint {
                #expect(delivery.fix.coordinate == a.coordinate)
                continue
            }
            let expected = try #require(Fix.interpolated(from: a.fix()!, to: to.fix()!, at: time))
            #expect(delivery.fix.coordinate == expected.coordinate)
            #expect(delivery.fix.altitude == expected.altitude)
        }
    }

    @Test("Resampling at 4 Hz places fixes every 250 ms")
    func resampledFaster() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: track([0, 1, 2]), configuration: .init(pacing: .realTime, rate: 4), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        let due: [Duration] = (0...8).map { Duration.seconds(Double($0) / 4) }
        #expect(delivered.map(\.at) == due)
    }
}
