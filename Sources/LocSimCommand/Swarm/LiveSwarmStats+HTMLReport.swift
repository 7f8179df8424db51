import LocationCore
import MapPages
import Swarm

extension LiveSwarmStats {
    /// `locsim swarm --server … --report FILE.html`: the run's numbers and charts on one
    /// self-contained page (MapPages' swarm.html draws it), with what swarm.html reads as `D`: the
    /// server, the printed `summary`, the request kinds; per second the requests of each kind and
    /// the latency (µs); the interval histogram; the status codes and the errors with their counts.
    func htmlReport(server: String, summary: String) -> String {
        var json = JSONWriter(capacity: 4096)
        json.object { json in
            json.member("server", server)
            json.member("summary", summary)
            json.member("kinds", LiveSwarmStats.kinds)
            json.key("seconds")
            json.array(seconds) { json, second in
                json.object { json in
                    json.member("second", second.second)
                    json.member("requests", second.requests)
                    json.member("p50", Int(clamping: second.p50Micros))
                    json.member("p99", Int(clamping: second.p99Micros))
                }
            }
            json.key("intervals")
            json.array(intervalHistogram) { json, bucket in
                json.object { json in
                    json.member("seconds", bucket.seconds)
                    json.member("count", bucket.count)
                }
            }
            json.key("status")
            json.array(statusCodes.sorted { $0.key < $1.key }) { json, status in
                json.array([status.key, status.value]) { $0.integer($1) }
            }
            json.key("errors")
            json.array(errors.sorted { $0.key < $1.key }) { json, error in
                json.array([error.key, "\(error.value)", firstErrors[error.key] ?? ""]) { $0.string($1) }
            }
        }
        return MapPage.swarm.html(json: json.text)
    }
}
