import LocationCore
import MapFeature

extension SwarmLoad {
    /// The load as a few lines of text: requests per second by reason (mean, busiest second,
    /// busiest minute). Only integers and fixed decimals, so the same load prints the same bytes.
    package func text(configuration: VirtualSwarm.Configuration) -> String {
        let rule = configuration.throttle
        var lines: [String] = []
        let span =
            isComplete(configuration)
            ? "\(Self.clock(durationSeconds)) of game time"
            : "stopped after \(Self.clock(durationSeconds)) of the \(Self.clock(configuration.durationSeconds)) of game time asked"
        lines.append("virtual swarm: \(PeopleText.count(configuration.players, "player")), \(span), seed \(configuration.seed)")
        let mix = zip(configuration.mix.shares, playersByKind).map { "\($0.mover.name) \($1)" }.joined(separator: ", ")
        lines.append("  players:  \(mix); \(configuration.rampText)")
        let starts = configuration.starts.isEmpty ? "" : " (starting at \(configuration.starts.count) places)"
        lines.append(
            "  area:     \(configuration.area.center) radius \(Self.fixed(configuration.area.radius, 0)) m\(starts)")
        lines.append(
            "  rule:     first fix, then > \(Self.fixed(rule.minimumDistance, 0)) m or > \(Self.fixed(rule.minimumInterval.fractionalSeconds, 0)) s; "
                + "failure rate \(configuration.failureRate) (\(failures) failed)")
        lines.append("  fixes:    \(fixes) at 1 Hz; the rule evaluated at \(evaluations)")
        lines.append("requests the backend would see, per second:")
        lines.append("  reason       total      mean   peak 1 s  peak 1 min")
        for reason in FetchThrottle.Reason.allCases + [nil] {
            let rates = rates(reason)
            lines.append(
                "  " + Self.pad(reason?.rawValue ?? "all", 8, left: true) + Self.pad("\(rates.total)", 11)
                    + Self.pad(Self.fixed(rates.mean, 2), 10) + Self.pad("\(rates.peakSecond)", 11)
                    + Self.pad(Self.fixed(rates.peakMinuteRate, 2), 12))
        }
        if let answers = answerSummary {
            lines.append(
                "places per answer (\(answers.count) answers, every fetch of the first \(answers.players) players): "
                    + "mean \(Self.fixed(answers.mean, 1)), median \(answers.median), p99 \(answers.p99), max \(answers.maximum)")
        }
        let all = rates(nil)
        lines.append(
            "busiest second at \(Self.clock(all.peakSecondAt)); busiest minute from \(Self.clock(all.peakMinuteAt)) (\(PeopleText.count(all.peakMinute, "request")))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The load as one JSON object (keys in a fixed order; rates as shortest decimals).
    package func json(configuration: VirtualSwarm.Configuration) -> String {
        func rateObject(_ rates: Rates, _ json: inout JSONWriter) {
            json.object { json in
                json.member("total", rates.total)
                json.member("mean_per_s", shortest: rates.mean)
                json.member("peak_1s", rates.peakSecond)
                json.member("peak_1s_at", rates.peakSecondAt)
                json.member("peak_1min_per_s", shortest: rates.peakMinuteRate)
                json.member("peak_1min_at", rates.peakMinuteAt)
            }
        }
        return JSONWriter.objectText(capacity: 1024) { json in
            json.member("players", configuration.players)
            json.member("duration_s", durationSeconds)
            if !isComplete(configuration) { json.member("asked_duration_s", configuration.durationSeconds) }
            json.key("seed")
            json.json(String(configuration.seed))  // a UInt64: beyond Int's range
            json.member("ramp_s", configuration.rampSeconds)
            json.key("mix")
            json.array(zip(configuration.mix.shares, playersByKind)) { json, kind in
                json.object { json in
                    json.member("kind", kind.0.mover.name)
                    json.member("share", shortest: kind.0.share)
                    json.member("players", kind.1)
                }
            }
            json.key("area")
            json.object { json in
                json.member("lat", shortest: configuration.area.center.latitude)
                json.member("lng", shortest: configuration.area.center.longitude)
                json.member("radius_m", shortest: configuration.area.radius)
            }
            json.member("starts", configuration.starts.count)
            json.member("failure_rate", shortest: configuration.failureRate)
            json.member("failures", failures)
            json.member("fixes", fixes)
            json.member("evaluations", evaluations)
            json.key("reasons")
            json.object { json in
                for reason in FetchThrottle.Reason.allCases {
                    json.key(reason.rawValue)
                    rateObject(rates(reason), &json)
                }
            }
            json.key("all")
            rateObject(rates(nil), &json)
            if let answers = answerSummary {
                json.key("places_per_answer")
                json.object { json in
                    json.member("answers", answers.count)
                    json.member("players", answers.players)
                    json.member("mean", shortest: answers.mean)
                    json.member("median", answers.median)
                    json.member("p99", answers.p99)
                    json.member("max", answers.maximum)
                }
            }
        } + "\n"
    }

    /// Whether the load covers the whole run `configuration` asks for (not stopped early).
    package func isComplete(_ configuration: VirtualSwarm.Configuration) -> Bool {
        durationSeconds == configuration.durationSeconds
    }

    /// Places per sampled answer: count, mean, median, 99th percentile (nearest rank), maximum.
    var answerSummary: (count: Int, players: Int, mean: Double, median: Int, p99: Int, maximum: Int)? {
        guard !answerSizes.isEmpty else { return nil }
        let sizes = answerSizes.keys.sorted()
        let count = answerSizes.values.reduce(0, +)
        let sum = answerSizes.reduce(0) { $0 + $1.key * $1.value }
        func rank(_ fraction: Double) -> Int {
            let target = max(1, Int((fraction * Double(count)).rounded(.up)))
            var seen = 0
            for size in sizes {
                seen += answerSizes[size] ?? 0
                if seen >= target { return size }
            }
            return sizes[sizes.count - 1]
        }
        return (count, sampledPlayers, Double(sum) / Double(count), rank(0.5), rank(0.99), sizes[sizes.count - 1])
    }

    /// `h:mm:ss` (for other reports of swarm runs too).
    package static func clock(_ seconds: Int) -> String { DurationText.clockText(Double(seconds), alwaysHours: true) }

    /// `value` rounded to `decimals` places, written without locale or exponent.
    static func fixed(_ value: Double, _ decimals: Int) -> String { DecimalText.fixed(value, decimals: decimals) }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }
}
