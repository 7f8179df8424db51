import LocSimTestHelpers
import LocationCore
import LocationTestSupport
import MapFeature
import Testing

/// The doc comments' examples and the log's wording, as an app developer following them meets
/// them (each was wrong once: a `.moved` walk that only ever fetched on `elapsed`, a scenario
/// whose withheld fixes were not all background ones, raw doubles and UTC times in `lines`).
@MainActor
@Suite(.timeLimit(.minutes(1))) struct DocExampleTests {
    let script = FixScript(origin: try! Coordinate(latitude: 35.6812, longitude: 139.7671))

    @Test("MapReplay's example: at 1.4 m/s every fetch after the first is elapsed")
    func mapReplayExample() async {
        let replay = MapReplay(repository: RecordingRepository(clock: VirtualClock(), places: [], latency: .seconds(2)))
        let log = await replay.run(fixes: script.walk(count: 600, speed: 1.4))
        log.expectAtMostOneFetchInFlight()
        log.expectFetchReasons([.first] + Array(repeating: .elapsed, count: 19))
    }

    @Test("run(scenarioFile:)'s example: the shipped background walk withholds fixes in the background")
    func scenarioExample() async throws {
        let log = try await MapReplay(repository: InMemoryNearbyIndex(places: []))
            .run(scenarioFile: PackagePaths.path("tracks/scenarios/background-walk.json"))
        #expect(log.withheldFixes.contains { if case .inBackground = $0.reason { true } else { false } })
    }

    @Test("lines: accuracy to a decimal, the back-off on the t+ clock, a late fix with its own time")
    func lines() async {
        let server = RecordingRepository(clock: VirtualClock(), script: [.failure(.networkUnavailable("down"))], otherwise: .places([]))
        var fixes = [script.fix(at: 0, accuracy: 20.900000000000002), script.fix(at: 40), script.fix(at: 35, north: 500)]
        fixes.append(script.fix(at: 41))
        let lines = await MapReplay(repository: server).run(fixes: fixes).lines
        #expect(lines.first == "t+0.000s fix 35.6812000,139.7671000 ±20.9 m", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("t+0.000s failed #1: ") && $0.contains("; retry not before t+") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("t+40.000s fix ") && $0.hasSuffix("(its time t+35.000s)") }, "\(lines)")
        #expect(!lines.contains { $0.contains("Z") }, "no UTC time among t+ times: \(lines)")
    }
}
