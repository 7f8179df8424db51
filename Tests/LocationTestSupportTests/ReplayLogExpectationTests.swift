import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing
import LocSimTestHelpers

/// The assertion helpers must catch what they promise to catch: each is fed a hand-made log
/// with exactly one defect (the seed's behaviours), and must report it.
@Suite(.ownThread) struct ReplayLogExpectationTests {
    let script = FixScript(origin: Coordinate(uncheckedLatitude: 35.0, longitude: 135.0))

    func request(_ id: Int, at seconds: Double, north: Double = 0, _ reason: FetchThrottle.Reason) -> FetchRequest {
        FetchRequest(id: id, center: script.position(north: north), radius: 5_000, time: script.time(seconds), reason: reason)
    }

    func event(_ seconds: Double, _ kind: MapEvent.Kind) -> MapEvent { MapEvent(time: script.time(seconds), kind: kind) }

    @Test("Overlapping requests are reported")
    func overlapping() {
        let first = request(1, at: 0, .first), second = request(2, at: 1, .first)
        let log = ReplayLog(events: [
            event(0, .fixAccepted(script.fix(at: 0))), event(0, .fetchStarted(first)),
            event(1, .fixAccepted(script.fix(at: 1))), event(1, .fetchStarted(second)),
            event(2, .fetchSucceeded(first, count: 0)), event(3, .fetchSucceeded(second, count: 0)),
        ])
        #expect(log.maximumFetchesInFlight == 2)
        #expect(log.overlappingFetchViolations.count == 1)
        withKnownIssue { log.expectAtMostOneFetchInFlight() }
    }

    @Test("An older answer applied after a newer one is reported")
    func outOfOrder() {
        let first = request(1, at: 0, .first), second = request(2, at: 1, north: 150, .moved)
        let log = ReplayLog(events: [
            event(0, .fetchStarted(first)), event(1, .fetchStarted(second)),
            event(2, .fetchSucceeded(second, count: 0)), event(5, .fetchSucceeded(first, count: 0)),
        ])
        #expect(log.outOfOrderAnswerViolations.count == 1)
        withKnownIssue { log.expectAnswersInOrder() }
    }

    @Test("Requests the rule does not justify are reported")
    func rule() {
        let first = request(1, at: 0, .first)
        let tooClose = request(2, at: 10, north: 99.9, .moved)
        let tooSoon = request(3, at: 40, north: 99.9, .elapsed)  // 30 s after #2 exactly
        let log = ReplayLog(events: [
            event(0, .fixAccepted(script.fix(at: 0))), event(0, .fetchStarted(first)), event(0.5, .fetchSucceeded(first, count: 0)),
            event(10, .fixAccepted(script.fix(at: 10, north: 99.9))), event(10, .fetchStarted(tooClose)),
            event(10.5, .fetchSucceeded(tooClose, count: 0)),
            event(40, .fixAccepted(script.fix(at: 40, north: 99.9))), event(40, .fetchStarted(tooSoon)),
            event(40.5, .fetchSucceeded(tooSoon, count: 0)),
        ])
        #expect(log.ruleViolations().count == 2)
        withKnownIssue { log.expectFetchesFollowRule() }
    }

    @Test("Fetching again right after a failure (the seed's storm) is reported")
    func storm() {
        let first = request(1, at: 0, .first), again = request(2, at: 1, .first)
        let log = ReplayLog(events: [
            event(0, .fixAccepted(script.fix(at: 0))), event(0, .fetchStarted(first)),
            event(0.2, .fetchFailed(first, .networkUnavailable(), retryNotBefore: script.time(1.2))),
            event(1, .fixAccepted(script.fix(at: 1))), event(1, .fetchStarted(again)),
        ])
        #expect(!log.ruleViolations().isEmpty)
        let early = request(2, at: 1, .retry)
        let earlyRetry = ReplayLog(events: Array(log.events.dropLast()) + [event(1, .fetchStarted(early))])
        #expect(earlyRetry.ruleViolations().count == 1)
        // The back-off's end is given as the lines give times, not as a date the log never shows.
        #expect(earlyRetry.ruleViolations() == ["t+1.000s fetch #2 retry at 35.0000000,135.0000000 r=5000 m: retry before the back-off of #1 ended at t+1.200s"])
    }

    @Test("A log checks its requests against the rule it was made with, unless given another")
    func ownRule() throws {
        let quick = try FetchThrottle.Configuration(minimumDistance: 50, minimumInterval: .seconds(10))
        let first = request(1, at: 0, .first)
        let sixty = request(2, at: 5, north: 60, .moved)
        let events = [
            event(0, .fixAccepted(script.fix(at: 0))), event(0, .fetchStarted(first)), event(0.5, .fetchSucceeded(first, count: 0)),
            event(5, .fixAccepted(script.fix(at: 5, north: 60))), event(5, .fetchStarted(sixty)),
            event(5.5, .fetchSucceeded(sixty, count: 0)),
        ]
        let log = ReplayLog(events: events, configuration: quick)
        #expect(log.ruleViolations().isEmpty)
        log.expectWellBehaved()
        #expect(log.ruleViolations(.game).count == 1)
        // Without one, a log is the game's.
        #expect(ReplayLog(events: events).ruleViolations().count == 1)
    }

    @Test("The map's timeline: the ids shown after each change of the map, and every place ever shown")
    func visiblePlaces() {
        let a = Place(id: "a", name: "A", coordinate: script.origin)
        let b = Place(id: "b", name: "B", coordinate: script.position(north: 10))
        let c = Place(id: "c", name: "C", coordinate: script.position(north: 20))
        let movedB = Place(id: "b", name: "B", coordinate: script.position(north: 15))
        let log = ReplayLog(events: [
            event(1, .placesAppeared([a, b])), event(2, .fixAccepted(script.fix(at: 2))),
            event(31, .placesDisappeared([a])), event(31, .placesChanged([movedB])), event(32, .placesAppeared([c])),
        ])
        // A fix and a change of values leave the ids as they were: no entry of their own.
        #expect(log.visiblePlaceIDs.map(\.time) == [script.time(1), script.time(31), script.time(32)])
        #expect(log.visiblePlaceIDs.map(\.ids) == [["a", "b"], ["b"], ["b", "c"]])
        #expect(log.placesEverShown == ["a", "b", "c"])
    }

    @Test("Places vanishing while refreshing (the seed's markers) are reported")
    func vanished() {
        let first = request(1, at: 0, .first), refresh = request(2, at: 31, .elapsed)
        let place = Place(id: "a", name: "A", coordinate: script.origin)
        let log = ReplayLog(events: [
            event(0, .fetchStarted(first)), event(1, .fetchSucceeded(first, count: 1)), event(1, .placesAppeared([place])),
            event(31, .fetchStarted(refresh)), event(31, .placesDisappeared([place])),
        ])
        #expect(log.vanishedPlacesViolations.count == 1)
        withKnownIssue { log.expectPlacesKeptWhileRefreshing() }
    }

    @Test("Events after stop are reported")
    func afterStop() {
        let first = request(1, at: 0, .first)
        let log = ReplayLog(events: [event(0, .fetchStarted(first)), event(1, .stopped), event(5, .fetchSucceeded(first, count: 0))])
        withKnownIssue { log.expectNothingAfterStop() }
    }

    @Test("Reason and count expectations report mismatches")
    func counts() {
        let log = ReplayLog(events: [event(0, .fetchStarted(request(1, at: 0, .first)))])
        log.expectFetchReasons([.first])
        log.expectFetchCount(1)
        log.expectFetchCount(1, reason: .first)
        withKnownIssue { log.expectFetchReasons([.first, .moved]) }
        withKnownIssue { log.expectFetchCount(2...3) }
        withKnownIssue { log.expectPlacesShown(["missing"]) }
    }

    @Test("Lines are relative to the first event, in milliseconds")
    func lines() {
        let log = ReplayLog(events: [event(0, .stopped), event(61.25, .stopped)])
        #expect(log.lines == ["t+0.000s stopped", "t+61.250s stopped"])
    }
}
