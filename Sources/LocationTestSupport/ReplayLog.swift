#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore
public import MapFeature

/// What a map session did, event by event, with queries for assertions.
///
/// Produced by ``MapReplay``, or collected from ``/MapFeature/MapViewModel/onEvent`` by hand
/// (`ReplayLog(events:)`). Two logs are equal when every event is equal, which is how the
/// determinism of a replay is checked.
public struct ReplayLog: Sendable, Hashable, CustomStringConvertible {
    /// Every event, in order.
    public var events: [MapEvent]
    /// The time of the first fix: `t+0` in ``lines`` (events before it, which have no fix time,
    /// are `before t+0`).
    public var epoch: Date?
    /// The model's places when the replay ended.
    public var finalPlaces: Loadable<[Place]>
    /// The model's latest accepted fix when the replay ended.
    public var finalFix: Fix?
    /// What a scenario's phone did on the way to the app (``MapReplay/run(scenarioFile:)``), in
    /// order; empty without a scenario.
    public var phone: [PhoneNote]
    /// What reading a scenario's route file skipped and its replay dropped (points whose time
    /// goes backwards, an NMEA log's bad sentences), and what the scenario set past its route's
    /// end (a trouble window that never began, an app move never applied), in the words
    /// `locsim replay` prints them; empty when nothing was.
    public var warnings: [String]
    /// The rule the session ran with: what ``ruleViolations(_:)`` and the expectations check
    /// the requests against unless given another. ``MapReplay`` sets its own (with a scenario's
    /// `maximumFixAge`); a log collected by hand says which rule its model had.
    public var configuration: FetchThrottle.Configuration

    /// Creates a log.
    ///
    /// - Parameters:
    ///   - events: Every event, in order.
    ///   - epoch: `t+0` in ``lines``; by default the time of the first fix `events` hold (the
    ///     `fixAccepted` or `fixRejected` with a time of its own), else the first event's.
    ///   - finalPlaces: The model's places at the end.
    ///   - finalFix: The model's latest accepted fix at the end.
    ///   - phone: What a scenario's phone did on the way to the app.
    ///   - warnings: What reading the route skipped or the scenario set past its end.
    ///   - configuration: The rule the model ran with; the game's by default.
    public init(
        events: [MapEvent] = [], epoch: Date? = nil, finalPlaces: Loadable<[Place]> = .idle, finalFix: Fix? = nil,
        phone: [PhoneNote] = [], warnings: [String] = [], configuration: FetchThrottle.Configuration = .game
    ) {
        self.configuration = configuration
        self.events = events
        self.epoch = epoch ?? Self.firstFixTime(events) ?? events.first?.time
        self.finalPlaces = finalPlaces
        self.finalFix = finalFix
        self.phone = phone
        self.warnings = warnings
    }

    // MARK: Queries

    /// Every request sent, in order.
    public var fetches: [FetchRequest] {
        events.compactMap { if case .fetchStarted(let request) = $0.kind { request } else { nil } }
    }

    /// The reason of every request sent, in order.
    public var fetchReasons: [FetchThrottle.Reason] { fetches.map(\.reason) }

    /// Every successful answer: the request, how many places, and when it arrived.
    public var answers: [(request: FetchRequest, count: Int, time: Date)] {
        events.compactMap {
            if case .fetchSucceeded(let request, let count) = $0.kind { (request, count, $0.time) } else { nil }
        }
    }

    /// Every failure: the request, the error, when, and the earliest retry time.
    public var failures: [(request: FetchRequest, error: AppError, time: Date, retryNotBefore: Date)] {
        events.compactMap {
            if case .fetchFailed(let request, let error, let retry) = $0.kind { (request, error, $0.time, retry) } else { nil }
        }
    }

    /// Accepted fixes.
    public var acceptedFixes: [Fix] {
        events.compactMap { if case .fixAccepted(let fix) = $0.kind { fix } else { nil } }
    }

    /// Rejected fixes and why.
    public var rejectedFixes: [(fix: Fix, rejection: FetchThrottle.Rejection)] {
        events.compactMap { if case .fixRejected(let fix, let why) = $0.kind { (fix, why) } else { nil } }
    }

    /// How many coalesced follow-up decisions there were.
    public var coalescedCount: Int {
        events.count { if case .fetchCoalesced = $0.kind { true } else { false } }
    }

    /// The most requests ever in flight at once.
    public var maximumFetchesInFlight: Int {
        var open = Set<Int>(), maximum = 0
        for event in events {
            switch event.kind {
            case .fetchStarted(let request): open.insert(request.id); maximum = max(maximum, open.count)
            case .fetchSucceeded(let request, _), .fetchFailed(let request, _, _), .fetchCancelled(let request):
                open.remove(request.id)
            default: break
            }
        }
        return maximum
    }

    /// The ids of the places on the map after each event that changed them, with the time.
    public var visiblePlaceIDs: [(time: Date, ids: Set<String>)] {
        var shown = Set<String>(), timeline: [(Date, Set<String>)] = []
        for event in events {
            switch event.kind {
            case .placesAppeared(let places): shown.formUnion(places.map(\.id))
            case .placesDisappeared(let places): shown.subtract(places.map(\.id))
            default: continue
            }
            timeline.append((event.time, shown))
        }
        return timeline
    }

    /// Every place that was ever on the map, by id.
    public var placesEverShown: Set<String> {
        var ids = Set<String>()
        for event in events { if case .placesAppeared(let places) = event.kind { ids.formUnion(places.map(\.id)) } }
        return ids
    }

    /// The fixes a scenario's phone kept from the app, with why, in order.
    public var withheldFixes: [(fix: Fix, reason: WithholdReason, time: Date)] {
        phone.compactMap { if case .withheld(let fix, let reason) = $0.kind { (fix, reason, $0.time) } else { nil } }
    }

    /// The events after the first `stopped` event (should be none).
    public var eventsAfterStop: [MapEvent] {
        guard let index = events.firstIndex(where: { $0.kind == .stopped }) else { return [] }
        return Array(events[(index + 1)...])
    }

    // MARK: Rendering

    /// One line per event, and per note of the phone (``phone``) in between, times relative to
    /// ``epoch`` (`t+12.000s`), for diffs and golden files. A fix handed to the app after its own
    /// time (delivered in a batch, or after a later fix) says its own time too, and a failure's
    /// back-off ends at a `t+` time.
    public var lines: [String] {
        var lines: [String] = []
        lines.reserveCapacity(events.count + phone.count)
        var notes = phone[...]
        for (index, event) in events.enumerated() {
            while let note = notes.first, note.eventsBefore <= index {
                lines.append(line(note.time, "phone: \(note)"))
                notes.removeFirst()
            }
            lines.append(line(event))
        }
        lines += notes.map { line($0.time, "phone: \($0)") }
        return lines
    }

    /// The time of the first fix event with a fix time: a model's log collected by hand starts
    /// with `provider running`, at ``/MapFeature/MapEvent/noFixTime``.
    private static func firstFixTime(_ events: [MapEvent]) -> Date? {
        events.first { event in
            switch event.kind {
            case .fixAccepted: true
            case .fixRejected(_, let rejection): rejection != .invalidTime && event.time != MapEvent.noFixTime
            default: false
            }
        }?.time
    }

    /// `event`'s line in ``lines``: the one rendering of an event, which failure messages quote too.
    func line(_ event: MapEvent) -> String {
        guard let epoch else { return event.description }
        // Before any fix time (the provider starting, a fix without a valid time first).
        if event.time < epoch { return "before t+0 \(event.kind)" }
        switch event.kind {
        case .fetchFailed(let request, let error, let retryNotBefore):
            // The back-off on the same relative clock as the rest of the log.
            return line(event.time, "failed #\(request.id): \(error); retry not before \(relative(retryNotBefore))")
        case .fixAccepted(let fix) where fix.time != event.time && fix.time.timeIntervalSinceReferenceDate.isFinite,
            .fixRejected(let fix, _) where fix.time != event.time && fix.time.timeIntervalSinceReferenceDate.isFinite:
            // Handed over after its own time (a batch, a cached fix, a time that went
            // backwards): both times shown.
            return line(event.time, "\(event.kind) (its time \(relative(fix.time)))")
        default:
            return line(event.time, "\(event.kind)")
        }
    }

    /// `text` after `time` relative to ``epoch`` (as it is without one).
    private func line(_ time: Date, _ text: String) -> String {
        guard epoch != nil else { return text }
        return "\(relative(time)) \(text)"
    }

    /// `time` as the lines give it: `t+12.000s` from the epoch, or UTC without one.
    func relative(_ time: Date) -> String {
        guard let epoch else { return UTCTimestamp.format(time, fractionDigits: 3) }
        return "t+\(Self.seconds(VirtualTime.duration(from: epoch, to: time)))"
    }

    public var description: String { lines.joined(separator: "\n") }

    static func seconds(_ duration: Duration) -> String {
        let micros = duration.wholeMicroseconds
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000_000 / 1_000)
        return "\(sign)\(magnitude / 1_000_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}
