/// The server's counters, rendered in the Prometheus text exposition format (version 0.0.4)
/// for `GET /metrics`.
///
/// Hand-written rather than through swift-metrics and swift-prometheus: four metric families do
/// not justify another package in the build (see docs/serve.md). Names:
///
/// - `locsim_http_requests_total{route,status}`: requests answered.
/// - `locsim_http_request_duration_seconds{route}`: a histogram of time to answer.
/// - `locsim_places_served_total`: places sent in nearby answers.
/// - `locsim_audit_violations_total{verdict}`: fetch-rule violations seen.
public struct ServerMetrics: Sendable {
    /// Histogram bucket bounds, seconds.
    public static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Histogram: Sendable {
        var counts = [Int](repeating: 0, count: ServerMetrics.buckets.count)
        var count = 0
        var sum = 0.0
    }

    private struct RouteStatus: Hashable, Sendable, Comparable {
        var route: String
        var status: Int
        static func < (a: Self, b: Self) -> Bool { (a.route, a.status) < (b.route, b.status) }
    }

    private var requests: [RouteStatus: Int] = [:]
    private var durations: [String: Histogram] = [:]
    /// Places sent in nearby answers.
    public private(set) var placesServed = 0
    private var violations: [String: Int] = [:]

    /// Empty counters.
    public init() {}

    /// Counts one answered request.
    ///
    /// - Parameters:
    ///   - route: The route's name (`/locations/nearby`, or `other` for unknown paths, so a
    ///     scanner cannot grow the label set).
    ///   - status: The HTTP status.
    ///   - seconds: Time from arrival to answer.
    ///   - places: Places in the body.
    public mutating func record(route: String, status: Int, seconds: Double, places: Int) {
        requests[RouteStatus(route: route, status: status), default: 0] += 1
        var histogram = durations[route] ?? Histogram()
        for (i, bound) in Self.buckets.enumerated() where seconds <= bound { histogram.counts[i] += 1 }
        histogram.count += 1
        histogram.sum += seconds
        durations[route] = histogram
        placesServed += places
    }

    /// Counts one audit violation.
    public mutating func recordViolation(_ verdict: String) {
        violations[verdict, default: 0] += 1
    }

    /// Requests answered for a route and status (for tests and the summary).
    public func requestCount(route: String, status: Int) -> Int { requests[RouteStatus(route: route, status: status)] ?? 0 }

    /// The exposition text.
    public func render() -> String {
        var out = "# HELP locsim_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE locsim_http_requests_total counter\n"
        for (key, value) in requests.sorted(by: { $0.key < $1.key }) {
            out += "locsim_http_requests_total{route=\(Self.label(key.route)),status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP locsim_http_request_duration_seconds Time from a request's arrival to its answer.\n"
        out += "# TYPE locsim_http_request_duration_seconds histogram\n"
        for (route, histogram) in durations.sorted(by: { $0.key < $1.key }) {
            let label = Self.label(route)
            for (i, bound) in Self.buckets.enumerated() {
                out += "locsim_http_request_duration_seconds_bucket{route=\(label),le=\"\(bound)\"} \(histogram.counts[i])\n"
            }
            out += "locsim_http_request_duration_seconds_bucket{route=\(label),le=\"+Inf\"} \(histogram.count)\n"
            out += "locsim_http_request_duration_seconds_sum{route=\(label)} \(histogram.sum)\n"
            out += "locsim_http_request_duration_seconds_count{route=\(label)} \(histogram.count)\n"
        }
        out += "# HELP locsim_places_served_total Places sent in nearby answers.\n"
        out += "# TYPE locsim_places_served_total counter\n"
        out += "locsim_places_served_total \(placesServed)\n"
        out += "# HELP locsim_audit_violations_total Fetch-rule violations seen by the audit, by verdict.\n"
        out += "# TYPE locsim_audit_violations_total counter\n"
        for verdict in ["too_soon", "overlap", "retry_storm"] {
            out += "locsim_audit_violations_total{verdict=\"\(verdict)\"} \(violations[verdict] ?? 0)\n"
        }
        return out
    }

    /// A label value, quoted and escaped as the format requires.
    private static func label(_ value: String) -> String {
        var out = "\""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
