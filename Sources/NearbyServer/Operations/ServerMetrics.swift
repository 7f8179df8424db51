import Atomics

/// The server's counters, rendered in the Prometheus text exposition format (version 0.0.4)
/// for `GET /metrics`.
///
/// Hand-written rather than through swift-metrics and swift-prometheus: a few metric families do
/// not justify another package in the build (see docs/guides/serve.md). Names:
///
/// - `locsim_http_requests_total{route,status}`: requests answered.
/// - `locsim_http_request_duration_seconds{route}`: a histogram of time to answer.
/// - `locsim_places_served_total`: places sent in nearby answers.
/// - `locsim_audit_violations_total{verdict}`: fetch-rule violations seen.
/// - `locsim_audit_clients` and `locsim_audit_clients_evicted_total`: clients the audit keeps,
///   and idle ones it dropped to stay within its cap (see ``FetchAudit/Configuration/maximumClients``).
/// - `locsim_http_connections`: connections open now.
/// - `locsim_http_rejected_total{reason}`: connections answered and closed by their guard before
///   any route saw a request (``ConnectionRejection/Reason``: `protocol_error`,
///   `header_timeout`, `over_capacity`); each also counts in `locsim_http_requests_total` under
///   `other` with the status it was sent.
/// - `locsim_http_abandoned_total`: requests whose client left while a fault held or delayed
///   them (logged with status 499, never answered).
///
/// Every counter is an atomic in a table fixed at start (five routes, statuses 100…599, the
/// histogram's buckets), so recording a request takes no lock and allocates nothing: every
/// request of every connection passes here.
package final class ServerMetrics: Sendable {
    /// Histogram bucket bounds, seconds.
    package static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// The route labels, in the order of the table; unknown paths count as `other`, so a scanner
    /// cannot grow the label set.
    static let routes = ["/audit", "/healthz", "/locations/nearby", "/metrics", "other"]
    static let statuses = 100...599
    static let verdicts = ["too_soon", "overlap", "retry_storm"]

    private final class Counter: Sendable {
        let value = ManagedAtomic<Int>(0)
        func add(_ amount: Int) { value.wrappingIncrement(by: amount, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    private final class RouteCounters: Sendable {
        /// Requests by status, index `status - 100`; statuses outside 100…599 (none is sent) in the last slot.
        let byStatus: [Counter]
        /// Requests per histogram bucket (not cumulative: each request counts once, in its bucket;
        /// the last slot is beyond the largest bound).
        let byBucket: [Counter]
        let nanoseconds = Counter()

        init() {
            byStatus = (0...ServerMetrics.statuses.count).map { _ in Counter() }
            byBucket = (0...ServerMetrics.buckets.count).map { _ in Counter() }
        }
    }

    private let table: [RouteCounters]
    private let places = Counter()
    private let violations: [Counter]
    private let rejections: [Counter]
    private let abandoned = Counter()

    /// Empty counters.
    package init() {
        table = Self.routes.map { _ in RouteCounters() }
        violations = Self.verdicts.map { _ in Counter() }
        rejections = ConnectionRejection.Reason.allCases.map { _ in Counter() }
    }

    /// Counts one answered request.
    ///
    /// - Parameters:
    ///   - route: The route's name (`/locations/nearby`, or `other` for unknown paths).
    ///   - status: The HTTP status.
    ///   - seconds: Time from arrival to answer.
    ///   - places: Places in the body.
    package func record(route: String, status: Int, seconds: Double, places: Int) {
        record(route: Self.routes.firstIndex(of: route) ?? Self.routes.count - 1, status: status, seconds: seconds, places: places)
    }

    /// Counts one answered request by the route's position in ``routes``.
    func record(route: Int, status: Int, seconds: Double, places: Int) {
        let counters = table[route]
        counters.byStatus[Self.slot(status)].add(1)
        var bucket = 0
        while bucket < Self.buckets.count, seconds > Self.buckets[bucket] { bucket += 1 }
        counters.byBucket[bucket].add(1)
        counters.nanoseconds.add(Int((max(0, seconds) * 1e9).rounded()))
        if places > 0 { self.places.add(places) }
    }

    /// Counts one audit violation (`too_soon`, `overlap`, `retry_storm`).
    package func recordViolation(_ verdict: String) {
        guard let i = Self.verdicts.firstIndex(of: verdict) else { return }
        violations[i].add(1)
    }

    /// Counts one connection answered and closed by its guard (it is also recorded as a request).
    func recordRejection(_ reason: ConnectionRejection.Reason) {
        guard let i = ConnectionRejection.Reason.allCases.firstIndex(of: reason) else { return }
        rejections[i].add(1)
    }

    /// Counts one request whose client left before its held or delayed answer.
    func recordAbandoned() { abandoned.add(1) }

    /// Connections answered and closed by their guard, for `reason`.
    package func rejectionCount(_ reason: ConnectionRejection.Reason) -> Int {
        ConnectionRejection.Reason.allCases.firstIndex(of: reason).map { rejections[$0].current } ?? 0
    }

    /// Requests whose client left while a fault held or delayed them.
    package var abandonedCount: Int { abandoned.current }

    private static func slot(_ status: Int) -> Int {
        statuses.contains(status) ? status - statuses.lowerBound : statuses.count
    }

    /// Requests answered for a route and status (for tests and the summary).
    package func requestCount(route: String, status: Int) -> Int {
        guard let i = Self.routes.firstIndex(of: route), Self.statuses.contains(status) else { return 0 }
        return table[i].byStatus[Self.slot(status)].current
    }

    /// Places sent in nearby answers.
    package var placesServed: Int { places.current }

    /// The exposition text.
    ///
    /// - Parameters:
    ///   - auditClients: Clients the audit holds now.
    ///   - auditEvicted: Idle clients the audit has dropped to stay within its cap.
    ///   - connections: Connections open now.
    package func render(auditClients: Int = 0, auditEvicted: Int = 0, connections: Int = 0, backends: [BackendGauge] = []) -> String {
        var out = "# HELP locsim_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE locsim_http_requests_total counter\n"
        for (route, counters) in zip(Self.routes, table) {
            for status in Self.statuses {
                let value = counters.byStatus[Self.slot(status)].current
                guard value > 0 else { continue }
                out += "locsim_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(value)\n"
            }
        }
        out += "# HELP locsim_http_request_duration_seconds Time from a request's arrival to its answer.\n"
        out += "# TYPE locsim_http_request_duration_seconds histogram\n"
        for (route, counters) in zip(Self.routes, table) {
            let perBucket = counters.byBucket.map(\.current)
            let count = perBucket.reduce(0, +)
            guard count > 0 else { continue }
            var cumulative = 0
            for (i, bound) in Self.buckets.enumerated() {
                cumulative += perBucket[i]
                out += "locsim_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "locsim_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(count)\n"
            out += "locsim_http_request_duration_seconds_sum{route=\"\(route)\"} \(Double(counters.nanoseconds.current) / 1e9)\n"
            out += "locsim_http_request_duration_seconds_count{route=\"\(route)\"} \(count)\n"
        }
        out += "# HELP locsim_places_served_total Places sent in nearby answers.\n"
        out += "# TYPE locsim_places_served_total counter\n"
        out += "locsim_places_served_total \(placesServed)\n"
        out += "# HELP locsim_audit_violations_total Fetch-rule violations seen by the audit, by verdict.\n"
        out += "# TYPE locsim_audit_violations_total counter\n"
        for (verdict, counter) in zip(Self.verdicts, violations) {
            out += "locsim_audit_violations_total{verdict=\"\(verdict)\"} \(counter.current)\n"
        }
        out += "# HELP locsim_audit_clients Clients the fetch-rule audit keeps a record of.\n"
        out += "# TYPE locsim_audit_clients gauge\n"
        out += "locsim_audit_clients \(auditClients)\n"
        out += "# HELP locsim_audit_clients_evicted_total Idle clients the audit dropped to stay within its cap.\n"
        out += "# TYPE locsim_audit_clients_evicted_total counter\n"
        out += "locsim_audit_clients_evicted_total \(auditEvicted)\n"
        out += "# HELP locsim_http_connections Connections open now.\n"
        out += "# TYPE locsim_http_connections gauge\n"
        out += "locsim_http_connections \(connections)\n"
        out += "# HELP locsim_http_rejected_total Connections answered and closed before a route saw a request, by reason.\n"
        out += "# TYPE locsim_http_rejected_total counter\n"
        for (reason, counter) in zip(ConnectionRejection.Reason.allCases, rejections) {
            out += "locsim_http_rejected_total{reason=\"\(reason.rawValue)\"} \(counter.current)\n"
        }
        out += "# HELP locsim_http_abandoned_total Requests whose client left while a fault held or delayed them.\n"
        out += "# TYPE locsim_http_abandoned_total counter\n"
        out += "locsim_http_abandoned_total \(abandoned.current)\n"
        guard !backends.isEmpty else { return out }
        func labels(_ backend: BackendGauge) -> String {
            // A label value's escapes in the text format: backslash, double quote, line feed.
            func quoted(_ value: String) -> String {
                var out = ""
                for character in value {
                    switch character {
                    case "\\": out += "\\\\"
                    case "\"": out += "\\\""
                    case "\n": out += "\\n"
                    default: out.append(character)
                    }
                }
                return out
            }
            return "{role=\"\(quoted(backend.role))\",endpoint=\"\(quoted(backend.endpoint))\"}"
        }
        out += "# HELP locsim_backend_up Whether reads go to a place database (1) or it is marked down (0).\n"
        out += "# TYPE locsim_backend_up gauge\n"
        for backend in backends { out += "locsim_backend_up\(labels(backend)) \(backend.isUp ? 1 : 0)\n" }
        out += "# HELP locsim_backend_reads_total Reads a place database answered.\n"
        out += "# TYPE locsim_backend_reads_total counter\n"
        for backend in backends { out += "locsim_backend_reads_total\(labels(backend)) \(backend.reads)\n" }
        return out
    }
}
