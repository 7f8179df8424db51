#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// A spatial prefilter for ``EncounterTracker``: the places on the map bucketed in a grid of
/// cubes over their unit vectors, so a position only visits places that can be within reach.
///
/// Working on 3-D unit vectors rather than on latitude and longitude leaves no special case: the
/// poles and the ±180° meridian are ordinary points of the sphere. Two points at great-circle
/// angle θ are a straight-line (chord) distance 2 sin(θ/2) apart, so every place within `reach`
/// metres of a position lies within the chord c = 2 sin(reach / 2R) of it in each of x, y and z.
/// The cubes have side 4r with r = c (1 + 10⁻⁴) + 10⁻⁹, and a query visits the cubes meeting the
/// box [p − r, p + r]: one or two per axis, so at most eight and about three and a half on
/// average (4r rather than 2r: fewer lookups, faster in MapBenchmark on the sparse map, no slower
/// on the dense one).
///
/// Why the margin makes it exact: the tracker decides with the haversine computed by
/// `HaversineOrigin`, and the unit vectors here are computed with the C library's sin and cos;
/// both are accurate to a few units in the last place, that is a few 10⁻¹⁶ of the radius
/// (under a nanometre), while the margin is 10⁻⁴ of the reach plus 10⁻⁹ of the radius (6.4 mm).
/// So any place whose computed distance is at most the reach is inside the box, and so in a
/// visited cube; places outside are simply not measured. The prefilter never decides an
/// encounter: `HaversineOrigin` does, on exactly the coordinates given.
struct PlaceCells: Sendable, Hashable {
    /// The places, in the order given.
    let places: [Place]
    /// Indices into ``places``, grouped by cube (each cube's indices ascending).
    private let order: [Int]
    /// Each non-empty cube's range in ``order``.
    private let cubes: [Cube: Range<Int>]
    /// The box half-width r on the unit sphere (a quarter of the cube side).
    private let halfWidth: Double

    private struct Cube: Hashable, Sendable {
        var x: Int, y: Int, z: Int

        /// One word into the hasher instead of three: a query looks up eight cubes at every fix.
        func hash(into hasher: inout Hasher) {
            hasher.combine(x &* -7_046_029_254_386_353_131 ^ y &* 7_640_891_576_956_012_809 ^ z)
        }
    }

    /// Equal when made from the same places for the same reach: the buckets follow from those.
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.halfWidth == rhs.halfWidth && lhs.places == rhs.places
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(halfWidth)
        hasher.combine(places)
    }

    /// Buckets `places` for queries within `reach` metres (> 0, finite).
    init(_ places: [Place], reach: Double) {
        self.places = places
        // min(π, …): beyond half the circumference every point of the sphere is within reach,
        // and the chord is at most 2 (the box then spans the whole sphere).
        let angle = min(Double.pi, reach / Sphere.radius)
        let halfWidth = 2 * sin(angle / 2) * (1 + 1e-4) + 1e-9
        self.halfWidth = halfWidth
        let keys = places.map { Self.cube(Self.unitVector($0.coordinate), side: 4 * halfWidth) }
        // Stable: within a cube, indices stay ascending.
        let sorted = places.indices.sorted { (keys[$0].x, keys[$0].y, keys[$0].z, $0) < (keys[$1].x, keys[$1].y, keys[$1].z, $1) }
        var cubes: [Cube: Range<Int>] = [:]
        var start = 0
        while start < sorted.count {
            let key = keys[sorted[start]]
            var end = start + 1
            while end < sorted.count && keys[sorted[end]] == key { end += 1 }
            cubes[key] = start..<end
            start = end
        }
        order = sorted
        self.cubes = cubes
    }

    /// Calls `body` with the index of every place that can be within reach of `position`, and
    /// perhaps a few more; each index at most once, in no particular order.
    @inline(__always)
    func forEachCandidate(near position: Coordinate, _ body: (Int) -> Void) {
        guard !cubes.isEmpty else { return }
        let p = Self.unitVector(position)
        let side = 4 * halfWidth
        let low = Self.cube((p.x - halfWidth, p.y - halfWidth, p.z - halfWidth), side: side)
        let high = Self.cube((p.x + halfWidth, p.y + halfWidth, p.z + halfWidth), side: side)
        for x in low.x...high.x {
            for y in low.y...high.y {
                for z in low.z...high.z {
                    guard let range = cubes[Cube(x: x, y: y, z: z)] else { continue }
                    for slot in range { body(order[slot]) }
                }
            }
        }
    }

    private static func unitVector(_ coordinate: Coordinate) -> (x: Double, y: Double, z: Double) {
        let phi = coordinate.latitude * (Double.pi / 180)
        let lambda = coordinate.longitude * (Double.pi / 180)
        let cosPhi = cos(phi)
        return (cosPhi * cos(lambda), cosPhi * sin(lambda), sin(phi))
    }

    private static func cube(_ point: (x: Double, y: Double, z: Double), side: Double) -> Cube {
        // |coordinate| ≤ 1 + r and side ≥ 4·10⁻⁹, so every index fits an Int.
        Cube(x: Int((point.x / side).rounded(.down)), y: Int((point.y / side).rounded(.down)),
             z: Int((point.z / side).rounded(.down)))
    }
}
