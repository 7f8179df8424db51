import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocationTestSupport
import Testing

/// The runnable example at the end of docs/guides/replay.md: keep the two in step.
@Suite("docs/guides/replay.md example", .timeLimit(.minutes(1))) struct DocumentationExampleTests {
    @Test("A seeded walk, exported for Xcode, replays at 1 Hz")
    func example() async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = VirtualClock(autoAdvance: true)
        let walk = try SyntheticMotion(
            path: .circle(center: Coordinate(latitude: 35.6812, longitude: 139.7671), radius: 200),
            speed: .walk, seed: 2024,
            configuration: .init(rate: 1, duration: 600, startTime: start, noise: NoiseModel(seed: 7)),
            clock: clock, now: { start })
        let gpx = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID()).gpx").path
        defer { try? FileManager.default.removeItem(atPath: gpx) }
        try await walk.writeGPX(toFile: gpx, form: .xcodeSimulator)
        #expect(clock.now.offset == .seconds(600))  // ten minutes, in virtual time

        let replay = try GPXReplay(
            path: ReplayPath(document: GPXDocument(contentsOfFile: gpx)),
            configuration: .init(pacing: .timed(speedFactor: 60), rate: 1),
            clock: clock, now: { start })
        var count = 0
        for try await fix in replay {
            count += 1
            #expect(fix.time == start.addingTimeInterval(Double(count - 1)))
        }
        #expect(count == 601)
    }
}
