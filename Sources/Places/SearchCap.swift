#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import LocationCore

/// The latitude/longitude box around a spherical cap, in 1e-7° integer units: what both backends
/// (the SQLite index's tiles, PostGIS's) prefilter on before the exact distance test.
///
/// For a cap of angular radius δ around latitude φ:
/// - latitudes φ − δ … φ + δ;
/// - when that reaches a pole the cap contains the pole, and every longitude is in range;
/// - otherwise the longitude half-width is asin(sin δ / cos φ) (the meridians tangent to the
///   cap), not δ / cos φ, which is too narrow far from the equator and undefined near a pole;
/// - a longitude range crossing ±180° becomes two ranges.
///
/// Every bound is widened by ``margin`` so rounding can only add candidates, never lose one;
/// the exact test removes the extras.
package struct SearchCap: Sendable, Hashable {
    /// Widening on every side, in degrees (about 11 cm).
    package static let margin = 1e-6

    package var latitudeE7: ClosedRange<Int64>
    /// One range, or two when the box crosses ±180°; the full range when the cap holds a pole.
    package var longitudeE7: [ClosedRange<Int64>]

    package static let fullLongitude: ClosedRange<Int64> = -1_800_000_000...1_799_999_999

    package var coversAllLongitudes: Bool { longitudeE7.count == 1 && longitudeE7[0] == Self.fullLongitude }

    package init(center: Coordinate, radius: Double) {
        let delta = radius / Sphere.radius
        let deltaDegrees = delta * 180 / Double.pi
        let phi = center.latitude
        let south = phi - deltaDegrees - Self.margin
        let north = phi + deltaDegrees + Self.margin
        latitudeE7 = Self.floorE7(max(-90, south))...Self.ceilE7(min(90, north))
        if south <= -90 || north >= 90 {
            longitudeE7 = [Self.fullLongitude]
            return
        }
        let ratio = sin(delta) / cos(phi * Double.pi / 180)
        guard ratio < 1 else {
            longitudeE7 = [Self.fullLongitude]
            return
        }
        let halfWidth = asin(ratio) * 180 / Double.pi + Self.margin
        guard halfWidth < 180 else {
            longitudeE7 = [Self.fullLongitude]
            return
        }
        let west = center.longitude - halfWidth
        let east = center.longitude + halfWidth
        if west < -180 {
            longitudeE7 = [Self.floorE7(west + 360)...Self.fullLongitude.upperBound, Self.fullLongitude.lowerBound...Self.ceilE7(east)]
        } else if east >= 180 {
            longitudeE7 = [Self.floorE7(west)...Self.fullLongitude.upperBound, Self.fullLongitude.lowerBound...Self.ceilE7(east - 360)]
        } else {
            longitudeE7 = [Self.floorE7(west)...Self.ceilE7(east)]
        }
    }

    private static func floorE7(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded(.down)) }
    private static func ceilE7(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded(.up)) }
}
