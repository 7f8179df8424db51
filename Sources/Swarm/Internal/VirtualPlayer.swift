#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore
import LocationSimulation
import MapFeature

/// One player of a virtual swarm, as small as it can be: where its current leg of motion began,
/// where and when it last fetched, and its random streams. About 100 bytes.
///
/// Motion is a seeded random walk in legs: each leg goes straight (a great circle) at one speed
/// for 10–60 s, or stands still for a stop; between legs the heading turns by a Gaussian, or points
/// back to the area's centre when the player has left the area. The position at any whole second
/// is computed from the leg's start, so it does not depend on which seconds were looked at.
struct VirtualPlayer {
    /// Where the current leg began.
    var legOrigin: Coordinate
    /// Where the last fetch was made (meaningful once ``anchorSecond`` ≥ 0).
    var anchor: Coordinate
    /// The current leg's bearing, degrees.
    var bearing: Double
    /// The current leg's speed, m/s (0 during a stop).
    var speed: Double
    /// Metres travelled since the last fetch, at the leg's start (negative when the fetch was
    /// made during this leg).
    var pathAtLegStart: Double
    /// While backing off, the earliest retry time in microseconds.
    var retryNotBeforeMicros: Int64
    /// The motion's random stream.
    var motionRandom: SplitMix64
    /// The answers' random stream (which fetches fail, back-off jitter).
    var answerRandom: SplitMix64
    var legStartSecond: Int32
    var legEndSecond: Int32
    /// The second of the last fetch, or −1 before the first.
    var anchorSecond: Int32
    /// The second the player opens the app.
    var startSecond: Int32
    /// The next player due in the same second, or ``none``.
    var nextDue: UInt32 = VirtualPlayer.none
    /// The end of a due list.
    static let none = UInt32.max
    /// Failures since the last success.
    var failures: UInt16
    /// Index into the mix's movers.
    var kind: UInt8

    init(index: Int, configuration: VirtualSwarm.Configuration, parameters: [MoverParameters]) {
        // Each player's streams depend on the seed and its own index only, so player k is the
        // same whatever the number of players.
        var setup = SplitMix64(seed: configuration.seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        _ = setup.next()
        kind = UInt8(configuration.mix.moverIndex(forUnit: setup.nextUnit()))
        let origin: Coordinate
        if configuration.starts.isEmpty {
            origin = configuration.area.randomPoint(using: &setup)
        } else {
            origin = configuration.starts[Int(setup.next() % UInt64(configuration.starts.count))]
        }
        startSecond = Int32(configuration.rampSeconds == 0 ? 0 : Int(setup.next() % UInt64(configuration.rampSeconds)))
        motionRandom = SplitMix64(seed: setup.next())
        answerRandom = SplitMix64(seed: setup.next())
        legOrigin = origin
        anchor = origin
        bearing = motionRandom.nextUnit() * 360
        speed = 0
        pathAtLegStart = 0
        retryNotBeforeMicros = 0
        legStartSecond = startSecond
        legEndSecond = startSecond
        anchorSecond = -1
        failures = 0
        startLeg(at: startSecond, from: origin, after: 0, parameters: parameters[Int(kind)], area: configuration.area)
    }

    /// The position at whole second `second` of the current leg.
    @inline(__always)
    func position(at second: Int32) -> Coordinate {
        speed == 0 ? legOrigin : legOrigin.destination(distance: speed * Double(second - legStartSecond), bearing: bearing)
    }

    /// Metres travelled since the last fetch, at `second` of the current leg.
    @inline(__always)
    func path(at second: Int32) -> Double {
        pathAtLegStart + speed * Double(second - legStartSecond)
    }

    /// Moves the legs on so that `second` lies in the current one.
    mutating func advance(to second: Int32, parameters: MoverParameters, area: SwarmArea) {
        while legEndSecond <= second {
            let end = legEndSecond
            let origin = position(at: end)
            let ended = Double(end - legStartSecond)
            let wasMoving = speed > 0
            pathAtLegStart = path(at: end)
            startLeg(at: end, from: origin, after: wasMoving ? ended : 0, parameters: parameters, area: area)
        }
    }

    /// Starts a leg at `second` from `origin`, after `movingSeconds` of motion in the leg that ended.
    private mutating func startLeg(
        at second: Int32, from origin: Coordinate, after movingSeconds: Double, parameters: MoverParameters, area: SwarmArea
    ) {
        legOrigin = origin
        legStartSecond = second
        // A stop starts as a Poisson process over the time spent moving.
        if movingSeconds > 0, parameters.meanStopInterval.isFinite,
            motionRandom.nextUnit() < 1 - exp(-movingSeconds / parameters.meanStopInterval)
        {
            let range = parameters.stopDuration
            let stop = (range.lowerBound + (range.upperBound - range.lowerBound) * motionRandom.nextUnit()).rounded()
            speed = 0
            legEndSecond = second + Int32(max(1, min(86_400, stop)))
            return
        }
        let seconds = MoverParameters.legSeconds
        let length = seconds.lowerBound + Int32(motionRandom.next() % UInt64(seconds.upperBound - seconds.lowerBound + 1))
        legEndSecond = second + length
        speed = min(max(0, parameters.meanSpeed + parameters.speedSigma * motionRandom.nextGaussian()), parameters.maximumSpeed)
        if origin.distance(to: area.center) > area.radius {
            bearing = origin.bearing(to: area.center)
        } else {
            bearing = normalizedCourse(bearing + parameters.turnSigma * Double(length).squareRoot() * motionRandom.nextGaussian())
        }
    }
}
