#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// The map screen's logic as a pure state machine: fixes and answers in, requests and events out.
///
/// ``MapViewModel`` is an async shell around one `MapSession`: it feeds it each fix with
/// ``receive(_:)``, performs the ``FetchRequest`` it returns, and feeds the answer back with
/// ``complete(_:with:at:)``. The replay harness in `LocationTestSupport` feeds it the same way
/// from a discrete-event loop in virtual time. No `async`, no clock, no randomness beyond the
/// throttle's seeded jitter: the same inputs always give the same outputs.
///
/// Rules it adds to ``FetchThrottle``:
/// - **At most one request in flight.** A fix that qualifies meanwhile is *coalesced*: when the
///   request answers successfully, one follow-up goes out with the newest accepted position.
///   After a failure the follow-up is dropped and the back-off decides.
/// - **Only the current request's answer counts.** Any other answer (late, duplicated, or for a
///   cancelled request) is discarded, so an older answer never overwrites a newer one.
/// - **Places stay on the map** while refreshing (``Loadable/loading(previous:)``) and after a
///   failure (``Loadable/failed(_:previous:)``).
/// - **Poor fixes** neither become the user's position nor trigger anything.
/// - **After ``stop(at:)``** nothing changes until ``resume()``: the in-flight request is
///   cancelled, the places go back to what they were before it, and late answers are dropped.
public struct MapSession: Sendable {
    /// What one step produced.
    public struct Output: Sendable, Hashable {
        /// What happened, in order.
        public var events: [MapEvent] = []
        /// A request the shell must now perform, if any.
        public var request: FetchRequest?
        /// Creates an output (empty by default).
        public init(events: [MapEvent] = [], request: FetchRequest? = nil) {
            self.events = events
            self.request = request
        }
    }

    /// The rule and its memory of past fetches.
    public private(set) var throttle: FetchThrottle
    /// The latest accepted fix.
    public private(set) var latestFix: Fix?
    /// The places to show.
    public private(set) var places: Loadable<[Place]> = .idle
    /// The latest request sent (where, when, why).
    public private(set) var lastFetch: FetchRequest?
    /// The request awaiting its answer.
    public private(set) var inFlight: FetchRequest?
    /// Why a follow-up is due when ``inFlight`` answers, if one is.
    public private(set) var pendingFollowUp: FetchThrottle.Reason?
    /// `true` after ``stop(at:)`` until ``resume()``.
    public private(set) var isStopped = false
    /// Incremented whenever ``places`` changes, so a shell can copy it only when needed.
    public private(set) var placesRevision = 0
    /// The latest time the session has seen (fix or answer), in fix time.
    public private(set) var latestTime: Date?

    private var placesBeforeFetch: Loadable<[Place]> = .idle
    private var nextRequestID = 1

    /// Creates an idle session.
    public init(configuration: FetchThrottle.Configuration = .game) {
        self.throttle = FetchThrottle(configuration: configuration)
    }

    /// The thresholds in use.
    public var configuration: FetchThrottle.Configuration { throttle.configuration }

    // MARK: Inputs

    /// Feeds one fix, handed to the app at its own time, or at ``latestTime`` when that is later:
    /// the app's clock never goes backwards (a timed replay's fix emitted late, after an answer
    /// stamped later; a track whose time goes backwards). The fix keeps its own time.
    ///
    /// - Returns: The events, and a request to perform when the fix triggers one.
    public mutating func receive(_ fix: Fix) -> Output {
        receive(fix, deliveredAt: fix.time)
    }

    /// Feeds one fix that the phone handed to the app at `time` (the delivery clock: a cached
    /// fix handed back on returning from the background carries an older time of its own).
    ///
    /// The fetch rule's 30 s, the request's time and the events count on the delivery clock, as
    /// the app's `Date()` does; the fix keeps its own time, which
    /// ``FetchThrottle/Configuration/maximumFixAge`` judges. With `time` the fix's own time,
    /// ``receive(_:)``.
    ///
    /// The app's clock never goes backwards: a fix handed over at a time before ``latestTime``
    /// (an answer stamped later came first: a timed replay whose next fix was emitted late; or
    /// a track whose time goes backwards) is delivered at ``latestTime``, and its events say so.
    package mutating func receive(_ fix: Fix, deliveredAt requested: Date) -> Output {
        guard !isStopped else { return Output() }
        // A time that is no date (NaN, infinite: the throttle rejects such a fix) is not the
        // events': the fix is handed over at the latest time seen, or at no fix time yet.
        let requested = requested.timeIntervalSinceReferenceDate.isFinite ? requested : latestTime ?? MapEvent.noFixTime
        let time = latestTime.map { requested < $0 ? $0 : requested } ?? requested
        var output = Output()
        let decision = throttle.decision(for: fix, deliveredAt: time)
        if case .rejected(let rejection) = decision {
            output.events.append(MapEvent(time: time, kind: .fixRejected(fix, rejection)))
            return output
        }
        note(time)
        latestFix = fix
        output.events.append(MapEvent(time: time, kind: .fixAccepted(fix)))
        guard case .fetch(let reason) = decision, let center = fix.coordinate else { return output }
        if let inFlight {
            // Moved beats elapsed: the follow-up says the strongest reason seen.
            if pendingFollowUp != .moved { pendingFollowUp = reason }
            output.events.append(MapEvent(time: time, kind: .fetchCoalesced(reason: reason, inFlight: inFlight.id)))
            return output
        }
        output.request = start(center: center, time: time, reason: reason, events: &output.events)
        return output
    }

    /// Feeds the answer to `request`, received at `time` (fix-time base: the request's time
    /// plus how long it took).
    ///
    /// - Returns: The events, and the coalesced follow-up request when one is due.
    public mutating func complete(_ request: FetchRequest, with result: Result<[Place], AppError>, at time: Date) -> Output {
        guard !isStopped else { return Output() }
        var output = Output()
        guard let current = inFlight, current.id == request.id else {
            output.events.append(MapEvent(time: time, kind: .answerDiscarded(requestID: request.id)))
            return output
        }
        note(time)
        inFlight = nil
        // Only a request in flight needs the places from before it (to restore on a cancel or
        // show beside a failure); holding them longer kept a second fetch's places alive per session.
        let before = placesBeforeFetch
        placesBeforeFetch = .idle
        switch result {
        case .success(let answer):
            throttle.recordSuccess()
            let shown = places.value ?? []
            setPlaces(.loaded(answer))
            output.events.append(MapEvent(time: time, kind: .fetchSucceeded(request, count: answer.count)))
            appendDifference(from: shown, to: answer, at: time, into: &output.events)
            if let reason = pendingFollowUp, let center = latestFix?.coordinate {
                // Sent now, from the newest accepted position.
                pendingFollowUp = nil
                output.request = start(center: center, time: time, reason: reason, events: &output.events)
            }
        case .failure(let error):
            let retryNotBefore = throttle.recordFailure(at: time)
            pendingFollowUp = nil
            setPlaces(.failed(error, previous: before.value))
            output.events.append(MapEvent(time: time, kind: .fetchFailed(request, error, retryNotBefore: retryNotBefore)))
        }
        return output
    }

    /// Stops the session: cancels the in-flight request and freezes the state.
    ///
    /// The places go back to what they were before the cancelled request (a spinner must not
    /// spin forever). Every later ``receive(_:)`` and ``complete(_:with:at:)`` is ignored until
    /// ``resume()``.
    ///
    /// - Parameter time: When, in fix time; defaults to the latest time the session has seen.
    public mutating func stop(at time: Date? = nil) -> Output {
        guard !isStopped else { return Output() }
        var output = Output()
        let when = time ?? latestTime ?? MapEvent.noFixTime
        if let request = inFlight {
            inFlight = nil
            pendingFollowUp = nil
            throttle.recordCancellation()
            setPlaces(placesBeforeFetch)
            placesBeforeFetch = .idle
            output.events.append(MapEvent(time: when, kind: .fetchCancelled(request)))
        }
        output.events.append(MapEvent(time: when, kind: .stopped))
        isStopped = true
        return output
    }

    /// Lets a stopped session take fixes again (a view that reappears runs its task again).
    public mutating func resume() {
        isStopped = false
    }

    // MARK: Helpers

    private mutating func start(center: Coordinate, time: Date, reason: FetchThrottle.Reason, events: inout [MapEvent]) -> FetchRequest {
        let request = FetchRequest(id: nextRequestID, center: center, radius: configuration.radius, time: time, reason: reason)
        nextRequestID += 1
        throttle.recordFetch(center: center, at: time)
        inFlight = request
        lastFetch = request
        placesBeforeFetch = places
        setPlaces(.loading(previous: places.value))
        events.append(MapEvent(time: time, kind: .fetchStarted(request)))
        return request
    }

    private mutating func setPlaces(_ new: Loadable<[Place]>) {
        places = new
        placesRevision &+= 1
    }

    private mutating func note(_ time: Date) {
        if let latestTime, latestTime >= time { return }
        latestTime = time
    }

    private func appendDifference(from old: [Place], to new: [Place], at time: Date, into events: inout [MapEvent]) {
        // Often the very same list (when the order changes too, the maps below decide).
        if old == new { return }
        // A repeated id counts once: its first occurrence, as the map shows it. One hash of each
        // id in `old` and one in `new` (a map of thousands of places is compared at each answer).
        var firstInOld = [String: Int](minimumCapacity: old.count)
        var isFirstInOld = [Bool](repeating: false, count: old.count)
        for index in old.indices {
            isFirstInOld[index] = firstInOld.firstValue(for: old[index].id, storing: index) == index
        }
        var appeared: [Place] = [], changed: [Place] = []
        var keptFromOld = [Bool](repeating: false, count: old.count)
        var appearedIDs = Set<String>()
        for place in new {
            if let index = firstInOld[place.id] {
                guard !keptFromOld[index] else { continue }
                keptFromOld[index] = true
                if old[index] != place { changed.append(place) }
            } else if appearedIDs.insert(place.id).inserted {
                appeared.append(place)
            }
        }
        var disappeared: [Place] = []
        for index in old.indices where isFirstInOld[index] && !keptFromOld[index] { disappeared.append(old[index]) }
        if !appeared.isEmpty { events.append(MapEvent(time: time, kind: .placesAppeared(appeared))) }
        if !disappeared.isEmpty { events.append(MapEvent(time: time, kind: .placesDisappeared(disappeared))) }
        if !changed.isEmpty { events.append(MapEvent(time: time, kind: .placesChanged(changed))) }
    }
}
