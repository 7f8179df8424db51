import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing

/// MapFeature's one discrete-event loop, as the test harness and `locsim replay --fast` use it.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct MapReplayLoopTests {
    nonisolated static let script = FixScript(origin: Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671))

    /// A server of the test's own (not a RecordingRepository): every answer is one shrine, and
    /// takes `latency` of virtual time, reported through the protocol.
    final class SlowServer: LocationRepository {
        let latency: Duration
        let shrine = Place(id: "shrine", name: "Shrine", coordinate: MapReplayLoopTests.script.position(east: 300))
        init(latency: Duration) { self.latency = latency }

        func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] { [shrine] }

        func respond(center: Coordinate, radius: Double, at time: Duration)
            async -> (result: Result<[Place], any Error>, latency: Duration?)
        {
            (.success([shrine]), latency)
        }
    }

    @Test("Any repository can report its latency through respond(center:radius:at:): answers come that long after their request")
    func reportedLatency() async throws {
        let fixes = Self.script.walk(count: 120, speed: 1.4, bearing: 90)
        let log = await MapReplay(repository: SlowServer(latency: .seconds(3))).run(fixes: fixes)
        log.expectWellBehaved()
        let answers = log.answers
        #expect(answers.count == log.fetches.count)
        for answer in answers {
            #expect(answer.time == answer.request.time.addingTimeInterval(3), "answer #\(answer.request.id)")
        }
        // The same server without the protocol's report answers after the harness's latency.
        let plain = await MapReplay(repository: OfflineStandIn(), latency: .seconds(1)).run(fixes: fixes)
        for answer in plain.answers {
            #expect(answer.time == answer.request.time.addingTimeInterval(1))
        }
    }

    @Test("MapReplay's log is the loop's events, in the order the loop hands them over")
    func oneLoop() async throws {
        let fixes = Self.script.walk(count: 200, speed: 1.4, bearing: 45)
        let server = SlowServer(latency: .milliseconds(2_500))
        var events: [MapEvent] = []
        var iterator = fixes.makeIterator()
        let outcome = await MapReplayLoop(repository: server).run(onEvent: { events.append($0) }) {
            () throws(Never) -> Fix? in iterator.next()
        }
        let log = await MapReplay(repository: server).run(fixes: fixes)
        #expect(events == log.events)
        #expect(outcome.epoch == fixes.first?.time)
        #expect(outcome.finalPlaces == log.finalPlaces)
        #expect(!outcome.wasCancelled)
    }

    @Test("Cancelling the task stops the loop before the next fix, with the model stopped")
    func cancellation() async throws {
        let fixes = Self.script.walk(count: 100, speed: 1.4, bearing: 0)
        // In a task of its own, which the fix source cancels after the 10th fix (a Ctrl-C).
        let (outcome, events) = await Task { @MainActor () -> (MapReplayLoop.Outcome<Never>, [MapEvent]) in
            var delivered = 0
            var events: [MapEvent] = []
            let outcome = await MapReplayLoop(repository: SlowServer(latency: .seconds(5))).run(onEvent: { events.append($0) }) {
                () throws(Never) -> Fix? in
                guard delivered < fixes.count else { return nil }
                defer { delivered += 1 }
                if delivered == 10 { withUnsafeCurrentTask { $0?.cancel() } }
                return fixes[delivered]
            }
            return (outcome, events)
        }.value
        #expect(outcome.wasCancelled)
        #expect(ReplayLog(events: events).acceptedFixes.count == 11)
        #expect(events.last?.kind == .stopped)
    }
}

/// A plain repository (no reported latency).
struct OfflineStandIn: LocationRepository {
    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] { [] }
}
