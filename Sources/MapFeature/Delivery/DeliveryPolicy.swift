public import LocationCore

/// Which fixes the phone's operating system hands to the app, and when: the rules of one location
/// service, as a ``LocationDelivery`` applies them between a provider and the map logic.
///
/// A phone never passes on every fix its receiver computes. The definitions here follow the
/// platforms' documentation (docs/guides/scenarios.md cites it) and pin down what the
/// documentation leaves open, so that a replay is reproducible:
///
/// - ``Service/standard(distanceFilter:)``: iOS's standard location service. The first fix is
///   delivered; a later one when it is strictly more than `distanceFilter` metres from the last
///   delivered fix (`nil`: `kCLDistanceFilterNone`, every fix).
/// - ``Service/significantChange(minimumDistance:minimumInterval:)``: iOS's significant-change
///   service. The first fix is delivered; a later one when it is at least 500 m from the last
///   delivered fix **and** at least 300 s after it.
/// - ``Service/reducedAccuracy(cellSize:minimumInterval:)``: iOS's approximate location. The
///   position is snapped to the centre of a grid cell (5 km by default), the horizontal accuracy
///   is the cell's half-diagonal, and at most one fix is delivered per 900 s.
/// - ``Service/fused(minimumInterval:minimumDistance:maximumDelay:)``: Android's fused provider
///   (`minUpdateIntervalMillis`, `minUpdateDistanceMeters`, `maxUpdateDelayMillis`). A fix is
///   accepted when it is at least the interval after and at least the distance from the last
///   accepted fix; with a delay, accepted fixes are held and delivered together, in one batch,
///   when the first of them is that old.
///
/// ``automaticPause`` models `pausesLocationUpdatesAutomatically`: once the player has stayed
/// within ``AutomaticPause/radius`` of one place for ``AutomaticPause/after``, nothing is
/// delivered until the app comes to the foreground again (``LocationDelivery/moveToForeground(at:)``).
///
/// Distances are great-circle metres on the sphere, as the fetch rule measures them
/// (``/LocationCore/Coordinate/distance(to:)``).
///
/// ```swift
/// let policy = try DeliveryPolicy(service: .standard(distanceFilter: 50))
/// var delivery = LocationDelivery(policy: policy)
/// for event in delivery.offer(fix) { print(event) }
/// ```
public struct DeliveryPolicy: Sendable, Hashable {
    /// One location service and its parameters.
    public enum Service: Sendable, Hashable {
        /// iOS's standard service with a distance filter in metres (`nil`: every fix).
        case standard(distanceFilter: Double?)
        /// iOS's significant-change service: at least `minimumDistance` metres and at least
        /// `minimumInterval` after the last delivered fix (the documented 500 m and 5 minutes).
        case significantChange(minimumDistance: Double = 500, minimumInterval: Duration = .seconds(300))
        /// iOS's approximate location: positions snapped to cells of `cellSize` metres, at most one
        /// delivery per `minimumInterval`.
        case reducedAccuracy(cellSize: Double = 5_000, minimumInterval: Duration = .seconds(900))
        /// Android's fused provider: the least time and distance between accepted fixes, and how
        /// long accepted fixes may be held to be delivered in one batch (`.zero`: no batching).
        case fused(minimumInterval: Duration, minimumDistance: Double, maximumDelay: Duration)
    }

    /// `pausesLocationUpdatesAutomatically`: stop delivering once the player has stayed within
    /// `radius` metres for `after`.
    public struct AutomaticPause: Sendable, Hashable {
        /// How far the player may wander and still count as staying, in metres.
        public let radius: Double
        /// How long the player must stay before deliveries stop.
        public let after: Duration

        /// Creates a pause rule; see ``DeliveryPolicy/init(service:automaticPause:)`` for the checks.
        ///
        /// - Parameters:
        ///   - radius: Metres, finite and > 0. Default 25.
        ///   - after: How long the player stays before the pause, > 0.
        public init(radius: Double = 25, after: Duration) {
            self.radius = radius
            self.after = after
        }
    }

    /// Every fix, as a provider gives it: what a replay does without a delivery model.
    public static let everyFix = DeliveryPolicy(checked: .standard(distanceFilter: nil), automaticPause: nil)

    /// The service.
    public let service: Service
    /// The automatic pause, or `nil` for none.
    public let automaticPause: AutomaticPause?

    /// Creates a policy, checking every parameter.
    ///
    /// - Parameters:
    ///   - service: The location service and its parameters.
    ///   - automaticPause: `pausesLocationUpdatesAutomatically`, or `nil` (the default) for none.
    /// - Throws: ``/LocationCore/ConfigurationError`` naming the parameter (`distanceFilter`,
    ///   `minimumDistance`, `minimumInterval`, `cellSize`, `maximumDelay`, `pause.radius`,
    ///   `pause.after`) when a distance is negative or not finite, a cell size is not > 0, or a
    ///   time is negative (`pause.after` must be > 0).
    public init(service: Service, automaticPause: AutomaticPause? = nil) throws(ConfigurationError) {
        switch service {
        case .standard(let filter):
            if let filter { try Self.checkMetres(filter, "distanceFilter") }
        case .significantChange(let distance, let interval):
            try Self.checkMetres(distance, "minimumDistance")
            try Self.checkInterval(interval, "minimumInterval")
        case .reducedAccuracy(let cellSize, let interval):
            guard cellSize.isFinite, cellSize > 0 else {
                throw ConfigurationError(parameter: "cellSize", "must be a finite number of metres > 0, got \(cellSize)")
            }
            try Self.checkInterval(interval, "minimumInterval")
        case .fused(let interval, let distance, let delay):
            try Self.checkInterval(interval, "minimumInterval")
            try Self.checkMetres(distance, "minimumDistance")
            try Self.checkInterval(delay, "maximumDelay")
        }
        if let pause = automaticPause {
            guard pause.radius.isFinite, pause.radius > 0 else {
                throw ConfigurationError(parameter: "pause.radius", "must be a finite number of metres > 0, got \(pause.radius)")
            }
            guard pause.after > .zero else {
                throw ConfigurationError(parameter: "pause.after", "must be > 0, got \(pause.after)")
            }
        }
        self.init(checked: service, automaticPause: automaticPause)
    }

    private init(checked service: Service, automaticPause: AutomaticPause?) {
        self.service = service
        self.automaticPause = automaticPause
    }

    private static func checkMetres(_ value: Double, _ parameter: String) throws(ConfigurationError) {
        guard value.isFinite, value >= 0 else {
            throw ConfigurationError(parameter: parameter, "must be a finite number of metres ≥ 0, got \(value)")
        }
    }

    private static func checkInterval(_ value: Duration, _ parameter: String) throws(ConfigurationError) {
        guard value >= .zero else { throw ConfigurationError(parameter: parameter, "must not be negative, got \(value)") }
    }
}
