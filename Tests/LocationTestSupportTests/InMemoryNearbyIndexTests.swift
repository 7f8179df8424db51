import LocationCore
import LocationTestSupport
import MapFeature
import Testing
import LocSimTestHelpers

@Suite(.ownThread) struct InMemoryNearbyIndexTests {
    /// A seeded generator so the random cases are the same on every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
        mutating func range(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
    }

    /// The reference: every place, measured, filtered, sorted.
    func bruteForce(_ places: [Place], center: Coordinate, radius: Double) -> [Place] {
        var measured: [(distance: Double, place: Place)] = []
        for place in places {
            let distance = center.distance(to: place.coordinate)
            if distance <= radius { measured.append((distance, place)) }
        }
        measured.sort { a, b in a.distance != b.distance ? a.distance < b.distance : a.place.id < b.place.id }
        return measured.map { $0.place }
    }

    @Test("The grid answers exactly like a full scan, around the antimeridian and the poles too", arguments: [
        (35.68, 139.77), (0.0, 179.98), (0.0, -179.99), (-33.9, 151.2), (88.7, 10.0), (-89.5, -60.0), (64.1, -21.9),
    ])
    func matchesBruteForce(latitude: Double, longitude: Double) throws {
        var generator = Generator(state: UInt64(bitPattern: Int64(latitude * 1_000 + longitude)))
        let center = try Coordinate(latitude: latitude, longitude: longitude)
        // Places scattered up to 30 km around the centre, and some far away.
        var places: [Place] = (0..<3_000).map { index in
            let point = center.destination(distance: generator.range(0, 30_000), bearing: generator.range(0, 360))
            return Place(id: "p\(index)", name: "", coordinate: point)
        }
        places += (0..<500).map { index in
            Place(id: "far\(index)", name: "", coordinate: Coordinate(uncheckedLatitude: generator.range(-90, 90),
                                                                      longitude: generator.range(-180, 180)))
        }
        let index = InMemoryNearbyIndex(places: places)
        for radius in [50.0, 999.5, 5_000, 12_345, 40_000, 800_000] {
            #expect(try index.nearby(center: center, radius: radius) == bruteForce(places, center: center, radius: radius),
                    "radius \(radius)")
        }
    }

    @Test("A place exactly at the radius is included")
    func inclusive() throws {
        let center = Coordinate(uncheckedLatitude: 10, longitude: 20)
        let place = Place(id: "edge", name: "", coordinate: center.destination(distance: 1_000, bearing: 45))
        let index = InMemoryNearbyIndex(places: [place])
        #expect(try index.nearby(center: center, radius: center.distance(to: place.coordinate)) == [place])
        #expect(try index.nearby(center: center, radius: center.distance(to: place.coordinate).nextDown).isEmpty)
    }

    @Test("Invalid radii are rejected, naming the parameter", arguments: [0.0, -1, .nan, .infinity])
    func invalid(radius: Double) {
        do {
            _ = try InMemoryNearbyIndex(places: []).nearby(center: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: radius)
            Issue.record("accepted radius \(radius)")
        } catch {
            #expect(error.parameter == "radius")
        }
    }
}
