#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
package import MapFeature

/// The game's fetch rule checked from the outside: each caller's nearby requests, as the server
/// sees them, against the same ``MapFeature/FetchThrottle`` the app's logic runs.
///
/// Per client (the `X-Player-ID` header, else the team's own device header, else the bearer
/// token, else the remote address and User-Agent), each request gets a verdict:
///
/// | verdict | when | reason text |
/// |---|---|---|
/// | `first` | the client's first request | `first request` |
/// | `moved` | more than the distance since the last request | `moved 131 m` |
/// | `elapsed` | more than the interval since the last request | `elapsed 30.4 s` |
/// | `retry` | the first request after a failure, past the back-off | `retry 2.1 s after a failure` |
/// | `too_soon` | neither rule holds | `TOO SOON: 12 m and 8.1 s since the last fetch` |
/// | `overlap` | an earlier request of the client is still unanswered | `OVERLAP: 1 request in flight` |
/// | `retry_storm` | a request inside the back-off after a failure | `RETRY STORM: 0.3 s after a failure, back-off 0.8 s` |
///
/// The last three are violations. Times are the server's arrival times, so the interval rule
/// is applied with ``Configuration/tolerance`` of slack (network jitter moves arrivals a little);
/// the back-off required after a failure is the shortest the game's policy may take (its delays
/// less the largest jitter), counted from the failed answer. A request that the server never
/// answers (a timeout fault) counts as failed when it arrives, since the client gives up later.
///
/// The audit is a value: the server keeps it behind a lock and feeds it arrivals and answers.
package struct FetchAudit: Sendable {
    /// The rule's numbers.
    package struct Configuration: Sendable, Hashable {
        /// The app's rule (distance, interval, back-off), as in `locsim replay`.
        package var rule: FetchThrottle.Configuration
        /// Slack on the interval rule for arrival-time jitter. Default 1 s.
        package var tolerance: Duration
        /// Requests kept per client for the timeline (older ones are counted, not kept; up to a
        /// quarter more may be held between trims). Default 10,000.
        package var maximumEntriesPerClient: Int
        /// Clients kept at most. When a new client would pass the cap, the least recently seen
        /// idle clients (none of whose requests is in flight), an eighth of the cap at a time,
        /// are dropped: their requests and violations still count in the totals (and for
        /// `--audit-strict`), their timelines are gone. So a flood of distinct `X-Player-ID`
        /// values cannot grow the audit without bound. Default 1,000.
        package var maximumClients: Int
        /// Game seconds per wall-clock second of the clients (a swarm's `--speed`): the rule's
        /// interval and the back-off are divided by it; the tolerance, which is network jitter in
        /// wall-clock time, is not. Default 1.
        package var speed: Double

        /// - Parameters:
        ///   - rule: The app's rule; ``MapFeature/FetchThrottle/Configuration/game`` by default.
        ///   - tolerance: ≥ 0.
        ///   - maximumEntriesPerClient: > 0.
        ///   - maximumClients: > 0.
        ///   - speed: > 0 and finite; anything else is taken as 1.
        package init(
            rule: FetchThrottle.Configuration = .game, tolerance: Duration = .seconds(1), maximumEntriesPerClient: Int = 10_000,
            maximumClients: Int = 1_000, speed: Double = 1
        ) {
            self.speed = speed.isFinite && speed > 0 ? speed : 1
            self.rule = rule
            self.tolerance = max(.zero, tolerance)
            self.maximumEntriesPerClient = max(1, maximumEntriesPerClient)
            self.maximumClients = max(1, maximumClients)
        }

        /// The rule's interval divided by the speed: the time between fetches the audit requires,
        /// before the tolerance is taken off.
        package var scaledInterval: Duration { rule.minimumInterval / speed }

        /// Why the interval rule could flag no request, with the option to change, or nil: when
        /// the scaled interval is no more than the tolerance, every request passes the time rule,
        /// and a client polling in a loop would go unflagged; an interval of 0 makes every
        /// request due. ``NearbyServer/Configuration`` refuses such an audit.
        package var intervalProblem: (option: String, message: String)? {
            guard rule.minimumInterval > .zero else {
                return (
                    "throttle-interval",
                    "0 s makes every request due (the rule then fetches on every fix): the audit could flag no request as too soon "
                        + "(give the app's interval: the game's is 30s)"
                )
            }
            guard scaledInterval <= tolerance else { return nil }
            let atSpeed = speed == 1 ? "" : " at speed \(PeopleText.number(speed))"
            let message = "the interval \(PeopleText.number(rule.minimumInterval.fractionalSeconds)) s\(atSpeed) leaves "
                + "\(PeopleText.number(scaledInterval.fractionalSeconds, decimals: 3)) s between fetches, no more than the tolerance "
                + "\(PeopleText.number(tolerance.fractionalSeconds)) s: the audit could flag no request as too soon "
                + "(give a tolerance shorter than that)"
            return ("audit-tolerance", message)
        }

        /// The throttle the audit runs: the app's distance, the interval (divided by the speed)
        /// less the tolerance, and the back-off at its shortest (no jitter, delays scaled by
        /// 1 − jitter and divided by the speed).
        func auditThrottle() -> FetchThrottle.Configuration {
            let retry = rule.retry
            let keep: Double = (1 - retry.jitter) / speed
            let interval: Duration = max(Duration.zero, scaledInterval - tolerance)
            // Small steps with explicit types: one long expression here defeats the type checker.
            func shortened(_ delay: Duration) -> Duration {
                let micros: Double = (Double(delay.wholeMicroseconds) * keep).rounded(.down)
                return .microseconds(max(Int64(1), Int64(micros)))
            }
            do {
                let shortest = try Backoff(
                    initialDelay: shortened(retry.initialDelay), multiplier: retry.multiplier,
                    maximumDelay: shortened(retry.maximumDelay), jitter: 0, seed: retry.seed)
                return try FetchThrottle.Configuration(
                    minimumDistance: rule.minimumDistance, minimumInterval: interval, radius: rule.radius,
                    maximumHorizontalAccuracy: .infinity, retry: shortest)
            } catch {
                // Every value comes from a checked configuration and only shrinks within its range.
                preconditionFailure("audit rule from a valid configuration: \(error)")
            }
        }
    }

    /// A request's verdict.
    package enum Verdict: String, Sendable, Hashable, CaseIterable, Codable {
        case first, moved, elapsed, retry
        case tooSoon = "too_soon"
        case overlap
        case retryStorm = "retry_storm"

        /// Whether the request broke the rule.
        package var isViolation: Bool { self == .tooSoon || self == .overlap || self == .retryStorm }
    }

    /// One audited request.
    package struct Entry: Sendable, Hashable {
        /// 1-based, over all clients, in arrival order.
        package var sequence: Int
        /// Arrival time.
        package var time: Date
        /// The query centre and radius.
        package var center: Coordinate
        package var radius: Double
        /// The verdict.
        package var verdict: Verdict
        /// The numbers behind the reason text (the text is written only when asked for).
        var detail: Detail
        /// The status answered (nil while in flight; 0 for a request never answered).
        package var status: Int?

        /// The verdict's reason text: `moved 131 m`, `TOO SOON: 12 m and 8.1 s since the last fetch`, ….
        package var reason: String { detail.text }
    }

    /// What a reason says, as numbers: kept per timeline entry instead of its text, which is
    /// formatted only for the access log, `/audit` and the report.
    enum Detail: Sendable, Hashable {
        /// The client's first request, or its session's (the `X-Audit-Session` the request names).
        case first(session: String?)
        /// Moved `metres`, more than the rule's distance (`over`).
        case moved(metres: Double, over: Double)
        case elapsed(seconds: Double)
        case retry(sinceFailure: Double)
        case tooSoon(metres: Double, seconds: Double)
        case overlap(inFlight: Int)
        case retryStorm(sinceFailure: Double, backOff: Double)
        case rejected(String)

        var text: String {
            switch self {
            case .first(nil): "first request"
            case .first(let session?): "first request of session \"\(TextExcerpt.render(session, limit: 40))\""
            case .moved(let distance, let threshold): "moved \(FetchAudit.metres(distance, over: threshold)) m"
            case .elapsed(let elapsed): "elapsed \(FetchAudit.seconds(elapsed)) s"
            case .retry(let since): "retry \(FetchAudit.seconds(since)) s after a failure"
            case .tooSoon(let distance, let elapsed):
                "TOO SOON: \(FetchAudit.metres(distance)) m and \(FetchAudit.seconds(elapsed)) s since the last fetch"
            case .overlap(let count): "OVERLAP: \(count) request\(count == 1 ? "" : "s") in flight"
            case .retryStorm(let since, let required):
                "RETRY STORM: \(FetchAudit.seconds(since)) s after a failure, back-off \(FetchAudit.seconds(required)) s"
            case .rejected(let rejection): "TOO SOON: \(rejection)"
            }
        }
    }

    /// One client's record.
    package struct ClientRecord: Sendable {
        /// The client's name: `player:ID`, `token:…` (a hash, never the token) or `address:IP`.
        package var client: String
        /// Requests audited.
        package var requests = 0
        /// Requests per verdict.
        package var verdicts: [Verdict: Int] = [:]
        /// The kept timeline (the latest ``Configuration/maximumEntriesPerClient``).
        package var entries: [Entry] = []
        /// Violations.
        package var violations: Int { verdicts.filter { $0.key.isViolation }.reduce(0) { $0 + $1.value } }

        var throttle: FetchThrottle
        /// The session the client named last (`X-Audit-Session`), if any.
        var session: String?
        /// Bumped by each restart: the answers to requests of an earlier generation only fill in
        /// their status.
        var generation = 0
        var inFlight = 0
        var failedAt: Date?
        /// The sequence number of the client's latest request (for dropping the least recently seen).
        var lastSeen = 0

        init(client: String, rule: FetchThrottle.Configuration) {
            self.client = client
            throttle = FetchThrottle(configuration: rule)
        }
    }

    /// Identifies an audited request between its arrival and its answer.
    package struct Ticket: Sendable, Hashable {
        let client: String
        let sequence: Int
        let generation: Int
    }

    /// The settings.
    package let configuration: Configuration
    private let rule: FetchThrottle.Configuration
    /// Clients in order of first appearance.
    package private(set) var clients: [String: ClientRecord] = [:]
    private var clientOrder: [String] = []
    private var sequence = 0
    /// Clients dropped to stay within ``Configuration/maximumClients``.
    package private(set) var evictedClients = 0
    /// Requests and violations of the dropped clients.
    package private(set) var evictedRequests = 0
    package private(set) var evictedViolations = 0

    /// An audit that has seen nothing.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        rule = configuration.auditThrottle()
    }

    /// Total violations over all clients, dropped ones included.
    package var violationCount: Int { clients.values.reduce(evictedViolations) { $0 + $1.violations } }

    /// Requests audited over all clients, dropped ones included.
    package var requestCount: Int { clients.values.reduce(evictedRequests) { $0 + $1.requests } }

    /// Clients seen, dropped ones included.
    package var clientCount: Int { clients.count + evictedClients }

    /// The client records, in order of first appearance.
    package var records: [ClientRecord] { clientOrder.compactMap { clients[$0] } }

    /// One page of the kept timelines (`GET /audit?cursor=&limit=`).
    package struct Page: Sendable {
        /// Each client's entries in the page, in the order of ``FetchAudit/records``.
        package var timelines: [ArraySlice<Entry>]
        /// The cursor of the next page (the sequence number of this page's last entry), or nil
        /// when no kept entry comes after this page.
        package var next: Int?
    }

    /// The default and largest page (`limit`) of `GET /audit`.
    package static let pageSizes = (default: 1_000, maximum: 10_000)

    /// The kept entries whose sequence number is above `cursor`, oldest first over all clients,
    /// at most `limit` of them (each client's in its own timeline).
    ///
    /// Sequence numbers are unique and each client's timeline is in their order, so the page
    /// ends at the smallest sequence number with `limit` entries up to it: found by bisection,
    /// counting each client's entries by bisection too, without merging or copying the timelines.
    package func page(after cursor: Int, limit: Int) -> Page {
        let records = records
        // The index of the first entry with a sequence number above `bound`.
        func start(_ entries: [Entry], after bound: Int) -> Int { entries.partitioningIndex { $0.sequence > bound } }
        let starts = records.map { start($0.entries, after: cursor) }
        func count(upTo bound: Int) -> Int {
            zip(records, starts).reduce(0) { $0 + start($1.0.entries, after: bound) - $1.1 }
        }
        let limit = max(1, limit)
        var end = Int.max
        if count(upTo: sequence) > limit {
            var low = cursor + 1
            var high = sequence
            while low < high {
                let middle = low + (high - low) / 2
                if count(upTo: middle) >= limit { high = middle } else { low = middle + 1 }
            }
            end = low
        }
        let timelines = zip(records, starts).map { record, first in
            record.entries[first..<start(record.entries, after: end)]
        }
        return Page(timelines: timelines, next: end == .max ? nil : end)
    }

    /// A request arrived: its verdict and reason.
    ///
    /// - Parameters:
    ///   - client: The client's name (see ``ClientRecord/client``).
    ///   - center: The query centre.
    ///   - radius: The query radius, metres.
    ///   - time: The arrival time.
    ///   - session: The session the request names (`X-Audit-Session`), or nil. A session other
    ///     than the client's last one restarts the rule for it (``restart(client:)``): an app
    ///     relaunched by a UI test starts afresh.
    ///   - answered: `false` for a request the server will never answer (a timeout fault): it
    ///     counts as failed at once.
    package mutating func arrive(
        client: String, center: Coordinate, radius: Double, at time: Date, session: String? = nil, answered: Bool = true
    ) -> (ticket: Ticket, entry: Entry) {
        sequence += 1
        if clients[client] == nil {
            if clients.count >= configuration.maximumClients { evictIdleClients() }
            clientOrder.append(client)
            clients[client] = ClientRecord(client: client, rule: rule)
        }
        if let session, clients[client]?.session != session {
            restart(client: client)
            update(client) { $0.session = session }
        }
        // Mutated in place through the dictionary (a copy of the record would copy its timeline
        // on every request).
        let (verdict, detail) = Self.judge(record: clients[client]!, center: center, time: time, session: session)
        let entry = Entry(sequence: sequence, time: time, center: center, radius: radius, verdict: verdict, detail: detail, status: nil)
        let keep = configuration.maximumEntriesPerClient
        let now = sequence
        update(client) { record in
            record.lastSeen = now
            record.throttle.recordFetch(center: center, at: time)
            record.inFlight += 1
            record.requests += 1
            record.verdicts[verdict, default: 0] += 1
            record.entries.append(entry)
            // Drop the oldest quarter at a time, so trimming costs O(1) per request on average.
            if record.entries.count > keep + keep / 4 { record.entries.removeFirst(record.entries.count - keep) }
        }
        let ticket = Ticket(client: client, sequence: sequence, generation: clients[client]?.generation ?? 0)
        if !answered { finish(ticket, status: 0, failed: true, at: time) }
        return (ticket, entry)
    }

    /// The request was answered with `status` at `time`; `failed` for a 5xx (or no answer).
    package mutating func finish(_ ticket: Ticket, status: Int, failed: Bool, at time: Date) {
        update(ticket.client) { record in
            defer {
                // The entry is near the end unless many requests of the client overlapped.
                if let i = record.entries.lastIndex(where: { $0.sequence == ticket.sequence }) { record.entries[i].status = status }
            }
            // An answer to a request from before a restart says nothing about the new session.
            guard ticket.generation == record.generation else { return }
            record.inFlight = max(0, record.inFlight - 1)
            if failed {
                record.throttle.recordFailure(at: time)
                record.failedAt = time
            } else {
                record.throttle.recordSuccess()
                record.failedAt = nil
            }
        }
    }

    /// Starts the rule afresh for `client` (every client when nil): its next request is judged as
    /// a first request. The verdicts and timelines so far are kept and still count (for
    /// `--audit-strict` too); the answers to its requests still in flight fill in their status
    /// and nothing else. Returns the clients restarted.
    @discardableResult
    package mutating func restart(client: String? = nil) -> Int {
        let names = client.map { clients[$0] == nil ? [] : [$0] } ?? clientOrder
        let rule = rule
        for name in names {
            update(name) { record in
                record.throttle = FetchThrottle(configuration: rule)
                record.failedAt = nil
                record.inFlight = 0
                record.generation += 1
            }
        }
        return names.count
    }

    /// Drops the least recently seen idle clients, an eighth of the cap (at least one), keeping
    /// their counts in the totals. Sorting all clients once per eighth of the cap keeps the cost
    /// per new client logarithmic.
    private mutating func evictIdleClients() {
        let count = max(1, configuration.maximumClients / 8)
        let idle = clients.values.filter { $0.inFlight == 0 }.sorted { $0.lastSeen < $1.lastSeen }.prefix(count)
        guard !idle.isEmpty else { return }
        var dropped = Set<String>()
        for record in idle {
            dropped.insert(record.client)
            evictedRequests += record.requests
            evictedViolations += record.violations
            clients[record.client] = nil
        }
        evictedClients += dropped.count
        clientOrder.removeAll { dropped.contains($0) }
    }

    /// Changes a client's record in place.
    private mutating func update(_ client: String, _ change: (inout ClientRecord) -> Void) {
        guard clients[client] != nil else { return }
        change(&clients[client]!)
    }

    private static func judge(record: ClientRecord, center: Coordinate, time: Date, session: String?) -> (Verdict, Detail) {
        if record.inFlight > 0 { return (.overlap, .overlap(inFlight: record.inFlight)) }
        let fix = Fix(time: time, coordinate: center, source: FixSource(rawValue: "http"))
        switch record.throttle.decision(for: fix) {
        case .fetch(.first): return (.first, .first(session: session))
        case .fetch(.moved):
            let distance = record.throttle.lastFetch.map { center.distance(to: $0.center) } ?? 0
            return (.moved, .moved(metres: distance, over: record.throttle.configuration.minimumDistance))
        case .fetch(.elapsed):
            let elapsed = record.throttle.lastFetch.map { time.timeIntervalSince($0.time) } ?? 0
            return (.elapsed, .elapsed(seconds: elapsed))
        case .fetch(.retry):
            let since = record.failedAt.map { time.timeIntervalSince($0) } ?? 0
            return (.retry, .retry(sinceFailure: since))
        case .notDue(let distance, let elapsed):
            return (.tooSoon, .tooSoon(metres: distance, seconds: elapsed.fractionalSeconds))
        case .backingOff(let until):
            let since = record.failedAt.map { time.timeIntervalSince($0) } ?? 0
            let required = record.failedAt.map { until.timeIntervalSince($0) } ?? 0
            return (.retryStorm, .retryStorm(sinceFailure: since, backOff: required))
        case .rejected(let rejection):
            // Coordinates come checked and accuracy is not on the wire; keep the throttle's word.
            return (.tooSoon, .rejected("\(rejection)"))
        }
    }

    static func metres(_ value: Double) -> String { String(Int(value.rounded())) }

    /// `value`, more than `threshold`, in whole metres, or with as many decimals (up to 3) as it
    /// takes to show it more: `moved 100 m` for 100.4 m would contradict the rule it met
    /// (`moved 100.4 m`). Past 3 decimals it is rounded up (100.0002 m is `100.001`).
    static func metres(_ value: Double, over threshold: Double) -> String {
        var text = metres(value)
        for decimals in 1...3 where !(Double(text).map { $0 > threshold } ?? false) {
            text = DecimalText.fixed(value, decimals: decimals)
        }
        guard !(Double(text).map { $0 > threshold } ?? false) else { return text }
        return DecimalText.fixed((value * 1_000).rounded(.up) / 1_000, decimals: 3)
    }

    static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let whole = Int(tenths / 10)
        let fraction = Int(abs(tenths.truncatingRemainder(dividingBy: 10)))
        return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
    }
}
