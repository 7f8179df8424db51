#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Spherical-Earth geodesy: fast, for hot paths (throttling, index refinement, synthetic motion).
///
/// The sphere has the IUGG mean radius R = 6,371,008.8 m, the radius PostGIS uses for
/// `geography` distances with `use_spheroid => false`. Against the WGS-84 ellipsoid the
/// spherical distance is off by up to about 0.5% (see ``Coordinate/geodesicDistance(to:)`` for
/// the exact figure).
public enum Sphere {
    /// Mean Earth radius in metres (IUGG R₁ = (2a + b) / 3, rounded to 0.1 m).
    public static let radius = 6_371_008.8
    /// Half the circumference of the sphere, in metres: the largest meaningful search radius.
    public static let halfCircumference = Double.pi * radius
}

let degreesToRadians = Double.pi / 180
let radiansToDegrees = 180 / Double.pi

/// Wraps any finite longitude into −180..<180.
package func normalizedLongitude(_ degrees: Double) -> Double {
    var value = degrees.truncatingRemainder(dividingBy: 360)
    if value < -180 { value += 360 } else if value >= 180 { value -= 360 }
    return value
}

/// Wraps any finite course or bearing into 0..<360 degrees. A tiny negative value, which
/// `+ 360` would round to exactly 360, becomes 0.
package func normalizedCourse(_ degrees: Double) -> Double {
    let value = degrees.truncatingRemainder(dividingBy: 360)
    let positive = value < 0 ? value + 360 : value
    return positive >= 360 ? 0 : positive
}

extension Coordinate {
    /// Great-circle distance in metres on the sphere of radius ``Sphere/radius`` (haversine).
    ///
    /// Numerically stable for small distances, and for antipodal points (the argument of the
    /// arcsine is clamped to 1). Computed by ``HaversineOrigin``, so a loop that measures many
    /// points from one centre through it gets bit-identical results.
    @inlinable
    public func distance(to other: Coordinate) -> Double {
        // The origin's formula, computing sin φ₁ only when the series path needs it.
        let phi = latitude * HaversineSeries.degreesToRadians
        return HaversineSeries.distance(
            phi: phi, longitude: longitude, cosPhi: HaversineSeries.libmCos(phi), sinPhi: HaversineSeries.libmSin(phi),
            toLatitude: other.latitude, longitude: other.longitude)
    }

    /// Initial great-circle bearing from this point towards `other`, in degrees clockwise from
    /// true north, 0..<360. Zero when the points coincide.
    public func bearing(to other: Coordinate) -> Double {
        let phi1 = latitude * degreesToRadians
        let phi2 = other.latitude * degreesToRadians
        let dLambda = (other.longitude - longitude) * degreesToRadians
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        if x == 0 && y == 0 { return 0 }
        return normalizedCourse(atan2(y, x) * radiansToDegrees)
    }

    /// The point reached by travelling `distance` metres along a great circle starting at
    /// `bearing` degrees.
    ///
    /// - Parameters:
    ///   - distance: Metres along the surface; any finite value (negative goes backwards).
    ///   - bearing: Initial bearing in degrees clockwise from true north.
    public func destination(distance: Double, bearing: Double) -> Coordinate {
        let delta = distance / Sphere.radius
        let theta = bearing * degreesToRadians
        let phi1 = latitude * degreesToRadians
        let lambda1 = longitude * degreesToRadians
        if abs(latitude) == 90 { return Self.destination(fromPoleAt: phi1, longitude: lambda1, angle: delta, bearing: theta) }
        let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(max(-1, min(1, sinPhi2)))
        let y = sin(theta) * sin(delta) * cos(phi1)
        let x = cos(delta) - sin(phi1) * sinPhi2
        let lambda2 = lambda1 + atan2(y, x)
        return Coordinate(
            uncheckedLatitude: max(-90, min(90, phi2 * radiansToDegrees)),
            longitude: normalizedLongitude(lambda2 * radiansToDegrees))
    }

    /// ``destination(distance:bearing:)`` from a pole, where the formula's terms vanish (every
    /// way is south, or north): the way is a meridian, the bearing measured from the pole's own
    /// meridian (`longitude`), as on the way there along it (GeographicLib's convention). The
    /// longitude is π − θ from it from the north pole, θ from the south; a negative angle goes
    /// the opposite way, and one past the other pole comes up its far side. In radians.
    private static func destination(fromPoleAt phi1: Double, longitude lambda1: Double, angle: Double, bearing: Double) -> Coordinate {
        var theta = angle < 0 ? bearing + .pi : bearing
        var along = abs(angle).truncatingRemainder(dividingBy: 2 * .pi)
        if along > .pi {
            along = 2 * .pi - along
            theta += .pi
        }
        let north = phi1 > 0
        let phi2 = north ? .pi / 2 - along : along - .pi / 2
        let lambda2 = lambda1 + (north ? .pi - theta : theta)
        return Coordinate(
            uncheckedLatitude: max(-90, min(90, phi2 * radiansToDegrees)),
            longitude: normalizedLongitude(lambda2 * radiansToDegrees))
    }

    /// The point a `fraction` of the way along the great circle from this point to `other`.
    ///
    /// `fraction` 0 is this point and 1 is `other`; values outside 0…1 extrapolate along the
    /// same great circle. For (near-)antipodal pairs the great circle is not unique and the
    /// result follows the meridian-independent linear blend of the two vectors.
    public func intermediate(to other: Coordinate, fraction: Double) -> Coordinate {
        if fraction == 0 { return self }
        if fraction == 1 { return other }
        let phi1 = latitude * degreesToRadians, lambda1 = longitude * degreesToRadians
        let phi2 = other.latitude * degreesToRadians, lambda2 = other.longitude * degreesToRadians
        let a1 = (cos(phi1) * cos(lambda1), cos(phi1) * sin(lambda1), sin(phi1))
        let a2 = (cos(phi2) * cos(lambda2), cos(phi2) * sin(lambda2), sin(phi2))
        let dot = max(-1, min(1, a1.0 * a2.0 + a1.1 * a2.1 + a1.2 * a2.2))
        let delta = acos(dot)
        let wa: Double, wb: Double
        if delta < 1e-12 || sin(delta) < 1e-12 {
            wa = 1 - fraction
            wb = fraction
        } else {
            wa = sin((1 - fraction) * delta) / sin(delta)
            wb = sin(fraction * delta) / sin(delta)
        }
        let x = wa * a1.0 + wb * a2.0, y = wa * a1.1 + wb * a2.1, z = wa * a1.2 + wb * a2.2
        let phi = atan2(z, (x * x + y * y).squareRoot())
        let lambda = (x == 0 && y == 0) ? lambda1 : atan2(y, x)
        return Coordinate(
            uncheckedLatitude: max(-90, min(90, phi * radiansToDegrees)),
            longitude: normalizedLongitude(lambda * radiansToDegrees))
    }
}

/// Haversine distances from one fixed point, with that point's trigonometry done once.
///
/// For loops that measure many points against one centre (index refinement, encounter
/// checks). ``Coordinate/distance(to:)`` is defined through this type, so both give
/// bit-identical results.
///
/// The haversine is h = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2), d = 2R asin(√h). When both half
/// angles are at most 1/32 rad (points within about 400 km in latitude and longitude) the
/// sines come from their Taylor series, cos φ₂ from the angle-addition formula
/// cos φ₁ (1 − 2 sin²(Δφ/2)) − 2 sin φ₁ sin(Δφ/2) cos(Δφ/2), and the arcsine (for √h ≤ 1/32)
/// from its series: every truncation error is below 10⁻¹⁷ relative, under the rounding error
/// of the C library's functions, and no call leaves the loop. Farther points use the C
/// library. `Tests/LocationCoreTests/SphericalTests.swift` checks both paths against a
/// reference haversine.
@frozen
public struct HaversineOrigin: Sendable {
    /// The centre.
    public let coordinate: Coordinate
    @usableFromInline let phi: Double
    @usableFromInline let sinPhi: Double
    @usableFromInline let cosPhi: Double

    /// Prepares distances from `coordinate`.
    @inlinable
    public init(_ coordinate: Coordinate) {
        self.coordinate = coordinate
        phi = coordinate.latitude * HaversineSeries.degreesToRadians
        sinPhi = HaversineSeries.libmSin(phi)
        cosPhi = HaversineSeries.libmCos(phi)
    }

    /// Great-circle distance in metres from the centre to `other`.
    @inlinable
    public func distance(to other: Coordinate) -> Double {
        distance(toLatitude: other.latitude, longitude: other.longitude)
    }

    /// Great-circle distance in metres from the centre to the point at `latitude`, `longitude`
    /// (degrees; any finite longitude).
    @inlinable
    public func distance(toLatitude latitude: Double, longitude: Double) -> Double {
        HaversineSeries.distance(
            phi: phi, longitude: coordinate.longitude, cosPhi: cosPhi, sinPhi: sinPhi, toLatitude: latitude,
            longitude: longitude)
    }

    /// Distances in metres to four points at once, each bit-identical to
    /// ``distance(toLatitude:longitude:)`` for its lane.
    ///
    /// When all four points are within the series' range (the usual case in a radius query of up
    /// to a few hundred kilometres) the same operations run on four lanes, which the processor
    /// overlaps; otherwise each lane takes the one-point path.
    @inlinable
    package func distances(toLatitudes latitude: SIMD4<Double>, longitudes longitude: SIMD4<Double>) -> SIMD4<Double> {
        typealias Series = HaversineSeries
        let halfDPhi = (latitude * Series.degreesToRadians - phi) / 2
        let halfDLambda = (longitude - coordinate.longitude) * Series.degreesToRadians / 2
        // Plain lane comparisons: the generic `pointwiseMax` and `pointwiseMin` are not
        // inlined and cost more than the series.
        let limit = SIMD4<Double>(repeating: Series.limit)
        let inRange = (halfDPhi .<= limit) .& (halfDPhi .>= -limit) .& (halfDLambda .<= limit) .& (halfDLambda .>= -limit)
        if all(inRange) {
            let s = Series.sin(halfDPhi)
            let c = Series.cos(halfDPhi)
            let sinHalfDLambda = Series.sin(halfDLambda)
            // The one-point version's expressions, operation for operation in the same order, in
            // typed steps: written as one expression each, the type checker takes seconds over them.
            // cos φ2 = cos φ1 · (1 − 2 s²) − 2 s · c · sin φ1
            let twoS: SIMD4<Double> = 2 * s
            let cosDPhi: SIMD4<Double> = 1 - twoS * s
            let sinDPhiTerm: SIMD4<Double> = twoS * c * sinPhi
            let cosPhi2: SIMD4<Double> = cosPhi * cosDPhi - sinDPhiTerm
            // h = s² + cos φ1 · cos φ2 · sin²(Δλ/2)
            let cosProduct: SIMD4<Double> = cosPhi * cosPhi2
            let once: SIMD4<Double> = cosProduct * sinHalfDLambda
            let twice: SIMD4<Double> = once * sinHalfDLambda
            let h: SIMD4<Double> = s * s + twice
            // √h ≤ 1/32 < 1, so the one-point version's min(1, √h) is √h here.
            let root = h.squareRoot()
            if all(root .<= limit) { return Series.diameter * Series.asin(root) }
        }
        return SIMD4(
            distance(toLatitude: latitude[0], longitude: longitude[0]), distance(toLatitude: latitude[1], longitude: longitude[1]),
            distance(toLatitude: latitude[2], longitude: longitude[2]), distance(toLatitude: latitude[3], longitude: longitude[3]))
    }
}

/// The short-range series behind ``HaversineOrigin``, and the C library functions for the rest.
@usableFromInline
enum HaversineSeries {
    // Computed properties of literals, not `static let`s: a stored global would cost a lazy
    // initialisation check on every use in the loop.
    @inlinable static var degreesToRadians: Double { 0.017_453_292_519_943_295 }
    /// Largest |x| (radians) for which the series are used.
    @inlinable static var limit: Double { 0.031_25 }
    /// ``Sphere/radius``, as a literal for the same reason.
    @inlinable static var diameter: Double { 12_742_017.6 }

    // Series coefficients, shared by the one-point and the four-lane versions.
    @inlinable static var sin3: Double { -1.0 / 6 }
    @inlinable static var sin5: Double { 1.0 / 120 }
    @inlinable static var sin7: Double { -1.0 / 5_040 }
    @inlinable static var sin9: Double { 1.0 / 362_880 }
    @inlinable static var cos4: Double { 1.0 / 24 }
    @inlinable static var cos6: Double { 1.0 / 720 }
    @inlinable static var cos8: Double { 1.0 / 40_320 }
    @inlinable static var asin3: Double { 1.0 / 6 }
    @inlinable static var asin5: Double { 3.0 / 40 }
    @inlinable static var asin7: Double { 5.0 / 112 }
    @inlinable static var asin9: Double { 35.0 / 1_152 }
    @inlinable static var asin11: Double { 63.0 / 2_816 }

    /// sin x for |x| ≤ 1/32: x + x³·(…) up to x⁹; the next term is below 10⁻²² relative.
    @inlinable @inline(__always)
    static func sin(_ x: Double) -> Double {
        let z = x * x
        return x + x * z * (sin3 + z * (sin5 + z * (sin7 + z * sin9)))
    }

    /// cos x for |x| ≤ 1/32, up to x⁸; the next term is below 10⁻²¹.
    @inlinable @inline(__always)
    static func cos(_ x: Double) -> Double {
        let z = x * x
        return 1 - z * (0.5 - z * (cos4 - z * (cos6 - z * cos8)))
    }

    /// asin y for 0 ≤ y ≤ 1/32, up to y¹¹; the next term is below 10⁻¹⁹ relative.
    @inlinable @inline(__always)
    static func asin(_ y: Double) -> Double {
        let z = y * y
        return y + y * z * (asin3 + z * (asin5 + z * (asin7 + z * (asin9 + z * asin11))))
    }

    // The same three series on four lanes: the same operations in the same order (IEEE addition
    // and multiplication are commutative, so `z * a + b` rounds like `b + z * a`), so each lane
    // rounds exactly like the one-point version; HaversineOriginTests checks it.
    @inlinable @inline(__always)
    static func sin(_ x: SIMD4<Double>) -> SIMD4<Double> {
        let z = x * x
        var p: SIMD4<Double> = z * sin9 + sin7
        p = z * p + sin5
        p = z * p + sin3
        return x + x * z * p
    }

    @inlinable @inline(__always)
    static func cos(_ x: SIMD4<Double>) -> SIMD4<Double> {
        let z = x * x
        var p: SIMD4<Double> = cos6 - z * cos8
        p = cos4 - z * p
        p = 0.5 - z * p
        return 1 - z * p
    }

    @inlinable @inline(__always)
    static func asin(_ y: SIMD4<Double>) -> SIMD4<Double> {
        let z = y * y
        var p: SIMD4<Double> = z * asin11 + asin9
        p = z * p + asin7
        p = z * p + asin5
        p = z * p + asin3
        return y + y * z * p
    }

    /// The haversine from (φ₁ in radians, λ₁ in degrees), given cos φ₁ and, lazily, sin φ₁
    /// (only the series path needs it).
    @inlinable @inline(__always)
    static func distance(
        phi: Double, longitude longitude1: Double, cosPhi: Double, sinPhi: @autoclosure () -> Double,
        toLatitude latitude: Double, longitude: Double
    ) -> Double {
        let halfDPhi = (latitude * degreesToRadians - phi) / 2
        let halfDLambda = (longitude - longitude1) * degreesToRadians / 2
        let h: Double
        if abs(halfDPhi) <= limit && abs(halfDLambda) <= limit {
            let s = sin(halfDPhi)
            let c = cos(halfDPhi)
            let sinHalfDLambda = sin(halfDLambda)
            let cosPhi2 = cosPhi * (1 - 2 * s * s) - 2 * s * c * sinPhi()
            h = s * s + cosPhi * cosPhi2 * sinHalfDLambda * sinHalfDLambda
        } else {
            let s = libmSin(halfDPhi)
            let sinHalfDLambda = libmSin(halfDLambda)
            let cosPhi2 = libmCos(latitude * degreesToRadians)
            h = s * s + cosPhi * cosPhi2 * sinHalfDLambda * sinHalfDLambda
        }
        let root = min(1, h.squareRoot())
        return diameter * (root <= limit ? asin(root) : libmAsin(root))
    }

    @usableFromInline static func libmSin(_ x: Double) -> Double { cSin(x) }
    @usableFromInline static func libmCos(_ x: Double) -> Double { cCos(x) }
    @usableFromInline static func libmAsin(_ x: Double) -> Double { cAsin(x) }
}

// The C library's functions, under names that the series' own `sin`, `cos` and `asin` do not shadow.
private func cSin(_ x: Double) -> Double { sin(x) }
private func cCos(_ x: Double) -> Double { cos(x) }
private func cAsin(_ x: Double) -> Double { asin(x) }
