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
                text: "\(stamp(event.time))  fetch #\(request.id) \(request.reason) at \(request.center) radius \(formatFixed(request.radius, 0)) m",
                json: .object([
                    ("type", .string("fetch")), ("t", .string(stamp(event.time))), ("id", .int(request.id)),
                    ("lat", .number(request.center.latitude)), ("lon", .number(request.center.longitude)),
                    ("radius", .number(request.radius)), ("reason", .string(request.reason.rawValue)),
                ]))
        case .fetchCoalesced(let reason, let inFlight):
            // Every qualifying fix while a request is in flight is coalesced into the same one
            // follow-up: say so once per request, not once per fix.
            guard followUpQueuedBehind != inFlight else { return }
            followUpQueuedBehind = inFlight
            emit(
                text: "\(stamp(event.time))  fetch due (\(reason)) while #\(inFlight) is in flight: one follow-up queued",
                json: .object([
                    ("type", .string("coalesced")), ("t", .string(stamp(event.time))), ("reason", .string(reason.rawValue)),
                    ("in_flight", .int(inFlight)),
                ]))
        case .fetchSucceeded(let request, let count):
            emit(
                text: "\(stamp(event.time))  answer #\(request.id): \(count) places",
                json: .object([
                    ("type", .string("answer")), ("t", .string(stamp(event.time))), ("id", .int(request.id)),
                    ("count", .int(count)),
                ]))
        case .fetchFailed(let request, let error, let retryNotBefore):
            trace.failures.append((event.time, request.id, request.center, "\(error)"))
            emit(
                text: "\(stamp(event.time))  fetch #\(request.id) failed: \(error); next try not before \(stamp(retryNotBefore))",
                json: .object([
                    ("type", .string("fetch_failed")), ("t", .string(stamp(event.time))), ("id", .int(request.id)),
                    ("error", .string("\(error)")), ("retry_not_before", .string(stamp(retryNotBefore))),
                ]))
        case .answerDiscarded(let id):
            emit(
                text: "\(stamp(event.time))  answer #\(id) discarded (a newer request superseded it)",
                json: .object([("type", .string("discarded")), ("t", .string(stamp(event.time))), ("id", .int(id))]))
        case .fetchCancelled(let request):
            emit(
                text: "\(stamp(event.time))  fetch #\(request.id) cancelled",
                json: .object([("type", .string("cancelled")), ("t", .string(stamp(event.time))), ("id", .int(request.id))]))
        case .providerStateChanged(let state):
            // A source that fails before its first fix has no time of its own: the failure is
            // reported by the command's error message instead.
            if case .failed(let error) = state, let time = lastTime {
                emit(
                    text: "\(stamp(time))  location source failed: \(error)",
                    json: .object([("type", .string("provider_failed")), ("t", .string(stamp(time))), ("error", .string("\(error)"))]))
            }
        case .placesAppeared, .placesDisappeared, .placesChanged, .stopped:
            break
        }
    }

    /// Flushes pending output and writes the summary line.
    func finish() {
        flushPlaces()
        let summary = summaryValue()
        switch format {
        case .jsonl: write(summary.text)
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

    func summaryValue() -> JSONValue {
        .object([
            ("type", .string("summary")),
            ("fixes", .int(fixCount)),
            ("accepted_fixes", .int(acceptedCount)),
            ("rejected_fixes", .int(rejectedCount)),
            ("distance_m", JSONValue.rounded(distance, 3)),
            ("duration_s", duration.map { JSONValue.rounded($0, 3) } ?? .null),
            ("fetches", .int(fetchCount)),
            ("fetches_by_reason", .object(FetchThrottle.Reason.allCases.map { ($0.rawValue, .int(fetchesByReason[$0.rawValue] ?? 0)) })),
            ("failed_fetches", .int(failures)),
            ("places_seen", .int(placesSeenCount)),
            ("places_on_map", .int(onMap.count)),
            ("encounters", .int(encounterCount)),
            ("busiest_minute_fetches", .int(busiestMinuteFetches)),
        ])
    }

    func summaryLines() -> [String] {
        let reasons = FetchThrottle.Reason.allCases.map { "\($0.rawValue) \(fetchesByReason[$0.rawValue] ?? 0)" }.joined(separator: ", ")
        return [
            "Summary",
            "  fixes:          \(fixCount) (\(acceptedCount) accepted, \(rejectedCount) rejected)",
            "  distance:       \(formatFixed(distance / 1000, 3)) km",
            "  duration:       \(duration.map { formatDuration($0) } ?? "-")",
            "  fetches:        \(fetchCount) (\(reasons)); \(failures) failed",
            "  busiest minute: \(busiestMinuteFetches) fetches",
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
        let names = appeared.prefix(5).compactMap { onMap[$0]?.name }.joined(separator: ", ")
        emit(
            text: "\(stamp(time))  map: \(onMap.count) places (+\(appeared.count) −\(disappeared.count)"
                + (changed.isEmpty ? "" : " ~\(changed.count) changed") + ")"
                + (names.isEmpty ? "" : ": " + names + (appeared.count > 5 ? ", …" : "")),
            json: .object([
                ("type", .string("places")), ("t", .string(stamp(time))), ("count", .int(onMap.count)),
                ("appeared", .array(appeared.map { .string($0) })),
                ("disappeared", .array(disappeared.map { .string($0) })),
                ("changed", .array(changed.map { .string($0) })),
            ]))
    }

    private func emitFix(_ fix: Fix, accepted: Bool, rejection: FetchThrottle.Rejection?) {
        guard format == .jsonl else {
            if let rejection {
                write("\(stamp(fix.time))  fix ignored: \(rejection)")
            }
            return
        }
        // The most frequent line (one per fix): written member by member, as
        // `JSONValue.object([("type", "fix"), ("t", …), ("lat", …), ("lon", …), ("accuracy", …),
        // ("mode", …), ("rejected", …)?]).text` writes it, without building the tree (the keys need
        // no escaping; the values go through the same writers).
        var line = #"{"type":"fix","t":"#
        line.reserveCapacity(160)
        JSONText.appendQuoted(stamp(fix.time), to: &line)
        line += #","lat":"#
        (fix.coordinate.map { JSONValue.number($0.latitude) } ?? .null).write(to: &line)
        line += #","lon":"#
        (fix.coordinate.map { JSONValue.number($0.longitude) } ?? .null).write(to: &line)
        line += #","accuracy":"#
        (fix.horizontalAccuracy.map { JSONValue.rounded($0, 2) } ?? .null).write(to: &line)
        line += #","mode":"#
        JSONText.appendQuoted(fix.mode.description, to: &line)
        if let rejection {
            line += #","rejected":"#
            JSONText.appendQuoted(rejection.description, to: &line)
        }
        line += "}"
        write(line)
    }

    private func emitEncounter(_ encounter: EncounterTracker.Encounter, at time: Date) {
        emit(
            text: "\(stamp(time))  encounter: \(encounter.place.name) (\(encounter.place.id)) at \(formatFixed(encounter.distance, 1)) m",
            json: .object([
                ("type", .string("encounter")), ("t", .string(stamp(time))), ("place", .string(encounter.place.id)),
                ("name", .string(encounter.place.name)), ("distance_m", JSONValue.rounded(encounter.distance, 2)),
            ]))
    }

    private func emit(text: String, json: JSONValue) {
        switch format {
        case .text: write(text)
        case .jsonl: write(json.text)
        }
    }

    private func stamp(_ time: Date) -> String { UTCTimestamp.format(time, fractionDigits: 3) }
}
