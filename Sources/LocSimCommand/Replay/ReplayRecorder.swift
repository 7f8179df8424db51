import Foundation
import LocationCore
import LocationSimulation
import MapFeature

/// Turns a map session's events into what `locsim replay` shows: a timeline (text or JSON lines),
/// encounters, a summary, and the data of the HTML report.
///
/// It is fed events in order (live from ``MapFeature/MapViewModel/onEvent`` or from a finished
/// virtual-time run) and is deterministic: the same events give byte-identical output.
@MainActor
final class ReplayRecorder {
    /// The walk as the HTML report draws it: every fix up to ``limit``, then every other one of
    /// those, and so on (every 2nd, 4th, … fix from the first, evenly in the walk), with the newest
    /// always at the end. A day at 10 Hz is a page of a few megabytes and a path that still
    /// follows every street, not 140 MB a browser chokes on; the summary counts every fix.
    struct DrawnPath {
        typealias Point = (time: Date, coordinate: Coordinate)
        /// Points kept at most (the newest fix besides).
        let limit: Int
        private var kept: [Point] = []
        /// Kept is every `stride`-th fix offered, from the first.
        private(set) var stride = 1
        private var offered = 0
        /// The newest fix offered.
        private(set) var last: Point?

        init(limit: Int = 20_000) { self.limit = max(2, limit) }

        mutating func append(_ point: Point) {
            defer { offered += 1 }
            last = point
            guard offered % stride == 0 else { return }
            kept.append(point)
            guard kept.count >= limit else { return }
            kept = kept.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }
            stride *= 2
        }

        /// The points drawn, oldest first, the newest fix last.
        var points: [Point] {
            guard let last, (offered - 1) % stride != 0 else { return kept }
            return kept + [last]
        }
    }

    /// Everything the HTML report draws.
    struct Trace {
        var fixes = DrawnPath()
        var fetches: [(time: Date, center: Coordinate, radius: Double, reason: String)] = []
        var places: [String: (place: Place, firstSeen: Date)] = [:]
        var encounters: [(time: Date, place: Place, distance: Double)] = []
        var placeCounts: [(time: Date, count: Int)] = []
        /// Fetches that failed: where the request was centred, when it failed, and why.
        var failures: [(time: Date, id: Int, center: Coordinate, error: String)] = []
        /// What a scenario's phone did on the way to the app (``record(_:at:)``), at the delivery
        /// clock: `kind` is `lost` or `changed` (GPS trouble), `withheld`, `batch`, `background`
        /// or `foreground`; `at` is the fix's position where there is one; `detail` the log's words.
        var phone: [(time: Date, kind: String, at: Coordinate?, detail: String)] = []
    }

    private let format: TimelineFormat
    private let write: (String) -> Void
    private var tracker: EncounterTracker
    private var onMap: [String: Place] = [:]
    /// Whether `onMap` changed since the tracker was last given it.
    private var mapChanged = false
    /// The map's changes not written yet: one `places` line, before the next other event.
    private var pendingPlaces: PlacesRecord?
    /// The in-flight request a follow-up was last reported queued behind: one line per request.
    private var followUpQueuedBehind: Int?
    private(set) var trace = Trace()

    // Summary figures (the counts the trace keeps are derived from it, so none can drift).
    private var acceptedCount = 0
    private var rejectedCount = 0
    /// The rejected fixes by why (``rejectionWarning(limit:)``), and the best accuracy among
    /// those rejected for it.
    private var rejectedWithoutPosition = 0, rejectedInaccurate = 0, rejectedTime = 0, rejectedStale = 0
    private var bestRejectedAccuracy = Double.infinity
    private var distance = 0.0
    private var firstTime: Date?
    private var lastTime: Date?
    private var fetchesByReason: [String: Int] = [:]
    /// Answers the model took (a server that never answered is told from one that did).
    private(set) var answers = 0
    private var fetchesPerMinute: [Int64: Int] = [:]
    /// Set when the fixes go through a scenario's phone: its counts, for the summary.
    var phone: PhoneSummary?

    init(format: TimelineFormat, reach: Double, write: @escaping (String) -> Void) throws {
        self.format = format
        self.tracker = try EncounterTracker(reach: reach)
        self.write = write
    }

    /// Places currently on the map.
    var placesOnMap: Int { onMap.count }
    /// Fetches so far.
    var fetchCount: Int { trace.fetches.count }

    // MARK: Events

    func record(_ event: MapEvent) {
        switch event.kind {
        case .placesAppeared(let places):
            for place in places { show(place, at: event.time) }
            return changePlaces(at: event.time) { $0.appeared += places.map(\.id) }
        case .placesDisappeared(let places):
            for place in places { onMap.removeValue(forKey: place.id) }
            return changePlaces(at: event.time) { $0.disappeared += places.map(\.id) }
        case .placesChanged(let places):
            // Same ids, new values (a place moved, say): encounters must use where it is now.
            for place in places { show(place, at: event.time) }
            return changePlaces(at: event.time) { $0.changed += places.map(\.id) }
        default:
            flushPlaces()
        }

        switch event.kind {
        case .fixAccepted(let fix):
            acceptedCount += 1
            guard let coordinate = fix.coordinate else { return }
            note(time: event.time)
            if let previous = trace.fixes.last?.coordinate { distance += previous.geodesicDistance(to: coordinate) }
            trace.fixes.append((fix.time, coordinate))
            emitFix(fix, rejection: nil, deliveredAt: event.time)
            if mapChanged {
                // Ids are unique here, so the dictionary's order does not matter.
                tracker.places = Array(onMap.values)
                mapChanged = false
            }
            // At the delivery clock: the fix's own time unless a scenario delivered it later.
            for encounter in tracker.update(position: coordinate) {
                trace.encounters.append((event.time, encounter.place, encounter.distance))
                emit(
                    text: "\(stamp(event.time))  encounter: \(PeopleText.escaped(encounter.place.name)) (\(PeopleText.escaped(encounter.place.id))) "
                        + "at \(DecimalText.fixed(encounter.distance, decimals: 1)) m",
                    EncounterRecord(time: event.time, place: encounter.place, distance: encounter.distance))
            }
        case .fixRejected(let fix, let rejection):
            rejectedCount += 1
            switch rejection {
            case .noPosition: rejectedWithoutPosition += 1
            case .inaccurate(let accuracy):
                rejectedInaccurate += 1
                if accuracy >= 0 { bestRejectedAccuracy = min(bestRejectedAccuracy, accuracy) }
            case .invalidTime: rejectedTime += 1
            case .stale: rejectedStale += 1
            }
            // A report without a position may carry no time of the receiver's own (gpsd's first
            // reports after start-up: the time it was read), so the duration spans positions only.
            if fix.coordinate != nil { note(time: event.time) }
            emitFix(fix, rejection: rejection, deliveredAt: event.time)
        case .fetchStarted(let request):
            fetchesByReason[request.reason.rawValue, default: 0] += 1
            fetchesPerMinute[Int64((request.time.timeIntervalSince1970 / 60).rounded(.down)), default: 0] += 1
            trace.fetches.append((request.time, request.center, request.radius, request.reason.rawValue))
            emit(event, text: "fetch #\(request.id) \(request.reason) at \(request.center) radius \(DecimalText.fixed(request.radius, decimals: 0)) m")
        case .fetchCoalesced(let reason, let inFlight):
            // Every qualifying fix while a request is in flight is coalesced into the same one
            // follow-up: say so once per request, not once per fix.
            guard followUpQueuedBehind != inFlight else { return }
            followUpQueuedBehind = inFlight
            emit(event, text: "fetch due (\(reason)) while #\(inFlight) is in flight: one follow-up queued")
        case .fetchSucceeded(let request, let count):
            answers += 1
            emit(event, text: "answer #\(request.id): \(PeopleText.count(count, "place"))")
        case .fetchFailed(let request, let error, let retryNotBefore):
            trace.failures.append((event.time, request.id, request.center, "\(error)"))
            emit(event, text: "fetch #\(request.id) failed: \(PeopleText.escaped("\(error)")); next try not before \(stamp(retryNotBefore))")
        case .answerDiscarded(let id):
            emit(event, text: "answer #\(id) discarded (a newer request superseded it)")
        case .fetchCancelled(let request):
            emit(event, text: "fetch #\(request.id) cancelled")
        case .providerStateChanged(let state):
            // A source that fails before its first fix has no time of its own: the failure is
            // reported by the command's error message instead; after one, it is stamped with the
            // last fix's time.
            if case .failed(let error) = state, let time = lastTime {
                emit(MapEvent(time: time, kind: event.kind), text: "location source failed: \(PeopleText.escaped(error.message))")
            }
        case .placesAppeared, .placesDisappeared, .placesChanged, .stopped:
            break
        }
    }

    /// What a scenario's phone did on the way to the app, at `time` (the delivery clock).
    func record(_ note: ScenarioPhone.Note, at time: Date) {
        flushPlaces()
        var counts = phone ?? PhoneSummary()
        defer { phone = counts }
        switch note {
        case .trouble(let original, let reported, let effects):
            if reported == nil { counts.lost += 1 } else { counts.changed += 1 }
            for effect in effects {
                emit(text: "\(stamp(time))  trouble: \(effect)", TroubleRecord(time: time, effect: effect, reported: reported))
            }
            trace.phone.append(
                (time, reported == nil ? "lost" : "changed", (reported ?? original).coordinate,
                 "trouble: " + effects.map { "\($0)" }.joined(separator: "; ")))
        case .withheld(let fix, let reason):
            counts.withheldByReason[reason.name, default: 0] += 1
            let text = "fix of \(stamp(fix.time)) withheld: \(reason)"
            emit(text: "\(stamp(time))  " + text, WithheldRecord(time: time, fix: fix, reason: reason))
            trace.phone.append((time, "withheld", fix.coordinate, text))
        case .app(let state):
            emit(text: "\(stamp(time))  app: \(state.rawValue)", AppRecord(time: time, state: state.rawValue))
            trace.phone.append((time, state.rawValue, nil, "app: \(state.rawValue)"))
        case .batch(let fixes):
            counts.batches += 1
            counts.batchedFixes += fixes.count
            let text = "\(PeopleText.count(fixes.count, "fix", "fixes")) delivered at once; the app reads the last"
            emit(text: "\(stamp(time))  " + text, BatchRecord(time: time, fixes: fixes))
            trace.phone.append((time, "batch", fixes.last?.coordinate, text))
        }
    }

    /// Set when SIGINT, SIGTERM or SIGHUP stopped the run: the summary says so.
    var interrupted = false

    /// Whether any fix has been recorded, accepted or not.
    var hasFixes: Bool { acceptedCount + rejectedCount > 0 }

    /// A warning for standard error when fixes came and every one was rejected (the map never
    /// fetched: a GPX whose every `<hdop>` reads as an accuracy worse than `limit`, say), naming
    /// why by count; nil when any fix was accepted or none came.
    func rejectionWarning(limit: Double) -> String? {
        guard rejectedCount > 0, acceptedCount == 0 else { return nil }
        var reasons: [String] = []
        if rejectedInaccurate > 0 {
            let best = bestRejectedAccuracy.isFinite ? ", the best \(DecimalText.fixed(bestRejectedAccuracy, decimals: 1)) m" : ""
            reasons.append(
                "\(rejectedInaccurate) less accurate than --min-accuracy \(DecimalText.fixed(limit, decimals: 1)) m\(best); "
                    + "--min-accuracy inf keeps every fix")
        }
        if rejectedWithoutPosition > 0 { reasons.append("\(rejectedWithoutPosition) without a position") }
        if rejectedTime > 0 { reasons.append("\(rejectedTime) without a valid time") }
        if rejectedStale > 0 { reasons.append("\(rejectedStale) older than the scenario's game.maximumFixAge on delivery") }
        let all = rejectedCount == 1 ? "the one fix was rejected" : "all \(rejectedCount) fixes were rejected"
        return "locsim: warning: \(all), so the map never fetched: \(reasons.joined(separator: "; "))"
    }

    /// A warning for standard error when the map fetched and every answer was empty: the place
    /// data has nothing within `radius` of the walk (a phone walk in Berkeley against the bundled
    /// San Francisco and Tokyo sets), which the summary's "places seen: 0" alone did not say.
    func emptyAnswersWarning(radius: Double) -> String? {
        guard answers > 0, trace.places.isEmpty else { return nil }
        let every = answers == 1 ? "the one answer was" : "all \(answers) answers were"
        return "locsim: warning: \(every) empty: the place data has no place within \(PeopleText.number(radius)) m of this walk; "
            + "give --db or --geodata with places where the walk is (or a larger --radius)"
    }

    /// Flushes pending output and writes the summary line.
    func finish() {
        flushPlaces()
        switch format {
        case .jsonl: write(summary.line)
        case .text:
            write("")
            for line in summary.text { write(line) }
        }
    }

    /// The summary's figures, as the last jsonl line, the text summary and the HTML report's table show them.
    var summary: SummaryRecord {
        SummaryRecord(
            fixes: acceptedCount + rejectedCount, acceptedFixes: acceptedCount, rejectedFixes: rejectedCount, distance: distance,
            duration: firstTime.flatMap { first in lastTime?.timeIntervalSince(first) }, fetches: fetchCount,
            fetchesByReason: fetchesByReason, failedFetches: trace.failures.count, placesSeen: trace.places.count,
            placesOnMap: onMap.count, encounters: trace.encounters.count, busiestMinuteFetches: fetchesPerMinute.values.max() ?? 0,
            interrupted: interrupted, phone: phone)
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
        trace.places[place.id] = (place, trace.places[place.id]?.firstSeen ?? time)
    }

    /// Notes a change of the map at `time` for the next `places` line.
    private func changePlaces(at time: Date, _ change: (inout PlacesRecord) -> Void) {
        var record = pendingPlaces.take() ?? PlacesRecord(time: time, count: 0, appeared: [], disappeared: [], changed: [])
        record.time = time
        change(&record)
        pendingPlaces = record
        mapChanged = true
    }

    private func flushPlaces() {
        guard var record = pendingPlaces.take() else { return }
        record.count = onMap.count
        trace.placeCounts.append((record.time, record.count))
        let (appeared, changed) = (record.appeared, record.changed)
        emit(
            text: {
                let names = appeared.prefix(5).compactMap { onMap[$0].map { PeopleText.escaped($0.name) } }.joined(separator: ", ")
                return "\(stamp(record.time))  map: \(PeopleText.count(record.count, "place")) (+\(appeared.count) −\(record.disappeared.count)"
                    + (changed.isEmpty ? "" : " ~\(changed.count) changed") + ")"
                    + (names.isEmpty ? "" : ": " + names + (appeared.count > 5 ? ", …" : ""))
            }(),
            record)
    }

    /// A fix's line; `time` is when the phone handed it over (its own time without a scenario).
    private func emitFix(_ fix: Fix, rejection: FetchThrottle.Rejection?, deliveredAt time: Date) {
        let delivered = time == fix.time ? nil : time
        guard format == .jsonl else {
            if let rejection {
                write("\(stamp(time))  fix\(delivered == nil ? "" : " of \(stamp(fix.time))") ignored: \(Self.reason(rejection))")
            } else if delivered != nil {
                write("\(stamp(time))  fix of \(stamp(fix.time)) delivered")
            }
            return
        }
        // The most frequent line (one per fix): written straight into one string by the record.
        write(FixRecord(fix: fix, rejection: rejection.map(Self.reason), delivered: delivered).line)
    }

    /// Why a fix was ignored, its accuracy rounded for people (`accuracy 48.5 m`, not the
    /// double's seventeen digits).
    static func reason(_ rejection: FetchThrottle.Rejection) -> String {
        switch rejection {
        case .inaccurate(let accuracy): "accuracy \(PeopleText.number(accuracy, decimals: 1)) m"
        default: rejection.description
        }
    }

    /// Writes `text` or `record`'s line, whichever the format asks for; only that one is built.
    private func emit(text: @autoclosure () -> String, _ record: some JSONLRecord) {
        switch format {
        case .text: write(text())
        case .jsonl: write(record.line)
        }
    }

    /// Writes `event`'s timeline line: its time and `text`, or its record.
    private func emit(_ event: MapEvent, text: @autoclosure () -> String) {
        emit(text: "\(stamp(event.time))  \(text())", MapEventRecord(event: event))
    }

    private func stamp(_ time: Date) -> String { UTCTimestamp.format(time, fractionDigits: 3) }
}
