#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a simulated receiver gets positions wrong, and how it says so: seeded, so the same seed
/// yields the same errors.
///
/// - **Correlated error.** East and north errors are independent first-order Gauss–Markov
///   processes with standard deviation ``sigma`` and correlation time ``correlationTime``:
///   `z(k+1) = φ·z(k) + √(1−φ²)·w`, `φ = exp(−Δt/τ)`, `w ~ N(0,1)`, and the error is `σ·z`.
///   The process starts in its stationary distribution, so there is no transient.
/// - **Honest accuracy.** With independent N(0, σ²) errors per axis, the horizontal error radius
///   is Rayleigh-distributed: `P(r ≤ R) = 1 − exp(−R²/2σ²)`. The reported
///   `horizontalAccuracy` is the radius holding 68%: `R₆₈ = σ·√(−2 ln 0.32) ≈ 1.5096 σ`
///   (``accuracyPerSigma``), which is what CoreLocation's and gpsd's 1σ-style accuracy means.
/// - **Warm-up.** For the first ``WarmUp/duration`` seconds after the first fix, σ falls linearly
///   from `initialAccuracy / 1.5096` to ``sigma``; the reported accuracy follows it, so it stays
///   honest while it improves (≈50 m → ≈5 m over 30 s by default).
/// - **Outliers** (urban-canyon multipath): with ``Outliers/probability`` per fix, the position
///   jumps a further uniform ``Outliers/distance`` in a uniform direction for that one fix. The
///   reported accuracy is *not* raised, as real receivers do not know; outliers are the
///   dishonest fixes robust consumers must survive.
/// - **Dropouts**: outages start as a Poisson process with mean ``Dropouts/meanInterval``
///   seconds between them and last ``Dropouts/duration`` seconds; fixes inside one are not
///   delivered at all (CoreLocation simply goes quiet). The first fix after an outage is always
///   delivered.
package struct NoiseModel: Sendable, Hashable {
    /// `√(−2 ln 0.32)`: the 68% radius of a circular Gaussian error, in units of the per-axis σ.
    package static let accuracyPerSigma = (-2 * log(0.32)).squareRoot()

    /// The seed of the error stream.
    package var seed: UInt64
    /// Per-axis (east, north) standard deviation of the settled error in metres, ≥ 0.
    package var sigma: Double
    /// Correlation time τ of the Gauss–Markov error in seconds, > 0.
    package var correlationTime: Double
    /// Accuracy improving after start-up, or `nil` for a settled receiver.
    package var warmUp: WarmUp?
    /// Occasional jumps, or `nil` for none.
    package var outliers: Outliers?
    /// Occasional outages, or `nil` for none.
    package var dropouts: Dropouts?

    /// A warm-up from `initialAccuracy` to the settled accuracy over `duration`.
    package struct WarmUp: Sendable, Hashable {
        /// Reported (68%) accuracy at the first fix, metres, ≥ 0.
        package var initialAccuracy: Double
        /// Seconds until the settled accuracy is reached, > 0.
        package var duration: Double
        package init(initialAccuracy: Double = 50, duration: Double = 30) {
            self.initialAccuracy = initialAccuracy
            self.duration = duration
        }
        /// ≈50 m improving to the settled value over 30 s.
        package static let `default` = WarmUp()
    }

    /// Urban-canyon jumps.
    package struct Outliers: Sendable, Hashable {
        /// Chance per fix, 0…1.
        package var probability: Double
        /// Extra displacement in metres, drawn uniformly from this range (lower bound ≥ 0).
        package var distance: ClosedRange<Double>
        package init(probability: Double = 0.01, distance: ClosedRange<Double> = 30...150) {
            self.probability = probability
            self.distance = distance
        }
    }

    /// Outages.
    package struct Dropouts: Sendable, Hashable {
        /// Mean seconds between the starts of outages, > 0.
        package var meanInterval: Double
        /// Seconds each outage lasts, ≥ 0.
        package var duration: Double
        package init(meanInterval: Double = 600, duration: Double = 10) {
            self.meanInterval = meanInterval
            self.duration = duration
        }
    }

    /// Creates a model.
    ///
    /// - Parameters:
    ///   - seed: Seed of the error stream.
    ///   - sigma: Per-axis σ of the settled error in metres (default 3.31 m, a reported accuracy of 5 m).
    ///   - correlationTime: τ in seconds (default 10 s).
    ///   - warmUp: Start-up accuracy ramp (default ``WarmUp/default``).
    ///   - outliers: Jumps (default none).
    ///   - dropouts: Outages (default none).
    package init(
        seed: UInt64, sigma: Double = 5 / NoiseModel.accuracyPerSigma, correlationTime: Double = 10,
        warmUp: WarmUp? = .default, outliers: Outliers? = nil, dropouts: Dropouts? = nil
    ) {
        self.seed = seed
        self.sigma = sigma
        self.correlationTime = correlationTime
        self.warmUp = warmUp
        self.outliers = outliers
        self.dropouts = dropouts
    }

    /// Checks every parameter against its documented range.
    ///
    /// - Throws: ``SimulationError/Code/invalidParameter`` naming the parameter.
    package func validate() throws(SimulationError) {
        try SimulationError.check(sigma, in: 0...1_000_000, parameter: "noise.sigma", unit: "m")
        try SimulationError.check(
            correlationTime, in: Double.leastNormalMagnitude...Double.greatestFiniteMagnitude,
            parameter: "noise.correlationTime", unit: "s")
        if let warmUp {
            try SimulationError.check(
                warmUp.initialAccuracy, in: 0...1_000_000, parameter: "noise.warmUp.initialAccuracy", unit: "m")
            try SimulationError.check(
                warmUp.duration, in: Double.leastNormalMagnitude...Double.greatestFiniteMagnitude,
                parameter: "noise.warmUp.duration", unit: "s")
        }
        if let outliers {
            try SimulationError.check(outliers.probability, in: 0...1, parameter: "noise.outliers.probability", unit: "")
            try SimulationError.check(
                outliers.distance.lowerBound, in: 0...20_000_000, parameter: "noise.outliers.distance", unit: "m")
            try SimulationError.check(
                outliers.distance.upperBound, in: 0...20_000_000, parameter: "noise.outliers.distance", unit: "m")
        }
        if let dropouts {
            try SimulationError.check(
                dropouts.meanInterval, in: Double.leastNormalMagnitude...Double.greatestFiniteMagnitude,
                parameter: "noise.dropouts.meanInterval", unit: "s")
            try SimulationError.check(
                dropouts.duration, in: 0...Double.greatestFiniteMagnitude, parameter: "noise.dropouts.duration", unit: "s")
        }
    }
}
