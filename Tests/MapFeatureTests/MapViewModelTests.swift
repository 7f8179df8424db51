import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing

/// The async shell, `MapViewModel.run(_:)`, with real concurrency: a `ScriptedProvider` and a
/// `RecordingRepository` waiting on one manual `VirtualClock`. Each step moves time to the next
/// deadline, then waits for the handshake (`waitForSleepers`, or an event) that shows the model
/// has reacted, so the interleaving is the same on every run.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct MapViewModelTests {
    let script = FixScript(origin: tokyo)

    func at(_ seconds: Double) -> VirtualClock.Instant {
        VirtualClock.Instant(offset: .microseconds(Int64((seconds * 1_000_000).rounded())))
    }

    @Test("A replay that ends: first fix fetches, the answer shows, the provider finishes")
    func finite() async throws {
        let clock = VirtualClock()
        let shrine = Place(id: "s1", name: "Shrine", coordinate: script.position(north: 300))
        let repository = RecordingRepository(clock: clock, places: [shrine], latency: .milliseconds(500))
        let events = EventCollector()
        let model = MapViewModel(repository: repository, clock: clock, onEvent: events.hook)
        let fixes = [script.fix(at: 0), script.fix(at: 1), script.fix(at: 2)]
        let provider = ScriptedProvider(fixes: fixes, clock: clock)

        let run = Task { await model.run(provider) }
        await clock.waitForSleepers(2)  // the request (until 0.5 s) and the provider (until 1 s)
        #expect(model.providerState == .running)
        #expect(model.nearbyLocations == .loading(previous: nil))
        #expect(model.lastFetch?.reason == .first)
        #expect(model.userLocation == script.origin)

        await clock.advance(to: at(0.5))
        await events.wait { if case .fetchSucceeded = $0.kind { true } else { false } }
        #expect(model.nearbyLocations == .loaded([shrine]))

        await clock.advance(to: at(2))
        await run.value
        #expect(model.providerState == .finished)
        #expect(model.latestFix == fixes[2])
        #expect(repository.calls.map(\.time) == [.zero])
        #expect(repository.calls.map(\.outcome) == [.answered(count: 1)])
        events.log.expectWellBehaved()
    }

    @Test("Fixes that qualify during a request are coalesced into one follow-up from the newest position")
    func coalescing() async throws {
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, otherwise: .init(latency: .milliseconds(2_300)) { call in
            .success(placesNear(call.center))
        })
        let events = EventCollector()
        let model = MapViewModel(repository: repository, clock: clock, onEvent: events.hook)
        // 150 m every second: every fix qualifies.
        let fixes = (0...5).map { script.fix(at: Double($0), north: 150 * Double($0)) }
        let provider = ScriptedProvider(fixes: fixes, clock: clock, then: .waitForCancellation)

        let run = Task { await model.run(provider) }
        await clock.waitForSleepers(2)
        for seconds in [1.0, 2.0, 2.3, 3.0, 4.0, 4.6] {
            await clock.advance(to: at(seconds))
            await clock.waitForSleepers(2)  // the provider and a request are waiting again
        }
        await clock.advance(to: at(5))
        await events.waitForFix(fixes[5])
        #expect(model.sessionState.pendingFollowUp == .moved)

        run.cancel()
        await run.value
        let calls = repository.calls
        #expect(calls.map(\.center) == [fixes[0], fixes[2], fixes[4]].map(\.coordinate))
        #expect(calls.map(\.time) == [.zero, .milliseconds(2_300), .milliseconds(4_600)])
        #expect(calls.map(\.outcome) == [.answered(count: 3), .answered(count: 3), .cancelled])
        // The cancelled request's spinner is gone; the second answer is still shown.
        #expect(model.nearbyLocations == .loaded(placesNear(script.position(north: 300))))
        events.log.expectWellBehaved()
        #expect(events.log.coalescedCount == 5)
    }

    @Test("6. Stopping cancels the request in flight; afterwards nothing changes")
    func cancellation() async throws {
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, places: placesNear(script.origin), latency: .seconds(5))
        let events = EventCollector()
        let model = MapViewModel(repository: repository, clock: clock, onEvent: events.hook)
        let fixes = [script.fix(at: 0), script.fix(at: 1)]
        let run = Task { await model.run(ScriptedProvider(fixes: fixes, clock: clock, then: .waitForCancellation)) }
        await clock.waitForSleepers(2)
        await clock.advance(to: at(1))
        await events.waitForFix(fixes[1])
        #expect(model.nearbyLocations == .loading(previous: nil))

        run.cancel()
        await run.value
        #expect(repository.calls.map(\.outcome) == [.cancelled])
        #expect(model.providerState == .idle)
        #expect(model.nearbyLocations == .idle)
        #expect(events.events.last?.kind == .stopped)
        #expect(clock.sleeperCount == 0)

        // Time goes on: nothing is left to change anything.
        let state = (model.nearbyLocations, model.latestFix, model.lastFetch, model.providerState, events.events.count)
        await clock.advance(by: .seconds(60))
        #expect(model.nearbyLocations == state.0)
        #expect(model.latestFix == state.1)
        #expect(model.lastFetch == state.2)
        #expect(model.providerState == state.3)
        #expect(events.events.count == state.4)
    }

    @Test("6b. An answer from a repository that ignores cancellation is dropped after stop")
    func stubbornRepository() async throws {
        let gate = Gate()
        let repository = StubbornRepository(gate: gate, answer: placesNear(script.origin))
        let events = EventCollector()
        let clock = VirtualClock()
        let model = MapViewModel(repository: repository, clock: clock, onEvent: events.hook)
        let fixes = [script.fix(at: 0)]
        let run = Task { await model.run(ScriptedProvider(fixes: fixes, clock: clock, then: .waitForCancellation)) }
        await gate.waitUntilEntered()
        run.cancel()
        await gate.open()  // the repository answers anyway, after the stop
        await run.value
        #expect(model.nearbyLocations == .idle)
        #expect(!events.events.contains { if case .fetchSucceeded = $0.kind { true } else { false } })
        #expect(events.events.last?.kind == .stopped)
    }

    @Test("A stopped model runs again: the cancelled request's anchor is forgotten, so it fetches at once")
    func restart() async throws {
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, places: placesNear(script.origin), latency: .seconds(5))
        let model = MapViewModel(repository: repository, clock: clock)
        let first = Task { await model.run(ScriptedProvider(fixes: [script.fix(at: 0)], clock: clock, then: .waitForCancellation)) }
        await clock.waitForSleepers(1)
        first.cancel()
        await first.value

        let second = Task { await model.run(ScriptedProvider(fixes: [script.fix(at: 1)], clock: clock, then: .waitForCancellation)) }
        await clock.waitForSleepers(1)  // request #2 is waiting
        #expect(model.lastFetch?.reason == .first)
        #expect(model.lastFetch?.id == 2)
        second.cancel()
        await second.value
        #expect(repository.calls.map(\.outcome) == [.cancelled, .cancelled])
    }

    @Test("A provider that throws: state `failed` with the error, and the request in flight still answers")
    func providerFails() async throws {
        struct ReceiverGone: Error, Sendable, CustomStringConvertible { var description: String { "receiver unplugged" } }
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, places: placesNear(script.origin), latency: .seconds(1))
        let model = MapViewModel(repository: repository, clock: clock)
        let provider = ScriptedProvider(fixes: [script.fix(at: 0)], clock: clock, then: .fail(ReceiverGone()))
        let run = Task { await model.run(provider) }
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(1))
        await run.value
        let error = try #require(model.providerState.error)
        #expect(error.code == .locationUnavailable)
        // An error that describes itself keeps its words; one that does not is named by its type.
        #expect(error.message == "receiver unplugged")
        enum Mute: Error { case gone }
        let mute = MapViewModel(repository: repository, clock: clock)
        await mute.run(ScriptedProvider(fixes: [], clock: clock, then: .fail(Mute.gone)))
        let message = try #require(mute.providerState.error).message
        #expect(message.hasPrefix("Mute") && message.hasSuffix(": gone"))
        #expect(model.nearbyLocations == .loaded(placesNear(script.origin)))
    }

    @Test("task() runs the provider given at initialisation; without one it reports why")
    func task() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let repository = RecordingRepository(clock: clock, places: [], latency: .zero)
        let model = MapViewModel(repository: repository, clock: clock,
                                 provider: ScriptedProvider(fixes: script.walk(count: 5, speed: 1), clock: clock))
        await model.task()
        #expect(model.providerState == .finished)
        #expect(repository.calls.count == 1)

        let bare = MapViewModel(repository: repository, clock: clock)
        await bare.task()
        #expect(bare.providerState.error?.code == .locationUnavailable)
    }

    @Test("stop() during a run freezes the model; the run then ends without changing anything")
    func stopDuringRun() async throws {
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, places: placesNear(script.origin), latency: .seconds(5))
        let events = EventCollector()
        let model = MapViewModel(repository: repository, clock: clock, onEvent: events.hook)
        let fixes = [script.fix(at: 0), script.fix(at: 1, north: 500)]
        let run = Task { await model.run(ScriptedProvider(fixes: fixes, clock: clock)) }
        await clock.waitForSleepers(2)
        model.stop()
        #expect(model.providerState == .idle)
        let count = events.events.count
        await clock.advance(by: .seconds(10))
        await run.value
        #expect(events.events.count == count)
        #expect(model.latestFix == fixes[0])
        #expect(model.nearbyLocations == .idle)
        events.log.expectNothingAfterStop()
    }

    @Test("A run started in a cancelled task changes nothing")
    func cancelledBeforeStart() async {
        let clock = VirtualClock()
        let repository = RecordingRepository(clock: clock, places: [])
        let model = MapViewModel(repository: repository, clock: clock)
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await model.run(ScriptedProvider(fixes: [script.fix(at: 0)], clock: clock))
        }
        await run.value
        #expect(model.providerState == .idle)
        #expect(repository.calls.isEmpty)
    }
}

extension ProviderState {
    var error: AppError? { if case .failed(let error) = self { error } else { nil } }
}

/// A one-shot gate: the repository waits at it, the test opens it.
actor Gate {
    private var entered: CheckedContinuation<Void, Never>?
    private var hasEntered = false
    private var waiting: CheckedContinuation<Void, Never>?
    private var isOpen = false

    func enter() async {
        hasEntered = true
        entered?.resume()
        entered = nil
        if isOpen { return }
        await withCheckedContinuation { waiting = $0 }
    }

    func waitUntilEntered() async {
        if hasEntered { return }
        await withCheckedContinuation { entered = $0 }
    }

    func open() {
        isOpen = true
        waiting?.resume()
        waiting = nil
    }
}

/// A repository that does not honour cancellation: it answers when the gate opens, whatever happened.
struct StubbornRepository: LocationRepository {
    let gate: Gate
    let answer: [Place]
    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        await gate.enter()
        return answer
    }
}
