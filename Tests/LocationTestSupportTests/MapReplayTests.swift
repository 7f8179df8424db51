import Foundation
import GPXFormat
import LocationCore
import LocationTestSupport
import LocSimTestHelpers
import MapFeature
import Testing

@MainActor
@Suite(.timeLimit(.minutes(1))) struct MapReplayTests {
    let script = FixScript(origin: Coordinate(uncheckedLatitude: 37.8716, longitude: -122.2727))

    var places: [Place] {
        (0..<40).map { index in
            Place(id: "p\(index)", name: "Place \(index)",
                  coordinate: script.origin.destination(distance: 400 * Double(index), bearing: Double(index * 37 % 360)))
        }
    }

    @Test("Answers land at the request's time plus the scripted latency, before a fix at the same instant")
    func ordering() async {
        let repository = RecordingRepository(clock: VirtualClock(), places: places, latency: .seconds(1))
        let log = await MapReplay(repository: repository).run(fixes: [script.fix(at: 0), script.fix(at: 1, north: 500)])
        let kinds = log.lines.map { String($0.split(separator: " ", maxSplits: 1)[1].prefix(11)) }
        // The scripted repository answers all 40 places both times: nothing appears the second time.
        #expect(kinds == ["fix 37.8716", "fetch #1 fi", "answer #1: ", "appeared 40", "fix 37.8760", "fetch #2 mo",
                          "answer #2: "])
        #expect(log.lines[2].hasPrefix("t+1.000s answer #1"))
        #expect(repository.calls.map(\.time) == [.zero, .seconds(1)])
    }

    @Test("Other repositories answer after the harness's latency")
    func fixedLatency() async {
        let index = InMemoryNearbyIndex(places: places)
        let log = await MapReplay(repository: index, latency: .milliseconds(300)).run(fixes: script.walk(count: 90, speed: 1.4))
        #expect(log.answers.map { VirtualTime.duration(from: $0.request.time, to: $0.time) }.allSatisfy { $0 == .milliseconds(300) })
        log.expectWellBehaved()
        // 1.4 m/s: 43 m between refreshes, so the time rule drives them.
        #expect(log.fetchReasons == [.first, .elapsed, .elapsed])
    }

    @Test("The same replay twice gives the identical log, failures and jitter included")
    func determinism() async {
        func replay() async -> ReplayLog {
            let clock = VirtualClock()
            var script: [RecordingRepository.Response] = []
            for index in 0..<400 {
                let latency = Duration.milliseconds(150 + (index * 7_919) % 2_500)
                script.append(index % 5 == 3 ? .failure(.httpError(statusCode: 503, message: "busy"), after: latency)
                                             : .places(Array(places.shuffledDeterministically(index).prefix(12)), after: latency))
            }
            let repository = RecordingRepository(clock: clock, script: script)
            let configuration = try! FetchThrottle.Configuration(retry: .init(jitter: 0.5, seed: 7))
            return await MapReplay(repository: repository, configuration: configuration)
                .run(fixes: self.script.walk(count: 3_600, speed: 2.5, bearing: 30))
        }
        let first = await replay()
        let second = await replay()
        #expect(first == second)
        #expect(first.lines == second.lines)
        #expect(first.failures.count > 5)
        first.expectWellBehaved()
    }

    @Test("A provider replays like its fixes")
    func provider() async throws {
        let fixes = script.walk(count: 200, speed: 3)
        let index = InMemoryNearbyIndex(places: places)
        let fromFixes = await MapReplay(repository: index, latency: .milliseconds(700)).run(fixes: fixes)
        let fromProvider = try await MapReplay(repository: index, latency: .milliseconds(700))
            .run(ScriptedProvider(fixes: fixes, clock: VirtualClock(autoAdvance: true)))
        #expect(fromFixes == fromProvider)
    }

    @Test("A provider's error stops the replay, keeps the log so far, and is the provider's own, to match by type")
    func providerError() async {
        struct Broken: Error { var device: String }
        let provider = ScriptedProvider(
            fixes: [script.fix(at: 0)], clock: VirtualClock(autoAdvance: true), then: .fail(Broken(device: "/dev/ttyACM0")))
        do {
            _ = try await MapReplay(repository: InMemoryNearbyIndex(places: places)).run(provider)
            Issue.record("no error")
        } catch {
            #expect(error.log.fetches.count == 1)
            #expect(error.description.contains("Broken"))
            #expect((error.underlying as? Broken)?.device == "/dev/ttyACM0")
        }
    }

    @Test("A GPX file replays its track points at their times")
    func gpxFile() async throws {
        let fixes = script.walk(count: 120, speed: 2)
        try await withScratchFolder("locsim-map-replay") { folder in
            let path = folder + "/map-replay.gpx"
            let writer = try GPXWriter(path: path)
            for fix in fixes { try writer.write(fix) }
            try writer.finish()

            let index = InMemoryNearbyIndex(places: places)
            let fromFile = try await MapReplay(repository: index).run(routeFile: path)
            let fromFixes = await MapReplay(repository: index).run(fixes: fixes.map { GPXPoint(fix: $0)!.fix()! })
            #expect(fromFile.acceptedFixes.count == 120)
            #expect(fromFile.acceptedFixes.map(\.time) == fromFixes.acceptedFixes.map(\.time))
            #expect(fromFile.acceptedFixes.map(\.coordinate) == fromFixes.acceptedFixes.map(\.coordinate))
            #expect(fromFile.lines.filter { !$0.contains(" fix ") } == fromFixes.lines.filter { !$0.contains(" fix ") })
            // The file has no speed or course: the replay derives them from the points, as `locsim replay` does.
            #expect(fromFile.acceptedFixes.dropFirst().allSatisfy { $0.speed != nil && $0.course != nil })
        }
    }

    /// A GPX track of `fixes` in the file `name`.gpx in `folder`, with `extra(i)` in the i-th point
    /// after its time.
    static func gpxFile(_ name: String, in folder: String, _ fixes: [Fix], extra: (Int) -> String = { _ in "" }) throws -> String {
        let points = fixes.enumerated().map { index, fix in
            let time = ISO8601DateFormatter().string(from: fix.time)
            return #"<trkpt lat="\#(fix.coordinate!.latitude)" lon="\#(fix.coordinate!.longitude)"><time>\#(time)</time>\#(extra(index))</trkpt>"#
        }
        let path = folder + "/\(name).gpx"
        try (#"<gpx version="1.1" creator="test"><trk><trkseg>"# + points.joined() + "</trkseg></trk></gpx>")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("A walk file replays as locsim replay reads it: a point whose time goes backwards is dropped, and said")
    func backwardsTimeDropped() async throws {
        let seconds = [0, 10, 20, 15, 30]
        try await withScratchFolder("locsim-map-replay") { folder in
            let path = try Self.gpxFile("backwards", in: folder, seconds.enumerated().map { index, second in
                script.fix(at: Double(second), north: 20 * Double(index))
            })

            let log = try await MapReplay(repository: InMemoryNearbyIndex(places: places)).run(routeFile: path)
            #expect(log.acceptedFixes.count + log.rejectedFixes.count == 4)
            #expect(log.warnings.first?.contains("dropped 1 point whose time goes backwards") == true, "\(log.warnings)")
            #expect(log.warnings.count == 2 && log.warnings[1].contains(path), "\(log.warnings)")
        }
    }

    @Test("A GPX point's <hdop> is its accuracy as locsim replay reads it: a 1 km jump at HDOP 20 (380 m) is rejected, not fetched for")
    func gpxHDOP() async throws {
        let fixes = (0..<60).map { second in script.fix(at: Double(second), north: second == 20 ? 1_000 : 0) }
        try await withScratchFolder("locsim-map-replay") { folder in
            let path = try Self.gpxFile("hdop", in: folder, fixes) { index in "<hdop>\(index == 20 ? 20 : 1)</hdop>" }

            let log = try await MapReplay(repository: InMemoryNearbyIndex(places: places)).run(routeFile: path)
            #expect(log.rejectedFixes.count == 1 && log.rejectedFixes.first?.fix.horizontalAccuracy == 380, "\(log.rejectedFixes)")
            log.expectFetchReasons([.first, .elapsed])
            #expect(log.acceptedFixes.first?.horizontalAccuracy == 19)
        }
    }

    @Test("A GeoJSON route without times is walked from Date.distantPast to its end at 1.4 m/s")
    func geoJSONRoute() async throws {
        let end = script.origin.destination(distance: 1_400, bearing: 0)
        try await withScratchFolder("locsim-map-replay") { folder in
            let path = folder + "/route.geojson"
            try #"{"type":"LineString","coordinates":[[\#(script.origin.longitude),\#(script.origin.latitude)],[\#(end.longitude),\#(end.latitude)]]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)

            let log = try await MapReplay(repository: InMemoryNearbyIndex(places: places)).run(routeFile: path)
            #expect(log.epoch == .distantPast)
            let first = try #require(log.acceptedFixes.first)
            let last = try #require(log.acceptedFixes.last)
            #expect(first.time == .distantPast)
            #expect(try #require(last.coordinate).distance(to: end) < 1, "\(last)")
            // Walked at 1.4 m/s: the route's length over the time from its first fix to its last.
            let speed = try #require(first.coordinate).distance(to: end) / last.time.timeIntervalSince(first.time)
            #expect(abs(speed - 1.4) < 0.01, "\(speed) m/s")
            #expect(log.warnings.isEmpty)
        }
    }

    @Test("A GPX file that cannot be read names the file, line and column")
    func gpxBroken() async throws {
        try await withScratchFolder("locsim-map-replay") { folder in
            let path = folder + "/broken.gpx"
            try #"<gpx version="1.1"><trk><trkseg><trkpt lat="91" lon="0"><time>2020-01-01T00:00:00Z</time></trkpt>"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            do throws(ReplayError) {
                _ = try await MapReplay(repository: InMemoryNearbyIndex(places: [])).run(routeFile: path)
                Issue.record("no error")
            } catch {
                #expect(error.description.contains(path))
                #expect(error.description.contains(":1:"))
            }
        }
    }

    @Test("Ending .stop cancels the request in flight at the last fix")
    func stop() async {
        let repository = RecordingRepository(clock: VirtualClock(), places: places, latency: .seconds(10))
        let log = await MapReplay(repository: repository, ending: .stop).run(fixes: [script.fix(at: 0)])
        #expect(log.events.last?.kind == .stopped)
        #expect(log.finalPlaces == .idle)
        // The repository says what the log says: the call was cancelled, not answered.
        #expect(log.events.contains { if case .fetchCancelled = $0.kind { true } else { false } })
        #expect(repository.calls.map(\.outcome) == [.cancelled])
        #expect(repository.calls.map(\.outcome.description) == ["cancelled"])
    }

    @Test("A replay's log carries the rule it ran with, so its checks use that rule")
    func ownRule() async throws {
        let quick = try FetchThrottle.Configuration(minimumDistance: 50, minimumInterval: .seconds(10))
        let repository = RecordingRepository(clock: VirtualClock(), places: places, latency: .milliseconds(200))
        let log = await MapReplay(repository: repository, configuration: quick).run(fixes: script.walk(count: 60, speed: 6))
        #expect(log.configuration == quick)
        #expect(log.fetchReasons.contains(.moved))
        log.expectWellBehaved()
        #expect(!log.ruleViolations(.game).isEmpty)
        #expect(repository.calls.allSatisfy { $0.outcome == .answered(count: 40) })
        #expect(repository.calls.first?.outcome.description == "answered 40 places")
    }

    @Test("A log collected by hand from MapViewModel.onEvent: t+0 is the first fix; the provider starting before it is 'before t+0'")
    @MainActor func handCollectedLog() async {
        let clock = VirtualClock(autoAdvance: true)
        var events: [MapEvent] = []
        let model = MapViewModel(repository: InMemoryNearbyIndex(places: []), clock: clock, onEvent: { events.append($0) })
        await model.run(ScriptedProvider(fixes: script.walk(count: 40, speed: 1.4), clock: clock))
        let log = ReplayLog(events: events)
        #expect(events.first?.kind == .providerStateChanged(.running) && events.first?.time == MapEvent.noFixTime)
        #expect(log.epoch == script.fix(at: 0).time)
        #expect(log.lines.first == "before t+0 provider running", "\(log.lines.prefix(3))")
        #expect(log.lines.dropFirst().first?.hasPrefix("t+0.000s fix ") == true, "\(log.lines.prefix(3))")
        #expect(!log.lines.contains { $0.contains("t+7216") || $0.contains("t+-") }, "\(log.lines)")
    }

    @Test("A fix whose time is NaN is rejected at the latest time seen (or before t+0 when first); every event time finite and in order")
    func nanTime() async {
        var bad = script.fix(at: 3)
        bad.time = Date(timeIntervalSinceReferenceDate: .nan)
        let replay = MapReplay(repository: RecordingRepository(clock: VirtualClock(), places: []))
        // (A NaN time is equal to nothing, so which case this is is said, not compared.)
        for (badFirst, fixes) in [(false, [script.fix(at: 0), bad, script.fix(at: 31)]), (true, [bad, script.fix(at: 0), script.fix(at: 31)])] {
            let log = await replay.run(fixes: fixes)
            let times = log.events.map(\.time.timeIntervalSinceReferenceDate)
            #expect(times.allSatisfy { $0.isFinite }, "\(log.lines)")
            #expect(times == times.sorted(), "\(log.lines)")
            #expect(log.epoch == script.fix(at: 0).time)
            let rejected = log.lines.filter { $0.contains("fix rejected (invalid time)") }
            #expect(rejected.count == 1, "\(log.lines)")
            let expected = badFirst ? "before t+0 fix rejected (invalid time)" : "t+0.000s fix rejected (invalid time)"
            #expect(rejected.first?.hasPrefix(expected) == true && rejected.first?.contains("its time") == false, "\(rejected)")
            log.expectFetchReasons([.first, .elapsed])
        }
    }

    @Test("fetchSummary of a scenario's log: every request, answer and failure line, no phone note or fix among them")
    func fetchSummaryOfScenario() async throws {
        let log = try await MapReplay(repository: InMemoryNearbyIndex(places: []))
            .run(scenarioFile: PackagePaths.path("tracks/scenarios/background-walk.json"))
        let summary = log.fetchSummary.split(separator: "\n")
        let started = log.events.filter { if case .fetchStarted = $0.kind { true } else { false } }.count
        #expect(started > 10)
        #expect(summary.count { $0.contains(" fetch #") } == started, "\(summary.prefix(10))")
        #expect(!summary.contains { $0.contains("phone:") || $0.contains(" fix ") }, "\(summary.prefix(10))")
        // Each line is the log's own line for that event.
        #expect(summary.allSatisfy { log.lines.contains(String($0)) })
    }
}

extension Array {
    /// A fixed permutation per `seed` (no randomness: a rotation and a stride).
    func shuffledDeterministically(_ seed: Int) -> [Element] {
        guard !isEmpty else { return self }
        let rotated = Array(self[(seed % count)...] + self[..<(seed % count)])
        return stride(from: 0, to: rotated.count, by: 2).map { rotated[$0] } + stride(from: 1, to: rotated.count, by: 2).map { rotated[$0] }
    }
}
