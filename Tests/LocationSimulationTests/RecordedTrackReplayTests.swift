import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

/// Figures computed by Scripts/shared_track_expectations.py (gpxpy) for each recording.
struct TrackExpectation: Decodable {
    var points: Int
    var kept: Int
    var repeatedTimestamps: Int
    var droppedBackwards: Int
    var timeGaps: Int
    var segmentBreaks: Int
    var durationSeconds: Double
    var resampled1HzCount: Int
}

/// Replays of real phone recordings (../shared/data/tracks) and of the project's shipped walks
/// (tracks/), checked fix by fix against the files read with GPXFormat and against the
/// independent figures in Fixtures/shared-track-expectations.json.
@Suite("Replaying recorded tracks", .timeLimit(.minutes(1)), .ownThread) struct RecordedTrackReplayTests {
    static let expectations = try! loadJSON([String: [String: TrackExpectation]].self, "shared-track-expectations.json")
    static let projectTracks = expectations["project", default: [:]].keys.sorted()
    /// The three phone recordings, named in the fixture (whether or not the data is present).
    static let phoneRecordings = expectations["shared", default: [:]].keys.sorted()

    @Test(
        "Phone recordings: exact times for timed, scaled and resampled replays",
        .enabled(if: SharedData.isPresent, SharedData.absentReason), arguments: phoneRecordings)
    func phoneRecording(name: String) async throws {
        try await check(file: SharedData.path("tracks/\(name)"), expected: #require(Self.expectations["shared"]?[name]))
    }

    @Test("Project walks: exact times for timed, scaled and resampled replays", arguments: projectTracks)
    func projectTrack(name: String) async throws {
        try await check(
            file: PackagePaths.path("tracks/\(name)"), expected: #require(Self.expectations["project"]?[name]))
    }

    func check(file: String, expected: TrackExpectation) async throws {
        let document = try GPXDocument(contentsOfFile: file)
        let path = try ReplayPath(document: document)
        let points = path.segments.flatMap { $0 }
        #expect(points.count == expected.points)

        let clock = VirtualClock(autoAdvance: true)
        let analysis = try GPXReplay(path: path, configuration: .init(), clock: clock, now: fixedNow).analysis
        #expect(analysis.pointCount == expected.kept)
        #expect(analysis.repeatedTimestamps.count == expected.repeatedTimestamps)
        #expect(analysis.droppedBackwardsPoints.count == expected.droppedBackwards)
        #expect(analysis.gaps.filter { $0.reason == .timeGap }.count == expected.timeGaps)
        #expect(analysis.gaps.filter { $0.reason == .segmentBreak }.count == expected.segmentBreaks)
        #expect(analysis.duration == expected.durationSeconds)

        // Timed, real time and 10×/60× faster: every kept point, at its recorded time, delivered
        // exactly when its offset (scaled) has passed on the clock.
        let dropped = Set(analysis.droppedBackwardsPoints.map(\.position))
        let positions = path.segments.enumerated().flatMap { s, segment in
            segment.indices.map { ReplayPointPosition(kind: path.kind, segment: s, index: $0) }
        }
        let kept = zip(positions, points).filter { !dropped.contains($0.0) }.map(\.1)
        let t0 = try #require(kept.first?.time)
        for factor in [1.0, 10, 60] {
            let start = clock.now.offset
            let replay = try GPXReplay(
                path: path, configuration: .init(pacing: .timed(speedFactor: factor)), clock: clock, now: fixedNow)
            let delivered = try await collect(replay, on: clock)
            #expect(delivered.count == kept.count)
            var mismatches = 0
            for (delivery, point) in zip(delivered, kept) {
                let offset = point.time!.timeIntervalSince(t0)
                if delivery.fix.time != point.time || delivery.fix.coordinate != point.coordinate
                    || delivery.at - start != .seconds(offset / factor)
                {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "factor \(factor)")
            #expect(delivered.last.map { $0.at - start } == .seconds(expected.durationSeconds / factor))
        }

        // Resampled at 1 Hz: fixes on the whole-second grid, none strictly inside a gap.
        let log = EventLog()
        let resampled = try GPXReplay(
            path: path, configuration: .init(pacing: .timed(speedFactor: 100), rate: 1, onEvent: log.handler),
            clock: clock, now: fixedNow)
        let start = clock.now.offset
        let fixes = try await collect(resampled, on: clock)
        #expect(fixes.count == expected.resampled1HzCount)
        let gaps = analysis.gaps.map { ($0.start.timeIntervalSince(t0), $0.end.timeIntervalSince(t0)) }
        var offGrid = 0, insideGap = 0
        for delivery in fixes {
            let offset = delivery.fix.time.timeIntervalSince(t0)
            if offset != offset.rounded() || delivery.at - start != .seconds(offset / 100) { offGrid += 1 }
            if gaps.contains(where: { offset > $0.0 && offset < $0.1 }) { insideGap += 1 }
        }
        #expect(offGrid == 0)
        #expect(insideGap == 0)
        #expect(log.gaps.count == expected.timeGaps + expected.segmentBreaks)
    }
}
