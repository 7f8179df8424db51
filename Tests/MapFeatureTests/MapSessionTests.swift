import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing
import LocSimTestHelpers

/// The pure state machine, step by step.
@Suite(.ownThread) struct MapSessionTests {
    let script = FixScript(origin: tokyo)

    /// A place `north` metres north of the script's origin, named after its id unless told.
    func place(_ id: String, north: Double, name: String? = nil, kind: String = "", level: Int? = nil) -> Place {
        Place(id: id, name: name ?? id.uppercased(), coordinate: script.position(north: north), kind: kind, level: level)
    }

    @Test("A poor fix is logged as rejected and changes nothing else")
    func poorFix() {
        var session = MapSession()
        let output = session.receive(script.fix(at: 0, accuracy: 150))
        #expect(output.events.map(\.kind) == [.fixRejected(script.fix(at: 0, accuracy: 150), .inaccurate(horizontalAccuracy: 150))])
        #expect(output.request == nil)
        #expect(session.latestFix == nil)
        #expect(session.places == .idle)
    }

    @Test("A fix handed over after a later answer is delivered at the answer's time: events never go backwards")
    func lateFixAfterAnswer() throws {
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        // The answer took 3 s of fix time; the fix of second 2 reaches the app after it.
        _ = session.complete(first, with: .success([place("a", north: 10)]), at: script.time(3))
        let late = script.fix(at: 2, north: 5)
        let output = session.receive(late)
        #expect(output.events.map(\.time) == [script.time(3)])
        #expect(output.events.map(\.kind) == [.fixAccepted(late)])
        #expect(session.latestTime == script.time(3))
        // The fix keeps its own time; the next one on time is delivered at its own.
        #expect(session.latestFix?.time == script.time(2))
        #expect(session.receive(script.fix(at: 4, north: 6)).events.map(\.time) == [script.time(4)])
        // The same for a track whose time goes backwards, rejected fixes too.
        let backwards = session.receive(script.fix(at: 1, accuracy: 150))
        #expect(backwards.events.map(\.time) == [script.time(4)])
    }

    @Test("Moved outranks elapsed in a coalesced follow-up, whatever the order")
    func strongestReason() throws {
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        _ = session.receive(script.fix(at: 10, north: 150))    // 150 m from #1: moved
        _ = session.receive(script.fix(at: 41, north: 20))     // 20 m from #1 after 41 s: elapsed
        #expect(session.pendingFollowUp == .moved)
        let followUp = try #require(session.complete(first, with: .success([]), at: script.time(42)).request)
        #expect(followUp.reason == .moved)
        #expect(followUp.center == script.position(north: 20))
        #expect(followUp.time == script.time(42))
    }

    @Test("An elapsed-only follow-up says elapsed")
    func elapsedFollowUp() throws {
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        let output = session.receive(script.fix(at: 31, north: 5))
        #expect(output.events.last?.kind == .fetchCoalesced(reason: .elapsed, inFlight: first.id))
        let followUp = try #require(session.complete(first, with: .success([]), at: script.time(32)).request)
        #expect(followUp.reason == .elapsed)
    }

    @Test("A failure drops the pending follow-up; the back-off decides")
    func failureDropsFollowUp() throws {
        var session = MapSession(configuration: try .init(retry: .init(jitter: 0)))
        let first = try #require(session.receive(script.fix(at: 0)).request)
        _ = session.receive(script.fix(at: 1, north: 500))
        let output = session.complete(first, with: .failure(.networkUnavailable()), at: script.time(2))
        #expect(output.request == nil)
        #expect(session.pendingFollowUp == nil)
        #expect(session.receive(script.fix(at: 2.5, north: 900)).request == nil)
        let retry = try #require(session.receive(script.fix(at: 3, north: 900)).request)
        #expect(retry.reason == .retry)
        #expect(retry.center == script.position(north: 900))
    }

    @Test("Places: loading keeps the previous value, an answer replaces it with appear/disappear events")
    func placesLifecycle() throws {
        let a = place("a", north: 10)
        let b = place("b", north: 20)
        let c = place("c", north: 30)
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        #expect(session.places == .loading(previous: nil))
        let answered = session.complete(first, with: .success([a, b]), at: script.time(1))
        #expect(answered.events.map(\.kind) == [.fetchSucceeded(first, count: 2), .placesAppeared([a, b])])
        let second = try #require(session.receive(script.fix(at: 31)).request)
        #expect(session.places == .loading(previous: [a, b]))
        #expect(session.places.isRefreshing)
        let changed = session.complete(second, with: .success([b, c]), at: script.time(32))
        #expect(changed.events.map(\.kind) == [.fetchSucceeded(second, count: 2), .placesAppeared([c]), .placesDisappeared([a])])
        #expect(session.places == .loaded([b, c]))
    }

    @Test("Places: an answer that gives a known id new values reports it as changed, once per id")
    func placesChanged() throws {
        let a = place("a", north: 10)
        let b = place("b", north: 20, kind: "cafe", level: 1)
        let c = place("c", north: 30)
        let movedA = place("a", north: 60)
        let renamedB = place("b", north: 20, name: "B2", kind: "cafe", level: 1)
        let levelledB = place("b", north: 20, kind: "cafe", level: 2)
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        _ = session.complete(first, with: .success([a, b]), at: script.time(1))
        // a moved, b renamed, c new; a repeated id counts once (its first occurrence).
        let second = try #require(session.receive(script.fix(at: 31)).request)
        let changed = session.complete(second, with: .success([movedA, renamedB, c, c, movedA]), at: script.time(32))
        #expect(
            changed.events.map(\.kind) == [
                .fetchSucceeded(second, count: 5), .placesAppeared([c]), .placesChanged([movedA, renamedB]),
            ])
        // Only the level differs: still a change. Identical values: no event at all.
        let third = try #require(session.receive(script.fix(at: 62)).request)
        let levelled = session.complete(third, with: .success([levelledB]), at: script.time(63))
        #expect(
            levelled.events.map(\.kind) == [
                .fetchSucceeded(third, count: 1), .placesDisappeared([movedA, c]), .placesChanged([levelledB]),
            ])
        let fourth = try #require(session.receive(script.fix(at: 93)).request)
        let same = session.complete(fourth, with: .success([levelledB]), at: script.time(94))
        #expect(same.events.map(\.kind) == [.fetchSucceeded(fourth, count: 1)])
    }

    @Test("Places: a new order of the same values is no event; a repeated id on the map compares by its first occurrence")
    func placesReordered() throws {
        let a = place("a", north: 10)
        let shadow = place("a", north: 90, name: "A elsewhere")
        let b = place("b", north: 20)
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        _ = session.complete(first, with: .success([a, shadow, b]), at: script.time(1))
        let second = try #require(session.receive(script.fix(at: 31)).request)
        let reordered = session.complete(second, with: .success([b, a]), at: script.time(32))
        #expect(reordered.events.map(\.kind) == [.fetchSucceeded(second, count: 2)])
        let third = try #require(session.receive(script.fix(at: 62)).request)
        let shadowed = session.complete(third, with: .success([shadow, b]), at: script.time(63))
        #expect(shadowed.events.map(\.kind) == [.fetchSucceeded(third, count: 2), .placesChanged([shadow])])
    }

    @Test("Stop: cancels, restores the places from before the request, then ignores everything until resume")
    func stopAndResume() throws {
        let a = Place(id: "a", name: "A", coordinate: script.origin)
        var session = MapSession()
        let first = try #require(session.receive(script.fix(at: 0)).request)
        _ = session.complete(first, with: .failure(.notFound()), at: script.time(1))
        let retry = try #require(session.receive(script.fix(at: 3)).request)
        let stopped = session.stop()
        #expect(stopped.events.map(\.kind) == [.fetchCancelled(retry), .stopped])
        #expect(session.places == .failed(.notFound(), previous: nil))
        #expect(session.receive(script.fix(at: 4, north: 900)) == MapSession.Output())
        #expect(session.complete(retry, with: .success([a]), at: script.time(5)) == MapSession.Output())
        #expect(session.stop() == MapSession.Output())
        #expect(session.latestFix == script.fix(at: 3))

        session.resume()
        let again = try #require(session.receive(script.fix(at: 6)).request)
        #expect(again.reason == .retry)
    }

    @Test("Stop stamps its events with the latest time seen")
    func stopTime() {
        var session = MapSession()
        _ = session.receive(script.fix(at: 7))
        #expect(session.stop().events.map(\.time) == [script.time(7), script.time(7)])
    }

    @Test("The radius of every request is the configuration's")
    func radius() throws {
        var session = MapSession(configuration: try .init(radius: 1_234))
        #expect(session.receive(script.fix(at: 0)).request?.radius == 1_234)
    }
}

@Suite(.ownThread) struct LoadableTests {
    let places = [Place(id: "a", name: "A", coordinate: tokyo)]

    @Test("value is the loaded value or the previous one")
    func value() {
        #expect(Loadable<[Place]>.idle.value == nil)
        #expect(Loadable.loading(previous: places).value == places)
        #expect(Loadable<[Place]>.loading(previous: nil).value == nil)
        #expect(Loadable.loaded(places).value == places)
        #expect(Loadable.failed(.unauthorized(), previous: places).value == places)
    }

    @Test("isLoading, isRefreshing, error")
    func flags() {
        #expect(Loadable<[Place]>.loading(previous: nil).isLoading)
        #expect(!Loadable<[Place]>.loading(previous: nil).isRefreshing)
        #expect(Loadable.loading(previous: places).isRefreshing)
        #expect(!Loadable.loaded(places).isLoading)
        #expect(Loadable<[Place]>.failed(.notFound(), previous: nil).error?.code == .notFound)
        #expect(Loadable.loaded(places).error == nil)
    }

    @Test("Descriptions read as the cases")
    func descriptions() {
        #expect("\(Loadable<Int>.idle)" == "idle")
        #expect("\(Loadable<Int>.loading(previous: nil))" == "loading")
        #expect("\(Loadable<Int>.loading(previous: 3))" == "loading(previous: 3)")
        #expect("\(Loadable<Int>.failed(.notFound(), previous: 3))" == "failed(notFound, HTTP 404, previous: 3)")
    }
}

@Suite(.ownThread) struct AppErrorTests {
    @Test("The seed's user-facing messages")
    func userMessages() {
        #expect(AppError.networkUnavailable().userMessage == "No internet connection")
        #expect(AppError.invalidResponse().userMessage == "Invalid server response")
        #expect(AppError.httpError(statusCode: 503, message: "busy").userMessage == "Error 503: busy")
        #expect(AppError.decodingFailed("x").userMessage == "Failed to parse server response")
        #expect(AppError.unauthorized().userMessage == "Please log in again")
        #expect(AppError.notFound().userMessage == "Resource not found")
        #expect(AppError.validation("radius too large").userMessage == "radius too large")
    }

    @Test("The description says code, status, parameter, endpoint and message")
    func description() {
        let error = AppError.validation("radius must be ≤ 50000", parameter: "radius", statusCode: 400,
                                        endpoint: "GET 127.0.0.1:8080/locations/nearby")
        #expect(error.description == "validation, HTTP 400, parameter radius, GET 127.0.0.1:8080/locations/nearby: radius must be ≤ 50000")
    }

    @Test("from(_:) keeps AppErrors, maps DecodingError with its path, and keeps other errors' text")
    func from() throws {
        #expect(AppError.from(AppError.notFound("gone")) == .notFound("gone"))
        struct Payload: Decodable { var value: Int }
        do {
            _ = try JSONDecoder().decode([Payload].self, from: Data(#"[{"value": 1}, {"value": "x"}]"#.utf8))
            Issue.record("decoded")
        } catch {
            let mapped = AppError.from(error)
            #expect(mapped.code == .decodingFailed)
            #expect(mapped.message.hasPrefix("[1].value: expected Int"))
        }
        struct Odd: Error, CustomStringConvertible { var description: String { "odd thing" } }
        let other = AppError.from(Odd())
        #expect(other.code == .invalidResponse)
        #expect(other.message.contains("odd thing"))
    }

    @Test("catch AppError.Code.x matches")
    func pattern() {
        do {
            throw AppError.unauthorized()
        } catch AppError.Code.notFound {
            Issue.record("wrong code matched")
        } catch AppError.Code.unauthorized {
            // expected
        } catch {
            Issue.record("not matched")
        }
    }
}
