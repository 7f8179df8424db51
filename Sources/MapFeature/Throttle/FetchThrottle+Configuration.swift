public import LocationCore

extension FetchThrottle {
    /// The thresholds of the fetch rule. ``game`` holds the game's numbers.
    ///
    /// ```swift
    /// let quick = try FetchThrottle.Configuration(minimumDistance: 50, minimumInterval: .seconds(10))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The game's rule: more than 100 m or more than 30 s, radius 5,000 m, fixes whose
        /// accuracy is 100 m or better (a worse one is ignored), and the standard back-off.
        public static let game = Configuration(
            validMinimumDistance: 100, minimumInterval: .seconds(30), radius: 5_000,
            maximumHorizontalAccuracy: 100, retry: standardRetry, maximumFixAge: nil)

        /// The game's back-off after a failed fetch: 1 s, doubling, capped at 30 s, up to 20 %
        /// jitter, seed 0 (1, 2, 4, 8, 16, 30, 30 … s before jitter).
        public static let standardRetry: Backoff = {
            do {
                return try Backoff(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0.2, seed: 0)
            } catch {
                preconditionFailure("the standard retry back-off is valid: \(error)")
            }
        }()

        /// Fetch when a fix is strictly farther than this from the last fetch, in metres (≥ 0).
        public let minimumDistance: Double
        /// Fetch when a fix is strictly later than this after the last fetch (≥ 0).
        public let minimumInterval: Duration
        /// The query radius, in metres (> 0).
        public let radius: Double
        /// Fixes whose horizontal accuracy is worse (larger) than this many metres are ignored (> 0).
        /// Fixes without an accuracy (GPX tracks usually have none) are accepted.
        public let maximumHorizontalAccuracy: Double
        /// How failures back off (its ``/LocationCore/Backoff/maximumAttempts`` is not used: fetches
        /// are retried for as long as fixes keep coming).
        public let retry: Backoff
        /// A fix older than this when it reaches the app is ignored (``FetchThrottle/assess(_:deliveredAt:)``);
        /// `nil` (the game's rule, as the seed writes it) accepts a fix of any age.
        public let maximumFixAge: Duration?

        @usableFromInline let minimumIntervalMicros: Int64
        /// ``minimumDistance`` in whole micrometres, as distances are compared.
        @usableFromInline let minimumDistanceMicrometres: Double

        /// Creates a configuration, checking every value.
        ///
        /// - Parameters:
        ///   - minimumDistance: Metres, finite and ≥ 0. Default 100.
        ///   - minimumInterval: ≥ 0. Default 30 s.
        ///   - radius: Metres, finite and > 0. Default 5,000.
        ///   - maximumHorizontalAccuracy: Metres, > 0 (may be infinite to accept every fix). Default 100.
        ///   - retry: The back-off. Default ``standardRetry``.
        ///   - maximumFixAge: > 0, or `nil` (the default) for no limit.
        /// - Throws: ``/LocationCore/ConfigurationError`` naming the parameter.
        public init(
            minimumDistance: Double = 100,
            minimumInterval: Duration = .seconds(30),
            radius: Double = 5_000,
            maximumHorizontalAccuracy: Double = 100,
            retry: Backoff = standardRetry,
            maximumFixAge: Duration? = nil
        ) throws(ConfigurationError) {
            guard minimumDistance.isFinite, minimumDistance >= 0 else {
                throw ConfigurationError(parameter: "minimumDistance", "must be a finite number of metres ≥ 0, got \(minimumDistance)")
            }
            guard minimumInterval >= .zero else {
                throw ConfigurationError(parameter: "minimumInterval", "must be ≥ 0, got \(minimumInterval)")
            }
            guard radius.isFinite, radius > 0 else {
                throw ConfigurationError(parameter: "radius", "must be a finite number of metres > 0, got \(radius)")
            }
            guard maximumHorizontalAccuracy > 0 else {
                throw ConfigurationError(parameter: "maximumHorizontalAccuracy", "must be > 0 m, got \(maximumHorizontalAccuracy)")
            }
            if let maximumFixAge, maximumFixAge <= .zero {
                throw ConfigurationError(parameter: "maximumFixAge", "must be > 0, got \(maximumFixAge)")
            }
            self.init(validMinimumDistance: minimumDistance, minimumInterval: minimumInterval, radius: radius,
                      maximumHorizontalAccuracy: maximumHorizontalAccuracy, retry: retry, maximumFixAge: maximumFixAge)
        }

        /// This rule with a scenario's `game.maximumFixAge` (or `nil`: this rule's own).
        ///
        /// - Throws: ``/LocationCore/ConfigurationError`` (`maximumFixAge`) for an age ≤ 0.
        package func with(maximumFixAge age: Duration?) throws(ConfigurationError) -> Configuration {
            guard let age else { return self }
            return try Configuration(
                minimumDistance: minimumDistance, minimumInterval: minimumInterval, radius: radius,
                maximumHorizontalAccuracy: maximumHorizontalAccuracy, retry: retry, maximumFixAge: age)
        }

        private init(validMinimumDistance: Double, minimumInterval: Duration, radius: Double,
                     maximumHorizontalAccuracy: Double, retry: Backoff, maximumFixAge: Duration?) {
            self.minimumDistance = validMinimumDistance
            self.minimumInterval = minimumInterval
            self.radius = radius
            self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
            self.retry = retry
            self.maximumFixAge = maximumFixAge
            self.minimumIntervalMicros = minimumInterval.wholeMicroseconds
            self.minimumDistanceMicrometres = FetchThrottle.micrometres(validMinimumDistance)
        }
    }
}
