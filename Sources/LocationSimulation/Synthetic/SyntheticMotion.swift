#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore

/// A seeded synthetic mover delivered as a stream of ``/LocationCore/Fix``: standing still, a line,
/// a route, a circle or a random walk, at a constant speed or a walk/run/cycle/drive profile.
///
/// Fix `k` describes the mover `k / rate` seconds after the start and, with
/// ``Pacing/timed(speedFactor:)``, is delivered when that much time (scaled) has passed on the
/// injected clock, against absolute deadlines; with ``Pacing/virtual`` as fast as the consumer asks.
/// The same seed (and noise seed) gives a bit-identical stream, times included when
/// ``Configuration/startTime`` is set.
///
/// Lines and routes end with the fix at arrival; other paths run until
/// ``Configuration/duration`` (or forever). Cancelling the consuming task ends iteration promptly.
///
/// ```swift
/// let walk = try SyntheticMotion(
///     path: .circle(center: shibuya, radius: 200), speed: .walk, seed: 42,
///     configuration: .init(pacing: .virtual, duration: 600, noise: NoiseModel(seed: 7)),
///     clock: ContinuousClock(), now: { Date() })
/// for try await fix in walk { ... }
/// ```
package struct SyntheticMotion<C: Clock>: LocationProvider where C.Duration == Duration {
    package typealias Element = Fix

    /// How to emit the motion.
    package struct Configuration: Sendable {
        /// Fixes per second, 0.001…100. Default 1 Hz (what CoreLocation delivers).
        package var rate: Double
        /// Real time, scaled, or as fast as the consumer goes. Default: real time.
        package var pacing: Pacing
        /// Seconds of motion to emit (≥ 0; fixes at 0…duration), or `nil` for the whole path
        /// (forever for stationary, circle and random walk).
        package var duration: Double?
        /// Time of the first fix, or `nil` for `now()` when iteration starts.
        package var startTime: Date?
        /// Altitude in metres to report (3D fixes), or `nil` for 2D fixes.
        package var altitude: Double?
        /// A seeded receiver model to degrade the positions, or `nil` for clean truth.
        package var noise: NoiseModel?
        /// Whether a fix carries the time it is sent at, as a live receiver's does (the start,
        /// then the wall time at which it falls due: scaled by a timed pacing's speed factor and
        /// moved by pauses, as ``GPXReplay``'s rebased times), rather than the motion's own (the
        /// start plus its offset into the motion). The same with real-time or virtual pacing.
        package var stampsSendingTime: Bool

        package init(
            rate: Double = 1, pacing: Pacing = .realTime, duration: Double? = nil, startTime: Date? = nil,
            altitude: Double? = nil, noise: NoiseModel? = nil, stampsSendingTime: Bool = false
        ) {
            self.rate = rate
            self.pacing = pacing
            self.duration = duration
            self.startTime = startTime
            self.altitude = altitude
            self.noise = noise
            self.stampsSendingTime = stampsSendingTime
        }
    }

    package let path: MotionPath
    package let speed: SpeedProfile
    package let seed: UInt64
    package let configuration: Configuration
    private let clock: C
    private let now: @Sendable () -> Date
    private let control: ReplayControl?

    /// Creates a synthetic mover.
    ///
    /// - Parameters:
    ///   - path: Where to go.
    ///   - speed: How fast (ignored when standing still). Default ``SpeedProfile/walk``.
    ///   - seed: Seed of the motion (speed variation, stops, random-walk turns).
    ///   - configuration: Rate, pacing, duration, start time, noise.
    ///   - control: Pause/resume controls, or `nil`.
    ///   - clock: The clock to wait on.
    ///   - now: Wall-clock time for the first fix when ``Configuration/startTime`` is `nil`.
    /// - Throws: ``SimulationError`` for a parameter outside its documented range, or an empty route.
    package init(
        path: MotionPath, speed: SpeedProfile = .walk, seed: UInt64, configuration: Configuration = Configuration(),
        control: ReplayControl? = nil, clock: C, now: @escaping @Sendable () -> Date
    ) throws(SimulationError) {
        try path.validate()
        try speed.validate()
        try configuration.pacing.validate()
        try SimulationError.check(configuration.rate, in: 0.001...100, parameter: "rate", unit: "Hz", code: .invalidRate)
        if let duration = configuration.duration {
            try SimulationError.check(duration, in: 0...Double.greatestFiniteMagnitude, parameter: "duration", unit: "s")
        }
        if let altitude = configuration.altitude {
            try SimulationError.check(altitude, in: -12_000...100_000, parameter: "altitude", unit: "m")
        }
        try configuration.noise?.validate()
        self.path = path
        self.speed = speed
        self.seed = seed
        self.configuration = configuration
        self.clock = clock
        self.now = now
        self.control = control
    }

    /// Whether it gives fixes forever: an endless path (``MotionPath/isEndless``) with no duration.
    package var isEndless: Bool { configuration.duration == nil && path.isEndless }

    /// The time of its last fix after its first, when that is known before it moves: an endless
    /// path cut by a duration ends at the last tick within it. A line or a route arrives when its
    /// seeded pace takes it there (`nil`: known once played).
    package var knownDuration: Double? {
        guard path.isEndless, let duration = configuration.duration else { return nil }
        return (duration * configuration.rate).rounded(.down) / configuration.rate
    }

    package func makeAsyncIterator() -> Iterator {
        Iterator(
            simulator: MotionSimulator(path: path, profile: speed, seed: seed), configuration: configuration,
            schedule: PacedSchedule(clock: clock, pacing: configuration.pacing, control: control, onEvent: nil), now: now)
    }

    /// Delivers the mover's fixes; see ``SyntheticMotion``.
    package struct Iterator: AsyncIteratorProtocol {
        private var simulator: MotionSimulator
        private let configuration: Configuration
        private var schedule: PacedSchedule<C>
        /// See ``GPXReplay/Iterator``: virtual pacing avoids clock-generic code.
        private let isVirtual: Bool
        private let control: ReplayControl?
        private let now: @Sendable () -> Date
        private var noise: NoiseProcess?
        private var startTime: Date?
        private var tick = 0
        private var finished = false

        fileprivate init(
            simulator: MotionSimulator, configuration: Configuration, schedule: PacedSchedule<C>,
            now: @escaping @Sendable () -> Date
        ) {
            self.simulator = simulator
            self.configuration = configuration
            self.schedule = schedule
            self.isVirtual = configuration.pacing == .virtual
            self.control = schedule.control
            self.now = now
            self.noise = configuration.noise.map(NoiseProcess.init(model:))
        }

        /// The next fix, when it falls due; `nil` at the end or once the task is cancelled.
        ///
        /// - Throws: Whatever the clock's `sleep` throws other than `CancellationError`.
        package mutating func next() async throws -> Fix? {
            try await next(isolation: nil)
        }

        /// The next fix, computed on the caller's executor: a `for try await` loop on an actor
        /// (the main actor, say) gets each fix without a thread hop, and with virtual pacing
        /// without leaving the actor at all; only the clock's `sleep` runs elsewhere.
        ///
        /// - Throws: Whatever the clock's `sleep` throws other than `CancellationError`.
        package mutating func next(isolation actor: isolated (any Actor)?) async throws -> Fix? {
            while !finished {
                if Task.isCancelled { break }
                if tick > 0 {
                    if simulator.hasArrived { break }
                    simulator.advance(by: 1 / configuration.rate)
                }
                let elapsed = Double(tick) / configuration.rate
                if let duration = configuration.duration, elapsed > duration { break }
                tick += 1
                let start = startTime ?? configuration.startTime ?? now()
                startTime = start
                // Seconds after the start at which the fix is sent: on the clock, scaled and
                // moved by pauses, when timed.
                var sent = elapsed
                if !isVirtual {
                    let deadline = schedule.deadline(forElapsed: elapsed)
                    do {
                        try await schedule.clock.sleep(until: deadline.instant, tolerance: nil)
                    } catch is CancellationError {
                        break
                    }
                    sent = deadline.sinceStart.fractionalSeconds
                }
                if let control, control.isPaused {
                    guard let heldFor = await schedule.holdWhilePaused() else { break }
                    if !isVirtual { sent += heldFor.fractionalSeconds }
                }
                let stamp = configuration.stampsSendingTime ? sent : elapsed
                let truth = simulator.fix(at: start.addingTimeInterval(stamp), altitude: configuration.altitude)
                guard var noise else { return truth }
                defer { self.noise = noise }
                guard let reported = noise.apply(to: truth) else { continue }
                return reported
            }
            finished = true
            return nil
        }
    }
}

extension SyntheticMotion where C == ContinuousClock {
    /// Creates a synthetic mover on the continuous (monotonic, real) clock, with the system's wall clock.
    ///
    /// See ``init(path:speed:seed:configuration:control:clock:now:)`` for the parameters and errors.
    package init(
        path: MotionPath, speed: SpeedProfile = .walk, seed: UInt64, configuration: Configuration = Configuration(),
        control: ReplayControl? = nil
    ) throws(SimulationError) {
        try self.init(
            path: path, speed: speed, seed: seed, configuration: configuration, control: control, clock: ContinuousClock(),
            now: { Date() })
    }
}

@available(*, unavailable)
extension SyntheticMotion.Iterator: Sendable {}
