#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import GPXFormat
package import LocationCore

/// Plays a GPX track, route or waypoint list as a stream of ``/LocationCore/Fix`` on an injected clock.
///
/// **Timing.** With recorded `<time>`s, ``Pacing/timed(speedFactor:)`` delivers each fix when its
/// offset from the first, divided by the speed factor, has passed on the clock; ``Pacing/virtual``
/// delivers as fast as the consumer asks (back-pressure), times unchanged. A path without times
/// (or with ``Configuration/ignoresTimestamps``) is walked at ``Configuration/untimedSpeed`` along
/// its geodesic path. Deadlines are absolute (start instant + offset), so a slow consumer or a
/// late wake-up never shifts later fixes: real-time replays do not drift.
///
/// **Output.** By default the recorded points as they are; ``Configuration/rate`` resamples on a
/// fixed grid aligned to the first point, interpolating position, altitude, speed and course.
/// Every fix with a position has a speed and a course: what the file lacks is the move's it is
/// part of (the WGS-84 geodesic to the next point, or from the previous one at a segment's end;
/// speed 0 and no course standing still; docs/guides/replay.md, "Speed and course").
///
/// **Imperfect recordings** (the rules are in docs/guides/replay.md): a point whose time repeats its
/// predecessor's is delivered right after it (a zero wait); a point older than the latest is
/// dropped and reported; a segment break or a step longer than ``Configuration/gapThreshold`` is
/// a gap: reported through ``Configuration/onEvent`` and ``analysis``, waited through, and never
/// interpolated across unless ``Configuration/interpolatesAcrossGaps``.
///
/// **Controls.** ``Configuration/startOffset`` seeks; ``Configuration/loops`` plays lap after lap
/// with time running forward; a ``ReplayControl`` pauses and resumes;
/// ``Configuration/timestamps`` keeps recorded times or rebases them to `now()`.
///
/// Cancelling the consuming task ends iteration promptly (`next()` returns `nil`). Each iterator
/// is an independent replay that starts when it is first asked for a fix.
///
/// ```swift
/// let path = try ReplayPath(document: GPXDocument(contentsOfFile: "walk.gpx"))
/// let replay = try GPXReplay(path: path, configuration: .init(pacing: .timed(speedFactor: 10), rate: 1))
/// for try await fix in replay { print(fix.time, fix.coordinate!) }
/// ```
package struct GPXReplay<C: Clock>: LocationProvider where C.Duration == Duration {
    package typealias Element = Fix

    /// How to play the path.
    package struct Configuration: Sendable {
        /// Real time, scaled, or as fast as the consumer goes. Default: real time.
        package var pacing: Pacing
        /// Resampling rate in Hz (0.001…100), or `nil` to deliver the recorded points as they are.
        package var rate: Double?
        /// Walk the path at ``untimedSpeed`` even if it has times.
        package var ignoresTimestamps: Bool
        /// Speed in m/s (> 0, ≤ 1000) for paths without times. Default 1.4 (walking).
        package var untimedSpeed: Double
        /// Seconds into the path (recorded or derived time, unscaled) to start at, 0…duration.
        package var startOffset: Double
        /// Play lap after lap, forever, with times running forward across laps.
        package var loops: Bool
        /// Seconds from the last fix of a lap to the first fix of the next (≥ 0). `nil` means one
        /// resampling period with ``rate``, otherwise 1 s.
        package var loopInterval: Double?
        /// Keep recorded times, or rebase them so the first fix is `now()`.
        package var timestamps: TimestampPolicy
        /// A step between neighbouring recorded times longer than this many seconds is a gap (> 0).
        /// Default 60 s.
        package var gapThreshold: Double
        /// Resample across gaps and segment breaks too, as if the receiver had moved steadily.
        package var interpolatesAcrossGaps: Bool
        /// Degrade the positions with a seeded receiver model, or `nil` to replay them clean.
        package var noise: NoiseModel?
        /// Called from inside `next()` with each event, just before the fix it precedes.
        package var onEvent: (@Sendable (ReplayEvent) -> Void)?
        /// Metres of horizontal accuracy per unit of a point's `<hdop>` (finite, > 0), or `nil`
        /// (the default) to leave accuracies unknown: HDOP is not a distance without a receiver
        /// model. `locsim` gives gpsd's own (``/NMEAFormat/NMEAAccuracyModel/gpsd``), so an
        /// accuracy recorded as HDOP reads back as the accuracy it was.
        package var horizontalAccuracyPerHDOP: Double?

        package init(
            pacing: Pacing = .realTime, rate: Double? = nil, ignoresTimestamps: Bool = false,
            untimedSpeed: Double = 1.4, startOffset: Double = 0, loops: Bool = false, loopInterval: Double? = nil,
            timestamps: TimestampPolicy = .recorded, gapThreshold: Double = 60, interpolatesAcrossGaps: Bool = false,
            noise: NoiseModel? = nil, onEvent: (@Sendable (ReplayEvent) -> Void)? = nil,
            horizontalAccuracyPerHDOP: Double? = nil
        ) {
            self.horizontalAccuracyPerHDOP = horizontalAccuracyPerHDOP
            self.pacing = pacing
            self.rate = rate
            self.ignoresTimestamps = ignoresTimestamps
            self.untimedSpeed = untimedSpeed
            self.startOffset = startOffset
            self.loops = loops
            self.loopInterval = loopInterval
            self.timestamps = timestamps
            self.gapThreshold = gapThreshold
            self.interpolatesAcrossGaps = interpolatesAcrossGaps
            self.noise = noise
            self.onEvent = onEvent
        }
    }

    /// Which times the delivered fixes carry.
    package enum TimestampPolicy: Sendable, Hashable {
        /// The recorded times (moved forward by whole lap periods when looping). An untimed
        /// path's are its walk's own: `now()` at the first fix plus the seconds into the walk,
        /// whatever the speed factor or pauses (the times `--fast` gives it), so the game's rules
        /// see a walk at its speed when it is played faster.
        case recorded
        /// The first fix is `now()` when iteration starts, and each later fix carries the wall
        /// time at which it falls due: `now₀ + (offset − startOffset) / speedFactor + pauses`
        /// (unscaled with ``Pacing/virtual``).
        case rebased
    }

    /// The path as it will be played, and what was found in it.
    package let analysis: ReplayAnalysis
    /// The configuration, validated.
    package let configuration: Configuration
    private let timeline: ReplayTimeline
    private let clock: C
    private let now: @Sendable () -> Date
    private let control: ReplayControl?

    /// Creates a replay of `path` on `clock`.
    ///
    /// - Parameters:
    ///   - path: What to play.
    ///   - configuration: How to play it.
    ///   - control: Pause/resume controls shared with the caller, or `nil`.
    ///   - clock: The clock to wait on (a `VirtualClock` in tests).
    ///   - now: Wall-clock time for ``TimestampPolicy/rebased`` and untimed paths.
    /// - Throws: ``SimulationError``: ``SimulationError/Code/invalidSpeedFactor`` (0, negative, NaN,
    ///   outside 0.1…1000), ``SimulationError/Code/invalidRate``,
    ///   ``SimulationError/Code/invalidParameter``, ``SimulationError/Code/emptyPath``,
    ///   ``SimulationError/Code/missingTimestamp``, ``SimulationError/Code/zeroLengthLoop`` (looping
    ///   a path that spans no time), ``SimulationError/Code/offsetOutOfRange``.
    package init(
        path: ReplayPath, configuration: Configuration = Configuration(), control: ReplayControl? = nil, clock: C,
        now: @escaping @Sendable () -> Date
    ) throws(SimulationError) {
        try configuration.pacing.validate()
        if let rate = configuration.rate {
            try SimulationError.check(rate, in: 0.001...100, parameter: "rate", unit: "Hz", code: .invalidRate)
        }
        try SimulationError.check(configuration.untimedSpeed, in: 0.001...1000, parameter: "untimedSpeed", unit: "m/s")
        try SimulationError.check(
            configuration.gapThreshold, in: Double.leastNormalMagnitude...Double.greatestFiniteMagnitude,
            parameter: "gapThreshold", unit: "s")
        if let loopInterval = configuration.loopInterval {
            try SimulationError.check(loopInterval, in: 0...Double.greatestFiniteMagnitude, parameter: "loopInterval", unit: "s")
        }
        try configuration.noise?.validate()
        if let scale = configuration.horizontalAccuracyPerHDOP {
            try SimulationError.check(
                scale, in: Double.leastNonzeroMagnitude...Double.greatestFiniteMagnitude, parameter: "horizontalAccuracyPerHDOP",
                unit: "m")
        }
        let timeline = try ReplayTimeline(
            path: path, ignoresTimestamps: configuration.ignoresTimestamps, untimedSpeed: configuration.untimedSpeed,
            gapThreshold: configuration.gapThreshold, accuracyPerHDOP: configuration.horizontalAccuracyPerHDOP)
        guard configuration.startOffset.isFinite, configuration.startOffset >= 0,
            configuration.startOffset <= timeline.duration
        else {
            throw SimulationError(
                .offsetOutOfRange, parameter: "startOffset",
                message: "\(configuration.startOffset) s is outside the path's 0...\(timeline.duration) s")
        }
        if configuration.loops && timeline.duration == 0 {
            throw SimulationError(
                .zeroLengthLoop, parameter: "loops",
                message:
                    "the \(path.kind.rawValue) spans no time (\(timeline.count) point(s), all at one instant or place); "
                    + "a lap would take no time")
        }
        self.analysis = timeline.analysis
        self.configuration = configuration
        self.timeline = timeline
        self.clock = clock
        self.now = now
        self.control = control
    }

    package func makeAsyncIterator() -> Iterator {
        let configuration = configuration
        let loopInterval = configuration.loopInterval ?? configuration.rate.map { 1 / $0 } ?? 1
        return Iterator(
            cursor: ReplayCursor(
                timeline: timeline, rate: configuration.rate, loops: configuration.loops, loopInterval: loopInterval,
                interpolatesAcrossGaps: configuration.interpolatesAcrossGaps, startOffset: configuration.startOffset),
            configuration: configuration,
            stamping: configuration.timestamps == .rebased ? .sendingTime : timeline.analysis.isTimed ? .recorded : .walkTime,
            clock: clock, now: now, control: control)
    }

    /// Delivers the replay's fixes; see ``GPXReplay``.
    package struct Iterator: AsyncIteratorProtocol {
        /// The time each fix carries.
        fileprivate enum Stamping {
            /// Its recorded time.
            case recorded
            /// `now()` at the first fix plus its seconds into the walk, unscaled: an untimed
            /// path's own times (``TimestampPolicy/recorded``).
            case walkTime
            /// `now()` at the first fix plus the time since then at which it is delivered, scaled
            /// and moved by pauses (``TimestampPolicy/rebased``).
            case sendingTime
        }

        private var cursor: ReplayCursor
        private let configuration: Configuration
        private let stamping: Stamping
        private var schedule: PacedSchedule<C>
        /// Copies of the schedule's pacing and control, so the virtual-pacing path never touches
        /// clock-generic code (unspecialized generics cost a metadata lookup per call).
        private let isVirtual: Bool
        private let control: ReplayControl?
        private let now: @Sendable () -> Date
        private var noise: NoiseProcess?
        private var wallStart: Date?
        private var finished = false

        fileprivate init(
            cursor: ReplayCursor, configuration: Configuration, stamping: Stamping, clock: C, now: @escaping @Sendable () -> Date,
            control: ReplayControl?
        ) {
            self.cursor = cursor
            self.configuration = configuration
            self.stamping = stamping
            self.schedule = PacedSchedule(
                clock: clock, pacing: configuration.pacing, control: control, onEvent: configuration.onEvent)
            self.isVirtual = configuration.pacing == .virtual
            self.control = control
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
                guard let item = cursor.next() else { break }
                let wallStart = self.wallStart ?? now()
                self.wallStart = wallStart
                if !item.events.isEmpty, let onEvent = configuration.onEvent {
                    for event in item.events { onEvent(event) }
                }
                // Seconds after the start at which the fix is delivered: unscaled with virtual
                // pacing; on the clock, scaled and moved by pauses, when timed.
                let elapsed = item.offset - configuration.startOffset
                var delivered = elapsed
                if !isVirtual {
                    let deadline = schedule.deadline(forElapsed: elapsed)
                    do {
                        try await schedule.clock.sleep(until: deadline.instant, tolerance: nil)
                    } catch is CancellationError {
                        break
                    }
                    delivered = deadline.sinceStart.fractionalSeconds
                }
                if let control, control.isPaused {
                    guard let heldFor = await schedule.holdWhilePaused() else { break }
                    if !isVirtual { delivered += heldFor.fractionalSeconds }
                }
                var fix = item.fix
                switch stamping {
                case .recorded: break
                case .walkTime: fix.time = wallStart.addingTimeInterval(elapsed)
                case .sendingTime: fix.time = wallStart.addingTimeInterval(delivered)
                }
                if noise != nil {
                    guard let noisy = noise?.apply(to: fix) else { continue }
                    fix = noisy
                }
                return fix
            }
            finished = true
            return nil
        }
    }
}

extension GPXReplay where C == ContinuousClock {
    /// Creates a replay on the continuous (monotonic, real) clock, with the system's wall clock.
    ///
    /// See ``init(path:configuration:control:clock:now:)`` for the parameters and errors.
    package init(path: ReplayPath, configuration: Configuration = Configuration(), control: ReplayControl? = nil)
        throws(SimulationError)
    {
        try self.init(path: path, configuration: configuration, control: control, clock: ContinuousClock(), now: { Date() })
    }
}

@available(*, unavailable)
extension GPXReplay.Iterator: Sendable {}
