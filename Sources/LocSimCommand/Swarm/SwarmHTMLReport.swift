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

    /// What swarm.html reads as `D`: per second the requests of each kind and the latency (µs).
    struct Data: Encodable {
        struct Second: Encodable { var second: Int, requests: [Int], p50: UInt64, p99: UInt64 }
        struct Bucket: Encodable { var seconds: Int, count: Int }
        var server, summary: String
        var kinds: [String]
        var seconds: [Second]
        var intervals: [Bucket]
        var status: [[Int]]
        var errors: [[String]]
    }

    func html() throws(MapPage.DataError) -> String {
        try MapPage.swarm.html(data: Data(
            server: server,
            summary: stats.text(server: server, speed: speed, configuration: configuration, playersByKind: playersByKind, tracks: tracks),
            kinds: LiveSwarmStats.kinds,
            seconds: stats.seconds.map { Data.Second(second: $0.second, requests: $0.requests, p50: $0.p50Micros, p99: $0.p99Micros) },
            intervals: stats.intervalHistogram.map { Data.Bucket(seconds: $0.seconds, count: $0.count) },
            status: stats.statusCodes.sorted { $0.key < $1.key }.map { [$0.key, $0.value] },
            errors: stats.errors.sorted { $0.key < $1.key }.map { [$0.key, "\($0.value)", stats.firstErrors[$0.key] ?? ""] }))
    }
}
