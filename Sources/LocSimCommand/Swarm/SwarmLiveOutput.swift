import LocationCore
import MapFeature
import Swarm

/// A real-time swarm's output: jsonl records, the text summary and the HTML report, all from
/// one ``LiveSwarmStats``.
struct SwarmSecondRecord: JSONLRecord {
    static let schema = JSONLSchema.swarmSecond
    var second: LiveSwarmStats.Second

    func write(to writer: inout JSONLWriter) {
        writer.integer(second.second)
        writer.integer(second.activePlayers)
        writer.integer(second.total)
        for count in second.requests { writer.integer(count) }
        writer.integer(second.answered)
        writer.integer(second.failed)
        writer.number(Double(second.p50Micros) / 1_000)
        writer.number(Double(second.p99Micros) / 1_000)
    }
}

struct SwarmSummaryRecord: JSONLRecord {
    static let schema = JSONLSchema.swarmSummary
    var stats: LiveSwarmStats
    var server: String
    var speed: Double

    func write(to writer: inout JSONLWriter) {
        writer.string(server)
        writer.integer(stats.players)
        writer.strings(stats.misbehavingPlayers.map(LiveSwarm.playerID))
        writer.number(speed)
        writer.number(Double(stats.gameMicros) / 1_000_000)
        writer.number(Double(stats.wallMicros) / 1_000_000)
        writer.integer(stats.interrupted ? 1 : 0)
        writer.integer(stats.fixes)
        writer.integer(stats.totalRequests)
        writer.number(stats.requestsPerSecond)
        writer.integer(stats.peakSecond?.total ?? 0)
        writer.object { kinds in for count in stats.requests { kinds.integer(count) } }
        writer.integer(stats.answered)
        writer.integer(stats.failed)
        writer.integer(stats.unanswered)
        writer.objects(stats.statusCodes.sorted { $0.key < $1.key }) { entry, code in
            entry.integer(code.key)
            entry.integer(code.value)
        }
        writer.objects(stats.errors.sorted { $0.key < $1.key }) { entry, error in
            entry.string(error.key)
            entry.integer(error.value)
            entry.string(stats.firstErrors[error.key] ?? "")
        }
        let latency = stats.latency
        writer.object { out in
            out.integer(Int(latency.count))
            out.number(latency.mean / 1_000)
            for fraction in [0.5, 0.9, 0.99, 0.999] { out.number(Double(latency.percentile(fraction)) / 1_000) }
            out.number(Double(latency.maximum) / 1_000)
        }
        let places = stats.places
        writer.object(if: places.count > 0) { out in
            out.integer(Int(places.count))
            out.number(places.mean)
            out.integer(Int(places.percentile(0.5)))
            out.integer(Int(places.percentile(0.99)))
            out.integer(Int(places.maximum))
        }
        let intervals = stats.intervals
        writer.object(if: intervals.count > 0) { out in
            out.integer(Int(intervals.count))
            out.number(Double(intervals.minimum) / 1_000)
            for fraction in [0.1, 0.5, 0.9] { out.number(Double(intervals.percentile(fraction)) / 1_000) }
            out.number(Double(intervals.maximum) / 1_000)
        }
        writer.objects(stats.intervalHistogram) { entry, bucket in
            entry.integer(bucket.seconds)
            entry.integer(bucket.count)
        }
    }
}

extension LiveSwarmStats {
    /// Requests per wall-clock second over the run.
    var requestsPerSecond: Double {
        wallMicros > 0 ? Double(totalRequests) / (Double(wallMicros) / 1_000_000) : 0
    }

    /// The busiest second (the first of equals).
    var peakSecond: Second? {
        seconds.reduce(nil) { best, second in (best?.total ?? -1) >= second.total ? best : second }
    }

    /// Intervals in whole-second buckets: (bound, count) for each non-empty bucket, ascending.
    var intervalHistogram: [(seconds: Int, count: Int)] {
        var counts: [Int: Int] = [:]
        for bucket in intervals.buckets {
            // A bucket's values are within 0.8 % of its top; whole seconds, rounded up.
            let seconds = Int((bucket.value + 999) / 1_000)
            counts[seconds, default: 0] += Int(bucket.count)
        }
        return counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    static func milliseconds(_ micros: UInt64) -> String {
        DecimalText.fixed(Double(micros) / 1_000, decimals: 1) + " ms"
    }

    /// The summary for people.
    func text(server: String, speed: Double, configuration: VirtualSwarm.Configuration, playersByKind: [Int], tracks: Int = 0) -> String {
        var lines: [String] = []
        let game = SwarmLoad.clock(Int(gameMicros / 1_000_000))
        lines.append(
            "swarm: \(players) players against \(server), \(game) of game time at speed \(speed) "
                + "(\(DecimalText.fixed(Double(wallMicros) / 1_000_000, decimals: 1)) s), seed \(configuration.seed)"
                + (interrupted ? " (interrupted)" : ""))
        let mix =
            tracks > 0
            ? "following \(tracks) GPX track\(tracks == 1 ? "" : "s")"
            : zip(configuration.mix.shares, playersByKind).map { "\($0.mover.name) \($1)" }.joined(separator: ", ")
        lines.append(
            "  players:  \(mix); opening the app over the first \(configuration.rampSeconds) s"
                + (misbehavingPlayers.isEmpty ? "" : "; \(misbehavingPlayers.count) ignore the rule"))
        let kinds = zip(Self.kinds, requests).map { "\($0) \($1)" }.joined(separator: ", ")
        lines.append(
            "  requests: \(totalRequests), \(DecimalText.fixed(requestsPerSecond, decimals: 1))/s (peak \(peakSecond?.total ?? 0) in one second); \(kinds)")
        let codes = statusCodes.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
        lines.append("  answers:  \(answered) with 200, \(failed) failed, \(unanswered) unanswered" + (codes.isEmpty ? "" : "; status \(codes)"))
        for (kind, count) in errors.sorted(by: { $0.key < $1.key }) {
            lines.append("  errors:   \(kind) \(count) (first: \(firstErrors[kind] ?? ""))")
        }
        if latency.count > 0 {
            lines.append(
                "  latency:  p50 \(Self.milliseconds(latency.percentile(0.5))), p90 \(Self.milliseconds(latency.percentile(0.9))), "
                    + "p99 \(Self.milliseconds(latency.percentile(0.99))), p99.9 \(Self.milliseconds(latency.percentile(0.999))), "
                    + "max \(Self.milliseconds(latency.maximum))")
        }
        if places.count > 0 {
            lines.append(
                "  places per answer: mean \(DecimalText.fixed(places.mean, decimals: 1)), median \(places.percentile(0.5)), "
                    + "p99 \(places.percentile(0.99)), max \(places.maximum)")
        }
        if intervals.count > 0 {
            func seconds(_ ms: UInt64) -> String { DecimalText.fixed(Double(ms) / 1_000, decimals: 1) + " s" }
            lines.append(
                "  interval between a player's requests (game time): min \(seconds(intervals.minimum)), "
                    + "p10 \(seconds(intervals.percentile(0.1))), median \(seconds(intervals.percentile(0.5))), "
                    + "p90 \(seconds(intervals.percentile(0.9))), max \(seconds(intervals.maximum))")
        }
        if !misbehavingPlayers.isEmpty {
            let shown = misbehavingPlayers.prefix(20).map(LiveSwarm.playerID).joined(separator: ", ")
            lines.append("  ignoring the rule: \(shown)\(misbehavingPlayers.count > 20 ? ", …" : "")")
        }
        return lines.joined(separator: "\n")
    }
}
