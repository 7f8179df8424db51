import LocationSimulation

/// A kind's speed profile reduced to the numbers a swarm player's legs need, shared by every
/// player of that kind.
struct MoverParameters: Sendable {
    /// Mean speed of a moving leg, m/s.
    let meanSpeed: Double
    /// Spread of a leg's speed around the mean, m/s.
    let speedSigma: Double
    /// The fastest a leg can go: mean + 4σ, as ``/LocationSimulation/SpeedProfile`` clamps.
    let maximumSpeed: Double
    /// Mean seconds of motion between stops, or infinity for none.
    let meanStopInterval: Double
    /// A stop's length in seconds.
    let stopDuration: ClosedRange<Double>

    /// Moving legs last 10 … 60 s; the heading turns by a Gaussian of ``turnSigma`` per √s between them
    /// (15° by default, ``/LocationSimulation/MotionPath/randomWalk(from:turnSigma:within:)``'s default).
    static let legSeconds: ClosedRange<Int32> = 10...60
    /// Degrees per √s.
    let turnSigma: Double

    init(_ mover: SwarmMix.Mover) {
        let profile = mover.profile
        turnSigma = mover.turnSigma
        meanSpeed = profile.meanSpeed
        speedSigma = profile.speedSigma
        maximumSpeed = profile.meanSpeed + 4 * profile.speedSigma
        meanStopInterval = profile.stops?.meanInterval ?? .infinity
        stopDuration = profile.stops?.duration ?? 0...0
    }
}
