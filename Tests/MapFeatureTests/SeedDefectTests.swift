import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing

/// The six defects of the seed's `MapViewModel`. Each test runs one scenario twice: through
/// `SeedMapLogic` (the seed, transcribed), where the property fails, and through our
/// `MapViewModel` (via `MapReplay`, or by hand where the test needs the observable state), where
/// it holds. The seed half is asserted too, so the scenario provably exercises the defect.
@Suite(.timeLimit(.minutes(1))) struct SeedDefectTests {
    let script = FixScript(origin: tokyo)

    @Test("1. Overlapping fetches: at 1 Hz against a slow server, one request in flight, fixes coalesced")
    func overlappingFetches() async {
        // Walking 1.4 m/s, fixes at 1 Hz for a minute, every answer takes 5 s.
        let fixes = script.walk(count: 60, speed: 1.4)
        let server = ScenarioServer.answering { _ in .seconds(5) }

        let seed = SeedMapLogic.run(fixes: fixes, server: server.seed).logic
        #expect(seed.maximumInFlight == 5, "the seed fires on every fix until the first answer")

        let log = await MapReplay(repository: server.repository()).run(fixes: fixes)
        #expect(log.maximumFetchesInFlight == 1)
        log.expectAtMostOneFetchInFlight()
        log.expectFetchesFollowRule()
    }

    @Test("1b. Qualifying fixes during a fetch become one follow-up from the newest position")
    func coalescedFollowUp() async throws {
        // A high-speed train at 110 m/s: every fix is more than 100 m on. Answers take 2.3 s
        // (so no answer lands on a fix's instant).
        let fixes = script.walk(count: 20, speed: 110)
        let server = ScenarioServer.answering { _ in .milliseconds(2_300) }

        let seed = SeedMapLogic.run(fixes: fixes, server: server.seed).logic
        #expect(seed.requests.count == 20, "the seed sends one request per fix")

        let log = await MapReplay(repository: server.repository()).run(fixes: fixes)
        log.expectAtMostOneFetchInFlight()
        log.expectFetchesFollowRule()
        // One request per 2.3 s answer (0, 2.3 … 20.7 s), not one per fix.
        log.expectFetchCount(10)
        // Each follow-up goes out when the previous answer arrives, from the newest fix then.
        for request in log.fetches.dropFirst() {
            let newest = try #require(fixes.last { VirtualTime.microseconds($0.time) <= VirtualTime.microseconds(request.time) })
            #expect(request.center == newest.coordinate, "\(request)")
            #expect(request.reason == .moved)
        }
    }

    @Test("2. Out-of-order answers: an older, slower answer never overwrites a newer one")
    func outOfOrderAnswers() async throws {
        // First request takes 5 s, every later one 1 s; the user moves 150 m after a second.
        let fixes = [script.fix(at: 0), script.fix(at: 1, north: 150), script.fix(at: 2, north: 150)]
        let server = ScenarioServer.answering { $0 == 0 ? .seconds(5) : .seconds(1) }
        let newest = script.position(north: 150)

        let seed = SeedMapLogic.run(fixes: fixes, server: server.seed).logic
        #expect(seed.appliedAnswers == [2, 1], "the seed applies the older answer last")
        #expect(seed.nearbyLocations.value != placesNear(newest), "and ends showing the old position's places")

        let log = await MapReplay(repository: server.repository()).run(fixes: fixes)
        log.expectAnswersInOrder()
        #expect(log.finalPlaces == .loaded(placesNear(newest)))
    }

    @Test("2b. A stale answer handed to the session is discarded")
    func staleAnswerDiscarded() {
        var session = MapSession()
        let first = session.receive(script.fix(at: 0)).request
        let stale = FetchRequest(id: 99, center: script.origin, radius: 5_000, time: script.time(0), reason: .first)
        let output = session.complete(stale, with: .success(placesNear(script.position(north: 900))), at: script.time(1))
        #expect(output.events.map(\.kind) == [.answerDiscarded(requestID: 99)])
        #expect(session.places == .loading(previous: nil))
        #expect(session.inFlight == first)
    }

    @Test("3. Fetch storm: while the server is down, retries back off instead of fetching on every fix")
    func fetchStorm() async {
        // An hour standing still at 1 Hz; every request fails after 200 ms.
        let fixes = script.walk(count: 3_600, speed: 0)
        let server = ScenarioServer.failing(after: .milliseconds(200))

        let seed = SeedMapLogic.run(fixes: fixes, server: server.seed).logic
        #expect(seed.requests.count == 3_600, "the seed records the fetch time only on success")

        let log = await MapReplay(repository: server.repository()).run(fixes: fixes)
        log.expectFetchesFollowRule()
        // 1, 2, 4, 8, 16 s, then at most every 30 s (jitter only shortens, to 24 s at least).
        log.expectFetchCount(121...156)
        #expect(log.fetchReasons.dropFirst().allSatisfy { $0 == .retry })
        let gaps = zip(log.fetches, log.fetches.dropFirst()).map { VirtualTime.duration(from: $0.time, to: $1.time) }
        #expect(gaps.allSatisfy { $0 <= .seconds(32) })
        #expect(gaps.suffix(100).allSatisfy { $0 >= .seconds(24) })
    }

    @Test("3b. The back-off resets on success: after recovery the 30 s rule applies again")
    func backoffResets() async {
        let fixes = script.walk(count: 300, speed: 0)
        let server = ScenarioServer { index, center in
            (.milliseconds(200), index < 4 ? .failure(.httpError(statusCode: 503, message: "busy")) : .success(placesNear(center)))
        }
        let log = await MapReplay(repository: server.repository()).run(fixes: fixes)
        log.expectFetchesFollowRule()
        #expect(Array(log.fetchReasons.prefix(6)) == [.first, .retry, .retry, .retry, .retry, .elapsed])
        let afterRecovery = log.fetches.dropFirst(5)
        let gaps = zip(afterRecovery.dropLast(), afterRecovery.dropFirst()).map { VirtualTime.duration(from: $0.time, to: $1.time) }
        #expect(gaps.allSatisfy { $0 == .seconds(31) }, "fix every second: the first fix more than 30 s on")
    }

    @Test("4. Markers vanish: places stay on the map while refreshing and after a failed refresh")
    @MainActor
    func markersStay() {
        // Standing still, a refresh every 30 s; the third request fails.
        let fixes = script.walk(count: 120, speed: 0)
        let server = ScenarioServer { index, center in
            (.milliseconds(500), index == 2 ? .failure(.networkUnavailable("tunnel")) : .success(placesNear(center)))
        }

        let seed = SeedMapLogic.run(fixes: fixes, server: server.seed).logic
        let seedEmptied = seed.history.drop { $0.state.value == nil }.filter { $0.state.value == nil }
        #expect(seedEmptied.count >= 4, "the seed empties the map on every refresh and on the failure")

        // Ours, by hand, sampling the observable property after every step.
        let model = MapViewModel(repository: server.repository(), clock: VirtualClock())
        var shown: [[Place]?] = []
        var pending: (FetchRequest, Date)?
        for fix in fixes {
            if let (request, due) = pending, due <= fix.time {
                let (_, result) = server.respond(request.id - 1, request.center)
                pending = model.complete(request, with: result, at: due).map { ($0, VirtualTime.date(due, plus: .milliseconds(500))) }
                shown.append(model.nearbyLocations.value)
            }
            if let request = model.receive(fix) { pending = (request, VirtualTime.date(fix.time, plus: .milliseconds(500))) }
            shown.append(model.nearbyLocations.value)
        }
        let afterFirstLoad = shown.drop { $0 == nil }
        #expect(!afterFirstLoad.isEmpty)
        #expect(afterFirstLoad.allSatisfy { $0 == placesNear(script.origin) })
        if case .failed = model.nearbyLocations {} else if case .loaded = model.nearbyLocations {} else {
            Issue.record("ended \(model.nearbyLocations)")
        }
    }

    @Test("4b. A failed refresh keeps the previous places next to the error")
    func failedKeepsPrevious() {
        var session = MapSession()
        let first = session.receive(script.fix(at: 0)).request!
        _ = session.complete(first, with: .success(placesNear(script.origin)), at: script.time(1))
        let refresh = session.receive(script.fix(at: 32)).request!
        #expect(session.places == .loading(previous: placesNear(script.origin)))
        _ = session.complete(refresh, with: .failure(.networkUnavailable("tunnel")), at: script.time(33))
        #expect(session.places == .failed(.networkUnavailable("tunnel"), previous: placesNear(script.origin)))
    }

    @Test("5. Poor fixes neither trigger a fetch nor move the anchor")
    func poorFixes() async {
        // Standing still; at 10 s a wild fix 2 km east with 1.5 km accuracy; at 20 s no fix at all.
        var fixes = script.walk(count: 40, speed: 0)
        fixes[10] = script.fix(at: 10, east: 2_000, accuracy: 1_500)
        fixes[20] = script.noFix(at: 20)
        let server = ScenarioServer.answering { _ in .milliseconds(300) }
        let wild = script.position(east: 2_000)

        let seed = SeedMapLogic.run(fixes: fixes, server: server.seed).logic
        #expect(seed.requests.map(\.center).contains(wild), "the seed fetches around the wild fix")
        #expect(seed.requests.count == 3, "and again when the good fixes resume, 2 km from its new anchor")

        let log = await MapReplay(repository: server.repository()).run(fixes: fixes)
        #expect(!log.fetches.map(\.center).contains(wild))
        log.expectFetchReasons([.first, .elapsed])
        #expect(log.rejectedFixes.map(\.rejection) == [.inaccurate(horizontalAccuracy: 1_500), .noPosition])
        #expect(!log.acceptedFixes.contains(fixes[10]))
    }

    @Test("6. Cancellation: the seed's answers keep changing state after the view went away")
    func seedChangesAfterStop() {
        // The view disappears at 1 s while a 5 s request is in flight.
        let fixes = [script.fix(at: 0), script.fix(at: 0.5)]
        let server = ScenarioServer.answering { _ in .seconds(5) }
        let (_, changesAfterStop) = SeedMapLogic.run(fixes: fixes, server: server.seed, stopAt: script.time(1))
        #expect(changesAfterStop == 2, "both requests (the second from the fix at 0.5 s) land after the stop")
        // Ours: `MapViewModelTests` runs the real async shell and cancels it; here the harness's
        // `.stop` ending shows the request cancelled and nothing after.
    }

    @Test("6b. Stopping cancels the request in flight and nothing follows")
    func stopCancels() async throws {
        let fixes = [script.fix(at: 0), script.fix(at: 0.5)]
        let server = ScenarioServer.answering { _ in .seconds(5) }
        let log = await MapReplay(repository: server.repository(), ending: .stop).run(fixes: fixes)
        // A failure, not a crash of the whole test process, if no request was made.
        let first = try #require(log.fetches.first)
        #expect(log.events.suffix(2).map(\.kind) == [.fetchCancelled(first), .stopped])
        #expect(log.finalPlaces == .idle)
        log.expectNothingAfterStop()
    }
}
