import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

@Suite("GPXReplay loop, seek, pause, cancellation", .timeLimit(.minutes(1))) struct GPXReplayControlTests {
    @Test("Looping keeps time running forward across laps")
    func loop() async throws {
        let path = track([0, 10, 20])
        let t0 = path.segments[0][0].time!
        let clock = VirtualClock(autoAdvance: true)
        let log = EventLog()
        let replay = try GPXReplay(
            path: path, configuration: .init(loops: true, onEvent: log.handler), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock, limit: 9)
        // Lap period = duration 20 s + loop interval 1 s.
        let expected: [Double] = [0, 10, 20, 21, 31, 41, 42, 52, 62]
        #expect(delivered.map(\.at) == expected.map { .seconds($0) })
        #expect(delivered.map(\.fix.time) == expected.map { t0.addingTimeInterval($0) })
        #expect(delivered.map(\.fix.coordinate) == (0..<9).map { path.segments[0][$0 % 3].coordinate })
        #expect(log.events.filter { if case .lapStarted = $0 { true } else { false } } == [.lapStarted(lap: 1), .lapStarted(lap: 2)])
    }

    @Test("Looping a resampled replay keeps the grid regular")
    func loopResampled() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: track([0, 1, 2]), configuration: .init(rate: 2, loops: true), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock, limit: 12)
        let due: [Duration] = (0..<12).map { Duration.seconds(Double($0) / 2) }
        #expect(delivered.map(\.at) == due)
    }

    @Test("Seeking starts at the first point at or after the offset, on the clock at once")
    func seek() async throws {
        let path = track([0, 10, 20, 30])
        let t0 = path.segments[0][0].time!
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(
            path: path, configuration: .init(pacing: .timed(speedFactor: 2), startOffset: 15), clock: clock,
            now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.map(\.fix.time) == [20, 30].map { t0.addingTimeInterval($0) })
        #expect(delivered.map(\.at) == [2.5, 7.5].map { .seconds($0) })

        let resampled = try GPXReplay(
            path: path, configuration: .init(rate: 1, startOffset: 12.5, timestamps: .rebased), clock: clock,
            now: fixedNow)
        let start = clock.now.offset
        let fixes = try await collect(resampled, on: clock)
        #expect(fixes.count == 18)  // grid 13...30 s
        #expect(fixes.first.map { $0.at - start } == .seconds(0.5))
        #expect(fixes.first?.fix.time == wallStart.addingTimeInterval(0.5))
    }

    @Test("Seeking into a gap reports the gap; seeking onto the point after it does not")
    func seekIntoGap() async throws {
        let path = track([0, 1, 200, 201])
        let clock = VirtualClock(autoAdvance: true)
        for (offset, gaps) in [(100.0, 1), (200.0, 0)] {
            let log = EventLog()
            let replay = try GPXReplay(
                path: path, configuration: .init(pacing: .virtual, startOffset: offset, onEvent: log.handler),
                clock: clock, now: fixedNow)
            #expect(try await collect(replay, on: clock).count == 2)
            #expect(log.gaps.count == gaps)
        }
    }

    @Test("Pause holds the next fix; resume releases it and shifts the rest of the schedule", arguments: [false, true])
    func pause(rebased: Bool) async throws {
        let path = track((0...8).map(Double.init))
        let clock = VirtualClock(autoAdvance: true)
        let control = ReplayControl()
        let log = EventLog()
        let replay = try GPXReplay(
            path: path, configuration: .init(timestamps: rebased ? .rebased : .recorded, onEvent: log.handler),
            control: control, clock: clock, now: fixedNow)
        let consumer = Task {
            var out: [Delivery] = []
            for try await fix in replay {
                out.append(Delivery(fix: fix, at: clock.now.offset))
                if out.count == 4 { control.pause() }
            }
            return out
        }
        await log.wait { $0 == .paused }
        #expect(control.isPaused)
        await clock.advance(by: .seconds(60))
        control.resume()
        let delivered = try await consumer.value
        let expected: [Double] = [0, 1, 2, 3, 64, 65, 66, 67, 68]
        #expect(delivered.map(\.at) == expected.map { .seconds($0) })
        #expect(log.events.contains(.resumed(heldFor: .seconds(60))))
        let t0 = path.segments[0][0].time!
        let times = delivered.map { $0.fix.time.timeIntervalSince(rebased ? wallStart : t0) }
        let unrebased: [Double] = (0...8).map { Double($0) }
        #expect(times == (rebased ? expected : unrebased))
    }

    @Test("Pause in virtual pacing holds the next fix and changes no time")
    func pauseVirtual() async throws {
        let path = track((0...4).map(Double.init))
        let control = ReplayControl()
        let log = EventLog()
        let replay = try GPXReplay(
            path: path, configuration: .init(pacing: .virtual, timestamps: .rebased, onEvent: log.handler),
            control: control, clock: VirtualClock(), now: fixedNow)
        let consumer = Task {
            var out: [Fix] = []
            for try await fix in replay {
                out.append(fix)
                if out.count == 2 { control.pause() }
            }
            return out
        }
        await log.wait { $0 == .paused }
        control.resume()
        let times = try await consumer.value.map { $0.time.timeIntervalSince(wallStart) }
        #expect(times == [0, 1, 2, 3, 4])
    }

    @Test("Each iterator is an independent replay")
    func independentIterators() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(path: track([0, 5, 9]), configuration: .init(), clock: clock, now: fixedNow)
        let first = try await collect(replay, on: clock)
        let second = try await collect(replay, on: clock)
        #expect(first.map(\.fix) == second.map(\.fix))
        #expect(second.map { $0.at - second[0].at } == first.map(\.at))
    }

    @Test("Cancelling a consumer asleep on a far deadline ends iteration without moving time")
    func cancelWhileSleeping() async throws {
        let clock = VirtualClock()
        let replay = try GPXReplay(path: track([0, 3600]), configuration: .init(), clock: clock, now: fixedNow)
        let consumer = Task { try await collect(replay, on: clock) }
        await clock.waitForSleepers(1)
        consumer.cancel()
        #expect(try await consumer.value.count == 1)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now.offset == .zero)
    }

    @Test("Cancelling a paused replay ends iteration")
    func cancelWhilePaused() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let log = EventLog()
        let replay = try GPXReplay(
            path: track([0, 1]), configuration: .init(onEvent: log.handler), control: ReplayControl(paused: true),
            clock: clock, now: fixedNow)
        let consumer = Task { try await collect(replay, on: clock) }
        await log.wait { $0 == .paused }
        consumer.cancel()
        #expect(try await consumer.value.isEmpty)
    }

    @Test("Cancelling an endless virtual loop ends it (no sleep to interrupt)")
    func cancelEndlessLoop() async throws {
        let clock = VirtualClock()
        let replay = try GPXReplay(
            path: track([0, 1, 2]), configuration: .init(pacing: .virtual, loops: true), clock: clock, now: fixedNow)
        let consumer = Task {
            var count = 0
            for try await _ in replay { count += 1 }
            return count
        }
        consumer.cancel()
        _ = try await consumer.value  // returns: the loop saw the cancellation
    }

    @Test("A clock failure is thrown from next(), not printed")
    func clockFailure() async throws {
        let replay = try GPXReplay(path: track([0, 1]), configuration: .init(), clock: FailingClock(), now: fixedNow)
        var iterator = replay.makeAsyncIterator()
        await #expect(throws: FailingClock.Failure.self) { _ = try await iterator.next() }
    }
}

/// A clock whose every sleep fails.
struct FailingClock: Clock {
    struct Failure: Error {}
    typealias Instant = VirtualClock.Instant
    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws { throw Failure() }
}
