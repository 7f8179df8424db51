import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

/// Speed and course of replayed fixes whose recording lacks them, against the values
/// scripts/reference/make_velocity_reference.py computes with gpxpy and GeographicLib.
@Suite(.timeLimit(.minutes(1))) struct DerivedVelocityTests {
    static let inputs = [
        ("velocity-rules", TestFiles.fixture("velocity-rules.gpx").path),
        ("sf-mission-walk", PackagePaths.path("tracks/sf-mission-walk.gpx")),
    ]

    /// Each input's points in file order, as `[speed, course]` (`nil`: none).
    static func reference() throws -> [String: [[Double?]]] {
        let data = try Data(contentsOf: TestFiles.fixture("velocity-reference.json"))
        return try JSONDecoder().decode([String: [[Double?]]].self, from: data)
    }

    @Test(
        "A recorded replay's fixes carry the speed and course of the move they are part of",
        arguments: inputs.map(\.0))
    func recordedReplay(name: String) async throws {
        let expected = try #require(try Self.reference()[name])
        let path = try #require(Self.inputs.first { $0.0 == name }).1
        let clock = VirtualClock()
        let replay = try GPXReplay(
            path: ReplayPath(document: GPXDocument(reader: GPXReader(contentsOfFile: path))),
            configuration: .init(pacing: .virtual), clock: clock, now: fixedNow)
        let fixes = try await collect(replay, on: clock).map(\.fix)
        try #require(fixes.count == expected.count)
        for (k, (fix, values)) in zip(fixes, expected).enumerated() {
            #expect(fix.speed.isClose(to: values[0], within: 1e-6), "point \(k): speed \(String(describing: fix.speed))")
            #expect(fix.course.isClose(to: values[1], within: 1e-6), "point \(k): course \(String(describing: fix.course))")
        }
    }

    @Test("A stopped player's resampled fixes have speed 0 and no course; moving ones the leg's")
    func resampledStop() async throws {
        let path = try ReplayPath(document: GPXDocument(reader: GPXReader(contentsOfFile: TestFiles.fixture("velocity-rules.gpx").path)))
        let clock = VirtualClock()
        let replay = try GPXReplay(path: path, configuration: .init(pacing: .virtual, rate: 1), clock: clock, now: fixedNow)
        let fixes = try await collect(replay, on: clock, limit: 31).map(\.fix)
        let expected = try #require(try Self.reference()["velocity-rules"])
        // 0…4 s: the first leg; 5…14 s: standing still (the points at 5, 10 and 15 s are one place).
        for second in 0..<5 {
            #expect(fixes[second].speed.isClose(to: expected[0][0], within: 1e-6))
            #expect(fixes[second].course.isClose(to: expected[0][1], within: 1e-6))
        }
        for second in 5..<15 {
            #expect(fixes[second].speed == 0)
            #expect(fixes[second].course == nil)
        }
        // 20…24 s: the recorded speed 1.5 and course 12.5 blend towards the next point's recorded 0.
        #expect(fixes[20].speed == 1.5 && fixes[20].course == 12.5)
    }
}

extension Optional where Wrapped == Double {
    /// Both `nil`, or both values within `tolerance` of each other.
    fileprivate func isClose(to other: Double?, within tolerance: Double) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let a?, let b?): abs(a - b) <= tolerance
        default: false
        }
    }
}
