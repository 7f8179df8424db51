import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

@Suite("GPXReplay rules for imperfect recordings", .timeLimit(.minutes(1))) struct GPXReplayRecordingRulesTests {
    @Test("Repeated timestamps: both points delivered in file order at the same instant, and reported")
    func repeatedTimestamps() async throws {
        let path = track([0, 1, 1, 1, 2])
        let clock = VirtualClock(autoAdvance: true)
        let log = EventLog()
        let replay = try GPXReplay(path: path, configuration: .init(onEvent: log.handler), clock: clock, now: fixedNow)
        #expect(replay.analysis.repeatedTimestamps.map(\.position.index) == [2, 3])
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.map(\.fix.coordinate) == path.segments[0].map(\.coordinate))
        #expect(delivered.map(\.at) == [0, 1, 1, 1, 2].map { .seconds($0) })
        let reported = log.events.compactMap { if case .repeatedTimestamp(let a) = $0 { a.position.index } else { nil } }
        #expect(reported == [2, 3])
    }

    @Test("Repeated timestamps when resampling: the later point wins")
    func repeatedResampled() async throws {
        let path = track([0, 1, 1, 2])
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(path: path, configuration: .init(rate: 1), clock: clock, now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.map(\.fix.coordinate) == [0, 2, 3].map { path.segments[0][$0].coordinate })
    }

    @Test("Backwards timestamps: the point is dropped and reported, never reordered, never a negative wait")
    func backwardsTimestamps() async throws {
        let path = track([0, 5, 3, 4, 5, 6, 2, 8])
        let clock = VirtualClock(autoAdvance: true)
        let log = EventLog()
        let replay = try GPXReplay(path: path, configuration: .init(onEvent: log.handler), clock: clock, now: fixedNow)
        #expect(replay.analysis.droppedBackwardsPoints.map(\.position.index) == [2, 3, 6])
        #expect(replay.analysis.repeatedTimestamps.map(\.position.index) == [4])
        let delivered = try await collect(replay, on: clock)
        let kept = [0, 1, 4, 5, 7]
        #expect(delivered.map(\.fix.coordinate) == kept.map { path.segments[0][$0].coordinate })
        #expect(delivered.map(\.at) == [0, 5, 5, 6, 8].map { .seconds($0) })
        let dropped = log.events.compactMap { if case .droppedBackwardsPoint(let a) = $0 { a.position.index } else { nil } }
        #expect(dropped == [2, 3, 6])
    }

    @Test("A long gap is waited through, reported, and not interpolated across")
    func longGap() async throws {
        let path = track([0, 1, 2, 302, 303])
        let clock = VirtualClock(autoAdvance: true)
        let log = EventLog()
        let replay = try GPXReplay(
            path: path, configuration: .init(rate: 1, gapThreshold: 60, onEvent: log.handler), clock: clock,
            now: fixedNow)
        #expect(replay.analysis.gaps.count == 1)
        #expect(replay.analysis.gaps.first?.duration == 300)
        #expect(replay.analysis.gaps.first?.reason == .timeGap)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.map(\.at) == [0, 1, 2, 302, 303].map { .seconds($0) })
        #expect(log.gaps.map(\.position.index) == [3])

        let across = try GPXReplay(
            path: path, configuration: .init(rate: 1, interpolatesAcrossGaps: true), clock: clock, now: fixedNow)
        #expect(try await collect(across, on: clock).count == 304)
    }

    @Test("A gap of millennia is crossed at once when resampling, not grid step by grid step")
    func gapOfMillennia() async throws {
        // About 3,200 years at 100 Hz: 10^13 grid steps, which a walk step by step never ends.
        let far = 1e11
        let path = track([0, 1, far, far + 1])
        let replay = try GPXReplay(
            path: path, configuration: .init(pacing: .virtual, rate: 100), clock: VirtualClock(), now: fixedNow)
        var offsets: [Double] = []
        // To the grid's 10 ms (a Date this far out holds about 10 µs).
        for try await fix in replay { offsets.append((fix.time.timeIntervalSince(path.segments[0][0].time!) * 100).rounded() / 100) }
        #expect(offsets.count == 202)
        #expect(offsets[100] == 1)
        #expect(offsets[101] == far)
        #expect(offsets.last == far + 1)
    }

    @Test("A short step is no gap; the threshold decides")
    func threshold() throws {
        let path = track([0, 30, 100])
        let clock = VirtualClock(autoAdvance: true)
        let strict = try GPXReplay(path: path, configuration: .init(gapThreshold: 29), clock: clock, now: fixedNow)
        #expect(strict.analysis.gaps.map(\.position.index) == [1, 2])
        let loose = try GPXReplay(path: path, configuration: .init(gapThreshold: 69.9), clock: clock, now: fixedNow)
        #expect(loose.analysis.gaps.map(\.position.index) == [2])
        // A step exactly at the threshold is not longer than it.
        let exact = try GPXReplay(path: path, configuration: .init(gapThreshold: 70), clock: clock, now: fixedNow)
        #expect(exact.analysis.gaps.isEmpty)
    }

    @Test("A segment break is a gap whatever its length")
    func segmentBreak() async throws {
        let segments = [[point(0, at: 0), point(1, at: 1)], [point(2, at: 5), point(3, at: 6)]]
        let path = ReplayPath(track: GPXTrack(segments: segments))
        let clock = VirtualClock(autoAdvance: true)
        let log = EventLog()
        let replay = try GPXReplay(
            path: path, configuration: .init(pacing: .virtual, rate: 1, onEvent: log.handler), clock: clock,
            now: fixedNow)
        let delivered = try await collect(replay, on: clock)
        #expect(delivered.map { $0.fix.time.timeIntervalSince(segments[0][0].time!) } == [0, 1, 5, 6])
        #expect(log.gaps.map(\.reason) == [.segmentBreak])
        #expect(log.gaps.first?.position == ReplayPointPosition(kind: .track, segment: 1, index: 0))
    }
}
