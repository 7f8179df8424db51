#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One scheduled window of GPS trouble, at an offset from the first fix.
///
/// Where ``NoiseModel`` makes a receiver's everyday errors at random, trouble windows put a named
/// event at a chosen time, so a QA engineer can ask what the game does in a tunnel at minute 5.
/// The definitions (docs/guides/scenarios.md, "GPS trouble") are exact, and
/// scripts/reference/make_trouble_reference.py computes the same fixes from them:
///
/// - ``Kind/signalLoss(initialAccuracy:recovery:)``: no fix during the window; then the receiver
///   reacquires, its reported accuracy falling linearly from `initialAccuracy` to the fix's own
///   (or the clean default of 5 m) over `recovery`, with a position error of that size.
/// - ``Kind/coldStart(initialAccuracy:recovery:)``: the same shape from a cold receiver: the
///   window is the time to first fix, then accuracy from ~65 m down.
/// - ``Kind/urbanCanyon(accuracy:correlationTime:)``: during the window a multipath error that
///   drifts, not white noise: east and north errors and the reported accuracy (within
///   `accuracy`) follow first-order Gauss–Markov processes with the correlation time given.
/// - ``Kind/jump(distance:bearing:honestAccuracy:)``: the first fix at or after the window's start
///   is displaced by `distance` metres; with an honest accuracy it reports `distance` as its
///   accuracy, otherwise it keeps its own.
/// - ``Kind/stale(age:)``: the first fix at or after the window's start is replaced by the fix
///   reported `age` earlier, with that fix's own time.
package struct TroubleWindow: Sendable, Hashable {
    /// What goes wrong.
    package enum Kind: Sendable, Hashable {
        /// A tunnel: no fixes, then reacquisition with poor accuracy improving.
        case signalLoss(initialAccuracy: Double = 50, recovery: Duration = .seconds(30))
        /// A cold start: no fix until the window ends, then accuracy improving.
        case coldStart(initialAccuracy: Double = 65, recovery: Duration = .seconds(60))
        /// A street canyon: correlated multipath error with honest accuracy in the range.
        case urbanCanyon(accuracy: ClosedRange<Double> = 20...80, correlationTime: Duration = .seconds(30))
        /// One fix displaced by `distance` metres, towards `bearing` (seeded when `nil`).
        case jump(distance: Double, bearing: Double? = nil, honestAccuracy: Bool = false)
        /// One fix replaced by the one reported `age` before it, old time and all.
        case stale(age: Duration)

        /// The kind's name in scenario files and logs.
        package var name: String {
            switch self {
            case .signalLoss: "signalLoss"
            case .coldStart: "coldStart"
            case .urbanCanyon: "urbanCanyon"
            case .jump: "jump"
            case .stale: "stale"
            }
        }
    }

    /// What goes wrong.
    package var kind: Kind
    /// When, after the first fix.
    package var at: Duration
    /// How long (ignored by ``Kind/jump(distance:bearing:honestAccuracy:)`` and ``Kind/stale(age:)``,
    /// which change one fix).
    package var duration: Duration

    package init(_ kind: Kind, at: Duration, for duration: Duration = .zero) {
        self.kind = kind
        self.at = at
        self.duration = duration
    }
}

/// What a trouble window did to one fix, for the event log.
package enum TroubleEffect: Sendable, Hashable, CustomStringConvertible {
    /// Dropped: no signal (`signalLoss`) or no first fix yet (`coldStart`).
    case noFix(kind: String)
    /// Reacquiring after `kind`: the position is off by `offset` metres, the accuracy reported.
    case reacquiring(kind: String, offset: Double, accuracy: Double)
    /// In a street canyon: off by `offset` metres, the accuracy reported.
    case multipath(offset: Double, accuracy: Double)
    /// Displaced by `distance` metres; `honest` when the accuracy says so.
    case jumped(distance: Double, honest: Bool)
    /// Replaced by the fix of `time`.
    case stale(time: Date)

    /// The case's name, for filtering logs: `noFix`, `jumped`, ….
    package var name: String {
        switch self {
        case .noFix: "noFix"
        case .reacquiring: "reacquiring"
        case .multipath: "multipath"
        case .jumped: "jumped"
        case .stale: "stale"
        }
    }

    package var description: String {
        switch self {
        case .noFix(let kind): kind == "coldStart" ? "cold start: no fix yet" : "signal lost"
        case .reacquiring(let kind, let offset, let accuracy):
            "\(kind == "coldStart" ? "first fixes" : "reacquiring"): \(Self.metres(offset)) off, accuracy \(Self.metres(accuracy))"
        case .multipath(let offset, let accuracy): "street canyon: \(Self.metres(offset)) off, accuracy \(Self.metres(accuracy))"
        case .jumped(let distance, let honest): "jumped \(Self.metres(distance))\(honest ? ", accuracy says so" : ", accuracy does not say so")"
        case .stale: "stale: an old fix with its old time"
        }
    }

    private static func metres(_ value: Double) -> String { "\((value * 10).rounded() / 10) m" }
}

/// Applies trouble windows to a fix stream: seeded, pure, the same input and seed giving
/// bit-identical output.
///
/// ```swift
/// var trouble = try GPSTrouble(windows: [TroubleWindow(.signalLoss(), at: .seconds(300), for: .seconds(60))], seed: 7)
/// let (reported, effects) = trouble.apply(to: fix)   // reported is nil inside the tunnel
/// ```
package struct GPSTrouble: Sendable {
    /// Told of a fix the windows changed or dropped: its offset from the first fix (seconds), the
    /// receiver's fix, what is reported instead (`nil`: nothing), and what each window did.
    package typealias EffectsHandler = @Sendable (_ offset: Double, _ original: Fix, _ reported: Fix?, _ effects: [TroubleEffect]) -> Void

    /// The accuracy a clean fix (one without its own) is taken to have, in metres: a settled
    /// receiver in the open (``NoiseModel``'s default).
    package static let cleanAccuracy = 5.0

    package let windows: [TroubleWindow]
    private var states: [WindowState]
    private var firstTime: Date?
    /// Fixes reported so far, kept as long as a stale window may still want them.
    private var history: [Fix] = []
    private let historySpan: Duration

    fileprivate struct WindowState: Sendable {
        var random: SeededGenerator
        var east = 0.0, north = 0.0, level = 0.0
        var lastTime: Date?
        var bearing = 0.0
        var done = false
    }

    /// Checks the windows and seeds each one's own stream (in order, from `seed`).
    ///
    /// - Throws: ``SimulationError/Code/invalidParameter`` naming the window's key path
    ///   (`trouble[2].for`) when an offset or duration is negative, an accuracy or distance is
    ///   not finite and ≥ 0 (an accuracy range's lower bound > 0), or a time is not > 0 where a
    ///   window needs one (a signal loss's, cold start's or urban canyon's `for` among them).
    package init(windows: [TroubleWindow], seed: UInt64) throws(SimulationError) {
        for (index, window) in windows.enumerated() { try Self.validate(window, key: "trouble[\(index)]") }
        try Self.checkOneAtATime(windows)
        var random = SeededGenerator(seed: seed)
        states = windows.map { window in
            var state = WindowState(random: random.split())
            switch window.kind {
            case .signalLoss, .coldStart:
                state.east = state.random.nextGaussian()
                state.north = state.random.nextGaussian()
            case .urbanCanyon:
                state.east = state.random.nextGaussian()
                state.north = state.random.nextGaussian()
                state.level = state.random.nextGaussian()
            case .jump(_, let bearing, _):
                state.bearing = bearing ?? state.random.nextUnit() * 360
            case .stale:
                break
            }
            return state
        }
        self.windows = windows
        historySpan = windows.reduce(.zero) { span, window in
            if case .stale(let age) = window.kind { return max(span, age) }
            return span
        }
    }

    /// The reported fix for `fix` (`nil` when a window drops it) and what each window did to it,
    /// in window order. Fixes without a position pass through. Offer fixes in time order.
    package mutating func apply(to fix: Fix) -> (fix: Fix?, effects: [TroubleEffect]) {
        let start = firstTime ?? fix.time
        firstTime = start
        guard fix.hasPosition else { return (fix, []) }
        let offset = fix.time.timeIntervalSince(start)
        var reported = fix
        var effects: [TroubleEffect] = []
        for index in windows.indices {
            let window = windows[index]
            let begin = window.at.fractionalSeconds, end = begin + window.duration.fractionalSeconds
            guard offset >= begin, !states[index].done else { continue }
            switch window.kind {
            case .signalLoss(let initial, let recovery), .coldStart(let initial, let recovery):
                if offset < end {
                    effects.append(.noFix(kind: window.kind.name))
                    return (nil, effects)
                }
                let progress = (offset - end) / recovery.fractionalSeconds
                guard progress < 1 else {
                    states[index].done = true
                    continue
                }
                let settled = reported.horizontalAccuracy ?? Self.cleanAccuracy
                let accuracy = initial + (settled - initial) * progress
                let moved = Self.step(&states[index], at: fix.time, correlationTime: 10, withLevel: false)
                    .displace(&reported, sigma: accuracy / NoiseModel.accuracyPerSigma)
                reported.horizontalAccuracy = accuracy
                effects.append(.reacquiring(kind: window.kind.name, offset: moved, accuracy: accuracy))
            case .urbanCanyon(let range, let correlationTime):
                guard offset < end else {
                    states[index].done = true
                    continue
                }
                let state = Self.step(&states[index], at: fix.time, correlationTime: correlationTime.fractionalSeconds, withLevel: true)
                // The level's stationary N(0, 1) mapped through its CDF: uniform over the range.
                let accuracy = range.lowerBound + (range.upperBound - range.lowerBound) * 0.5 * erfc(-state.level / 2.0.squareRoot())
                let moved = state.displace(&reported, sigma: accuracy / NoiseModel.accuracyPerSigma)
                reported.horizontalAccuracy = accuracy
                effects.append(.multipath(offset: moved, accuracy: accuracy))
            case .jump(let distance, _, let honest):
                states[index].done = true
                if let coordinate = reported.coordinate {
                    reported.coordinate = coordinate.destination(distance: distance, bearing: states[index].bearing)
                }
                if honest { reported.horizontalAccuracy = max(reported.horizontalAccuracy ?? Self.cleanAccuracy, distance) }
                effects.append(.jumped(distance: distance, honest: honest))
            case .stale(let age):
                states[index].done = true
                let wanted = fix.time.addingTimeInterval(-age.fractionalSeconds)
                guard let old = history.last(where: { $0.time <= wanted }) else { continue }
                reported = old
                effects.append(.stale(time: old.time))
            }
        }
        if historySpan > .zero {
            history.append(reported)
            let horizon = fix.time.addingTimeInterval(-historySpan.fractionalSeconds)
            // Keep the newest fix at or before the horizon: a later stale window may still want it.
            if let keep = history.lastIndex(where: { $0.time <= horizon }), keep > 0 { history.removeFirst(keep) }
        }
        return (reported, effects)
    }

    /// Steps a window's Gauss–Markov processes to `time` (the ``NoiseModel`` recurrence).
    private static func step(_ state: inout WindowState, at time: Date, correlationTime: Double, withLevel: Bool) -> WindowState {
        if let last = state.lastTime, time > last {
            let phi = exp(-time.timeIntervalSince(last) / correlationTime)
            let drive = (1 - phi * phi).squareRoot()
            state.east = phi * state.east + drive * state.random.nextGaussian()
            state.north = phi * state.north + drive * state.random.nextGaussian()
            if withLevel { state.level = phi * state.level + drive * state.random.nextGaussian() }
        }
        state.lastTime = time
        return state
    }

    /// The offsets (seconds after the first fix) between which `window` changes fixes: a
    /// signal loss or cold start until its recovery ends, a street canyon for its length, a
    /// jump or a stale fix at one instant (`begin == end`).
    private static func span(_ window: TroubleWindow) -> (begin: Double, end: Double) {
        let begin = window.at.fractionalSeconds
        switch window.kind {
        case .signalLoss(_, let recovery), .coldStart(_, let recovery): return (begin, begin + (window.duration + recovery).fractionalSeconds)
        case .urbanCanyon: return (begin, begin + window.duration.fractionalSeconds)
        case .jump, .stale: return (begin, begin)
        }
    }

    /// `window` as an error message names it: `signalLoss 3:00–4:00, recovering until 4:30`, `jump at 9:00`.
    private static func described(_ window: TroubleWindow) -> String {
        let (begin, end) = span(window)
        let from = DurationText.clockText(begin)
        switch window.kind {
        case .signalLoss, .coldStart:
            let until = DurationText.clockText(begin + window.duration.fractionalSeconds)
            return "\(window.kind.name) \(from)–\(until), recovering until \(DurationText.clockText(end))"
        case .urbanCanyon: return "urbanCanyon \(from)–\(DurationText.clockText(end))"
        case .jump, .stale: return "\(window.kind.name) at \(from)"
        }
    }

    /// Refuses windows that would change the same fixes: two effects on one fix would contradict
    /// each other in the log (`jumped 300 m` and `signal lost`; two reacquisition errors) and
    /// depend on the windows' order in the list. A jump or a stale fix within a street canyon
    /// is allowed: that is where they happen, and each says what it did.
    ///
    /// A sweep in order of beginning (a file of thousands of windows is checked in n log n, not
    /// n²): a window that ended before the next begins can overlap nothing after it.
    private static func checkOneAtATime(_ windows: [TroubleWindow]) throws(SimulationError) {
        let spans = windows.map(span)
        let order = windows.indices.sorted { (spans[$0].begin, $0) < (spans[$1].begin, $1) }
        var open: [Int] = []
        for current in order {
            let b = spans[current]
            open.removeAll { other in
                let a = spans[other]
                return a.begin == a.end ? a.begin < b.begin : a.end <= b.begin
            }
            for other in open {
                let (earlier, later) = (min(other, current), max(other, current))
                guard overlap(spans[earlier], spans[later]) else { continue }
                func isCanyon(_ window: TroubleWindow) -> Bool { if case .urbanCanyon = window.kind { true } else { false } }
                let (a, b) = (spans[earlier], spans[later])
                if (isCanyon(windows[earlier]) && b.begin == b.end) || (isCanyon(windows[later]) && a.begin == a.end) { continue }
                throw SimulationError(
                    .invalidParameter, parameter: "trouble[\(later)].at",
                    message: "\(described(windows[later])) overlaps trouble[\(earlier)] (\(described(windows[earlier]))): "
                        + "one window at a time, but for a jump or stale fix within an urbanCanyon")
            }
            open.append(current)
        }
    }

    /// Whether two windows' spans share a fix time: a point (a jump, a stale fix) is within a
    /// span that starts at or before it and ends after it; two points, at one time.
    private static func overlap(_ a: (begin: Double, end: Double), _ b: (begin: Double, end: Double)) -> Bool {
        switch (a.begin == a.end, b.begin == b.end) {
        case (true, true): a.begin == b.begin
        case (true, false): b.begin <= a.begin && a.begin < b.end
        case (false, true): a.begin <= b.begin && b.begin < a.end
        case (false, false): a.begin < b.end && b.begin < a.end
        }
    }

    private static func validate(_ window: TroubleWindow, key: String) throws(SimulationError) {
        let forever = Double.greatestFiniteMagnitude
        try SimulationError.check(window.at.fractionalSeconds, in: 0...forever, parameter: "\(key).at", unit: "s")
        switch window.kind {
        case .signalLoss, .coldStart, .urbanCanyon:
            // A window of no length would still run its recovery: the trouble with none of its cause.
            try SimulationError.check(
                window.duration.fractionalSeconds, in: Double.leastNormalMagnitude...forever, parameter: "\(key).for", unit: "s")
        case .jump, .stale:
            try SimulationError.check(window.duration.fractionalSeconds, in: 0...forever, parameter: "\(key).for", unit: "s")
        }
        switch window.kind {
        case .signalLoss(let initial, let recovery), .coldStart(let initial, let recovery):
            try SimulationError.check(initial, in: Double.leastNormalMagnitude...1_000_000, parameter: "\(key).initialAccuracy", unit: "m")
            try SimulationError.check(
                recovery.fractionalSeconds, in: Double.leastNormalMagnitude...forever, parameter: "\(key).recovery", unit: "s")
        case .urbanCanyon(let range, let correlationTime):
            try SimulationError.check(range.lowerBound, in: Double.leastNormalMagnitude...1_000_000, parameter: "\(key).accuracy", unit: "m")
            try SimulationError.check(range.upperBound, in: 0...1_000_000, parameter: "\(key).accuracy", unit: "m")
            try SimulationError.check(
                correlationTime.fractionalSeconds, in: Double.leastNormalMagnitude...forever, parameter: "\(key).correlationTime", unit: "s")
        case .jump(let distance, let bearing, _):
            // A jump of 0 m changes nothing (and says it jumped).
            try SimulationError.check(distance, in: Double.leastNormalMagnitude...20_000_000, parameter: "\(key).distance", unit: "m")
            if let bearing { try SimulationError.check(bearing, in: 0...360, parameter: "\(key).bearing", unit: "°") }
        case .stale(let age):
            try SimulationError.check(age.fractionalSeconds, in: Double.leastNormalMagnitude...forever, parameter: "\(key).age", unit: "s")
            // The fix `age` before the window's first one must exist: none comes before the route's first.
            guard age <= window.at else {
                let at = DurationText.clockText(window.at.fractionalSeconds)
                throw SimulationError(
                    .invalidParameter, parameter: "\(key).age",
                    message: "\(DurationText.clockText(age.fractionalSeconds)) reaches back before the route's first fix: at \(at) a fix is at most \(at) old")
            }
        }
    }
}

extension GPSTrouble.WindowState {
    /// Moves `fix` by `sigma` times the state's east and north errors; returns the metres moved.
    fileprivate func displace(_ fix: inout Fix, sigma: Double) -> Double {
        let dx = sigma * east, dy = sigma * north
        let offset = (dx * dx + dy * dy).squareRoot()
        if offset > 0, let coordinate = fix.coordinate {
            fix.coordinate = coordinate.destination(distance: offset, bearing: atan2(dx, dy) * 180 / .pi)
        }
        return offset
    }
}
