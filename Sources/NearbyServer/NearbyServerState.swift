import LocationCore

/// The mutable part of a running server: the fault plan and the audit behind one lock (each
/// nearby request holds it twice for a few microseconds, never across a wait), and the metrics,
/// which are atomics and need none.
package final class NearbyServerState: Sendable {
    struct Inner: Sendable {
        var faults: FaultPlan
        var audit: FetchAudit
        var isShuttingDown = false
    }

    let inner: Locked<Inner>
    /// The counters behind `GET /metrics`.
    package let metrics = ServerMetrics()
    /// Open connections against the cap (`--max-connections`).
    package let connections: ConnectionLimit
    /// Bumped once when graceful shutdown begins: requests held by a timeout fault wait on it.
    let shutdown = ChangeSignal()

    init(faults: FaultPlan.Configuration, audit: FetchAudit.Configuration, maximumConnections: Int) {
        inner = Locked(Inner(faults: FaultPlan(configuration: faults), audit: FetchAudit(configuration: audit)))
        connections = ConnectionLimit(maximum: maximumConnections)
    }

    /// A copy of the audit as it stands.
    package var audit: FetchAudit { inner.withLock { $0.audit } }

    /// `GET /metrics`: the counters, with the audit's client table size.
    func metricsText(backends: [BackendGauge] = []) -> String {
        let (clients, evicted) = inner.withLock { ($0.audit.clients.count, $0.audit.evictedClients) }
        return metrics.render(auditClients: clients, auditEvicted: evicted, connections: connections.current, backends: backends)
    }

    /// Whether graceful shutdown has begun (held timeouts are then released).
    package var isShuttingDown: Bool { inner.withLock { $0.isShuttingDown } }

    func beginShutdown() {
        let first = inner.withLock { inner in
            defer { inner.isShuttingDown = true }
            return !inner.isShuttingDown
        }
        if first { shutdown.bump() }
    }

    /// `GET /audit`: the per-client summary as JSON.
    ///
    /// `{"violations":N,"evicted":{"clients":N,"requests":N,"violations":N},"clients":[{"client":…,"requests":N,"violations":N,"verdicts":{"first":N,…},
    /// "timeline":[{"seq":N,"time":"…","lat":…,"lng":…,"radius":…,"verdict":"…","reason":"…","status":N}]}]}`
    /// (`status` is null while a request is in flight, 0 for one never answered).
    /// Every count is the whole audit's; the timelines hold one page: the entries after `cursor`
    /// (a `seq`), at most `limit`, oldest first over all clients, and `"next"` is the cursor of
    /// the page after (null after the last kept entry).
    package func auditJSON(after cursor: Int = 0, limit: Int = FetchAudit.pageSizes.default) -> [UInt8] {
        let audit = audit
        return Self.json(of: audit, page: audit.page(after: cursor, limit: limit))
    }

    /// The audit summary JSON of `audit` (see ``auditJSON(after:limit:)``), with every kept
    /// entry when `page` is nil.
    package static func json(of audit: FetchAudit, page: FetchAudit.Page? = nil) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        write(audit, page: page, to: &json)
        return json.bytes
    }

    /// Writes the audit summary of ``json(of:page:)`` as the next value of `json`.
    static func write(_ audit: FetchAudit, page: FetchAudit.Page? = nil, to json: inout JSONWriter) {
        let records = audit.records
        let timelines = page?.timelines ?? records.map { $0.entries[...] }
        json.object { json in
            json.member("violations", audit.violationCount)
            json.key("evicted")
            json.object { json in
                json.member("clients", audit.evictedClients)
                json.member("requests", audit.evictedRequests)
                json.member("violations", audit.evictedViolations)
            }
            json.member("next", page?.next)
            json.key("clients")
            json.array(Array(zip(records, timelines))) { json, item in
                let (record, timeline) = item
                json.object { json in
                    json.member("client", record.client)
                    json.member("requests", record.requests)
                    json.member("violations", record.violations)
                    json.key("verdicts")
                    json.object { json in
                        for verdict in FetchAudit.Verdict.allCases {
                            json.key(verdict.rawValue)
                            json.integer(record.verdicts[verdict] ?? 0)
                        }
                    }
                    json.key("timeline")
                    json.array(timeline) { json, entry in
                        json.object { json in
                            json.member("seq", entry.sequence)
                            json.member("time", entry.time)
                            json.member("lat", shortest: entry.center.latitude)
                            json.member("lng", shortest: entry.center.longitude)
                            json.member("radius", shortest: entry.radius)
                            json.member("verdict", entry.verdict.rawValue)
                            json.member("reason", entry.reason)
                            json.member("status", entry.status)
                        }
                    }
                }
            }
        }
    }
}
