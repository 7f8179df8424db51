import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

/// Replays of the real-world GPX cases made by scripts/reference/make_gpx_realworld_reference.py
/// (files and expected values in Tests/GPXFormatTests/Fixtures/realworld).
@Suite(.timeLimit(.minutes(1))) struct GPXRealWorldReplayTests {
    struct Reference: Decodable {
        struct Point: Decodable { var time: Double? }
        struct Reversal: Decodable { var kind: String, time: Double, latest: Double }
        var segments: [[Point]]
        var reversals: [Reversal]?
        var track_reversals: Int?
    }

    static func fixture(_ name: String) -> String {
        PackagePaths.path("Tests/GPXFormatTests/Fixtures/realworld/" + name)
    }

    static func reference(_ name: String) throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: URL(fileURLWithPath: fixture(name + ".json"))))
    }

    @Test("The points a replay drops for going back in time are the ones the reader lists, with where they are")
    func backwardsPointsAreTheReadersReversals() throws {
        let reference = try Self.reference("backwards-times")
        let reader = try GPXReader(contentsOfFile: Self.fixture("backwards-times.gpx"))
        let replay = try GPXReplay(
            path: ReplayPath(document: GPXDocument(reader: reader)), configuration: .init(pacing: .virtual),
            clock: VirtualClock(), now: fixedNow)
        let dropped = replay.analysis.droppedBackwardsPoints
        #expect(dropped.count == reference.track_reversals)
        let listed = reader.timeReversals.filter { $0.kind == .trackPoint }
        #expect(dropped.map(\.time) == listed.map(\.time))
        #expect(dropped.map(\.latestTime) == listed.map(\.latestTime))
        let expected = try #require(reference.reversals).filter { $0.kind == "trkpt" }
        #expect(dropped.map(\.time.timeIntervalSince1970) == expected.map(\.time))
    }

    @Test("A lenient read keeps a point whose <time> is bad; removingUntimedPoints leaves it out so the rest plays")
    func untimedPointsAreRemoved() throws {
        let reference = try Self.reference("bad-values")
        let document = try GPXDocument(contentsOfFile: Self.fixture("bad-values.gpx"), options: .lenient)
        let path = try ReplayPath(document: document)
        #expect(throws: SimulationError.self) {
            _ = try GPXReplay(path: path, clock: VirtualClock(), now: fixedNow)
        }
        let (timed, removed) = path.removingUntimedPoints()
        let untimedIndices = reference.segments[0].indices.filter { reference.segments[0][$0].time == nil }
        #expect(removed == untimedIndices.map { ReplayPointPosition(kind: .track, segment: 0, index: $0) })
        let replay = try GPXReplay(path: timed, configuration: .init(pacing: .virtual), clock: VirtualClock(), now: fixedNow)
        #expect(replay.analysis.pointCount == reference.segments[0].count - untimedIndices.count)
        // Paths where no point or every point has a time are left as they are.
        let allTimed = track([0, 1, 2])
        #expect(allTimed.removingUntimedPoints().path == allTimed && allTimed.removingUntimedPoints().removed.isEmpty)
        let untimed = track([nil, nil])
        #expect(untimed.removingUntimedPoints().path == untimed)
    }

    @MainActor
    @Test("MapReplay in lenient mode replays every point it can place in time")
    func mapReplayLenient() async throws {
        let reference = try Self.reference("bad-values")
        let log = try await MapReplay(repository: RecordingRepository(clock: VirtualClock(), places: []))
            .run(routeFile: Self.fixture("bad-values.gpx"), lenient: true)
        let fixes = log.acceptedFixes.count + log.rejectedFixes.count
        #expect(fixes == reference.segments[0].filter { $0.time != nil }.count)
        // What the read dropped and the replay left out is in the log, as `locsim replay` says it.
        #expect(log.warnings.contains { $0.hasPrefix("locsim: warning: ") && $0.contains("bad value") }, "\(log.warnings)")
        #expect(log.warnings.contains { $0.contains("without a usable <time> out of the replay") }, "\(log.warnings)")
    }
}
