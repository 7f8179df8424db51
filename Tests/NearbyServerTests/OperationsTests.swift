import Foundation
import LocationCore
import NIOCore
@testable import NearbyServer
import Testing

/// The access log's batching and the metrics table, without a server.
@Suite(.timeLimit(.minutes(1))) struct OperationsTests {
    /// Bytes a buffer wrote, with the number of writes.
    final class Sink: Sendable {
        private let state = Locked((bytes: [UInt8](), writes: 0))
        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            state.withLock {
                $0.bytes.append(contentsOf: bytes)
                $0.writes += 1
            }
        }
        var lines: [String] { state.withLock { String(decoding: $0.bytes, as: UTF8.self) }.split(separator: "\n").map(String.init) }
        var writes: Int { state.withLock { $0.writes } }
    }

    @Test("Lines logged from many tasks at once all arrive, whole, in each task's order, in fewer writes")
    func bufferLosesNoLine() async {
        let sink = Sink()
        let buffer = AccessLogBuffer(threshold: 4_096) { sink.write($0) }
        let log = AccessLog(format: .json, buffer: buffer)
        let tasks = 8
        let perTask = 2_000
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for i in 0..<perTask {
                        log.log(AccessLog.Record(
                            time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), method: "GET", target: "/t/\(task)/\(i)",
                            status: 200, duration: .microseconds(i), client: "player:\(task)"))
                    }
                }
            }
        }
        log.flush()
        let lines = sink.lines
        #expect(lines.count == tasks * perTask)
        #expect(sink.writes < lines.count / 10)
        for task in 0..<tasks {
            let targets = lines.filter { $0.contains("\"client\":\"player:\(task)\"") }.map { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["target"] as? String
            }
            #expect(targets == (0..<perTask).map { "/t/\(task)/\($0)" })
        }
    }

    @Test("A buffered line is the same line the per-line log gives")
    func bufferedLinesMatch() {
        let sink = Sink()
        let buffered = AccessLog(format: .text, buffer: AccessLogBuffer { sink.write($0) })
        let record = AccessLog.Record(
            time: Date(timeIntervalSince1970: 1_700_000_000.25), method: "GET", target: "/locations/nearby?lat=1&lng=2",
            status: 200, duration: .microseconds(1_234_567), client: "player:p", places: 3, verdict: "too_soon",
            reason: "TOO SOON: 12 m and 8.1 s since the last fetch")
        buffered.log(record)
        buffered.flush()
        #expect(sink.lines == [buffered.line(record)])
        #expect(buffered.line(record).hasSuffix(" 200 1234.567 ms 3 places too_soon (TOO SOON: 12 m and 8.1 s since the last fetch)"))
        #expect(buffered.line(record).hasPrefix(UTCTimestamp.format(record.time) + " player:p GET "))
    }

    @Test("Metrics: counts by route and status, a cumulative histogram, unknown statuses kept apart")
    func metricsTable() {
        let metrics = ServerMetrics()
        let seconds = [0.0001, 0.0007, 0.003, 0.003, 20]
        for value in seconds { metrics.record(route: "/locations/nearby", status: 200, seconds: value, places: 2) }
        metrics.record(route: "/nope", status: 404, seconds: 0.001, places: 0)
        metrics.recordViolation("too_soon")
        #expect(metrics.requestCount(route: "/locations/nearby", status: 200) == seconds.count)
        #expect(metrics.requestCount(route: "other", status: 404) == 1)
        #expect(metrics.placesServed == 2 * seconds.count)
        let text = metrics.render(auditClients: 3, auditEvicted: 1)
        for bound in ServerMetrics.buckets {
            let expected = seconds.filter { $0 <= bound }.count
            #expect(text.contains("locsim_http_request_duration_seconds_bucket{route=\"/locations/nearby\",le=\"\(bound)\"} \(expected)\n"))
        }
        #expect(text.contains("locsim_http_request_duration_seconds_count{route=\"/locations/nearby\"} \(seconds.count)\n"))
        #expect(text.contains("locsim_http_requests_total{route=\"other\",status=\"404\"} 1\n"))
        #expect(text.contains("locsim_audit_violations_total{verdict=\"too_soon\"} 1\n"))
        #expect(text.contains("locsim_audit_clients 3\n"))
        #expect(text.contains("locsim_audit_clients_evicted_total 1\n"))
        #expect(!text.contains("route=\"/healthz\""))
        // Databases behind the backend: up or down, and reads, by role and address (none for SQLite).
        #expect(!text.contains("locsim_backend"))
        let backends = metrics.render(backends: [
            BackendGauge(role: "replica 1", endpoint: "10.0.0.7:5432", isUp: false, reads: 12),
            BackendGauge(role: "primary", endpoint: "[::1]:5432", isUp: true, reads: 30),
        ])
        #expect(backends.contains("# TYPE locsim_backend_up gauge\nlocsim_backend_up{role=\"replica 1\",endpoint=\"10.0.0.7:5432\"} 0\n"))
        #expect(backends.contains("locsim_backend_up{role=\"primary\",endpoint=\"[::1]:5432\"} 1\n"))
        #expect(backends.contains("locsim_backend_reads_total{role=\"primary\",endpoint=\"[::1]:5432\"} 30\n"))
    }
}
