/// Places held in memory, bucketed in a grid of cubes over their unit vectors, so a query around
/// a position only measures the places that can be within its radius: the one in-memory spatial
/// prefilter (MapFeature's `EncounterTracker`, LocationTestSupport's `InMemoryNearbyIndex`).
///
/// Working on 3-D unit vectors rather than on latitude and longitude leaves no special case: the
/// poles and the ±180° meridian are ordinary points of the sphere. Two points at great-circle
/// angle θ are a straight-line (chord) distance 2 sin(θ/2) apart, so every place within `radius`
/// metres of a position lies within the chord c = 2 sin(radius / 2R) of it in each of x, y and z.
/// A query visits the cubes meeting the box [p − r, p + r] with r = c (1 + 10⁻⁴) + 10⁻⁹. The cubes
/// have side 4r for the radius they are built for: a query of that radius visits one or two cubes
/// per axis, at most eight and about three and a half on average (4r rather than 2r: fewer
/// lookups, faster in MapBenchmark on the sparse map, no slower on the dense one). A query whose
/// box spans more cubes than there are places visits every place instead.
///
/// Why the margin makes it exact: the callers decide with the haversine computed by
/// ``HaversineOrigin``, and the unit vectors here are computed with the C library's sin and cos;
/// both are accurate to a few units in the last place, that is a few 10⁻¹⁶ of the radius (under
/// a nanometre), while the margin is 10⁻⁴ of the radius plus 10⁻⁹ of the Earth's (6.4 mm). So any
/// place whose computed distance is at most the radius is in a visited cube; places outside are
/// simply not measured. The cells never decide: ``HaversineOrigin`` does, on exactly the
/// coordinates given.
///
/// The SQLite index (LocationIndex) buckets differently, on purpose: its tiles are rows of a file,
/// keyed by latitude band and longitude cell in 1e-7° integers so that one range of row ids reads
/// a longitude range of a band; cube keys have no such order, and the file format is kept.
///
/// Equal when made from the same places for the same radius (the buckets follow from those).
package struct SphereCells: Sendable, Hashable {
    /// The places, in the order given.
    package let places: [Place]
    /// Indices into ``places``, grouped by cube (each cube's indices ascending).
    @usableFromInline let order: [Int]
    /// Each non-empty cube's number, in the order the places first meet it.
    @usableFromInline let cubes: [Cube: Int]
    /// Each numbered cube's range in ``order``.
    @usableFromInline let ranges: [Range<Int>]
    /// The box half-width r on the unit sphere for the radius the cells are built for (a quarter
    /// of the cube side).
    @usableFromInline let halfWidth: Double

    @usableFromInline struct Cube: Hashable, Sendable {
        @usableFromInline var x: Int, y: Int, z: Int

        @inlinable init(x: Int, y: Int, z: Int) {
            self.x = x
            self.y = y
            self.z = z
        }

        /// One word into the hasher instead of three: a query looks up eight cubes.
        @inlinable func hash(into hasher: inout Hasher) {
            hasher.combine(x &* -7_046_029_254_386_353_131 ^ y &* 7_640_891_576_956_012_809 ^ z)
        }
    }

    /// Buckets `places` for queries within about `radius` metres (> 0, finite).
    package init(_ places: [Place], radius: Double) {
        self.places = places
        let halfWidth = Self.halfWidth(radius: radius)
        self.halfWidth = halfWidth
        // A counting sort, one hash a place (a map of thousands of places is bucketed again at
        // each change): number each cube as the places meet it, count its places, then lay the
        // indices out cube by cube, each cube's ascending.
        var cubes = [Cube: Int](minimumCapacity: places.count)
        var numbers: [Int] = []
        numbers.reserveCapacity(places.count)
        var counts: [Int] = []
        for place in places {
            let cube = Self.cube(Self.unitVector(place.coordinate), side: 4 * halfWidth)
            let number = cubes.firstValue(for: cube, storing: counts.count)
            if number == counts.count { counts.append(0) }
            counts[number] += 1
            numbers.append(number)
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(counts.count)
        var next: [Int] = []
        next.reserveCapacity(counts.count)
        var start = 0
        for count in counts {
            ranges.append(start..<start + count)
            next.append(start)
            start += count
        }
        var order = [Int](repeating: 0, count: places.count)
        for (index, number) in numbers.enumerated() {
            order[next[number]] = index
            next[number] += 1
        }
        self.order = order
        self.cubes = cubes
        self.ranges = ranges
    }

    /// The box half-width on the unit sphere around every point within `radius` metres.
    @inlinable static func halfWidth(radius: Double) -> Double {
        // min(π, …): beyond half the circumference every point of the sphere is within reach,
        // and the chord is at most 2 (the box then spans the whole sphere).
        2 * HaversineSeries.libmSin(min(Double.pi, radius / Sphere.radius) / 2) * (1 + 1e-4) + 1e-9
    }

    /// Calls `body` with the index of every place that can be within `radius` metres of
    /// `position` (by default the radius the cells were built for), and perhaps a few more; each
    /// index at most once, in no particular order.
    @inlinable
    package func forEachCandidate(near position: Coordinate, radius: Double? = nil, _ body: (Int) -> Void) {
        guard !cubes.isEmpty else { return }
        let r = radius.map { Self.halfWidth(radius: $0) } ?? halfWidth
        let p = Self.unitVector(position)
        let side = 4 * halfWidth
        let low = Self.cube((p.x - r, p.y - r, p.z - r), side: side)
        let high = Self.cube((p.x + r, p.y + r, p.z + r), side: side)
        let visits = Double(high.x - low.x + 1) * Double(high.y - low.y + 1) * Double(high.z - low.z + 1)
        guard visits <= Double(places.count) else {
            for index in places.indices { body(index) }
            return
        }
        for x in low.x...high.x {
            for y in low.y...high.y {
                for z in low.z...high.z {
                    guard let number = cubes[Cube(x: x, y: y, z: z)] else { continue }
                    for slot in ranges[number] { body(order[slot]) }
                }
            }
        }
    }

    @inlinable static func unitVector(_ coordinate: Coordinate) -> (x: Double, y: Double, z: Double) {
        let phi = coordinate.latitude * (Double.pi / 180)
        let lambda = coordinate.longitude * (Double.pi / 180)
        let cosPhi = HaversineSeries.libmCos(phi)
        return (cosPhi * HaversineSeries.libmCos(lambda), cosPhi * HaversineSeries.libmSin(lambda), HaversineSeries.libmSin(phi))
    }

    @inlinable static func cube(_ point: (x: Double, y: Double, z: Double), side: Double) -> Cube {
        // |coordinate| ≤ 1 + r and side ≥ 4·10⁻⁹, so every index fits an Int.
        Cube(x: Int((point.x / side).rounded(.down)), y: Int((point.y / side).rounded(.down)),
             z: Int((point.z / side).rounded(.down)))
    }
}
