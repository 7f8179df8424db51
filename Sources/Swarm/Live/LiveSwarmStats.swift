import MapFeature

/// What a real-time swarm sent and got back: second by second (wall time since the start) and
/// over the whole run.
package struct LiveSwarmStats: Sendable {
    /// Request kinds counted apart: the rule's four reasons, then requests of players that ignore
    /// the rule (``LiveSwarm/Configuration/misbehaviour``).
    package static let kinds = FetchThrottle.Reason.allCases.map(\.rawValue) + ["ignored"]

    /// One wall-clock second.
    package struct Second: Sendable, Hashable {
        /// Seconds since the start.
        package var second: Int
        /// Players with the app open at the end of the second.
        package var activePlayers = 0
        /// Requests started, by ``LiveSwarmStats/kinds``.
        package var requests = [Int](repeating: 0, count: LiveSwarmStats.kinds.count)
        /// Answers with status 200 and failures, by arrival.
        package var answered = 0
        package var failed = 0
        /// Latency of the answers and failures that arrived in this second, microseconds
        /// (median and 99th percentile); 0 without any.
        package var p50Micros: UInt64 = 0
        package var p99Micros: UInt64 = 0

        /// Requests started, all kinds.
        package var total: Int { requests.reduce(0, +) }
    }

    /// Every second so far, closed ones only.
    package private(set) var seconds: [Second] = []
    /// Requests started by ``kinds``.
    package private(set) var requests = [Int](repeating: 0, count: LiveSwarmStats.kinds.count)
    /// Latency of every answer and failure, microseconds.
    package private(set) var latency = LogHistogram()
    /// Answers by HTTP status.
    package private(set) var statusCodes: [Int: Int] = [:]
    /// Failures by ``SwarmFailure/kind``.
    package private(set) var errors: [String: Int] = [:]
    /// Places in each answer with status 200.
    package private(set) var places = LogHistogram()
    /// Game-time milliseconds between one player's consecutive requests (players following the rule only).
    package private(set) var intervals = LogHistogram()
    /// Game-time milliseconds by which each request made at a fix went out after the fix was due:
    /// the runner's wake-ups (a millisecond of wall time is `speed` ms of game time) and a machine
    /// too busy for the speed asked. Large values blur every game-time figure by as much.
    package private(set) var lateness = LogHistogram()
    /// Answers (status 200) and failures.
    package private(set) var answered = 0
    package private(set) var failed = 0
    /// The first failure of each kind, for the report.
    package private(set) var firstErrors: [String: String] = [:]

    /// Set by the runner at the end.
    package internal(set) var players = 0
    package internal(set) var fixes = 0
    package internal(set) var misbehavingPlayers: [Int] = []
    /// Players on a scenario's phone, and the fixes their phones withheld.
    package internal(set) var scenarioPlayers = 0
    package internal(set) var withheldFixes = 0
    package internal(set) var wallMicros: Int64 = 0
    package internal(set) var gameMicros: Int64 = 0
    /// Requests still unanswered when the run stopped.
    package internal(set) var unanswered = 0
    /// Whether the run was stopped before its end (cancelled).
    package internal(set) var interrupted = false

    private var current = Second(second: 0)
    private var window = LogHistogram()

    init() {}

    /// Requests started, all kinds.
    package var totalRequests: Int { requests.reduce(0, +) }

    /// Whether the server was never reached: requests failed, and every failure so far was a
    /// connection that could not be made (nothing answered, not even with an error status).
    package var neverReached: Bool { failed > 0 && answered == 0 && errors.keys.allSatisfy { $0 == "connect" } }

    /// Counts a request; `late`, for one made at a fix, is how many game microseconds after the
    /// fix was due it went out (nil for a follow-up, sent when its answer was seen).
    mutating func recordSend(_ send: LiveSwarm.Send, late: Int64?) {
        if let late { lateness.record(UInt64(max(0, late)) / 1_000) }
        let kind = send.reason.map(\.index) ?? FetchThrottle.Reason.allCases.count
        current.requests[kind] += 1
        requests[kind] += 1
        if send.reason != nil, let since = send.sincePrevious { intervals.record(UInt64(max(0, since)) / 1_000) }
    }

    mutating func recordAnswer(_ answer: SwarmAnswer) {
        let micros = answer.latencyNanos / 1_000
        latency.record(micros)
        window.record(micros)
        if let status = answer.status { statusCodes[status, default: 0] += 1 }
        switch answer.outcome {
        case .success(let count):
            answered += 1
            current.answered += 1
            places.record(UInt64(max(0, count)))
        case .failure(let failure):
            failed += 1
            current.failed += 1
            errors[failure.kind, default: 0] += 1
            if firstErrors[failure.kind] == nil { firstErrors[failure.kind] = failure.description }
        }
    }

    /// Closes every second before `second`, calling `closed` for each.
    mutating func roll(to second: Int, activePlayers: Int, closed: (Second) -> Void) {
        while current.second < second {
            close(activePlayers: activePlayers, closed: closed)
        }
    }

    /// Closes the current second (the last one of a run, whole or not).
    mutating func close(activePlayers: Int, closed: (Second) -> Void) {
        current.activePlayers = activePlayers
        current.p50Micros = window.percentile(0.5)
        current.p99Micros = window.percentile(0.99)
        window = LogHistogram()
        seconds.append(current)
        closed(current)
        current = Second(second: current.second + 1)
    }
}
