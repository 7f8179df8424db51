package import MapFeature

/// The requests a swarm made (or would make), second by second and by reason.
package struct SwarmLoad: Sendable, Hashable {
    /// The run's length in whole seconds (the seconds done, when it was stopped early).
    package private(set) var durationSeconds: Int
    /// Requests started in each second, by reason (``/MapFeature/FetchThrottle/Reason`` order: first, moved, elapsed, retry).
    package private(set) var perSecond: [[UInt32]]
    /// Fixes the players produced (1 Hz from each player's start to the end).
    package var fixes = 0
    /// Fixes at which the rule was evaluated.
    package var evaluations = 0
    /// Fetches that failed (``VirtualSwarm/Configuration/failureRate``).
    package var failures = 0
    /// How many answers had each number of places (only the sampled fetches, see
    /// ``VirtualSwarm/AnswerSample``).
    package private(set) var answerSizes: [Int: Int] = [:]
    /// How many players had their answers sampled.
    package var sampledPlayers = 0
    /// Players of each mover, in the mix's order.
    package var playersByKind: [Int]

    /// An empty load over `durationSeconds`, for a mix of `movers` kinds.
    package init(durationSeconds: Int, movers: Int = 1) {
        self.durationSeconds = durationSeconds
        playersByKind = [Int](repeating: 0, count: movers)
        perSecond = Array(repeating: [UInt32](repeating: 0, count: durationSeconds), count: FetchThrottle.Reason.allCases.count)
    }

    /// Counts one request for `reason` in `second`.
    @inline(__always)
    package mutating func record(_ reason: FetchThrottle.Reason, at second: Int) {
        perSecond[reason.index][second] &+= 1
    }

    /// Counts one answer of `places` places.
    package mutating func recordAnswer(places: Int) {
        answerSizes[places, default: 0] += 1
    }

    /// The load of the first `seconds` seconds: the requests started in them. The totals that
    /// are not kept per second (fixes, evaluations, failures, answers) are left as they are, for
    /// the caller to have counted over those seconds.
    package func prefix(seconds: Int) -> SwarmLoad {
        precondition((0...durationSeconds).contains(seconds), "\(seconds) s is not within the run's \(durationSeconds) s")
        var result = self
        result.durationSeconds = seconds
        result.perSecond = perSecond.map { Array($0.prefix(seconds)) }
        return result
    }

    /// Adds another part of the same run (a shard of its players).
    package mutating func add(_ other: SwarmLoad) {
        precondition(other.durationSeconds == durationSeconds && other.playersByKind.count == playersByKind.count, "parts of different runs")
        for reason in perSecond.indices {
            for second in 0..<durationSeconds { perSecond[reason][second] &+= other.perSecond[reason][second] }
        }
        answerSizes.merge(other.answerSizes, uniquingKeysWith: +)
        sampledPlayers += other.sampledPlayers
        fixes += other.fixes
        evaluations += other.evaluations
        failures += other.failures
        for kind in playersByKind.indices { playersByKind[kind] += other.playersByKind[kind] }
    }

    /// Requests per second for `reason`, or for all reasons together when `nil`.
    package func series(_ reason: FetchThrottle.Reason?) -> [Int] {
        guard let reason else {
            return (0..<durationSeconds).map { second in perSecond.reduce(0) { $0 + Int($1[second]) } }
        }
        return perSecond[reason.index].map(Int.init)
    }

    /// Mean, busiest second and busiest minute for `reason` (all reasons when `nil`).
    package func rates(_ reason: FetchThrottle.Reason?) -> Rates {
        Rates(series: series(reason))
    }

    /// The shape of one series of per-second counts.
    package struct Rates: Sendable, Hashable {
        /// Requests in the whole run.
        package var total: Int
        /// Requests per second over the whole run.
        package var mean: Double
        /// The most requests in one second, and the first second it happened.
        package var peakSecond: Int
        package var peakSecondAt: Int
        /// The most requests in any 60 consecutive seconds (the whole run when shorter), and the
        /// first second of that window.
        package var peakMinute: Int
        package var peakMinuteAt: Int

        /// ``peakMinute`` as requests per second.
        package var peakMinuteRate: Double { Double(peakMinute) / Double(window) }
        private var window: Int

        init(series: [Int]) {
            total = series.reduce(0, +)
            mean = series.isEmpty ? 0 : Double(total) / Double(series.count)
            peakSecond = 0
            peakSecondAt = 0
            for (second, count) in series.enumerated() where count > peakSecond {
                peakSecond = count
                peakSecondAt = second
            }
            window = max(1, min(60, series.count))
            var sum = series.prefix(window).reduce(0, +)
            peakMinute = sum
            peakMinuteAt = 0
            if series.count > window {
                for start in 1...(series.count - window) {
                    sum += series[start + window - 1] - series[start - 1]
                    if sum > peakMinute {
                        peakMinute = sum
                        peakMinuteAt = start
                    }
                }
            }
        }
    }
}

extension FetchThrottle.Reason {
    /// Position in `allCases`.
    var index: Int {
        switch self {
        case .first: 0
        case .moved: 1
        case .elapsed: 2
        case .retry: 3
        }
    }
}
