import Foundation
import LocationCore
import LocationIndex
import LocSimTestHelpers
import Testing


/// A scratch folder (``withScratchFolder(_:_:)-async``) and the paths of files in it.
struct TemporaryDirectory {
    let path: String
    func file(_ name: String) -> String { path + "/" + name }
}

/// Runs `body` with a scratch folder that is removed afterwards, even when `body` throws.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    try withScratchFolder("locsim-index-tests") { try body(TemporaryDirectory(path: $0)) }
}

func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    try await withScratchFolder("locsim-index-tests") { try await body(TemporaryDirectory(path: $0)) }
}

/// A coordinate on the 1e-7° grid the index stores, so stored and original values are equal.
func gridCoordinate(latitude: Double, longitude: Double) -> Coordinate {
    let lat = (max(-90, min(90, latitude)) * 1e7).rounded() / 1e7
    var lon = (normalizedLongitude(longitude) * 1e7).rounded() / 1e7
    if lon >= 180 { lon -= 360 }
    return Coordinate(uncheckedLatitude: lat, longitude: lon)
}

/// The reference answer: every place's haversine distance, filtered, sorted by (distance, id), limited.
func bruteForce(_ places: [Place], center: Coordinate, radius: Double, limit: Int? = nil) -> [NearbyPlace] {
    let hits = places.compactMap { place -> NearbyPlace? in
        let distance = center.distance(to: place.coordinate)
        return distance <= radius ? NearbyPlace(place: place, distance: distance) : nil
    }
    // The order is found over the hits' positions, then applied once: sorting the places
    // themselves moves each one (three strings retained and released) at every step of the sort,
    // which in a debug build took 3.7 times as long (19 s of the test run's CPU before).
    let distances = hits.map(\.distance)
    var order = Array(hits.indices)
    order.sort { distances[$0] < distances[$1] || (distances[$0] == distances[$1] && hits[$0].place.id < hits[$1].place.id) }
    if let limit, order.count > limit { order.removeSubrange(limit...) }
    return order.map { hits[$0] }
}

/// The reference answer for many queries over one set of places: ``bruteForce(_:center:radius:limit:)``
/// over the places whose latitude alone does not put them out of reach. A great circle is at
/// least as long as its latitude difference along a meridian (haversine: h ≥ sin²(Δφ/2), so
/// d ≥ R·|Δφ|), so the places outside that band, widened for rounding, are never within the
/// radius; the answer is the whole scan's (``selfCheck(_:)`` compares the two). In a debug build
/// the whole scan made these suites the test run's largest use of CPU.
struct BruteForce {
    /// The places by latitude.
    private let places: [Place]
    private let latitudes: [Double]

    init(_ places: [Place]) {
        let latitudes = places.map(\.coordinate.latitude)
        let order = places.indices.sorted { latitudes[$0] < latitudes[$1] }  // positions: see bruteForce
        self.places = order.map { places[$0] }
        self.latitudes = order.map { latitudes[$0] }
    }

    func answer(center: Coordinate, radius: Double, limit: Int? = nil) -> [NearbyPlace] {
        let band = (radius * (1 + 1e-6) + 1) / Sphere.radius * 180 / .pi
        let low = partition { $0 >= center.latitude - band }
        let high = partition { $0 > center.latitude + band }
        return bruteForce(Array(places[low..<max(low, high)]), center: center, radius: radius, limit: limit)
    }

    /// The whole scan and the band's answer are the same for `queries`.
    func selfCheck(_ queries: some Sequence<(Coordinate, Double)>, sourceLocation: SourceLocation = #_sourceLocation) {
        for (center, radius) in queries {
            #expect(answer(center: center, radius: radius) == bruteForce(places, center: center, radius: radius), sourceLocation: sourceLocation)
        }
    }

    /// The first index whose latitude is `above` (binary search), or the count.
    private func partition(_ above: (Double) -> Bool) -> Int {
        var (low, high) = (0, latitudes.count)
        while low < high {
            let middle = (low + high) / 2
            if above(latitudes[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension SharedData {
    /// GeoNames' cities1000 extract in the shared data folder.
    static var geoNamesCities: String { path("places/geonames-cities1000.csv") }
    /// Whether that file is there (the folder may be present without it).
    static var hasGeoNamesCities: Bool { FileManager.default.fileExists(atPath: geoNamesCities) }
}

/// The fixtures folder copied into the test bundle.
func fixture(_ name: String) throws -> String {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil))
    return url.path
}
