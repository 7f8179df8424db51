import Foundation
@testable import LocationCore
import LocSimTestHelpers
import Testing

// Expected values come from scripts/reference/make_geodesic_reference.py (GeographicLib 2.1),
// committed as Fixtures/*.csv. Re-run the script to regenerate them.

@Suite("WGS-84 geodesics against GeographicLib", .ownThread)
struct GeodesicTests {
    // Bounds asserted below. The values measured on x86_64 Linux (glibc) with the committed
    // fixtures are in docs/reference/geodesy.md; the asserted bounds leave a margin for other libms.
    /// Distance, pairs up to 1,000 km (the acceptance bound is 1 mm; measured ≈ 2.5 nm).
    static let shortDistanceTolerance = 1e-8
    /// Distance, any pair (measured ≈ 3.7 nm, i.e. one ulp of 2×10⁷ m).
    static let distanceTolerance = 1.5e-8
    /// Azimuths of lines ≥ 1 km, degrees (measured ≈ 8×10⁻¹²°).
    static let azimuthTolerance = 1e-10
    /// Azimuth error times length, metres: the sideways miss at the far end. This is the
    /// meaningful measure for lines under 1 km, whose azimuth round-off grows like 1/s
    /// (measured ≈ 0.9 nm).
    static let lateralTolerance = 5e-9
    /// Direct problem: position in metres (measured ≈ 0.8 nm) and azimuth in degrees
    /// (measured ≈ 3×10⁻¹⁴°).
    static let directPositionTolerance = 5e-9
    static let directAzimuthTolerance = 1e-12

    @Test("The fixture holds >= 1,000 pairs up to 1,000 km and hundreds of hard cases")
    func fixtureCoverage() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        #expect(table.rows.count { $0["s12"] <= 1_000_000 && $0.label == "short" } >= 1_000)
        let counts = Dictionary(grouping: table.rows, by: { $0.label }).mapValues(\.count)
        for (category, minimum) in [
            ("antipodal", 300), ("pole", 100), ("pole-to-pole", 20), ("antimeridian", 100), ("equatorial", 50),
            ("meridional", 50), ("coincident", 20), ("very-short", 100), ("known-hard", 10),
        ] {
            #expect(counts[category, default: 0] >= minimum, "category \(category)")
        }
    }

    @Test("Inverse: within 1 mm (in fact nanometres) of GeographicLib for pairs up to 1,000 km")
    func inverseShortLines() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        var checked = 0
        for row in table.rows where row["s12"] <= 1_000_000 {
            let result = Geodesic.wgs84.inverse(from: row.coordinate("lat1", "lon1"), to: row.coordinate("lat2", "lon2"))
            let error = abs(result.distance - row["s12"])
            #expect(error <= 0.001, "acceptance: 1 mm; \(row)")
            #expect(error <= Self.shortDistanceTolerance, "\(row)")
            checkAzimuths(result, row)
            checked += 1
        }
        #expect(checked >= 1_000)
    }

    @Test("Inverse: within 15 nm of GeographicLib everywhere, near-antipodal, poles and ±180° included")
    func inverseEverywhere() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        for row in table.rows {
            let result = Geodesic.wgs84.inverse(from: row.coordinate("lat1", "lon1"), to: row.coordinate("lat2", "lon2"))
            #expect(result.distance.isFinite && result.initialAzimuth.isFinite && result.finalAzimuth.isFinite)
            #expect(abs(result.distance - row["s12"]) <= Self.distanceTolerance, "\(row)")
            checkAzimuths(result, row)
        }
    }

    /// Azimuths are compared where they are defined (not for coincident points) and where the
    /// reference pins them down: a line of length s determined to δ metres fixes its azimuth
    /// only to about δ/s radians.
    private func checkAzimuths(_ result: GeodesicSolution, _ row: ReferenceRow, sourceLocation: SourceLocation = #_sourceLocation) {
        let s = row["s12"]
        guard s > 0 else { return }
        for (got, want) in [(result.initialAzimuth, row["azi1"]), (result.finalAzimuth, row["azi2"])] {
            let error = angularDifference(got, want)
            if s < 1_000 {
                #expect(error * .pi / 180 * s <= Self.lateralTolerance, "\(row)", sourceLocation: sourceLocation)
            } else {
                #expect(error <= Self.azimuthTolerance, "\(row)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("Inverse is symmetric: swapping the ends gives the same length and reversed azimuths")
    func inverseSymmetry() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        // Away from the poles (where an azimuth depends on the longitude it is quoted at) and
        // away from the antipode (where the shortest geodesic is not unique).
        for row in table.rows
        where row.label != "antipodal" && row.label != "known-hard" && abs(row["lat1"]) < 89.99 && abs(row["lat2"]) < 89.99 {
            let a = row.coordinate("lat1", "lon1"), b = row.coordinate("lat2", "lon2")
            let forward = Geodesic.wgs84.inverse(from: a, to: b)
            let backward = Geodesic.wgs84.inverse(from: b, to: a)
            #expect(abs(forward.distance - backward.distance) <= Self.distanceTolerance, "\(row)")
            if forward.distance >= 1_000 {
                #expect(angularDifference(backward.initialAzimuth, forward.finalAzimuth + 180) <= Self.azimuthTolerance, "\(row)")
            }
        }
    }

    @Test("Coincident points are exactly 0 m apart, wherever they are")
    func coincident() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        let rows = table.rows.filter { $0.label == "coincident" }
        #expect(rows.count >= 20)
        for row in rows {
            let p = row.coordinate("lat1", "lon1")
            #expect(Geodesic.wgs84.inverse(from: p, to: p).distance == 0, "\(row)")
            #expect(p.geodesicDistance(to: p) == 0)
        }
    }

    @Test("Every solver path is taken; nearly antipodal pairs start from the astroid and converge fast")
    func solverPaths() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        var methods: [InverseMethod: Int] = [:]
        var astroidStarts = 0
        var maxIterations = 0
        for row in table.rows {
            let result = Geodesic.wgs84.solveInverse(
                latitude1: row["lat1"], longitude1: row["lon1"], latitude2: row["lat2"], longitude2: row["lon2"])
            methods[result.method, default: 0] += 1
            if result.startedFromAstroid { astroidStarts += 1 }
            maxIterations = max(maxIterations, result.iterations)
            #expect(result.iterations <= Tolerance.maximumSteps)
            #expect(result.bisections == 0, "Newton's method alone converges on the fixture: \(row)")
            if row.label == "equatorial" {
                #expect(result.method == .equator, "\(row)")
            }
        }
        for method in [InverseMethod.meridian, .equator, .shortLine, .iterated] {
            #expect(methods[method, default: 0] >= 20, "\(method) taken \(methods[method, default: 0]) times")
        }
        #expect(astroidStarts >= 100)
        #expect(maxIterations <= 10, "Newton's method needs at most a handful of steps (took \(maxIterations))")
    }

    @Test("On the equator the geodesic stays on it up to (1 − f)·180° of longitude, then leaves it")
    func equatorialThreshold() throws {
        let limit = (1 - Geodesic.wgs84.flattening) * 180
        for dlon in [limit - 1e-9, limit - 0.5, 10] {
            let r = Geodesic.wgs84.solveInverse(latitude1: 0, longitude1: 0, latitude2: 0, longitude2: dlon)
            #expect(r.method == .equator)
            #expect(r.initialAzimuth == 90 && r.finalAzimuth == 90)
        }
        for dlon in [limit + 1e-6, 179.5, 180] {
            let r = Geodesic.wgs84.solveInverse(latitude1: 0, longitude1: 0, latitude2: 0, longitude2: dlon)
            #expect(r.method != .equator)
            #expect(abs(r.initialAzimuth) < 90)
        }
    }

    @Test("Bisection alone (Newton's method switched off) still converges on the hard cases")
    func bisectionFallback() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        var iterated = 0
        for row in table.rows where row.label != "short" && row.label != "global" {
            let result = Geodesic.wgs84.solveInverse(
                latitude1: row["lat1"], longitude1: row["lon1"], latitude2: row["lat2"], longitude2: row["lon2"],
                newtonStepLimit: 0)
            #expect(result.iterations <= Tolerance.maximumSteps)
            // Measured ≈ 6 nm: as good as with Newton's method, just slower.
            #expect(abs(result.distance - row["s12"]) <= 2e-8, "\(row)")
            if result.method == .iterated {
                iterated += 1
                #expect(result.bisections == result.iterations)
            }
        }
        #expect(iterated >= 300)
    }

    @Test("Direct: within nanometres of GeographicLib, any azimuth and length (wrapping included)")
    func direct() throws {
        let table = try ReferenceTable.load("geodesic-direct-reference")
        #expect(table.rows.count >= 1_000)
        for row in table.rows {
            let start = row.coordinate("lat1", "lon1")
            let end = Geodesic.wgs84.destination(from: start, azimuth: row["azi1"], distance: row["s12"])
            #expect(end.coordinate == Geodesic.wgs84.direct(from: start, azimuth: row["azi1"], distance: row["s12"]))
            #expect(end.finalAzimuth.isFinite)
            #expect(positionError(end.coordinate, row["lat2"], row["lon2"]) <= Self.directPositionTolerance, "\(row)")
            if abs(row["lat2"]) < 89.9999 {
                #expect(angularDifference(end.finalAzimuth, row["azi2"]) <= Self.directAzimuthTolerance, "\(row)")
            }
        }
    }

    @Test("Direct undoes inverse on every reference pair")
    func roundTrip() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        for row in table.rows {
            let a = row.coordinate("lat1", "lon1"), b = row.coordinate("lat2", "lon2")
            let line = Geodesic.wgs84.inverse(from: a, to: b)
            let end = Geodesic.wgs84.direct(from: a, azimuth: line.initialAzimuth, distance: line.distance)
            // Measured ≈ 8 nm (the azimuth's round-off carried 20,000 km).
            #expect(positionError(end, b.latitude, b.longitude) <= 3e-8, "\(row)")
        }
    }

    @Test("Other ellipsoids: a sphere, f = 1/60 and a prolate f = −1/150")
    func otherEllipsoids() throws {
        let table = try ReferenceTable.load("geodesic-other-ellipsoids")
        #expect(table.rows.count >= 400)
        for row in table.rows {
            let geodesic = Geodesic(equatorialRadius: row["a"], flattening: row["f"])
            let result = geodesic.inverse(from: row.coordinate("lat1", "lon1"), to: row.coordinate("lat2", "lon2"))
            #expect(abs(result.distance - row["s12"]) <= Self.distanceTolerance, "\(row)")
            checkAzimuths(result, row)
        }
    }

    @Test("100,000 random pairs (seeded), biased to the hard regions: finite, bounded, terminating")
    func randomSweep() throws {
        var random = SplitMix64(seed: 0x5EED_6E0D_E51C)
        // The longest geodesic runs pole to pole; take its length from the reference table.
        let table = try ReferenceTable.load("geodesic-reference")
        let halfMeridian = table.rows.filter { $0.label == "pole-to-pole" }.map { $0["s12"] }.max()! + Self.distanceTolerance
        var worstIterations = 0
        for i in 0..<100_000 {
            let (lat1, lon1, lat2, lon2) = random.pair(kind: i % 8)
            let result = Geodesic.wgs84.solveInverse(latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2)
            worstIterations = max(worstIterations, result.iterations)
            guard result.distance.isFinite, result.initialAzimuth.isFinite, result.finalAzimuth.isFinite,
                result.distance >= 0, result.distance <= halfMeridian,
                abs(result.initialAzimuth) <= 180, abs(result.finalAzimuth) <= 180,
                result.iterations <= Tolerance.maximumSteps
            else {
                Issue.record("bad result \(result) for \(lat1),\(lon1) -> \(lat2),\(lon2)")
                return
            }
        }
        #expect(worstIterations <= 10, "Newton's method converges in a handful of steps (took \(worstIterations))")
    }

    @Test("geodesicDistance(to:) is the WGS-84 inverse distance")
    func convenience() throws {
        let table = try ReferenceTable.load("geodesic-reference")
        for row in table.rows.prefix(100) {
            let a = row.coordinate("lat1", "lon1"), b = row.coordinate("lat2", "lon2")
            #expect(a.geodesicDistance(to: b) == Geodesic.wgs84.inverse(from: a, to: b).distance)
        }
    }
}

// MARK: - Helpers shared by the geodesy tests

/// |a − b| in degrees, modulo 360 (so −180 and 180 agree).
func angularDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}

/// Distance in metres between `c` and (latitude, longitude), on a local plane (fine for the
/// nanometre-scale differences it measures).
func positionError(_ c: Coordinate, _ latitude: Double, _ longitude: Double) -> Double {
    let metresPerDegree = 6_378_137 * Double.pi / 180
    let north = (c.latitude - latitude) * metresPerDegree
    let east = angularDifference(c.longitude, longitude) * metresPerDegree * cos(latitude * .pi / 180)
    return (north * north + east * east).squareRoot()
}

/// A CSV table from Fixtures/, written by scripts/reference/make_geodesic_reference.py.
struct ReferenceTable: Sendable {
    var rows: [ReferenceRow]

    /// Loads (once per test run) and parses `Fixtures/<name>.csv`.
    static func load(_ name: String) throws -> ReferenceTable {
        try cache.table(name)
    }

    private static let cache = Cache()

    private final class Cache: @unchecked Sendable {
        private let lock = NSLock()
        private var tables: [String: ReferenceTable] = [:]

        func table(_ name: String) throws -> ReferenceTable {
            lock.lock()
            defer { lock.unlock() }
            if let table = tables[name] { return table }
            let table = try ReferenceTable.parse(name)
            tables[name] = table
            return table
        }
    }

    private static func parse(_ name: String) throws -> ReferenceTable {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "csv", subdirectory: "Fixtures"),
            "Fixtures/\(name).csv is missing; run scripts/reference/make_geodesic_reference.py")
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines = text.split(separator: "\n")
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        let columns = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
        var rows: [ReferenceRow] = []
        rows.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            try #require(fields.count == header.count, "\(name).csv line \(index + 2): \(fields.count) fields")
            var label = ""
            let values = fields.map { field -> Double in
                if let value = Double(field) { return value }
                label = String(field)
                return .nan
            }
            rows.append(ReferenceRow(file: name, line: index + 2, label: label, columns: columns, values: values))
        }
        return ReferenceTable(rows: rows)
    }
}

struct ReferenceRow: Sendable, CustomStringConvertible {
    var file: String
    var line: Int
    /// The non-numeric column (category or ellipsoid name), empty when there is none.
    var label: String
    var columns: [String: Int]
    var values: [Double]

    subscript(_ column: String) -> Double {
        guard let index = columns[column] else { fatalError("\(file).csv has no column \(column)") }
        return values[index]
    }

    /// The coordinate in two columns (the script writes valid, normalised values).
    func coordinate(_ latitude: String, _ longitude: String) -> Coordinate {
        Coordinate(uncheckedLatitude: self[latitude], longitude: self[longitude])
    }

    var description: String {
        "\(file).csv line \(line): "
            + columns.sorted { $0.value < $1.value }.map { "\($0.key)=\(values[$0.value].isNaN ? label : "\(values[$0.value])")" }
            .joined(separator: " ")
    }
}

/// Random pairs for the geodesic sweeps, on the shared seeded generator.
extension SplitMix64 {
    mutating func sign() -> Double { next() & 1 == 0 ? 1 : -1 }
    /// 10^u for u uniform in `exponents`.
    mutating func logUniform(_ exponents: ClosedRange<Double>) -> Double { pow(10, uniform(exponents)) }

    /// A pair of valid coordinates of one of eight kinds: uniform, nearly antipodal (three
    /// flavours), near a pole, across ±180°, very short, on the equator.
    mutating func pair(kind: Int) -> (Double, Double, Double, Double) {
        func lat(_ x: Double) -> Double { min(90, max(-90, x)) }
        let lat1 = asin(uniform(-1...1)) * 180 / .pi
        let lon1 = uniform(-180...180)
        let lat2: Double, lon2: Double
        switch kind {
        case 0:
            lat2 = asin(uniform(-1...1)) * 180 / .pi
            lon2 = uniform(-180...180)
        case 1:
            lat2 = -lat1 + sign() * logUniform(-15...0)
            lon2 = lon1 + 180 + sign() * logUniform(-15...0)
        case 2:
            lat2 = -lat1
            lon2 = lon1 + 180 - logUniform(-15...0)
        case 3:
            let small = sign() * logUniform(-12...0)
            return (small, lon1, -small + sign() * logUniform(-15...(-5)), normalizedLongitude(lon1 + 180 - logUniform(-15...0.5)))
        case 4:
            let pole = sign() * 90
            return (pole - pole / 90 * logUniform(-15...1), lon1, lat(sign() * 90 - sign() * logUniform(-15...1)), uniform(-180...180))
        case 5:
            return (lat1, 180 - logUniform(-14...1), lat(lat1 + sign() * logUniform(-12...1)), -180 + logUniform(-14...1))
        case 6:
            lat2 = lat1 + sign() * logUniform(-14...(-3))
            lon2 = lon1 + sign() * logUniform(-14...(-3))
        default:
            return (0, lon1, 0, normalizedLongitude(lon1 + uniform(-180...180)))
        }
        return (lat1, lon1, lat(lat2), normalizedLongitude(lon2))
    }
}
