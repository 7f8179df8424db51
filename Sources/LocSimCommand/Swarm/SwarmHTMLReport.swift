import LocationCore
import MapPages
import Swarm

/// `locsim swarm --server … --report FILE.html`: the run's numbers and charts on one
/// self-contained page (MapPages' swarm.html draws it).
struct SwarmHTMLReport {
    let stats: LiveSwarmStats
    let server: String
    let speed: Double
    let configuration: VirtualSwarm.Configuration
    let playersByKind: [Int]
    var tracks = 0

    /// The page, with what swarm.html reads as `D`: the server, the printed summary, the request
    /// kinds; per second the requests of each kind and the latency (µs); the interval histogram;
    /// the status codes and the errors with their counts.
    func html() -> String {
        var json = JSONWriter(capacity: 4096)
        json.object { json in
            json.member("server", server)
            json.member(
                "summary",
                stats.text(server: server, speed: speed, configuration: configuration, playersByKind: playersByKind, tracks: tracks))
            json.member("kinds", LiveSwarmStats.kinds)
            json.key("seconds")
            json.array(stats.seconds) { json, second in
                json.object { json in
                    json.member("second", second.second)
                    json.member("requests", second.requests)
                    json.member("p50", Int(clamping: second.p50Micros))
                    json.member("p99", Int(clamping: second.p99Micros))
                }
            }
            json.key("intervals")
            json.array(stats.intervalHistogram) { json, bucket in
                json.object { json in
                    json.member("seconds", bucket.seconds)
                    json.member("count", bucket.count)
                }
            }
            json.key("status")
            json.array(stats.statusCodes.sorted { $0.key < $1.key }) { json, status in
                json.array([status.key, status.value]) { $0.integer($1) }
            }
            json.key("errors")
            json.array(stats.errors.sorted { $0.key < $1.key }) { json, error in
                json.array([error.key, "\(error.value)", stats.firstErrors[error.key] ?? ""]) { $0.string($1) }
            }
        }
        return MapPage.swarm.html(json: json.text)
    }
}
