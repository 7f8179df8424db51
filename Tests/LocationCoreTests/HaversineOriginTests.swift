import Foundation
import LocSimTestHelpers
import LocationCore
import Testing

@Suite("HaversineOrigin: the short-range series against an extended-precision haversine", .ownThread)
struct HaversineOriginTests {
    /// The haversine formula in plain double precision with the C library's functions: what
    /// ``Coordinate/distance(to:)`` computed before the series, and the bar the series must meet.
    static func libmHaversine(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radians = Double.pi / 180
        let phi1 = a.latitude * radians, phi2 = b.latitude * radians
        let s = sin((phi2 - phi1) / 2), l = sin((b.longitude - a.longitude) * radians / 2)
        let h = s * s + cos(phi1) * cos(phi2) * l * l
        return 2 * Sphere.radius * asin(min(1, h.squareRoot()))
    }

    /// Random pairs: log-uniform distances 1 mm … 19,000 km (both sides of the series' 400 km
    /// limit), latitudes uniform on the sphere plus one in ten within 1° of a pole, bearings and
    /// longitudes everywhere (so pairs straddle ±180°).
    static func pairs(count: Int, seed: UInt64) -> [(Coordinate, Coordinate)] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { number in
            let latitude =
                number % 10 == 0
                ? Double.random(in: 89...90, using: &random) * (Bool.random(using: &random) ? 1 : -1)
                : asin(Double.random(in: -1...1, using: &random)) * 180 / .pi
            let a = Coordinate(uncheckedLatitude: latitude, longitude: Double.random(in: -180..<180, using: &random))
            let distance = exp(Double.random(in: log(0.001)...log(19_000_000.0), using: &random))
            return (a, a.destination(distance: distance, bearing: Double.random(in: 0..<360, using: &random)))
        }
    }

    #if arch(x86_64)
    @Test("On 200,000 pairs, never more than twice the C-library haversine's error plus 4 ulps (80-bit reference)")
    func accuracy() {
        var worst = (series: 0.0, libm: 0.0)
        var failures = 0
        for (a, b) in Self.pairs(count: 200_000, seed: 0xA5_1E) {
            // The same formula in 80-bit arithmetic: 11 more bits than either double version.
            let radians = Float80.pi / 180
            let phi1 = Float80(a.latitude) * radians, phi2 = Float80(b.latitude) * radians
            let s = sinl((phi2 - phi1) / 2), l = sinl((Float80(b.longitude) - Float80(a.longitude)) * radians / 2)
            let h = s * s + cosl(phi1) * cosl(phi2) * l * l
            let reference = 2 * Float80(Sphere.radius) * asinl(min(1, h.squareRoot()))
            let seriesError = Double(abs(Float80(a.distance(to: b)) - reference))
            let libmError = Double(abs(Float80(Self.libmHaversine(a, b)) - reference))
            worst = (max(worst.series, seriesError / Double(reference)), max(worst.libm, libmError / Double(reference)))
            if seriesError > 2 * libmError + 4 * Double(reference).ulp {
                failures += 1
                if failures <= 5 { Issue.record("\(a) → \(b): series error \(seriesError) m, C library \(libmError) m") }
            }
        }
        #expect(failures == 0)
        // Both are limited by rounding the inputs to radians, not by the series.
        #expect(worst.series <= 2 * worst.libm)
    }
    #endif

    @Test("A prepared origin gives bit-identical distances to Coordinate.distance(to:)")
    func identical() {
        for (a, b) in Self.pairs(count: 10_000, seed: 0x1D) {
            let origin = HaversineOrigin(a)
            #expect(origin.distance(to: b) == a.distance(to: b))
            #expect(abs(origin.distance(toLatitude: b.latitude, longitude: b.longitude + 360) - a.distance(to: b)) <= 1e-6)
        }
    }

    @Test("Four lanes at once are bit-identical to one point at a time, in and out of the series' range")
    func fourLanes() {
        var random = SplitMix64(seed: 0x4_1A_9E5)
        for (centre, _) in Self.pairs(count: 5_000, seed: 0x5EED) {
            let origin = HaversineOrigin(centre)
            // Mostly near points (the index's case), sometimes one far lane that forces the fallback.
            let reach = [200.0, 5_000, 300_000, 3_000_000][Int.random(in: 0..<4, using: &random)]
            let points = (0..<4).map { _ in
                centre.destination(distance: Double.random(in: 0...reach, using: &random), bearing: Double.random(in: 0..<360, using: &random))
            }
            let latitudes = SIMD4(points.map(\.latitude)), longitudes = SIMD4(points.map(\.longitude))
            let lanes = origin.distances(toLatitudes: latitudes, longitudes: longitudes)
            for lane in 0..<4 {
                #expect(lanes[lane] == centre.distance(to: points[lane]), "\(centre) → \(points[lane])")
            }
        }
    }

    @Test("Continuous across the series limit (about 400 km north–south and east–west)")
    func continuity() throws {
        // 1/32 rad of half-angle is 2/32 rad = 398.2 km of latitude; step across it in 1 cm steps.
        let centre = try Coordinate(latitude: 10, longitude: 20)
        let limitDegrees = 2.0 / 32 * 180 / .pi
        let stepLength = 1e-7 * .pi / 180 * Sphere.radius  // 1e-7° of latitude, about 1.1 cm
        var previous: Double?
        for step in -50...50 {
            let north = Coordinate(uncheckedLatitude: 10 + limitDegrees + Double(step) * 1e-7, longitude: 20)
            let distance = centre.distance(to: north)
            if let previous { #expect(abs(distance - previous - stepLength) < 1e-6, "step \(step)") }
            previous = distance
            #expect(abs(distance - Self.libmHaversine(centre, north)) <= 1e-8)
        }
    }
}
