import LocationCore

extension FetchThrottle {
    /// The thresholds of the fetch rule. ``game`` holds the game's numbers.
    ///
    /// ```swift
    /// let quick = try FetchThrottle.Configuration(minimumDistance: 50, minimumInterval: .seconds(10))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The game's rule: more than 100 m or more than 30 s, radius 5,000 m, fixes better than
        /// 100 m, and the standard back-off.
        public static let game = Configuration(
            validMinimumDistance: 100, minimumInterval: .seconds(30), radius: 5_000,
            maximumHorizontalAccuracy: 100, retry: .standard)

        /// Fetch when a fix is strictly farther than this from the last fetch, in metres (≥ 0).
        public let minimumDistance: Double
        /// Fetch when a fix is strictly later than this after the last fetch (≥ 0).
        public let minimumInterval: Duration
        /// The query radius, in metres (> 0).
        public let radius: Double
        /// Fixes whose horizontal accuracy is worse (larger) than this many metres are ignored (> 0).
        /// Fixes without an accuracy (GPX tracks usually have none) are accepted.
        public let maximumHorizontalAccuracy: Double
        /// How failures back off.
        public let retry: RetryPolicy

        let minimumIntervalMicros: Int64

        /// Creates a configuration, checking every value.
        ///
        /// - Parameters:
        ///   - minimumDistance: Metres, finite and ≥ 0. Default 100.
        ///   - minimumInterval: ≥ 0. Default 30 s.
        ///   - radius: Metres, finite and > 0. Default 5,000.
        ///   - maximumHorizontalAccuracy: Metres, > 0 (may be infinite to accept every fix). Default 100.
        ///   - retry: The back-off. Default ``RetryPolicy/standard``.
        /// - Throws: ``AppError`` with code ``AppError/Code/validation`` naming the parameter.
        public init(
            minimumDistance: Double = 100,
            minimumInterval: Duration = .seconds(30),
            radius: Double = 5_000,
            maximumHorizontalAccuracy: Double = 100,
            retry: RetryPolicy = .standard
        ) throws(AppError) {
            guard minimumDistance.isFinite, minimumDistance >= 0 else {
                throw .validation("minimumDistance must be a finite number of metres ≥ 0, got \(minimumDistance)", parameter: "minimumDistance")
            }
            guard minimumInterval >= .zero else {
                throw .validation("minimumInterval must be ≥ 0, got \(minimumInterval)", parameter: "minimumInterval")
            }
            guard radius.isFinite, radius > 0 else {
                throw .validation("radius must be a finite number of metres > 0, got \(radius)", parameter: "radius")
            }
            guard maximumHorizontalAccuracy > 0 else {
                throw .validation("maximumHorizontalAccuracy must be > 0 m, got \(maximumHorizontalAccuracy)", parameter: "maximumHorizontalAccuracy")
            }
            self.init(validMinimumDistance: minimumDistance, minimumInterval: minimumInterval, radius: radius,
                      maximumHorizontalAccuracy: maximumHorizontalAccuracy, retry: retry)
        }

        private init(validMinimumDistance: Double, minimumInterval: Duration, radius: Double,
                     maximumHorizontalAccuracy: Double, retry: RetryPolicy) {
            self.minimumDistance = validMinimumDistance
            self.minimumInterval = minimumInterval
            self.radius = radius
            self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
            self.retry = retry
            self.minimumIntervalMicros = minimumInterval.wholeMicroseconds
        }
    }

    /// Exponential back-off after failed fetches, with seeded jitter.
    ///
    /// After the n-th consecutive failure the next fetch waits
    /// `min(maximumDelay, initialDelay × multiplierⁿ⁻¹) × (1 − jitter × u)`, with `u` uniform in
    /// 0..<1 drawn from a generator seeded with ``seed``: 1, 2, 4, 8, 16, 30, 30 … seconds with
    /// the defaults and no jitter. Jitter only shortens a delay, so the cap holds, and many
    /// clients that failed together do not retry together. The same seed and the same events give
    /// the same delays.
    public struct RetryPolicy: Sendable, Hashable {
        /// 1 s, doubling, capped at 30 s, up to 20% jitter, seed 0.
        public static let standard = RetryPolicy(
            validInitialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0.2, seed: 0)

        /// The delay after the first failure (> 0).
        public let initialDelay: Duration
        /// The growth factor per further failure (≥ 1).
        public let multiplier: Double
        /// The cap (≥ ``initialDelay``).
        public let maximumDelay: Duration
        /// The largest fraction of a delay that jitter removes, 0..<1 (0 disables jitter).
        public let jitter: Double
        /// The jitter generator's seed.
        public let seed: UInt64

        /// Creates a policy, checking every value.
        ///
        /// - Throws: ``AppError`` with code ``AppError/Code/validation`` naming the parameter.
        public init(
            initialDelay: Duration = .seconds(1),
            multiplier: Double = 2,
            maximumDelay: Duration = .seconds(30),
            jitter: Double = 0.2,
            seed: UInt64 = 0
        ) throws(AppError) {
            guard initialDelay > .zero else {
                throw .validation("initialDelay must be > 0, got \(initialDelay)", parameter: "initialDelay")
            }
            guard multiplier.isFinite, multiplier >= 1 else {
                throw .validation("multiplier must be finite and ≥ 1, got \(multiplier)", parameter: "multiplier")
            }
            guard maximumDelay >= initialDelay else {
                throw .validation("maximumDelay \(maximumDelay) is shorter than initialDelay \(initialDelay)", parameter: "maximumDelay")
            }
            guard jitter >= 0, jitter < 1 else {
                throw .validation("jitter must be in 0..<1, got \(jitter)", parameter: "jitter")
            }
            self.init(validInitialDelay: initialDelay, multiplier: multiplier, maximumDelay: maximumDelay, jitter: jitter, seed: seed)
        }

        private init(validInitialDelay: Duration, multiplier: Double, maximumDelay: Duration, jitter: Double, seed: UInt64) {
            self.initialDelay = validInitialDelay
            self.multiplier = multiplier
            self.maximumDelay = maximumDelay
            self.jitter = jitter
            self.seed = seed
        }

        /// The back-off after `failures` consecutive failures, for a jitter draw `randomUnit`.
        ///
        /// - Parameters:
        ///   - failures: ≥ 1; smaller values are treated as 1.
        ///   - randomUnit: In 0..<1; 0 gives the nominal delay.
        /// - Returns: The delay, at microsecond resolution.
        public func delay(afterFailures failures: Int, randomUnit: Double) -> Duration {
            .microseconds(delayMicros(afterFailures: failures, randomUnit: randomUnit))
        }

        func delayMicros(afterFailures failures: Int, randomUnit: Double) -> Int64 {
            let initial = Double(initialDelay.wholeMicroseconds)
            let cap = Double(maximumDelay.wholeMicroseconds)
            let exponent = Double(max(0, failures - 1))
            // pow overflows to +inf for long outages; min() then caps it.
            let nominal = min(cap, initial * Self.power(multiplier, exponent))
            let unit = max(0, min(randomUnit, 1))
            return Int64(min(4e18, (nominal * (1 - jitter * unit)).rounded()))
        }

        /// `base` raised to a whole `exponent` by repeated squaring (no libm needed).
        private static func power(_ base: Double, _ exponent: Double) -> Double {
            var result = 1.0, factor = base, remaining = Int(min(exponent, 4096))
            while remaining > 0 {
                if remaining & 1 == 1 { result *= factor }
                factor *= factor
                remaining >>= 1
                if result.isInfinite { return result }
            }
            return result
        }
    }
}
