import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

/// `GPXReplay.Configuration.horizontalAccuracyPerHDOP`: a point's `<hdop>` as an accuracy, only when asked.
@Suite(.timeLimit(.minutes(1))) struct GPXReplayAccuracyTests {
    static func path() -> ReplayPath {
        var points = (0..<6).map { point($0, at: Double($0)) }
        for i in points.indices where i != 3 { points[i].horizontalDilution = 0.75 + Double(i) / 4 }
        for i in points.indices where i != 2 { points[i].verticalDilution = 1.25 + Double(i) / 4 }
        return ReplayPath(track: GPXTrack(segments: [points]))
    }

    @Test("With a scale, each fix's accuracies are scale × its point's HDOP and VDOP (none without them); without one, no accuracy")
    func accuracyFromHDOP() async throws {
        let path = Self.path()
        let points = path.segments[0]
        let clock = VirtualClock()
        let scaled = try GPXReplay(
            path: path, configuration: .init(pacing: .virtual, horizontalAccuracyPerHDOP: 19), clock: clock, now: fixedNow)
        let fixes = try await collect(scaled, on: clock).map(\.fix)
        #expect(fixes.count == points.count)
        for (fix, point) in zip(fixes, points) {
            #expect(fix.horizontalAccuracy == point.horizontalDilution.map { $0 * 19 })
            #expect(fix.verticalAccuracy == point.verticalDilution.map { $0 * 19 })
        }
        let plain = try GPXReplay(path: path, configuration: .init(pacing: .virtual), clock: clock, now: fixedNow)
        #expect(try await collect(plain, on: clock).allSatisfy { $0.fix.horizontalAccuracy == nil && $0.fix.verticalAccuracy == nil })
    }

    @Test("A scale that is not a finite positive number is refused, naming the parameter", arguments: [0.0, -1, .infinity, .nan])
    func badScale(scale: Double) throws {
        #expect {
            _ = try GPXReplay(path: Self.path(), configuration: .init(pacing: .virtual, horizontalAccuracyPerHDOP: scale))
        } throws: { error in
            (error as? SimulationError)?.parameter == "horizontalAccuracyPerHDOP"
        }
    }
}
