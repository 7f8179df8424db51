public import LocationCore

/// Decides when the player meets a place on the map: the game's "encounter".
///
/// An encounter happens when the player comes within ``reach`` of a place that is currently on
/// the map. It is reported once per approach: the place is then disarmed until the player has
/// moved more than twice the reach away from it, which re-arms it. The hysteresis keeps GPS
/// jitter at the edge of the reach from reporting the same approach again and again.
///
/// A pure value: feed it positions and the places on the map, read back encounters.
///
/// ```swift
/// var tracker = try EncounterTracker(reach: 40)
/// let met = tracker.update(position: fix.coordinate!, places: placesOnMap)
/// ```
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

    /// - Parameter reach: Metres, > 0 and finite (the game's default is 40 m).
    /// - Throws: ``AppError`` (validation, parameter `reach`) otherwise.
    public init(reach: Double = 40) throws(AppError) {
        guard reach.isFinite, reach > 0 else {
            throw .validation("reach must be a finite number of metres > 0, got \(reach)", parameter: "reach")
        }
        self.reach = reach
    }

    /// Updates with the player's position and the places now on the map.
    ///
    /// - Returns: The places met at this position, nearest first (ties by id).
    public mutating func update(position: Coordinate, places: some Sequence<Place>) -> [Encounter] {
        // One prepared origin for every place on the map (bit-identical to distance(to:)).
        let origin = HaversineOrigin(position)
        // Re-arm first: leaving a place's wider circle makes it meetable again.
        for (id, coordinate) in disarmed where origin.distance(to: coordinate) > 2 * reach {
            disarmed.removeValue(forKey: id)
        }
        var met: [Encounter] = []
        // Distance first: it is cheaper than hashing the id, and most places are out of reach.
        for place in places {
            let distance = origin.distance(to: place.coordinate)
            if distance <= reach && disarmed[place.id] == nil {
                met.append(Encounter(place: place, distance: distance))
                disarmed[place.id] = place.coordinate
            }
        }
        return met.sorted { ($0.distance, $0.place.id) < ($1.distance, $1.place.id) }
    }

    /// Whether `placeID` is waiting to be re-armed.
    public func isDisarmed(_ placeID: String) -> Bool { disarmed[placeID] != nil }
}
