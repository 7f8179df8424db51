public import Foundation
public import LocationCore

/// The phone's operating system between a location provider and the app: offered every fix the
/// receiver computes, it says which reach the app, when, and why the others do not.
///
/// A value type with no clock of its own: time is the offered fixes' time, so a replay in virtual
/// time gives the same deliveries as one in real time. Offer fixes in time order; tell it when
/// the app moves to the background and back (``moveToBackground(at:)``,
/// ``moveToForeground(at:)``); call ``finish()`` after the last fix to release a batch still held.
///
/// ```swift
/// var delivery = LocationDelivery(policy: try DeliveryPolicy(service: .significantChange()))
/// for fix in fixes {
///     for case .delivered(let batch, let time) in delivery.offer(fix) {
///         // The app's locationManager(_:didUpdateLocations:) runs at `time` with `batch`.
///     }
/// }
/// ```
public struct LocationDelivery: Sendable {
    /// The rules applied.
    public let policy: DeliveryPolicy
    /// When the automatic pause began, while deliveries are paused; otherwise `nil`.
    public private(set) var pausedSince: Date?
    /// When the app went to the background, while it is there; otherwise `nil`.
    public private(set) var backgroundSince: Date?

    private var lastAccepted: Fix?
    private var batch: [Fix] = []
    private var batchDeadline: Date?
    private var stay: (anchor: Coordinate, since: Date)?
    /// The last fix with a position offered while the app was in the foreground: the location
    /// the OS hands back, with its old time, when the app returns.
    private var lastKnown: Fix?

    /// Creates the stage with nothing delivered yet.
    ///
    /// - Parameter policy: The rules to apply.
    public init(policy: DeliveryPolicy) {
        self.policy = policy
    }

    /// Offers the next fix the receiver computed; returns what the app sees because of it, in
    /// order: a held batch whose time has come (Android batching), then this fix's fate.
    ///
    /// - Parameter fix: The next fix, no earlier than the one before.
    /// - Returns: Zero or more events. A fix held in a batch gives no event until the batch is
    ///   delivered.
    public mutating func offer(_ fix: Fix) -> [DeliveryEvent] {
        var events: [DeliveryEvent] = []
        if let deadline = batchDeadline, fix.time > deadline { events.append(releaseBatch(at: deadline)) }
        guard let coordinate = fix.coordinate, fix.hasPosition else {
            events.append(.withheld(fix, because: .noPosition))
            return events
        }
        if let backgroundSince {
            events.append(.withheld(fix, because: .inBackground(since: backgroundSince)))
            return events
        }
        if let reason = pauseReason(for: fix, at: coordinate) {
            // Paused, the OS powers the receiver down: it knows nothing newer than the pause.
            events.append(.withheld(fix, because: reason))
            return events
        }
        lastKnown = fix
        let last = lastAccepted
        let elapsed = last.map { Self.micros(fix.time) - Self.micros($0.time) } ?? 0
        let distance = last?.coordinate.map { coordinate.distance(to: $0) } ?? 0
        switch policy.service {
        case .standard(let filter):
            if last != nil, let filter, distance <= filter {
                events.append(.withheld(fix, because: .withinDistanceFilter(distance: distance, filter: filter)))
                return events
            }
        case .significantChange(let minimumDistance, let minimumInterval):
            if last != nil, distance < minimumDistance || elapsed < minimumInterval.wholeMicroseconds {
                events.append(.withheld(fix, because: .noSignificantChange(
                    distance: distance, elapsed: .microseconds(elapsed), minimumDistance: minimumDistance, minimumInterval: minimumInterval)))
                return events
            }
        case .reducedAccuracy(let cellSize, let minimumInterval):
            if last != nil, elapsed < minimumInterval.wholeMicroseconds {
                events.append(.withheld(fix, because: .tooSoon(elapsed: .microseconds(elapsed), minimumInterval: minimumInterval)))
                return events
            }
            lastAccepted = fix
            events.append(.delivered([Self.snapped(fix, at: coordinate, cellSize: cellSize)], at: fix.time))
            return events
        case .fused(let minimumInterval, let minimumDistance, let maximumDelay):
            if last != nil, elapsed < minimumInterval.wholeMicroseconds {
                events.append(.withheld(fix, because: .tooSoon(elapsed: .microseconds(elapsed), minimumInterval: minimumInterval)))
                return events
            }
            if last != nil, distance < minimumDistance {
                events.append(.withheld(fix, because: .tooClose(distance: distance, minimumDistance: minimumDistance)))
                return events
            }
            if maximumDelay > .zero {
                lastAccepted = fix
                if batch.isEmpty { batchDeadline = fix.time.addingTimeInterval(maximumDelay.fractionalSeconds) }
                batch.append(fix)
                return events
            }
        }
        lastAccepted = fix
        events.append(.delivered([fix], at: fix.time))
        return events
    }

    /// Ends the stream: delivers a batch still held, at its deadline.
    ///
    /// - Returns: The held batch's delivery, or nothing.
    public mutating func finish() -> [DeliveryEvent] {
        guard let deadline = batchDeadline else { return [] }
        return [releaseBatch(at: deadline)]
    }

    /// The app went to the background (with no background location mode): nothing is delivered
    /// until it returns. A batch still held is delivered now, before the app is suspended.
    ///
    /// - Parameter time: When the app left the foreground.
    /// - Returns: The held batch's delivery at `time`, or nothing.
    public mutating func moveToBackground(at time: Date) -> [DeliveryEvent] {
        guard backgroundSince == nil else { return [] }
        backgroundSince = time
        guard batchDeadline != nil else { return [] }
        return [releaseBatch(at: time)]
    }

    /// The app came to the foreground: the OS at once hands it the last location it knows, with
    /// that fix's own (old) time, then fresh fixes as its rules allow. An automatic pause ends,
    /// and the player's stay is measured afresh from the next fix. The location it knows is the
    /// last one before the app left (or before an automatic pause, which powers the receiver
    /// down); with approximate location it is approximate too, as every fix the app gets.
    ///
    /// - Parameter time: When the app returned.
    /// - Returns: The cached fix delivered at `time`, or nothing when no fix was ever known.
    public mutating func moveToForeground(at time: Date) -> [DeliveryEvent] {
        backgroundSince = nil
        pausedSince = nil
        stay = nil
        guard let cached = lastKnown, let coordinate = cached.coordinate else { return [] }
        lastAccepted = cached
        if case .reducedAccuracy(let cellSize, _) = policy.service {
            return [.delivered([Self.snapped(cached, at: coordinate, cellSize: cellSize)], at: time)]
        }
        return [.delivered([cached], at: time)]
    }

    private mutating func releaseBatch(at deadline: Date) -> DeliveryEvent {
        let event = DeliveryEvent.delivered(batch, at: deadline)
        batch = []
        batchDeadline = nil
        return event
    }

    /// Tracks the player's stay; returns the reason to withhold while paused.
    private mutating func pauseReason(for fix: Fix, at coordinate: Coordinate) -> WithholdReason? {
        guard let pause = policy.automaticPause else { return nil }
        if let pausedSince { return .pausedAutomatically(since: pausedSince) }
        guard let current = stay, coordinate.distance(to: current.anchor) <= pause.radius else {
            stay = (coordinate, fix.time)
            return nil
        }
        guard Self.micros(fix.time) - Self.micros(current.since) >= pause.after.wholeMicroseconds else { return nil }
        pausedSince = fix.time
        return .pausedAutomatically(since: fix.time)
    }

    /// The fix as approximate location gives it: the centre of its grid cell, the cell's
    /// half-diagonal as accuracy. Rows are `cellSize` metres of latitude; each row's columns are
    /// `cellSize` metres of longitude at the row's central latitude (one column near a pole).
    /// Nothing finer than the cell is kept: no altitude (so a 2D fix), speed or course, which
    /// the precise positions gave and would tell where in the cell the player is and goes.
    static func snapped(_ fix: Fix, at coordinate: Coordinate, cellSize: Double) -> Fix {
        let rowDegrees = cellSize / Self.metresPerDegree
        let row = (coordinate.latitude / rowDegrees).rounded(.down)
        let latitude = min(90, max(-90, (row + 0.5) * rowDegrees))
        let columnDegrees = min(360, rowDegrees / max(cos(latitude * .pi / 180), 1e-12))
        let column = ((coordinate.longitude + 180) / columnDegrees).rounded(.down)
        var longitude = -180 + (column + 0.5) * columnDegrees
        if longitude >= 180 { longitude -= 360 }
        var snapped = fix
        snapped.coordinate = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
        snapped.horizontalAccuracy = cellSize * 2.0.squareRoot() / 2
        snapped.altitude = nil
        snapped.verticalAccuracy = nil
        snapped.geoidSeparation = nil
        snapped.speed = nil
        snapped.course = nil
        snapped.mode = min(fix.mode, .twoDimensional)
        return snapped
    }

    /// Metres in one degree of latitude on the fetch rule's sphere.
    static let metresPerDegree = Sphere.radius * .pi / 180

    static func micros(_ date: Date) -> Int64 { FetchThrottle.micros(date) }
}

/// What the app sees of one offered fix, or of a held batch.
public enum DeliveryEvent: Sendable, Hashable {
    /// `locationManager(_:didUpdateLocations:)` (or Android's `onLocationResult`) runs at `at`
    /// with these fixes, oldest first; the app's own code often reads only the last.
    case delivered([Fix], at: Date)
    /// The fix never reaches the app.
    case withheld(Fix, because: WithholdReason)
}

/// Why a fix did not reach the app.
public enum WithholdReason: Sendable, Hashable, CustomStringConvertible {
    /// The fix has no position (a receiver status report).
    case noPosition
    /// Standard service: not more than `filter` metres from the last delivered fix.
    case withinDistanceFilter(distance: Double, filter: Double)
    /// Significant-change service: too close to, or too soon after, the last delivered fix.
    case noSignificantChange(distance: Double, elapsed: Duration, minimumDistance: Double, minimumInterval: Duration)
    /// Less than the least interval after the last fix let through: delivered (approximate
    /// location), or accepted (fused provider; with batching, possibly not delivered yet).
    case tooSoon(elapsed: Duration, minimumInterval: Duration)
    /// Fused provider: less than the least distance from the last accepted fix (with batching,
    /// possibly not delivered yet).
    case tooClose(distance: Double, minimumDistance: Double)
    /// Deliveries are paused automatically since the player stopped.
    case pausedAutomatically(since: Date)
    /// The app is in the background (no background location mode).
    case inBackground(since: Date)

    /// The case's name, for filtering logs and counting: `withinDistanceFilter`, `inBackground`, ….
    public var name: String {
        switch self {
        case .noPosition: "noPosition"
        case .withinDistanceFilter: "withinDistanceFilter"
        case .noSignificantChange: "noSignificantChange"
        case .tooSoon: "tooSoon"
        case .tooClose: "tooClose"
        case .pausedAutomatically: "pausedAutomatically"
        case .inBackground: "inBackground"
        }
    }

    /// A short phrase for logs, naming the rule and the numbers.
    public var description: String {
        switch self {
        case .noPosition: "no position"
        case .withinDistanceFilter(let distance, let filter): "\(Self.metres(distance)) from the last delivered fix, within distanceFilter \(Self.metres(filter))"
        case .noSignificantChange(let distance, let elapsed, let minimumDistance, let minimumInterval):
            "\(Self.metres(distance)) and \(elapsed.fractionalSeconds) s since the last delivered fix; significant change needs \(Self.metres(minimumDistance)) and \(minimumInterval.fractionalSeconds) s"
        case .tooSoon(let elapsed, let minimumInterval): "\(elapsed.fractionalSeconds) s after the last fix let through, sooner than \(minimumInterval.fractionalSeconds) s"
        case .tooClose(let distance, let minimumDistance): "\(Self.metres(distance)) from the last fix let through, closer than \(Self.metres(minimumDistance))"
        case .pausedAutomatically: "updates paused automatically: the player stopped"
        case .inBackground: "the app is in the background"
        }
    }

    private static func metres(_ value: Double) -> String { "\((value * 10).rounded() / 10) m" }
}
