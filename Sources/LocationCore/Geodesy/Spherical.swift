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
public func normalizedLongitude(_ degrees: Double) -> Double {
    var value = degrees.truncatingRemainder(dividingBy: 360)
    if value < -180 { value += 360 } else if value >= 180 { value -= 360 }
    return value
}

extension Coordinate {
    /// Great-circle distance in metres on the sphere of radius ``Sphere/radius`` (haversine).
    ///
    /// Numerically stable for small distances, and for antipodal points (the argument of the
    /// arcsine is clamped to 1).
    public func distance(to other: Coordinate) -> Double {
        let phi1 = latitude * degreesToRadians
        let phi2 = other.latitude * degreesToRadians
        let sinHalfDPhi = sin((phi2 - phi1) / 2)
        let sinHalfDLambda = sin((other.longitude - longitude) * degreesToRadians / 2)
        let h = sinHalfDPhi * sinHalfDPhi + cos(phi1) * cos(phi2) * sinHalfDLambda * sinHalfDLambda
        return 2 * Sphere.radius * asin(min(1, h.squareRoot()))
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
        let degrees = atan2(y, x) * radiansToDegrees
        let wrapped = degrees < 0 ? degrees + 360 : degrees
        return wrapped >= 360 ? 0 : wrapped
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
        let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(max(-1, min(1, sinPhi2)))
        let y = sin(theta) * sin(delta) * cos(phi1)
        let x = cos(delta) - sin(phi1) * sinPhi2
        let lambda2 = lambda1 + atan2(y, x)
        return Coordinate(
            validLatitude: max(-90, min(90, phi2 * radiansToDegrees)),
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
            validLatitude: max(-90, min(90, phi * radiansToDegrees)),
            longitude: normalizedLongitude(lambda * radiansToDegrees))
    }
}
