import LocationCore
import MapFeature
import Testing
import LocSimTestHelpers

/// The tracker's spatial prefilter (`places` + `update(position:)`) against the plain check over
/// every place (`update(position:places:)`), which measures every place it is given.
@Suite(.timeLimit(.minutes(1)), .ownThread) struct EncounterPrefilterTests {
    /// Where the walks start: the poles, just off them, both sides of ±180°, the equator, and a
    /// mid-latitude city.
    static let centres: [(name: String, coordinate: Coordinate)] = [
        ("north pole", Coordinate(uncheckedLatitude: 90, longitude: 0)),
        ("south pole", Coordinate(uncheckedLatitude: -90, longitude: 135)),
        ("near the north pole", Coordinate(uncheckedLatitude: 89.999_9, longitude: -60)),
        ("+180° on the equator", Coordinate(uncheckedLatitude: 0, longitude: 180)),
        ("-180° on the equator", Coordinate(uncheckedLatitude: 0, longitude: -180)),
        ("just west of +180°", Coordinate(uncheckedLatitude: -41.3, longitude: 179.999_99)),
        ("equator, prime meridian", Coordinate(uncheckedLatitude: 0, longitude: 0)),
        ("Zürich", Coordinate(uncheckedLatitude: 47.3779, longitude: 8.5403)),
    ]
    static let reaches: [Double] = [1, 7.5, 40, 250, 3_000, 8_000]

    /// A seeded scene around `centre`: a random walk of steps up to the reach, and places scattered
    /// within four reaches of it, some exactly on the poles or on ±180°, some at the reach's edge
    /// from a walk position (one way or the other by a hair), and some sharing an id.
    struct Scene {
        var walk: [Coordinate] = []
        var places: [Place] = []

        init(centre: Coordinate, reach: Double, seed: UInt64) {
            var random = SplitMix64(seed: seed)
            var position = centre
            var bearing = Double.random(in: 0..<360, using: &random)
            for _ in 0..<400 {
                walk.append(position)
                bearing += Double.random(in: -40...40, using: &random)
                position = position.destination(distance: Double.random(in: 0...reach, using: &random), bearing: bearing)
            }
            func scattered() -> Coordinate {
                let base = walk[Int.random(in: 0..<walk.count, using: &random)]
                return base.destination(
                    distance: Double.random(in: 0...(4 * reach), using: &random), bearing: Double.random(in: 0..<360, using: &random))
            }
            for number in 0..<300 {
                places.append(Place(id: "p\(number)", name: "", coordinate: scattered()))
            }
            for number in 0..<40 {
                // Straddling the edge: the exact distance decides, the prefilter must not.
                let base = walk[Int.random(in: 0..<walk.count, using: &random)]
                let hair = [1 - 1e-12, 1, 1 + 1e-12, 1 - 1e-6, 1 + 1e-6][number % 5]
                let edge = base.destination(distance: reach * hair, bearing: Double.random(in: 0..<360, using: &random))
                places.append(Place(id: "edge\(number)", name: "", coordinate: edge))
            }
            // Exactly on the poles and on both spellings of the antimeridian near the centre.
            places.append(Place(id: "north", name: "", coordinate: Coordinate(uncheckedLatitude: 90, longitude: 0)))
            places.append(Place(id: "south", name: "", coordinate: Coordinate(uncheckedLatitude: -90, longitude: 0)))
            let onMeridian = scattered()
            places.append(Place(id: "east", name: "", coordinate: Coordinate(uncheckedLatitude: onMeridian.latitude, longitude: 180)))
            places.append(Place(id: "west", name: "", coordinate: Coordinate(uncheckedLatitude: onMeridian.latitude, longitude: -180)))
            // A repeated id: the first in the given order that is in reach is the one met.
            for number in 0..<10 {
                places.append(Place(id: "twin\(number % 3)", name: "\(number)", coordinate: scattered()))
            }
        }
    }

    @Test("The prefiltered tracker meets the same places, in the same order, at the same fixes, as the check over every place",
          arguments: Self.centres.indices, Self.reaches)
    func sameEncounters(centre: Int, reach: Double) throws {
        let (name, coordinate) = Self.centres[centre]
        let scene = Scene(centre: coordinate, reach: reach, seed: UInt64(centre * 1_000) + UInt64(reach * 10))
        var random = SplitMix64(seed: 7)
        var everyPlace = try EncounterTracker(reach: reach)
        var prefiltered = try EncounterTracker(reach: reach)
        var onMap = scene.places
        var total = 0
        for (step, position) in scene.walk.enumerated() {
            if step % 50 == 0 {
                // The map changes: a random part of the places, in a random order.
                onMap = scene.places.filter { _ in Bool.random(using: &random) || step == 0 }.shuffled(using: &random)
                prefiltered.places = onMap
            }
            let expected = everyPlace.update(position: position, places: onMap)
            let got = prefiltered.update(position: position)
            #expect(got.map(\.place) == expected.map(\.place), "\(name), reach \(reach) m, fix \(step)")
            #expect(got.map(\.distance.bitPattern) == expected.map(\.distance.bitPattern), "\(name), reach \(reach) m, fix \(step)")
            total += expected.count
        }
        #expect(everyPlace == prefiltered.withPlaces(everyPlace.places), "the same places disarmed")
        #expect(total > 10, "\(name), reach \(reach) m: the walk meets places (\(total))")
    }

    @Test("Every place whose computed distance is within reach is a candidate, at the edge too",
          arguments: Self.centres.indices, Self.reaches)
    func candidatesCoverTheReach(centre: Int, reach: Double) {
        let (name, coordinate) = Self.centres[centre]
        let scene = Scene(centre: coordinate, reach: reach, seed: 99 + UInt64(centre))
        let cells = SphereCells(scene.places, radius: reach)
        var inReach = 0, candidates = 0
        for position in scene.walk {
            let origin = HaversineOrigin(position)
            var seen = Set<Int>()
            cells.forEachCandidate(near: position) { index in
                #expect(seen.insert(index).inserted, "each candidate once")
            }
            candidates += seen.count
            for (index, place) in scene.places.enumerated() where origin.distance(to: place.coordinate) <= reach {
                inReach += 1
                #expect(seen.contains(index), "\(name), reach \(reach) m: \(place.id) at \(origin.distance(to: place.coordinate)) m")
            }
        }
        #expect(inReach > 0)
        // It is a filter: far fewer places measured than the map holds.
        #expect(candidates < scene.walk.count * scene.places.count / 2, "\(name), reach \(reach) m: \(candidates) candidates")
    }

    @Test("Places far away are not even measured; the places set are kept in their order")
    func farPlacesAreSkipped() throws {
        let here = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
        let far = (0..<100).map { Place(id: "far\($0)", name: "", coordinate: here.destination(distance: 500 + 100 * Double($0), bearing: Double($0) * 3.6)) }
        let cells = SphereCells(far, radius: 40)
        var visited = 0
        cells.forEachCandidate(near: here) { _ in visited += 1 }
        #expect(visited == 0)
        var tracker = try EncounterTracker(reach: 40)
        tracker.places = far
        #expect(tracker.places.map(\.id) == far.map(\.id))
        #expect(tracker.update(position: here).isEmpty)
        #expect(tracker.update(position: far[7].coordinate).map(\.place.id) == ["far7"])
    }

    @Test("Setting the places keeps which are disarmed: an approach is reported once even if the map changes")
    func placesChangeKeepsDisarmed() throws {
        let shrine = Place(id: "shrine", name: "Shrine", coordinate: Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671))
        var tracker = try EncounterTracker(reach: 40)
        tracker.places = [shrine]
        #expect(tracker.update(position: shrine.coordinate).count == 1)
        tracker.places = []
        #expect(tracker.update(position: shrine.coordinate).isEmpty)
        tracker.places = [shrine]
        #expect(tracker.update(position: shrine.coordinate).isEmpty, "the same approach")
        #expect(tracker.isDisarmed("shrine"))
    }
}

extension EncounterTracker {
    /// A copy with `places` set, to compare trackers that were fed differently.
    fileprivate func withPlaces(_ places: [Place]) -> EncounterTracker {
        var copy = self
        copy.places = places
        return copy
    }
}
