import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

// Expected values: Fixtures/spherical-reference.csv and spherical-destination.csv, written by
// scripts/reference/make_geodesic_reference.py (haversine in plain Python with R = 6,371,008.8 m,
// bearings, destinations and intermediate points from GeographicLib with f = 0).

@Suite("Spherical geodesy against the reference sphere", .ownThread)
struct SphericalTests {
    @Test("The sphere is the IUGG mean radius")
    func radius() {
        // R₁ = (2a + b) / 3 for WGS-84, rounded to 0.1 m as documented.
        let a = Geodesic.wgs84.equatorialRadius
        let b = a * (1 - Geodesic.wgs84.flattening)
        #expect(abs(Sphere.radius - (2 * a + b) / 3) < 0.05)
        #expect(Sphere.halfCircumference == .pi * Sphere.radius)
    }

    @Test("Haversine distance matches the Python haversine (and GeographicLib's sphere)")
    func distance() throws {
        let table = try ReferenceTable.load("spherical-reference")
        #expect(table.rows.count >= 400)
        for row in table.rows {
            let a = row.coordinate("lat1", "lon1"), b = row.coordinate("lat2", "lon2")
            let expected = row["distance"]
            #expect(abs(a.distance(to: b) - expected) <= 1e-9 * max(1, expected), "\(row)")
            #expect(abs(b.distance(to: a) - expected) <= 1e-9 * max(1, expected), "\(row)")
        }
    }

    @Test("Haversine is stable for antipodal points and zero for coincident ones")
    func distanceExtremes() throws {
        let p = try Coordinate(latitude: 12.5, longitude: -45)
        let antipode = try Coordinate(latitude: -12.5, longitude: 135)
        #expect(abs(p.distance(to: antipode) - Sphere.halfCircumference) < 0.1)
        #expect(p.distance(to: p) == 0)
        let pole = try Coordinate(latitude: 90, longitude: 0)
        let southPole = try Coordinate(latitude: -90, longitude: 77)
        #expect(abs(pole.distance(to: southPole) - Sphere.halfCircumference) < 1e-6)
    }

    @Test("Initial bearing matches GeographicLib on the sphere, in 0..<360")
    func bearing() throws {
        let table = try ReferenceTable.load("spherical-reference")
        for row in table.rows where row["distance"] > 0 && abs(row["lat1"]) < 90 {
            let a = row.coordinate("lat1", "lon1"), b = row.coordinate("lat2", "lon2")
            let bearing = a.bearing(to: b)
            #expect(bearing >= 0 && bearing < 360)
            // Compared as the sideways miss at the far end (round-off in a bearing grows like
            // 1/distance): at most a few nanometres.
            let miss = angularDifference(bearing, row["bearing"]) * .pi / 180 * row["distance"]
            #expect(miss <= 5e-8, "\(row)")
        }
        let p = try Coordinate(latitude: 10, longitude: 20)
        #expect(p.bearing(to: p) == 0)
    }

    @Test("Destination matches GeographicLib on the sphere, for either sign of distance, from either pole too")
    func destination() throws {
        let table = try ReferenceTable.load("spherical-destination")
        #expect(table.rows.count >= 300)
        #expect(table.rows.contains { $0["distance"] < 0 })
        // From a pole the bearing is from its own meridian: a circle about a pole goes round.
        #expect(table.rows.count { abs($0["lat1"]) == 90 } >= 200)
        for row in table.rows {
            let end = row.coordinate("lat1", "lon1").destination(distance: row["distance"], bearing: row["bearing"])
            #expect(positionError(end, row["lat2"], row["lon2"]) <= 1e-6, "\(row)")
            #expect(end.longitude >= -180 && end.longitude < 180)
        }
    }

    @Test("Intermediate points lie on the great circle at the right fraction (extrapolating too)")
    func intermediate() throws {
        let table = try ReferenceTable.load("spherical-reference")
        #expect(table.rows.contains { $0["fraction"] < 0 || $0["fraction"] > 1 })
        for row in table.rows {
            let a = row.coordinate("lat1", "lon1"), b = row.coordinate("lat2", "lon2")
            let point = a.intermediate(to: b, fraction: row["fraction"])
            #expect(positionError(point, row["lat_f"], row["lon_f"]) <= 1e-6, "\(row)")
        }
    }

    @Test("Intermediate returns the end points exactly at fractions 0 and 1")
    func intermediateEnds() throws {
        let a = try Coordinate(latitude: 35.6812, longitude: 139.7671)
        let b = try Coordinate(latitude: -33.8688, longitude: 151.2093)
        #expect(a.intermediate(to: b, fraction: 0) == a)
        #expect(a.intermediate(to: b, fraction: 1) == b)
        // Exactly antipodal: no unique great circle, but a finite, valid answer.
        let antipode = try Coordinate(latitude: -35.6812, longitude: 139.7671 - 180)
        let middle = a.intermediate(to: antipode, fraction: 0.5)
        #expect(middle.latitude.isFinite && middle.longitude.isFinite)
    }

    @Test("normalizedLongitude wraps into -180..<180")
    func longitudeWrapping() {
        for value in stride(from: -1_000.0, through: 1_000, by: 7.25) {
            let wrapped = normalizedLongitude(value)
            #expect(wrapped >= -180 && wrapped < 180)
            let turns = (value - wrapped) / 360
            #expect(turns == turns.rounded(), "\(value) -> \(wrapped)")
        }
        #expect(normalizedLongitude(180) == -180)
        #expect(normalizedLongitude(-180) == -180)
    }

    @Test("normalizedCourse wraps into 0..<360, and a tiny negative course becomes 0, not 360")
    func courseWrapping() {
        for value in stride(from: -1_000.0, through: 1_000, by: 7.25) {
            let wrapped = normalizedCourse(value)
            #expect(wrapped >= 0 && wrapped < 360)
            let turns = (value - wrapped) / 360
            #expect(turns == turns.rounded(), "\(value) -> \(wrapped)")
        }
        let tiny: Double = -1e-15
        #expect(tiny + 360 == 360)  // why the guard is needed
        #expect(normalizedCourse(tiny) == 0)
        #expect(normalizedCourse(360) == 0)
    }
}

@Suite("Fix interpolation", .ownThread)
struct FixInterpolationTests {
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func fix(_ coordinate: Coordinate, at seconds: Double, altitude: Double? = nil, speed: Double? = nil,
                     course: Double? = nil, accuracy: Double? = nil, mode: FixMode? = nil, source: FixSource = .gpx) -> Fix {
        Fix(time: t0.addingTimeInterval(seconds), coordinate: coordinate, altitude: altitude, speed: speed, course: course,
            horizontalAccuracy: accuracy, verticalAccuracy: accuracy, mode: mode, source: source)
    }

    @Test("Position moves along the great circle in proportion to time")
    func position() throws {
        let table = try ReferenceTable.load("spherical-reference")
        var checked = 0
        // Times are chosen so the fraction is exact: at 2001-01-01 a `Date` resolves ~10⁻¹⁶ s,
        // whereas today's dates resolve ~10⁻⁷ s, which over a 20,000 km hop in one minute is
        // already centimetres.
        let origin = Date(timeIntervalSinceReferenceDate: 0)
        for row in table.rows where (0...1).contains(row["fraction"]) {
            let a = Fix(time: origin, coordinate: row.coordinate("lat1", "lon1"), source: .gpx)
            let b = Fix(time: origin.addingTimeInterval(1), coordinate: row.coordinate("lat2", "lon2"), source: .gpx)
            let at = origin.addingTimeInterval(row["fraction"])
            let mid = try #require(Fix.interpolated(from: a, to: b, at: at))
            let coordinate = try #require(mid.coordinate)
            #expect(mid.time == at)
            #expect(positionError(coordinate, row["lat_f"], row["lon_f"]) <= 1e-6, "\(row)")
            checked += 1
        }
        #expect(checked >= 100)
    }

    @Test("Scalars interpolate linearly, course turns the short way, mode is the weaker")
    func scalars() throws {
        let p = try Coordinate(latitude: 51.5, longitude: -0.12)
        let q = try Coordinate(latitude: 51.6, longitude: -0.10)
        let a = fix(p, at: 0, altitude: 10, speed: 2, course: 350, accuracy: 4, mode: .threeDimensional, source: .nmea)
        let b = fix(q, at: 10, altitude: 30, speed: 6, course: 10, accuracy: 8, mode: .twoDimensional)
        let quarter = try #require(Fix.interpolated(from: a, to: b, at: t0.addingTimeInterval(2.5)))
        #expect(quarter.altitude == 15)
        #expect(quarter.speed == 3)
        #expect(quarter.horizontalAccuracy == 5)
        #expect(quarter.verticalAccuracy == 5)
        #expect(quarter.course == 355)
        #expect(quarter.mode == .twoDimensional)
        #expect(quarter.source == .nmea)
        let half = try #require(Fix.interpolated(from: a, to: b, at: t0.addingTimeInterval(5)))
        #expect(half.course == 0)
        let back = try #require(Fix.interpolated(from: b, to: fix(p, at: 20, course: 350), at: t0.addingTimeInterval(15)))
        #expect(back.course == 0)
        // A missing value on either side stays missing.
        let bare = fix(q, at: 10)
        let none = try #require(Fix.interpolated(from: a, to: bare, at: t0.addingTimeInterval(5)))
        #expect(none.altitude == nil && none.speed == nil && none.course == nil && none.horizontalAccuracy == nil)
    }

    @Test("Outside the interval, or without positions, there is no interpolated fix")
    func outside() throws {
        let p = try Coordinate(latitude: 1, longitude: 2)
        let a = fix(p, at: 0), b = fix(p, at: 10)
        #expect(Fix.interpolated(from: a, to: b, at: t0.addingTimeInterval(-0.001)) == nil)
        #expect(Fix.interpolated(from: a, to: b, at: t0.addingTimeInterval(10.001)) == nil)
        #expect(Fix.interpolated(from: b, to: a, at: t0.addingTimeInterval(5)) == nil)
        let noFix = Fix.noFix(time: t0.addingTimeInterval(10), source: .gpsd)
        #expect(Fix.interpolated(from: a, to: noFix, at: t0.addingTimeInterval(5)) == nil)
        #expect(Fix.interpolated(from: noFix, to: a, at: t0.addingTimeInterval(5)) == nil)
    }

    @Test("At the end points the fixes come back unchanged; equal times give the end fix")
    func endpoints() throws {
        let p = try Coordinate(latitude: 1, longitude: 2), q = try Coordinate(latitude: 1.001, longitude: 2.001)
        let a = fix(p, at: 0, altitude: 5), b = fix(q, at: 10, altitude: 7)
        #expect(Fix.interpolated(from: a, to: b, at: a.time) == a)
        #expect(Fix.interpolated(from: a, to: b, at: b.time) == b)
        let same = fix(q, at: 0, altitude: 9)
        #expect(Fix.interpolated(from: a, to: same, at: a.time) == same)
    }
}
