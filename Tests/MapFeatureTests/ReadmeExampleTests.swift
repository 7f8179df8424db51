// The example of docs/guides/testing-with-virtual-time.md, section "Asserting fetch-throttle behaviour
// in your tests" (also the README's section of that name), compiled and run as part of the suite.
// Keep the two in step: each block between BEGIN/END markers is the doc's code, verbatim, and
// `DocumentationTests` below fails when they drift apart.

// BEGIN FULL EXAMPLE
import LocationCore
import LocationTestSupport
import MapFeature
import Testing

@MainActor
@Test("The map refreshes by the game's rule, one request at a time, and keeps its markers", .timeLimit(.minutes(1)))
func mapFollowsTheFetchRule() async throws {
    // Ten minutes walking east from Tokyo Station at 1.4 m/s, one fix a second,
    // with one wild fix (1.5 km accuracy) at 100 s.
    let script = FixScript(origin: try Coordinate(latitude: 35.6812, longitude: 139.7671))
    var fixes = script.walk(count: 600, speed: 1.4, bearing: 90)
    fixes[100] = script.fix(at: 100, north: 2_000, accuracy: 1_500)

    // A server that takes 2 s to answer and fails the third request.
    let shrine = Place(id: "shrine", name: "Shrine", coordinate: script.position(east: 300))
    let server = RecordingRepository(clock: VirtualClock(), script: [
        .places([shrine], after: .seconds(2)),
        .places([shrine], after: .seconds(2)),
        .failure(.networkUnavailable("tunnel"), after: .seconds(2)),
    ], otherwise: .places([shrine], after: .seconds(2)))

    // Replay the walk through MapViewModel in virtual time (milliseconds of real time).
    let log = await MapReplay(repository: server).run(fixes: fixes)

    // One request in flight, answers in order, every request justified by the rule,
    // markers never dropped while refreshing or after the failure.
    log.expectWellBehaved()
    // First fix, then whenever more than 30 s have passed (every 31 s at a fix a second,
    // walking 43 m in between), the failed one retried after back-off.
    log.expectFetchReasons([.first, .elapsed, .elapsed, .retry] + Array(repeating: .elapsed, count: 17))
    // The wild fix neither fetched nor moved the anchor.
    #expect(!log.fetches.contains { $0.center == fixes[100].coordinate })
    #expect(log.rejectedFixes.count == 1)
    // What the server saw: the game's radius, and a 2 s round trip for each request.
    #expect(server.calls.allSatisfy { $0.radius == 5_000 && $0.latency == .seconds(2) })
    #expect(log.finalPlaces == .loaded([shrine]))
}
// END FULL EXAMPLE

// BEGIN README EXAMPLE
@MainActor
@Test(.timeLimit(.minutes(1))) func walkingFetchesEveryThirtySeconds() async throws {
    let script = FixScript(origin: try Coordinate(latitude: 35.6812, longitude: 139.7671))
    let server = RecordingRepository(clock: VirtualClock(), places: [], latency: .seconds(2))
    let log = await MapReplay(repository: server).run(fixes: script.walk(count: 600, speed: 1.4))
    log.expectWellBehaved()
    log.expectFetchReasons([.first] + Array(repeating: .elapsed, count: 19))  // at 0 s, then every 31 s
}
// END README EXAMPLE

// BEGIN GUIDE EXAMPLE
@MainActor
@Test(.timeLimit(.minutes(1))) func stoppingCancelsTheRequestInFlight() async throws {
    let clock = VirtualClock()
    let script = FixScript(origin: try Coordinate(latitude: 35.6812, longitude: 139.7671))
    let server = RecordingRepository(clock: clock, places: [], latency: .seconds(5))
    let model = MapViewModel(repository: server, clock: clock)
    let provider = ScriptedProvider(fixes: [script.fix(at: 0)], clock: clock, then: .waitForCancellation)

    let run = Task { await model.run(provider) }
    await clock.waitForSleepers(1)               // the first request is waiting on the server
    #expect(model.nearbyLocations == .loading(previous: nil))

    run.cancel()                                  // the view went away
    await run.value
    #expect(server.calls.map(\.outcome) == [.cancelled])
    #expect(model.nearbyLocations == .idle)       // no spinner left behind
    await clock.advance(by: .seconds(60))         // and nothing changes afterwards
    #expect(model.nearbyLocations == .idle)
}
// END GUIDE EXAMPLE

import Foundation
import LocSimTestHelpers

/// The documentation's code blocks are the code above, and its sample log is real output.
@Suite(.timeLimit(.minutes(1))) struct DocumentationTests {
    let doc = PackagePaths.path("docs/guides/testing-with-virtual-time.md")
    let source = PackagePaths.path("Tests/MapFeatureTests/ReadmeExampleTests.swift")

    func region(_ name: String, in text: String) throws -> String {
        let begin = try #require(text.range(of: "// BEGIN \(name)\n"))
        let end = try #require(text.range(of: "// END \(name)", range: begin.upperBound..<text.endIndex))
        return String(text[begin.upperBound..<end.lowerBound])
    }

    func blocks(_ language: String, in text: String) -> [String] {
        text.components(separatedBy: "```\(language)\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
    }

    @Test("The doc's examples are the compiled ones, verbatim")
    func examplesMatch() throws {
        let page = try String(contentsOfFile: doc, encoding: .utf8)
        let code = try String(contentsOfFile: source, encoding: .utf8)
        let swiftBlocks = blocks("swift", in: page)
        #expect(swiftBlocks.contains(try region("FULL EXAMPLE", in: code)))
        #expect(swiftBlocks.contains(try region("GUIDE EXAMPLE", in: code)))
        let readme = try String(contentsOfFile: PackagePaths.path("README.md"), encoding: .utf8)
        #expect(blocks("swift", in: readme).contains(try region("README EXAMPLE", in: code)), "README.md's example drifted")
    }

    @Test("The doc's sample log lines come from the example's replay, in order; a `…` stands for fix lines only")
    @MainActor
    func sampleLog() async throws {
        let page = try String(contentsOfFile: doc, encoding: .utf8)
        let sample = try #require(blocks("text", in: page).first).split(separator: "\n").map(String.init)
        // The example's scenario, rebuilt (its first two answers succeed).
        let script = FixScript(origin: try Coordinate(latitude: 35.6812, longitude: 139.7671))
        let shrine = Place(id: "shrine", name: "Shrine", coordinate: script.position(east: 300))
        let server = RecordingRepository(clock: VirtualClock(), places: [shrine], latency: .seconds(2))
        let lines = await MapReplay(repository: server).run(fixes: script.walk(count: 40, speed: 1.4, bearing: 90)).lines
        var position = lines.startIndex
        var elided = false
        for line in sample {
            if line == "…" {
                elided = true
                continue
            }
            guard let found = lines[position...].firstIndex(of: line) else {
                Issue.record("not in the replay's log (in order): \(line)")
                continue
            }
            // What the sample leaves out is said: nothing between two lines it shows, and only
            // fix lines where it shows `…`.
            let skipped = lines[position..<found]
            if elided {
                #expect(skipped.allSatisfy { $0.contains(" fix ") }, "more than fix lines left out before: \(line)")
            } else {
                #expect(skipped.isEmpty, "lines left out without a … before: \(line): \(skipped)")
            }
            position = found + 1
            elided = false
        }
    }
}
