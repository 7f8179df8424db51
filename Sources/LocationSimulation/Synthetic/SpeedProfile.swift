/// How fast a synthetic mover goes, moment to moment: a mean speed with correlated variation and
/// occasional stops.
///
/// Speed follows an Ornstein–Uhlenbeck process around ``meanSpeed``:
/// `v(k+1) = μ + (v(k) − μ)·φ + s·√(1−φ²)·w`, `φ = exp(−Δt/τ)`, `w ~ N(0,1)`, clamped at 0 and at
/// μ + 4s, starting at μ. Stops start as a Poisson process with mean ``Stops/meanInterval``
/// seconds of moving between them; each lasts a uniform ``Stops/duration`` seconds at speed 0,
/// then the mover restarts at the mean speed.
package struct SpeedProfile: Sendable, Hashable {
    /// Mean speed in m/s, > 0.
    package var meanSpeed: Double
    /// Standard deviation of the speed around the mean, m/s, ≥ 0 (0: constant speed).
    package var speedSigma: Double
    /// Correlation time of the speed variation in seconds, > 0.
    package var correlationTime: Double
    /// Stops, or `nil` for none.
    package var stops: Stops?

    /// Pauses in motion (traffic lights, looking at a phone).
    package struct Stops: Sendable, Hashable {
        /// Mean seconds of motion between stops, > 0.
        package var meanInterval: Double
        /// Length of each stop in seconds, drawn uniformly (lower bound ≥ 0).
        package var duration: ClosedRange<Double>
        package init(meanInterval: Double, duration: ClosedRange<Double>) {
            self.meanInterval = meanInterval
            self.duration = duration
        }
    }

    package init(meanSpeed: Double, speedSigma: Double = 0, correlationTime: Double = 30, stops: Stops? = nil) {
        self.meanSpeed = meanSpeed
        self.speedSigma = speedSigma
        self.correlationTime = correlationTime
        self.stops = stops
    }

    /// Exactly `metersPerSecond`, no variation, no stops.
    package static func constant(_ metersPerSecond: Double) -> SpeedProfile {
        SpeedProfile(meanSpeed: metersPerSecond)
    }

    /// Walking: 1.4 m/s ± 0.15, a stop every ~5 min for 5–30 s.
    package static let walk = SpeedProfile(
        meanSpeed: 1.4, speedSigma: 0.15, correlationTime: 30, stops: Stops(meanInterval: 300, duration: 5...30))
    /// Running: 3.0 m/s ± 0.3, a stop every ~15 min for 5–20 s.
    package static let run = SpeedProfile(
        meanSpeed: 3.0, speedSigma: 0.3, correlationTime: 30, stops: Stops(meanInterval: 900, duration: 5...20))
    /// Cycling: 5.5 m/s ± 1.0, a stop every ~4 min for 5–40 s.
    package static let cycle = SpeedProfile(
        meanSpeed: 5.5, speedSigma: 1.0, correlationTime: 20, stops: Stops(meanInterval: 240, duration: 5...40))
    /// Driving in town: 13.9 m/s (50 km/h) ± 3, a stop every ~2 min for 10–60 s.
    package static let drive = SpeedProfile(
        meanSpeed: 13.9, speedSigma: 3.0, correlationTime: 20, stops: Stops(meanInterval: 120, duration: 10...60))

    func validate() throws(SimulationError) {
        try SimulationError.check(meanSpeed, in: 0.001...1000, parameter: "speed.meanSpeed", unit: "m/s")
        try SimulationError.check(speedSigma, in: 0...1000, parameter: "speed.speedSigma", unit: "m/s")
        try SimulationError.check(
            correlationTime, in: Double.leastNormalMagnitude...Double.greatestFiniteMagnitude,
            parameter: "speed.correlationTime", unit: "s")
        if let stops {
            try SimulationError.check(
                stops.meanInterval, in: Double.leastNormalMagnitude...Double.greatestFiniteMagnitude,
                parameter: "speed.stops.meanInterval", unit: "s")
            try SimulationError.check(
                stops.duration.lowerBound, in: 0...Double.greatestFiniteMagnitude, parameter: "speed.stops.duration",
                unit: "s")
            try SimulationError.check(
                stops.duration.upperBound, in: 0...Double.greatestFiniteMagnitude, parameter: "speed.stops.duration",
                unit: "s")
        }
    }
}
