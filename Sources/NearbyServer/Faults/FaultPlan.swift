import LocationCore

/// What the server does with one nearby request, decided before it answers.
package enum FaultOutcome: Sendable, Hashable {
    /// The real answer, after `delay`.
    case answer(delay: Duration)
    /// An error answer with this status (500 or 503, or a scripted one), after `delay`.
    case failure(status: Int, delay: Duration)
    /// A scripted answer: this status with `body` as it is (JSON or not), after `delay`.
    case body(status: Int, body: [UInt8], delay: Duration)
    /// No answer until the client gives up (or the server's hold ends, or it shuts down).
    case timeout

    /// The wait before the answer (zero for a timeout, whose hold is the server's setting).
    package var delay: Duration {
        switch self {
        case .answer(let delay), .failure(_, let delay), .body(_, _, let delay): delay
        case .timeout: .zero
        }
    }

    /// The fault's name in the access log: `delay`, `fail 503`, `scripted body 200`, `timeout`.
    var name: String {
        switch self {
        case .answer: "delay"
        case .failure(let status, _): "fail \(status)"
        case .body(let status, _, _): "scripted body \(status)"
        case .timeout: "timeout"
        }
    }
}

/// Seeded, reproducible fault injection for the nearby endpoint.
///
/// Requests are numbered in arrival order. The first ``Configuration/script`` entries decide
/// requests 1, 2, 3 … one each; after the script, each request draws from a ``LocationCore/SplitMix64``
/// seeded with ``Configuration/seed`` (four draws per request, whatever happens, so the same seed
/// and the same request order give the same outcomes): a timeout with probability
/// ``Configuration/timeoutRate``, else a failure (500 or 503 with equal odds) with probability
/// ``Configuration/failRate``, else the real answer; every answer is delayed by
/// ``Configuration/latency`` plus a uniform jitter in ±``Configuration/latencyJitter`` (at most
/// the latency, so never below zero).
package struct FaultPlan: Sendable {
    /// The fault settings.
    package struct Configuration: Sendable, Hashable {
        /// Added to every answer.
        package var latency: Duration
        /// A uniform random spread added to ``latency``, ±this much; at most ``latency``.
        package var latencyJitter: Duration
        /// The share of requests (after the script) not held by ``timeoutRate`` answered 500 or
        /// 503, 0…1: with both, `failRate × (1 − timeoutRate)` of all requests fail.
        package var failRate: Double
        /// The share of requests (after the script) never answered, 0…1.
        package var timeoutRate: Double
        /// The generator's seed.
        package var seed: UInt64
        /// Per-request outcomes for the first requests.
        package var script: [FaultScript.Step]

        /// No faults: real answers, at once.
        package static let none = Configuration()

        /// Creates fault settings.
        ///
        /// - Throws: ``FaultError`` naming the parameter for a negative duration, a jitter above
        ///   the latency, or a rate outside 0…1 (or rates summing above 1).
        package init(
            latency: Duration = .zero, latencyJitter: Duration = .zero, failRate: Double = 0, timeoutRate: Double = 0,
            seed: UInt64 = 0, script: [FaultScript.Step] = []
        ) throws(FaultError) {
            guard latency >= .zero else { throw FaultError("latency must be ≥ 0, got \(latency)", parameter: "latency") }
            guard latencyJitter >= .zero else {
                throw FaultError("latency jitter must be ≥ 0, got \(latencyJitter)", parameter: "latency-jitter")
            }
            // A spread wider than the delay would be cut at zero: answers undelayed far more
            // often than the uniform spread says (half of them with no latency at all).
            guard latencyJitter <= latency else {
                throw FaultError(
                    "a jitter of ± \(PeopleText.number(latencyJitter.fractionalSeconds)) s spreads a latency of "
                        + "\(PeopleText.number(latency.fractionalSeconds)) s below zero, where a delay cannot go "
                        + "(give a latency at least as large as the jitter)",
                    parameter: "latency-jitter")
            }
            guard failRate.isFinite, (0...1).contains(failRate) else {
                throw FaultError("fail rate must be within 0...1, got \(PeopleText.number(failRate))", parameter: "fail-rate")
            }
            guard timeoutRate.isFinite, (0...1).contains(timeoutRate) else {
                throw FaultError("timeout rate must be within 0...1, got \(PeopleText.number(timeoutRate))", parameter: "timeout-rate")
            }
            self.latency = latency
            self.latencyJitter = latencyJitter
            self.failRate = failRate
            self.timeoutRate = timeoutRate
            self.seed = seed
            self.script = script
        }

        private init() {
            latency = .zero
            latencyJitter = .zero
            failRate = 0
            timeoutRate = 0
            seed = 0
            script = []
        }

        /// Whether every request gets the real answer at once.
        package var isNone: Bool {
            latency == .zero && latencyJitter == .zero && failRate == 0 && timeoutRate == 0 && script.isEmpty
        }
    }

    /// The settings.
    package let configuration: Configuration
    /// Requests decided so far.
    package private(set) var requestCount = 0
    private var random: SplitMix64

    /// A plan that has decided nothing yet.
    package init(configuration: Configuration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
    }

    /// The outcome of the next request.
    package mutating func next() -> FaultOutcome {
        requestCount += 1
        if requestCount <= configuration.script.count {
            return configuration.script[requestCount - 1].outcome
        }
        let timeoutDraw = random.uniform(0...1)
        let failDraw = random.uniform(0...1)
        let statusDraw = random.uniform(0...1)
        let jitterDraw = random.uniform(0...1)
        let jitterMicros = Double(configuration.latencyJitter.wholeMicroseconds) * (2 * jitterDraw - 1)
        let delay = Duration.microseconds(max(0, configuration.latency.wholeMicroseconds + Int64(jitterMicros.rounded())))
        if timeoutDraw < configuration.timeoutRate { return .timeout }
        if failDraw < configuration.failRate { return .failure(status: statusDraw < 0.5 ? 500 : 503, delay: delay) }
        return .answer(delay: delay)
    }
}

/// A bad fault setting or script, naming the option or the script entry.
package struct FaultError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    package var message: String
    /// The option to blame (`fail-rate`), or nil for a script entry (named in the message).
    package var parameter: String?
    /// Whether the script file could not be read at all (missing, a folder, no permission): a
    /// run-time failure as for any input file, not a script that says something wrong.
    package var isUnreadableFile = false

    /// Creates an error.
    package init(_ message: String, parameter: String? = nil, isUnreadableFile: Bool = false) {
        self.message = message
        self.parameter = parameter
        self.isUnreadableFile = isUnreadableFile
    }

    package var description: String { message }
}
