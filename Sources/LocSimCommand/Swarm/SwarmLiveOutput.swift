import LocationCore
import MapFeature
import Swarm

// A real-time swarm's output: jsonl records, the text summary and the HTML report, all from
// one `LiveSwarmStats`.

/// `swarm_second`
extension LiveSwarmStats.Second: JSONLRecord {
    func write(to json: inout JSONWriter) {
        json.member("type", "swarm_second")
        json.member("second", second)
        json.member("active", activePlayers)
        json.member("requests", total)
        for (kind, count) in zip(LiveSwarmStats.kinds, requests) { json.key(kind); json.integer(count) }
        json.member("answered", answered)
        json.member("failed", failed)
        json.member("p50_ms", Double(p50Micros) / 1_000, decimals: 3)
        json.member("p99_ms", Double(p99Micros) / 1_000, decimals: 3)
    }
}

struct SwarmSummaryRecord: JSONLRecord {
    var stats: LiveSwarmStats
    var server: String
    var speed: Double

    func write(to json: inout JSONWriter) {
        json.member("type", "swarm_summary")
        json.member("server", server)
        json.member("players", stats.players)
        json.member("misbehaving", stats.misbehavingPlayers.map(LiveSwarm.playerID))
        json.member("scenario_players", stats.scenarioPlayers)
        json.member("withheld", stats.withheldFixes)
        json.member("speed", speed)
        json.member("game_s", Double(stats.gameMicros) / 1_000_000, decimals: 3)
        json.member("wall_s", Double(stats.wallMicros) / 1_000_000, decimals: 3)
        json.member("interrupted", stats.interrupted ? 1 : 0)
        json.member("fixes", stats.fixes)
        json.member("requests", stats.totalRequests)
        json.member("requests_per_s", stats.requestsPerSecond, decimals: 2)
        json.member("peak_1s", stats.peakSecond?.total ?? 0)
        json.key("by_kind")
        json.object { json in
            for (kind, count) in zip(LiveSwarmStats.kinds, stats.requests) { json.key(kind); json.integer(count) }
        }
        json.member("answered", stats.answered)
        json.member("failed", stats.failed)
        json.member("unanswered", stats.unanswered)
        json.key("status_codes")
        json.array(stats.statusCodes.sorted { $0.key < $1.key }) { json, code in
            json.object { json in
                json.member("status", code.key)
                json.member("count", code.value)
            }
        }
        json.key("errors")
        json.array(stats.errors.sorted { $0.key < $1.key }) { json, error in
            json.object { json in
                json.member("kind", error.key)
                json.member("count", error.value)
                json.member("first", stats.firstErrors[error.key] ?? "")
            }
        }
        let latency = stats.latency
        json.key("latency_ms")
        json.object { json in
            json.member("count", Int(latency.count))
            json.member("mean", latency.mean / 1_000, decimals: 3)
            json.member("p50", Double(latency.percentile(0.5)) / 1_000, decimals: 3)
            json.member("p90", Double(latency.percentile(0.9)) / 1_000, decimals: 3)
            json.member("p99", Double(latency.percentile(0.99)) / 1_000, decimals: 3)
            json.member("p999", Double(latency.percentile(0.999)) / 1_000, decimals: 3)
            json.member("max", Double(latency.maximum) / 1_000, decimals: 3)
        }
        let places = stats.places
        json.key("places_per_answer")
        if places.count > 0 {
            json.object { json in
                json.member("answers", Int(places.count))
                json.member("mean", places.mean, decimals: 2)
                json.member("p50", Int(places.percentile(0.5)))
                json.member("p99", Int(places.percentile(0.99)))
                json.member("max", Int(places.maximum))
            }
        } else {
            json.null()
        }
        let intervals = stats.intervals
        json.key("interval_s")
        if intervals.count > 0 {
            json.object { json in
                json.member("count", Int(intervals.count))
                json.member("min", Double(intervals.minimum) / 1_000, decimals: 3)
                json.member("p10", Double(intervals.percentile(0.1)) / 1_000, decimals: 3)
                json.member("p50", Double(intervals.percentile(0.5)) / 1_000, decimals: 3)
                json.member("p90", Double(intervals.percentile(0.9)) / 1_000, decimals: 3)
                json.member("max", Double(intervals.maximum) / 1_000, decimals: 3)
            }
        } else {
            json.null()
        }
        json.member("late_p99_s", Double(stats.lateness.percentile(0.99)) / 1_000, decimals: 3)
        json.member("late_max_s", Double(stats.lateness.maximum) / 1_000, decimals: 3)
        json.key("interval_histogram")
        json.array(stats.intervalHistogram) { json, bucket in
            json.object { json in
                json.member("upto_s", bucket.seconds)
                json.member("count", bucket.count)
            }
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

    /// Game time a request went out after its fix was due, when half a second or more: at a high
    /// `--speed` (a millisecond of the loop is `speed` ms of game time) or on a busy machine every
    /// game-time figure is blurred by as much, and the summary says so rather than look exact.
    func lateLine(speed: Double) -> String? {
        guard lateness.count > 0, lateness.maximum >= 500 else { return nil }
        func seconds(_ ms: UInt64) -> String { DecimalText.fixed(Double(ms) / 1_000, decimals: 1) + " s" }
        return "  late:     requests went out up to \(seconds(lateness.maximum)) of game time after their fix was due "
            + "(p99 \(seconds(lateness.percentile(0.99)))): this run did not keep up with --speed \(speed), and its game-time "
            + "intervals are blurred by as much (give a lower --speed, or fewer --players)"
    }

    static func milliseconds(_ micros: UInt64) -> String {
        DecimalText.fixed(Double(micros) / 1_000, decimals: 1) + " ms"
    }

    /// The summary for people.
    func text(
        server: String, speed: Double, configuration: VirtualSwarm.Configuration, playersByKind: [Int], tracks: Int = 0, scenario: String? = nil
    ) -> String {
        var lines: [String] = []
        let game = SwarmLoad.clock(Int(gameMicros / 1_000_000))
        lines.append(
            "swarm: \(PeopleText.count(players, "player")) against \(server), \(game) of game time at speed \(speed) "
                + "(\(DecimalText.fixed(Double(wallMicros) / 1_000_000, decimals: 1)) s), seed \(configuration.seed)"
                + (interrupted ? " (interrupted)" : ""))
        let mix =
            tracks > 0
            ? "following \(tracks) GPX track\(tracks == 1 ? "" : "s")"
            : zip(configuration.mix.shares, playersByKind).map { "\($0.mover.name) \($1)" }.joined(separator: ", ")
        lines.append(
            "  players:  \(mix); \(configuration.rampText)"
                + (misbehavingPlayers.isEmpty ? "" : "; \(misbehavingPlayers.count) ignore the rule"))
        if let scenario {
            lines.append("  scenario: \(scenarioPlayers) players on the phone of \(scenario); \(withheldFixes) fixes withheld from their apps")
        }
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
        if let late = lateLine(speed: speed) { lines.append(late) }
        if !misbehavingPlayers.isEmpty {
            let shown = misbehavingPlayers.prefix(20).map(LiveSwarm.playerID).joined(separator: ", ")
            lines.append("  ignoring the rule: \(shown)\(misbehavingPlayers.count > 20 ? ", …" : "")")
        }
        return lines.joined(separator: "\n")
    }
}
