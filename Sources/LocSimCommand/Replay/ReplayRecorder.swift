import Foundation
import LocationCore
import MapFeature

/// Turns a map session's events into what `locsim replay` shows: a timeline (text or JSON lines),
/// encounters, a summary, and the data of the HTML report.
///
/// It is fed events in order (live from ``MapFeature/MapViewModel/onEvent`` or from a finished
/// virtual-time run) and is deterministic: the same events give byte-identical output.
@MainActor
final class ReplayRecorder {
    enum Format { case text, jsonl }

    /// Everything the HTML report draws.
    struct Trace {
        var fixes: [(time: Date, coordinate: Coordinate)] = []
        var fetches: [(time: Date, center: Coordinate, radius: Double, reason: String)] = []
        var places: [String: (place: Place, firstSeen: Date)] = [:]
        var encounters: [(time: Date, place: Place, distance: Double)] = []
        var placeCounts: [(time: Date, count: Int)] = []
        /// Fetches that failed: where the request was centred, when it failed, and why.
        var failures: [(time: Date, id: Int, center: Coordinate, error: String)] = []
    }

    private let format: Format
    private let write: (String) -> Void
    private var tracker: EncounterTracker
    private var onMap: [String: Place] = [:]
    /// Whether `onMap` changed since the tracker was last given it.
    private var mapChanged = false
    private var pendingAppeared: [Place] = []
    private var pendingDisappeared: [Place] = []
    private var pendingChanged: [Place] = []
    private var pendingPlacesTime: Date?
    /// The in-flight request a follow-up was last reported queued behind: one line per request.
    private var followUpQueuedBehind: Int?
    private(set) var trace = Trace()

    // Summary figures.
    private(set) var acceptedCount = 0
    private(set) var rejectedCount = 0
    private(set) var distance = 0.0
    private var firstTime: Date?
    private var lastTime: Date?
    private(set) var fetchesByReason: [String: Int] = [:]
    /// Answers the model took (a server that never answered is told from one that did).
    private(set) var answers = 0
    private var fetchesPerMinute: [Int64: Int] = [:]

    init(format: Format, reach: Double, write: @escaping (String) -> Void) throws {
        self.format = format
        self.tracker = try EncounterTracker(reach: reach)
        self.write = write
    }

    /// Places currently on the map.
    var placesOnMap: Int { onMap.count }
    /// Fetches so far.
    var fetchCount: Int { trace.fetches.count }
    // Derived from what the trace keeps, so no counter can drift from it.
    var fixCount: Int { acceptedCount + rejectedCount }
    var placesSeenCount: Int { trace.places.count }
    var encounterCount: Int { trace.encounters.count }
    var failures: Int { trace.failures.count }

    // MARK: Events

    func record(_ event: MapEvent) {
        switch event.kind {
        case .placesAppeared(let places):
            pendingPlacesTime = event.time
            pendingAppeared += places
            mapChanged = true
            for place in places { show(place, at: event.time) }
            return
        case .placesDisappeared(let places):
            pendingPlacesTime = event.time
            pendingDisappeared += places
            for place in places { onMap.removeValue(forKey: place.id) }
            mapChanged = true
            return
        case .placesChanged(let places):
            // Same ids, new values (a place moved, say): encounters must use where it is now.
            pendingPlacesTime = event.time
            pendingChanged += places
            for place in places { show(place, at: event.time) }
            mapChanged = true
            return
        default:
            flushPlaces()
        }

        switch event.kind {
        case .fixAccepted(let fix):
            acceptedCount += 1
            note(time: fix.time)
            guard let coordinate = fix.coordinate else { return }
            if let previous = trace.fixes.last?.coordinate { distance += previous.geodesicDistance(to: coordinate) }
            trace.fixes.append((fix.time, coordinate))
            emitFix(fix, accepted: true, rejection: nil)
            if mapChanged {
                // Ids are unique here, so the dictionary's order does not matter.
                tracker.places = Array(onMap.values)
                mapChanged = false
            }
            for encounter in tracker.update(position: coordinate) {
                trace.encounters.append((fix.time, encounter.place, encounter.distance))
                emitEncounter(encounter, at: fix.time)
            }
        case .fixRejected(let fix, let rejection):
            rejectedCount += 1
            note(time: fix.time)
            emitFix(fix, accepted: false, rejection: rejection)
        case .fetchStarted(let request):
            fetchesByReason[request.reason.rawValue, default: 0] += 1
            fetchesPerMinute[Int64((request.time.timeIntervalSince1970 / 60).rounded(.down)), default: 0] += 1
            trace.fetches.append((request.time, request.center, request.radius, request.reason.rawValue))
            emit(
                text: "\(stamp(event.time))  fetch #\(request.id) \(request.reason) at \(request.center) radius \(DecimalText.fixed(request.radius, decimals: 0)) m",
                FetchRecord(time: event.time, request: request))
        case .fetchCoalesced(let reason, let inFlight):
            // Every qualifying fix while a request is in flight is coalesced into the same one
            // follow-up: say so once per request, not once per fix.
            guard followUpQueuedBehind != inFlight else { return }
            followUpQueuedBehind = inFlight
            emit(
                text: "\(stamp(event.time))  fetch due (\(reason)) while #\(inFlight) is in flight: one follow-up queued",
                CoalescedRecord(time: event.time, reason: reason, inFlight: inFlight))
        case .fetchSucceeded(let request, let count):
            answers += 1
            emit(
                text: "\(stamp(event.time))  answer #\(request.id): \(PeopleText.count(count, "place"))",
                AnswerRecord(time: event.time, id: request.id, count: count))
        case .fetchFailed(let request, let error, let retryNotBefore):
            trace.failures.append((event.time, request.id, request.center, "\(error)"))
            emit(
                text: "\(stamp(event.time))  fetch #\(request.id) failed: \(PeopleText.escaped("\(error)")); next try not before \(stamp(retryNotBefore))",
                FetchFailedRecord(time: event.time, id: request.id, error: "\(error)", retryNotBefore: retryNotBefore))
        case .answerDiscarded(let id):
            emit(
                text: "\(stamp(event.time))  answer #\(id) discarded (a newer request superseded it)",
                RequestEndRecord(kind: .discarded, time: event.time, id: id))
        case .fetchCancelled(let request):
            emit(
                text: "\(stamp(event.time))  fetch #\(request.id) cancelled",
                RequestEndRecord(kind: .cancelled, time: event.time, id: request.id))
        case .providerStateChanged(let state):
            // A source that fails before its first fix has no time of its own: the failure is
            // reported by the command's error message instead.
            if case .failed(let error) = state, let time = lastTime {
                emit(
                    text: "\(stamp(time))  location source failed: \(PeopleText.escaped("\(error)"))",
                    ProviderFailedRecord(time: time, error: "\(error)"))
            }
        case .placesAppeared, .placesDisappeared, .placesChanged, .stopped:
            break
        }
    }

    /// Flushes pending output and writes the summary line.
    func finish() {
        flushPlaces()
        switch format {
        case .jsonl: write(summary.line)
        case .text:
            write("")
            for line in summaryLines() { write(line) }
        }
    }

    // MARK: Summary

    var duration: Double? {
        guard let firstTime, let lastTime else { return nil }
        return lastTime.timeIntervalSince(firstTime)
    }

    var busiestMinuteFetches: Int { fetchesPerMinute.values.max() ?? 0 }

    /// The summary's figures, as the last jsonl line and the HTML report's table show them.
    var summary: SummaryRecord {
        SummaryRecord(
            fixes: fixCount, acceptedFixes: acceptedCount, rejectedFixes: rejectedCount, distance: distance,
            duration: duration, fetches: fetchCount, fetchesByReason: fetchesByReason, failedFetches: failures,
            placesSeen: placesSeenCount, placesOnMap: onMap.count, encounters: encounterCount,
            busiestMinuteFetches: busiestMinuteFetches)
    }

    func summaryLines() -> [String] {
        let reasons = FetchThrottle.Reason.allCases.map { "\($0.rawValue) \(fetchesByReason[$0.rawValue] ?? 0)" }.joined(separator: ", ")
        return [
            "Summary",
            "  fixes:          \(fixCount) (\(acceptedCount) accepted, \(rejectedCount) rejected)",
            "  distance:       \(DecimalText.fixed(distance / 1000, decimals: 3)) km",
            "  duration:       \(duration.map { DurationText.clockText($0) } ?? "-")",
            "  fetches:        \(fetchCount) (\(reasons)); \(failures) failed",
            "  busiest minute: \(PeopleText.count(busiestMinuteFetches, "fetch", "fetches"))",
            "  places seen:    \(placesSeenCount) (\(onMap.count) on the map at the end)",
            "  encounters:     \(encounterCount)",
        ]
    }

    // MARK: Output

    private func note(time: Date) {
        if firstTime == nil { firstTime = time }
        lastTime = time
    }

    /// Puts `place` on the map under its id. The report draws a place where it was last shown,
    /// coloured by when it first was.
    private func show(_ place: Place, at time: Date) {
        onMap[place.id] = place
        if trace.places[place.id] == nil {
            trace.places[place.id] = (place, time)
        } else {
            trace.places[place.id]?.place = place
        }
    }

    private func flushPlaces() {
        guard let time = pendingPlacesTime else { return }
        pendingPlacesTime = nil
        let appeared = pendingAppeared.map(\.id)
        let disappeared = pendingDisappeared.map(\.id)
        let changed = pendingChanged.map(\.id)
        pendingAppeared = []
        pendingDisappeared = []
        pendingChanged = []
        trace.placeCounts.append((time, onMap.count))
        let count = onMap.count
        emit(
            text: {
                let names = appeared.prefix(5).compactMap { onMap[$0].map { PeopleText.escaped($0.name) } }.joined(separator: ", ")
                return "\(stamp(time))  map: \(PeopleText.count(count, "place")) (+\(appeared.count) −\(disappeared.count)"
                    + (changed.isEmpty ? "" : " ~\(changed.count) changed") + ")"
                    + (names.isEmpty ? "" : ": " + names + (appeared.count > 5 ? ", …" : ""))
            }(),
            PlacesRecord(time: time, count: count, appeared: appeared, disappeared: disappeared, changed: changed))
    }

    private func emitFix(_ fix: Fix, accepted: Bool, rejection: FetchThrottle.Rejection?) {
        guard format == .jsonl else {
            if let rejection {
                write("\(stamp(fix.time))  fix ignored: \(Self.reason(rejection))")
            }
            return
        }
        // The most frequent line (one per fix): written straight into one string by the record.
        write(FixRecord(fix: fix, rejection: rejection.map(Self.reason)).line)
    }

    /// Why a fix was ignored, its accuracy rounded for people (`accuracy 48.5 m`, not the
    /// double's seventeen digits).
    static func reason(_ rejection: FetchThrottle.Rejection) -> String {
        switch rejection {
        case .inaccurate(let accuracy): "accuracy \(PeopleText.number(accuracy, decimals: 1)) m"
        default: rejection.description
        }
    }

    private func emitEncounter(_ encounter: EncounterTracker.Encounter, at time: Date) {
        emit(
            text: "\(stamp(time))  encounter: \(PeopleText.escaped(encounter.place.name)) (\(PeopleText.escaped(encounter.place.id))) "
                + "at \(DecimalText.fixed(encounter.distance, decimals: 1)) m",
            EncounterRecord(time: time, place: encounter.place, distance: encounter.distance))
    }

    /// Writes `text` or `record`'s line, whichever the format asks for; only that one is built.
    private func emit(text: @autoclosure () -> String, _ record: some JSONLRecord) {
        switch format {
        case .text: write(text())
        case .jsonl: write(record.line)
        }
    }

    private func stamp(_ time: Date) -> String { UTCTimestamp.format(time, fractionDigits: 3) }
}
