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

    init(faults: FaultPlan.Configuration, audit: FetchAudit.Configuration) {
        inner = Locked(Inner(faults: FaultPlan(configuration: faults), audit: FetchAudit(configuration: audit)))
    }

    /// A copy of the audit as it stands.
    package var audit: FetchAudit { inner.withLock { $0.audit } }

    /// `GET /metrics`: the counters, with the audit's client table size.
    func metricsText() -> String {
        let (clients, evicted) = inner.withLock { ($0.audit.clients.count, $0.audit.evictedClients) }
        return metrics.render(auditClients: clients, auditEvicted: evicted)
    }

    /// Whether graceful shutdown has begun (held timeouts are then released).
    package var isShuttingDown: Bool { inner.withLock { $0.isShuttingDown } }

    func beginShutdown() { inner.withLock { $0.isShuttingDown = true } }

    /// `GET /audit`: the per-client summary as JSON.
    ///
    /// `{"violations":N,"evicted":{"clients":N,"requests":N,"violations":N},"clients":[{"client":…,"requests":N,"violations":N,"verdicts":{"first":N,…},
    /// "timeline":[{"seq":N,"time":"…","lat":…,"lng":…,"radius":…,"verdict":"…","reason":"…","status":N}]}]}`
    /// (`status` is null while a request is in flight, 0 for one never answered).
    package func auditJSON() -> [UInt8] {
        Self.json(of: audit)
    }

    /// The audit summary JSON of `audit` (see ``auditJSON()``).
    package static func json(of audit: FetchAudit) -> [UInt8] {
        var out = NearbyJSONWriter(capacity: 4096)
        out.append("{\"violations\":")
        out.appendInteger(audit.violationCount)
        out.append(",\"evicted\":{\"clients\":")
        out.appendInteger(audit.evictedClients)
        out.append(",\"requests\":")
        out.appendInteger(audit.evictedRequests)
        out.append(",\"violations\":")
        out.appendInteger(audit.evictedViolations)
        out.append("},\"clients\":[")
        for (i, record) in audit.records.enumerated() {
            if i > 0 { out.append(",") }
            out.append("{\"client\":")
            out.appendQuoted(record.client)
            out.append(",\"requests\":")
            out.appendInteger(record.requests)
            out.append(",\"violations\":")
            out.appendInteger(record.violations)
            out.append(",\"verdicts\":{")
            for (j, verdict) in FetchAudit.Verdict.allCases.enumerated() {
                if j > 0 { out.append(",") }
                out.appendQuoted(verdict.rawValue)
                out.append(":")
                out.appendInteger(record.verdicts[verdict] ?? 0)
            }
            out.append("},\"timeline\":[")
            for (j, entry) in record.entries.enumerated() {
                if j > 0 { out.append(",") }
                out.append("{\"seq\":")
                out.appendInteger(entry.sequence)
                out.append(",\"time\":")
                out.appendQuoted(UTCTimestamp.format(entry.time))
                out.append(",\"lat\":")
                out.appendNumber(entry.center.latitude)
                out.append(",\"lng\":")
                out.appendNumber(entry.center.longitude)
                out.append(",\"radius\":")
                out.appendNumber(entry.radius)
                out.append(",\"verdict\":")
                out.appendQuoted(entry.verdict.rawValue)
                out.append(",\"reason\":")
                out.appendQuoted(entry.reason)
                out.append(",\"status\":")
                if let status = entry.status { out.appendInteger(status) } else { out.append("null") }
                out.append("}")
            }
            out.append("]}")
        }
        out.append("]}")
        return out.bytes
    }
}
