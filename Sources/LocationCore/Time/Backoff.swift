/// Capped exponential back-off with optional seeded jitter: how long to wait after a run of
/// failures. One type serves every retry loop in locsim: `GPSDProvider` waiting for a daemon,
/// and `FetchThrottle` after a failed fetch.
///
/// After the n-th consecutive failure the wait is
///
///     min(maximumDelay, initialDelay × multiplierⁿ⁻¹) × (1 − jitter × u)
///
/// with `u` in 0..<1 supplied by the caller (drawn from a generator seeded with ``seed``, so the
/// same events give the same delays). Jitter only shortens a delay, so the cap holds, and many
/// clients that failed together do not retry together.
///
/// Every value is checked when the back-off is made, so a `Backoff` that exists can be used: no
/// delay computation can trap, and none can loop forever.
///
/// ```swift
/// let backoff = try Backoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(8))
/// backoff.delay(afterFailures: 3)   // 1 s
/// ```
public struct Backoff: Sendable, Hashable {
    /// The delay after the first failure (> 0).
    public let initialDelay: Duration
    /// The growth factor per further failure (finite, ≥ 1).
    public let multiplier: Double
    /// The cap on any delay (≥ ``initialDelay``).
    public let maximumDelay: Duration
    /// The largest fraction of a delay that jitter removes, 0..<1 (0, the default, disables it).
    public let jitter: Double
    /// The seed of the generator a caller draws jitter from.
    public let seed: UInt64
    /// Give up after this many retries in a row (≥ 0); `nil` retries forever.
    public let maximumAttempts: Int?

    /// Creates a back-off, checking every value.
    ///
    /// - Parameters:
    ///   - initialDelay: > 0. Default 1 s.
    ///   - multiplier: Finite and ≥ 1. Default 2.
    ///   - maximumDelay: ≥ `initialDelay`. Default 30 s.
    ///   - jitter: 0..<1. Default 0 (none).
    ///   - seed: The jitter generator's seed. Default 0.
    ///   - maximumAttempts: ≥ 0, or `nil` (the default) for no limit.
    /// - Throws: ``ConfigurationError`` naming the parameter.
    public init(
        initialDelay: Duration = .seconds(1),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30),
        jitter: Double = 0,
        seed: UInt64 = 0,
        maximumAttempts: Int? = nil
    ) throws(ConfigurationError) {
        guard initialDelay > .zero else {
            throw ConfigurationError(parameter: "initialDelay", "must be > 0, got \(initialDelay)")
        }
        guard multiplier.isFinite, multiplier >= 1 else {
            throw ConfigurationError(parameter: "multiplier", "must be a finite number ≥ 1, got \(multiplier)")
        }
        guard maximumDelay >= initialDelay else {
            throw ConfigurationError(
                parameter: "maximumDelay", "\(maximumDelay) is shorter than initialDelay \(initialDelay)")
        }
        guard jitter >= 0, jitter < 1 else {
            throw ConfigurationError(parameter: "jitter", "must be in 0..<1, got \(jitter)")
        }
        if let maximumAttempts, maximumAttempts < 0 {
            throw ConfigurationError(parameter: "maximumAttempts", "must be ≥ 0 or nil, got \(maximumAttempts)")
        }
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.seed = seed
        self.maximumAttempts = maximumAttempts
    }

    /// Whether another retry is allowed after `attempts` retries in a row.
    public func allowsRetry(after attempts: Int) -> Bool {
        maximumAttempts.map { attempts < $0 } ?? true
    }

    /// The wait after `failures` consecutive failures, for a jitter draw `randomUnit`.
    ///
    /// - Parameters:
    ///   - failures: ≥ 1; smaller values count as 1.
    ///   - randomUnit: In 0..<1, clamped to 0...1; 0 (the default) gives the nominal delay.
    /// - Returns: The delay at microsecond resolution: at most ``maximumDelay``, and never more
    ///   than about 126,000 years however long the cap.
    public func delay(afterFailures failures: Int, randomUnit: Double = 0) -> Duration {
        .microseconds(delayMicroseconds(afterFailures: failures, randomUnit: randomUnit))
    }

    /// ``delay(afterFailures:randomUnit:)`` in whole microseconds, for callers that keep time
    /// as microsecond counts.
    package func delayMicroseconds(afterFailures failures: Int, randomUnit: Double = 0) -> Int64 {
        let initial = Double(initialDelay.wholeMicroseconds)
        let cap = Double(maximumDelay.wholeMicroseconds)
        // The power overflows to +inf for long outages; min() then caps it.
        let nominal = min(cap, initial * Self.power(multiplier, max(0, failures - 1)))
        let unit = randomUnit.isNaN ? 0 : max(0, min(randomUnit, 1))
        return Int64(min(4e18, (nominal * (1 - jitter * unit)).rounded()))
    }

    /// `base` to a whole power by repeated squaring, the exponent capped at 4,096 (enough for
    /// any multiplier ≥ 1.01 to pass any cap).
    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0, factor = base, remaining = min(exponent, 4096)
        while remaining > 0 {
            if remaining & 1 == 1 { result *= factor }
            factor *= factor
            remaining >>= 1
            if result.isInfinite { return result }
        }
        return result
    }
}

/// A configuration value out of its range, naming the parameter.
///
/// ```swift
/// do { _ = try Backoff(jitter: 1) } catch { print(error.parameter) }   // "jitter"
/// ```
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parameter's name, as the initialiser spells it (`maximumDelay`).
    public var parameter: String
    /// What is wrong with its value.
    public var message: String

    package init(parameter: String, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    /// `parameter: message`.
    public var description: String { "\(parameter): \(message)" }
}
