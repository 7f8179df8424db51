import Foundation
import LocationCore
@testable import LocationIndex
@testable import Places
import LocSimTestHelpers
import Testing

@Suite("Bounding boxes of spherical caps", .ownThread)
struct SearchCapTests {
    /// Longitude offset of `point` east of `center`, in −180..<180.
    func eastOffset(_ point: Coordinate, from center: Coordinate) -> Double {
        normalizedLongitude(point.longitude - center.longitude)
    }

    @Test("The half-width is asin(sin d / cos φ): reached by the cap's edge, never exceeded")
    func halfWidth() throws {
        var random = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let center = gridCoordinate(
                latitude: Double.random(in: -80...80, using: &random), longitude: Double.random(in: -170...170, using: &random))
            let radius = Double.random(in: 1...1_000_000, using: &random)
            let cap = SearchCap(center: center, radius: radius)
            guard cap.longitudeE7.count == 1, !cap.coversAllLongitudes else { continue }
            let expected = asin(sin(radius / Sphere.radius) / cos(center.latitude * .pi / 180)) * 180 / .pi
            var widest = 0.0
            for step in 0..<3_600 {
                let edge = center.destination(distance: radius, bearing: Double(step) / 10)
                widest = max(widest, abs(eastOffset(edge, from: center)))
                let latitudeE7 = Int64((edge.latitude * 1e7).rounded())
                let longitudeE7 = Int64((edge.longitude * 1e7).rounded())
                #expect(cap.latitudeE7.contains(latitudeE7))
                #expect(cap.longitudeE7[0].contains(longitudeE7), "\(center) r=\(radius) edge \(edge)")
            }
            // Sampling every 0.1° of bearing gets within a hair of the true maximum.
            #expect(abs(widest - expected) <= expected * 1e-5 + 1e-9)
        }
    }

    @Test("d / cos φ would be too narrow far from the equator")
    func naiveWidthIsTooNarrow() throws {
        let center = try Coordinate(latitude: 70, longitude: 20)
        let radius = 1_500_000.0
        let naive = radius / Sphere.radius / cos(70 * Double.pi / 180) * 180 / .pi
        let cap = SearchCap(center: center, radius: radius)
        let halfWidth = Double(cap.longitudeE7[0].upperBound) / 1e7 - 20
        #expect(halfWidth > naive * 1.05)  // 43.0° against 39.4°
        // A point of the cap's edge lies outside the naive box.
        let outside = (0..<3_600).map { center.destination(distance: radius, bearing: Double($0) / 10) }
            .filter { abs(normalizedLongitude($0.longitude - 20)) > naive }
        #expect(!outside.isEmpty)
    }

    @Test("A cap that holds a pole covers every longitude", arguments: [(89.0, 200_000.0), (-85.0, 600_000.0), (90.0, 1.0), (-90, 1)])
    func poles(latitude: Double, radius: Double) throws {
        let cap = SearchCap(center: try Coordinate(latitude: latitude, longitude: 33), radius: radius)
        #expect(cap.coversAllLongitudes)
        if latitude > 0 { #expect(cap.latitudeE7.upperBound == 900_000_000) } else { #expect(cap.latitudeE7.lowerBound == -900_000_000) }
    }

    @Test("A cap across ±180° becomes two longitude ranges", arguments: [179.9, -179.9, -180])
    func antimeridian(longitude: Double) throws {
        let cap = SearchCap(center: try Coordinate(latitude: 10, longitude: longitude), radius: 50_000)
        #expect(cap.longitudeE7.count == 2)
        #expect(cap.longitudeE7.contains { $0.upperBound == 1_799_999_999 })
        #expect(cap.longitudeE7.contains { $0.lowerBound == -1_800_000_000 })
    }
}
