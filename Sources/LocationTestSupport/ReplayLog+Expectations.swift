#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore
public import MapFeature
public import Testing

/// Assertions over a map session's event log.
///
/// Each `expect…` records one Swift Testing issue per violation, at the caller's source
/// location, with the offending events in the message. The matching `…Violations` properties
/// return the same findings as strings, for XCTest or custom reporting.
extension ReplayLog {
    // MARK: Findings

    /// Requests that were sent while another was in flight.
    public var overlappingFetchViolations: [String] {
        var open: [Int: FetchRequest] = [:], found: [String] = []
        for event in events {
            switch event.kind {
            case .fetchStarted(let request):
                if !open.isEmpty {
                    found.append("\(line(event)) was sent while \(open.keys.sorted().map { "#\($0)" }.joined(separator: ", ")) in flight")
                }
                open[request.id] = request
            case .fetchSucceeded(let request, _), .fetchFailed(let request, _, _), .fetchCancelled(let request):
                open[request.id] = nil
            default: break
            }
        }
        return found
    }

    /// Answers applied out of order: an answer to an older request after a newer one's.
    public var outOfOrderAnswerViolations: [String] {
        var newest = 0, found: [String] = []
        for event in events {
            guard case .fetchSucceeded(let request, _) = event.kind else { continue }
            if request.id < newest { found.append("\(line(event)) applied after the answer to #\(newest)") }
            newest = max(newest, request.id)
        }
        return found
    }

    /// Requests the rule does not justify, for `configuration`'s thresholds (by default the
    /// rule the session ran with, ``configuration``).
    ///
    /// - ``/MapFeature/FetchThrottle/Reason/first``: only the first request.
    /// - ``/MapFeature/FetchThrottle/Reason/retry``: only right after a failure, not before its back-off ended.
    /// - ``/MapFeature/FetchThrottle/Reason/moved`` / ``/MapFeature/FetchThrottle/Reason/elapsed`` sent at a fix: the
    ///   distance rule (strictly more than the minimum distance from the previous request) or,
    ///   for `elapsed`, the time rule alone. Sent as a follow-up at an answer: a fix was
    ///   coalesced while the previous request was in flight.
    /// - After a failure, the next request must be a `retry`.
    public func ruleViolations(_ configuration: FetchThrottle.Configuration? = nil) -> [String] {
        let configuration = configuration ?? self.configuration
        var found: [String] = []
        var previous: FetchRequest?
        var lastFailure: (request: FetchRequest, retryNotBefore: Date)?
        var coalescedSincePrevious = false
        var startedByFix = false
        for event in events {
            switch event.kind {
            case .fixAccepted: startedByFix = true
            case .fetchCoalesced: coalescedSincePrevious = true
            case .fetchFailed(let request, _, let retry): lastFailure = (request, retry)
            case .fetchSucceeded: lastFailure = nil; startedByFix = false
            case .fetchStarted(let request):
                defer { previous = request; coalescedSincePrevious = false }
                switch request.reason {
                case .first:
                    if previous != nil { found.append("\(line(event)): only the first request may be `first`") }
                case .retry:
                    guard let failure = lastFailure else {
                        found.append("\(line(event)): `retry` without a failure before it"); continue
                    }
                    if VirtualTime.microseconds(request.time) < VirtualTime.microseconds(failure.retryNotBefore) {
                        found.append("\(line(event)): retry before the back-off of #\(failure.request.id) ended at \(relative(failure.retryNotBefore))")
                    }
                case .moved, .elapsed:
                    if let failure = lastFailure {
                        found.append("\(line(event)): after the failure of #\(failure.request.id) the next request must be a retry")
                        continue
                    }
                    guard let previous else { found.append("\(line(event)): `\(request.reason)` with no request before it"); continue }
                    if !startedByFix {
                        if !coalescedSincePrevious { found.append("\(line(event)): follow-up without a coalesced fix behind #\(previous.id)") }
                        continue
                    }
                    let distance = request.center.distance(to: previous.center)
                    let elapsed = VirtualTime.duration(from: previous.time, to: request.time)
                    let moved = distance > configuration.minimumDistance
                    let timed = elapsed > configuration.minimumInterval
                    if request.reason == .moved, !moved {
                        found.append(
                            "\(line(event)): `moved` but only \(DecimalText.fixed(distance, decimals: 1)) m from #\(previous.id) "
                                + "(the rule: more than \(DecimalText.fixed(configuration.minimumDistance, decimals: 1)) m)")
                    }
                    if request.reason == .elapsed, moved || !timed {
                        found.append(
                            "\(line(event)): `elapsed` but \(DecimalText.fixed(distance, decimals: 1)) m and \(elapsed) after #\(previous.id) "
                                + "(the rule: not more than \(DecimalText.fixed(configuration.minimumDistance, decimals: 1)) m, "
                                + "more than \(configuration.minimumInterval))")
                    }
                }
            default: break
            }
        }
        return found
    }

    /// Places that disappeared other than because a newer answer no longer listed them.
    public var vanishedPlacesViolations: [String] {
        var found: [String] = []
        var answeredAt: Date?
        for event in events {
            switch event.kind {
            case .fetchSucceeded: answeredAt = event.time
            case .placesDisappeared(let places):
                if answeredAt != event.time { found.append("\(line(event)): \(places.count) places vanished without an answer") }
            case .fetchStarted, .fetchFailed, .fetchCancelled, .fixAccepted, .fixRejected: answeredAt = nil
            default: break
            }
        }
        return found
    }

    // MARK: Expectations

    /// Expects the requests' reasons to be exactly `expected`, in order.
    public func expectFetchReasons(_ expected: [FetchThrottle.Reason], sourceLocation: SourceLocation = #_sourceLocation) {
        let actual = fetchReasons
        if actual != expected {
            Issue.record("fetch reasons were \(actual), expected \(expected)\n\(fetchSummary)", sourceLocation: sourceLocation)
        }
    }

    /// Expects `range` requests in total (optionally only those with `reason`).
    public func expectFetchCount(_ range: ClosedRange<Int>, reason: FetchThrottle.Reason? = nil,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let count = fetches.count { reason == nil || $0.reason == reason }
        if !range.contains(count) {
            let expected = range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            Issue.record("\(PeopleText.count(count, reason.map { "`\($0)` request" } ?? "request")), expected \(expected)\n\(fetchSummary)",
                         sourceLocation: sourceLocation)
        }
    }

    /// Expects exactly `count` requests (optionally only those with `reason`).
    public func expectFetchCount(_ count: Int, reason: FetchThrottle.Reason? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        expectFetchCount(count...count, reason: reason, sourceLocation: sourceLocation)
    }

    /// Expects never more than one request in flight.
    public func expectAtMostOneFetchInFlight(sourceLocation: SourceLocation = #_sourceLocation) {
        record(overlappingFetchViolations, sourceLocation)
    }

    /// Expects answers to be applied in request order (an older answer never overwrites a newer one).
    public func expectAnswersInOrder(sourceLocation: SourceLocation = #_sourceLocation) {
        record(outOfOrderAnswerViolations, sourceLocation)
    }

    /// Expects every request to be justified by the rule (see ``ruleViolations(_:)``): by
    /// default the one the session ran with.
    public func expectFetchesFollowRule(_ configuration: FetchThrottle.Configuration? = nil,
                                        sourceLocation: SourceLocation = #_sourceLocation) {
        record(ruleViolations(configuration), sourceLocation)
    }

    /// Expects places to leave the map only when a newer answer no longer lists them.
    public func expectPlacesKeptWhileRefreshing(sourceLocation: SourceLocation = #_sourceLocation) {
        record(vanishedPlacesViolations, sourceLocation)
    }

    /// Expects nothing after the session stopped.
    public func expectNothingAfterStop(sourceLocation: SourceLocation = #_sourceLocation) {
        record(eventsAfterStop.map { "after stop: \(line($0))" }, sourceLocation)
    }

    /// Expects each of `ids` to have been on the map at some point.
    public func expectPlacesShown(_ ids: some Sequence<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        let missing = Set(ids).subtracting(placesEverShown).sorted()
        if !missing.isEmpty {
            Issue.record("never shown: \(missing.joined(separator: ", "))", sourceLocation: sourceLocation)
        }
    }

    /// Runs the checks every healthy session passes: one request in flight, answers in order,
    /// every request justified (by default by the rule the session ran with), places kept while
    /// refreshing, nothing after stop.
    public func expectWellBehaved(_ configuration: FetchThrottle.Configuration? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        expectAtMostOneFetchInFlight(sourceLocation: sourceLocation)
        expectAnswersInOrder(sourceLocation: sourceLocation)
        expectFetchesFollowRule(configuration, sourceLocation: sourceLocation)
        expectPlacesKeptWhileRefreshing(sourceLocation: sourceLocation)
        expectNothingAfterStop(sourceLocation: sourceLocation)
    }

    // MARK: Helpers

    /// The fetch-related lines, for failure messages: every request, answer, failure, coalesced
    /// fix, cancellation and discarded answer, as ``lines`` gives them (without the fixes and
    /// a scenario's phone notes in between).
    public var fetchSummary: String {
        events.compactMap { event in
            switch event.kind {
            case .fetchStarted, .fetchSucceeded, .fetchFailed, .fetchCoalesced, .fetchCancelled, .answerDiscarded: line(event)
            default: nil
            }
        }.joined(separator: "\n")
    }

    private func record(_ violations: [String], _ sourceLocation: SourceLocation) {
        for violation in violations.prefix(20) {
            Issue.record(Comment(rawValue: violation), sourceLocation: sourceLocation)
        }
        if violations.count > 20 {
            Issue.record(Comment(rawValue: "… and \(violations.count - 20) more"), sourceLocation: sourceLocation)
        }
    }
}
