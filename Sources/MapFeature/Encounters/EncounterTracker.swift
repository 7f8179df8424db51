public import LocationCore

/// Decides when the player meets a place on the map: the game's "encounter".
///
/// An encounter happens when the player comes within ``reach`` of a place that is currently on
/// the map. It is reported once per approach: the place is then disarmed until the player has
/// moved more than twice the reach away from where it was met, which re-arms it (a place that
/// moves while disarmed does not take that wider circle with it). The hysteresis keeps GPS
/// jitter at the edge of the reach from reporting the same approach again and again.
///
/// A pure value: feed it positions and the places on the map, read back encounters.
///
/// Give it the places when they change (``places``) and each position with ``update(position:)``:
/// it keeps them bucketed by where they are, so a position only measures the places that can be
/// within reach instead of every place on the map. ``update(position:places:)`` measures every
/// place it is given; both decide with the same haversine and give the same encounters.
///
/// ```swift
/// var tracker = try EncounterTracker(reach: 40)
/// tracker.places = placesOnMap          // when the map changes
/// let met = tracker.update(position: fix.coordinate!)
/// ```
///
/// Game logic, so it lives with the map screen's; `locsim replay`'s encounter report uses it too.
public struct EncounterTracker: Sendable, Hashable {
    /// One encounter.
    public struct Encounter: Sendable, Hashable {
        /// The place met.
        public var place: Place
        /// Spherical distance from the player, in metres (≤ reach).
        public var distance: Double
    }

    /// Reach in metres, > 0.
    public let reach: Double
    /// Disarmed places (met, not yet left beyond twice the reach), with where they are, so they
    /// re-arm even after leaving the map.
    private var disarmed: [String: Coordinate] = [:]
    /// The places for ``update(position:)``, bucketed for the reach.
    private var cells: SphereCells

    /// - Parameter reach: Metres, > 0 and finite (the game's default is 40 m).
    /// - Throws: ``/LocationCore/ConfigurationError`` naming `reach` otherwise.
    public init(reach: Double = 40) throws(ConfigurationError) {
        guard reach.isFinite, reach > 0 else {
            throw ConfigurationError(parameter: "reach", "must be a finite number of metres > 0, got \(reach)")
        }
        self.reach = reach
        self.cells = SphereCells([], radius: reach)
    }

    /// The places on the map that ``update(position:)`` checks, in the order given.
    ///
    /// Setting it takes time in proportion to the number of places (they are bucketed by
    /// position), so set it when the map changes, not at every fix. It does not touch which
    /// places are disarmed.
    public var places: [Place] {
        get { cells.places }
        set { cells = SphereCells(newValue, radius: reach) }
    }

    /// Updates with the player's position and the places now on the map.
    ///
    /// Measures every place in `places`; ``update(position:)`` gives the same encounters for the
    /// same places while measuring only those that can be within reach.
    ///
    /// - Returns: The places met at this position, nearest first (ties by id).
    public mutating func update(position: Coordinate, places: some Sequence<Place>) -> [Encounter] {
        // One prepared origin for every place on the map (bit-identical to distance(to:)).
        let origin = HaversineOrigin(position)
        rearm(around: origin)
        var met: [Encounter] = []
        // Distance first: it is cheaper than hashing the id, and most places are out of reach.
        for place in places {
            let distance = origin.distance(to: place.coordinate)
            if distance <= reach { meet(place, at: distance, into: &met) }
        }
        return Self.nearestFirst(met)
    }

    /// Updates with the player's position, checking the places set in ``places``.
    ///
    /// Only the places that can be within reach are measured (see ``places``); the decision is
    /// the same haversine as ``update(position:places:)``'s, taken in the same order, so the
    /// encounters are identical to `update(position: position, places: places)`.
    ///
    /// - Returns: The places met at this position, nearest first (ties by id).
    public mutating func update(position: Coordinate) -> [Encounter] {
        let origin = HaversineOrigin(position)
        rearm(around: origin)
        let reach = self.reach
        var inReach: [(index: Int, distance: Double)] = []
        cells.forEachCandidate(near: position) { index in
            let distance = origin.distance(to: cells.places[index].coordinate)
            if distance <= reach { inReach.append((index, distance)) }
        }
        // The order of `places`, as update(position:places:) meets them: with a repeated id,
        // the first one in reach is the one met.
        inReach.sort { $0.index < $1.index }
        var met: [Encounter] = []
        for (index, distance) in inReach { meet(cells.places[index], at: distance, into: &met) }
        return Self.nearestFirst(met)
    }

    /// Re-arm first: leaving a place's wider circle makes it meetable again.
    private mutating func rearm(around origin: HaversineOrigin) {
        for (id, coordinate) in disarmed where origin.distance(to: coordinate) > 2 * reach {
            disarmed.removeValue(forKey: id)
        }
    }

    /// Meets `place` (within reach) unless it is disarmed.
    private mutating func meet(_ place: Place, at distance: Double, into met: inout [Encounter]) {
        guard disarmed[place.id] == nil else { return }
        met.append(Encounter(place: place, distance: distance))
        disarmed[place.id] = place.coordinate
    }

    private static func nearestFirst(_ met: [Encounter]) -> [Encounter] {
        met.sorted { ($0.distance, $0.place.id) < ($1.distance, $1.place.id) }
    }

    /// Whether `placeID` is waiting to be re-armed.
    public func isDisarmed(_ placeID: String) -> Bool { disarmed[placeID] != nil }
}
