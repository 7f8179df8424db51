import LocationCore
import MapFeature
import Testing
import LocSimTestHelpers

@Suite(.timeLimit(.minutes(1)), .ownThread) struct EncounterTrackerTests {
    let shrine = Place(id: "shrine", name: "Shrine", coordinate: try! Coordinate(latitude: 35.6812, longitude: 139.7671))

    /// A position `metres` north of the shrine (spherical, the tracker's own metric).
    func north(_ metres: Double) -> Coordinate { shrine.coordinate.destination(distance: metres, bearing: 0) }

    @Test("An approach is reported once, at the first position within reach")
    func oncePerApproach() throws {
        var tracker = try EncounterTracker(reach: 40)
        #expect(tracker.update(position: north(60), places: [shrine]).isEmpty)
        let met = tracker.update(position: north(39), places: [shrine])
        #expect(met.map(\.place.id) == ["shrine"])
        #expect(abs(met[0].distance - 39) < 1e-6)
        #expect(tracker.update(position: north(10), places: [shrine]).isEmpty, "still the same approach")
        #expect(tracker.update(position: north(41), places: [shrine]).isEmpty)
        #expect(tracker.update(position: north(35), places: [shrine]).isEmpty, "not re-armed: never beyond 2 × reach")
    }

    @Test("Moving beyond twice the reach re-arms the place; staying within it does not")
    func rearm() throws {
        var tracker = try EncounterTracker(reach: 40)
        #expect(tracker.update(position: north(30), places: [shrine]).count == 1)
        _ = tracker.update(position: north(79.9), places: [shrine])
        #expect(tracker.isDisarmed("shrine"), "within 2 × reach it stays disarmed")
        #expect(tracker.update(position: north(30), places: [shrine]).isEmpty)
        _ = tracker.update(position: north(80.5), places: [shrine])
        #expect(!tracker.isDisarmed("shrine"))
        #expect(tracker.update(position: north(30), places: [shrine]).count == 1, "a new approach")
    }

    @Test("Only places on the map can be met, and leaving the map does not re-arm")
    func onlyPlacesOnTheMap() throws {
        var tracker = try EncounterTracker(reach: 40)
        #expect(tracker.update(position: north(5), places: []).isEmpty)
        #expect(tracker.update(position: north(5), places: [shrine]).count == 1)
        #expect(tracker.update(position: north(5), places: []).isEmpty)
        #expect(tracker.update(position: north(5), places: [shrine]).isEmpty, "the same approach, though it left the map")
    }

    @Test("Several places met at once come nearest first, ties by id")
    func ordering() throws {
        var tracker = try EncounterTracker(reach: 40)
        let near = Place(id: "b", name: "B", coordinate: north(5))
        let far = Place(id: "a", name: "A", coordinate: north(20))
        let twin = Place(id: "c", name: "C", coordinate: north(20))
        let met = tracker.update(position: shrine.coordinate, places: [twin, far, near])
        #expect(met.map(\.place.id) == ["b", "a", "c"])
    }

    @Test("A reach that is not a positive, finite number of metres is a configuration error naming 'reach'",
          arguments: [0.0, -1, .nan, .infinity])
    func invalidReach(reach: Double) {
        let error = #expect(throws: ConfigurationError.self) { try EncounterTracker(reach: reach) }
        #expect(error?.parameter == "reach")
    }
}
