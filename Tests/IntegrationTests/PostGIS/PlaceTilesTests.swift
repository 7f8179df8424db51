import Foundation
import LocSimTestHelpers
import LocationCore
import LocationIndex
@testable import LocationPostGIS
import NIOCore
import Testing

/// The tile layer of the PostGIS store (`locsim_tile`): which tiles a query reads, how a packed
/// tile is read, and the upgrade of a database written by the first schema. That the answers
/// equal the SQLite index's is PostGISEquivalenceTests' job.
@Suite(.timeLimit(.minutes(1))) struct PlaceTilesTests {
    /// Stored 1e-7° integers of a coordinate, rounded as the importers round them.
    static func storedE7(_ coordinate: Coordinate) -> (Int64, Int64) {
        var longitude = Int64((coordinate.longitude * 1e7).rounded())
        if longitude >= 1_800_000_000 { longitude -= 3_600_000_000 }
        return (Int64((coordinate.latitude * 1e7).rounded()), longitude)
    }

    /// Every place a query must find lies in a tile it reads, and no tile is read twice (a tile
    /// in two ranges would give its places twice): random points inside caps at the poles,
    /// across ±180° and elsewhere, 1 m to 2,000 km.
    @Test func keyRangesCoverTheCapOnceEach() throws {
        var random = SplitMix64(seed: 16)
        let centers: [(Double, Double)] = [
            (0, 0), (35.6812, 139.7671), (-33.87, 151.21), (89.9999, 12), (-90, 0), (90, 0), (0.001, 179.9999),
            (-12.5, -179.99995), (64.1, -180), (-89.95, 179.5), (51.5, -0.0001),
        ]
        for (latitude, longitude) in centers {
            let center = try Coordinate(latitude: latitude, longitude: longitude)
            for radius in [1.0, 100, 5_000, 60_000, 700_000, 2_000_000] {
                let ranges = PlaceTiles.keyRanges(center: center, radius: radius)
                for (left, right) in zip(ranges, ranges.dropFirst()) {
                    #expect(left.upperBound + 1 < right.lowerBound, "\(center) \(radius) m: \(left) and \(right)")
                }
                for sample in 0..<600 {
                    // A third of the points on the rim, where a band's trimmed longitudes end.
                    let fraction = sample % 3 == 0 ? 1 - 1e-9 : Double.random(in: 0...1, using: &random).squareRoot()
                    let distance = radius * fraction
                    let point = center.destination(distance: distance, bearing: Double.random(in: 0..<360, using: &random))
                    let (latitudeE7, longitudeE7) = Self.storedE7(point)
                    let stored = try Coordinate(latitude: Double(latitudeE7) / 1e7, longitude: Double(longitudeE7) / 1e7)
                    guard center.distance(to: stored) <= radius else { continue }
                    let key = PlaceTiles.key(latitudeE7: latitudeE7, longitudeE7: longitudeE7)
                    #expect(ranges.contains { $0.contains(key) }, "\(stored) is \(center.distance(to: stored)) m from \(center), radius \(radius)")
                }
            }
        }
    }

    /// Per band only the longitudes the cap reaches: a 5 km query away from the poles reads
    /// clearly fewer tiles than the cap's box, and the box's bands and cells bound the ranges.
    @Test func keyRangesTrimTheBoxPerBand() throws {
        for (latitude, longitude) in [(35.6812, 139.7671), (0.0, 0.0), (-54.8, -68.3), (64.1, -179.99)] {
            let center = try Coordinate(latitude: latitude, longitude: longitude)
            let cap = SearchCap(center: center, radius: 5_000)
            let bands = PlaceTiles.band(cap.latitudeE7.upperBound) - PlaceTiles.band(cap.latitudeE7.lowerBound) + 1
            let cellsPerBand = cap.longitudeE7.reduce(Int64(0)) { $0 + PlaceTiles.cell($1.upperBound) - PlaceTiles.cell($1.lowerBound) + 1 }
            let boxTiles = bands * cellsPerBand
            let read = PlaceTiles.keyRanges(center: center, radius: 5_000).reduce(Int64(0)) { $0 + Int64($1.count) }
            #expect(read <= boxTiles * 9 / 10, "\(center): \(read) tiles of the box's \(boxTiles)")
            #expect(read >= boxTiles / 2, "\(center): \(read) tiles of the box's \(boxTiles)")
        }
    }

    /// The Swift key of a tile is the SQL one: band × 36,000 + cell from −90°, −180°.
    @Test func keysAtTheEdgesOfTheGrid() {
        #expect(PlaceTiles.key(latitudeE7: -900_000_000, longitudeE7: -1_800_000_000) == 0)
        #expect(PlaceTiles.key(latitudeE7: -900_000_000, longitudeE7: 1_799_999_999) == 35_999)
        #expect(PlaceTiles.key(latitudeE7: -899_900_000, longitudeE7: -1_800_000_000) == 36_000)
        #expect(PlaceTiles.key(latitudeE7: 900_000_000, longitudeE7: 1_799_999_999) == 18_000 * 36_000 + 35_999)
        #expect(PlaceTiles.key(latitudeE7: 99_999, longitudeE7: 99_999) == 9_000 * 36_000 + 18_000)
        #expect(PlaceTiles.key(latitudeE7: -1, longitudeE7: -1) == 8_999 * 36_000 + 17_999)
    }

    static func packed(_ places: [(Int32, Int32, Int32, String, String, String)]) -> ByteBuffer {
        var buffer = ByteBuffer()
        for (latitude, longitude, level, id, name, kind) in places {
            buffer.writeInteger(latitude)
            buffer.writeInteger(longitude)
            buffer.writeInteger(level)
            for text in [id, name, kind] {
                buffer.writeInteger(Int32(text.utf8.count))
                buffer.writeString(text)
            }
        }
        return buffer
    }

    /// The places of packed tiles within `radius` of `center`, ranked, as values.
    static func hits(in packed: ByteBuffer, center: Coordinate, radius: Double) throws(PlaceTiles.MalformedTile) -> [NearbyPlace] {
        try PlaceTiles.withHits(in: packed, center: center, radius: radius, limit: nil) { rows in
            (0..<rows.count).map { rows.place(at: $0) }
        }
    }

    /// A packed tile is read into the places within the radius, with their level, text and distance.
    @Test func packedPlacesWithinTheRadius() throws {
        let center = try Coordinate(latitude: 35.68, longitude: 139.76)
        let near = try Coordinate(latitude: 35.6801, longitude: 139.7601)
        let buffer = Self.packed([
            (356_801_000, 1_397_601_000, 3, "a", "Ālpha “1”", "shop"),
            (356_900_000, 1_397_601_000, Int32.min, "far", "Far", ""),
            (356_801_000, 1_397_601_000, Int32.min, "b", "", ""),
        ])
        let hits = try Self.hits(in: buffer, center: center, radius: 500)
        #expect(hits.map(\.place.id) == ["a", "b"])
        #expect(hits[0].place.name == "Ālpha “1”")
        #expect(hits[0].place.kind == "shop")
        #expect(hits[0].place.level == 3)
        #expect(hits[1].place.level == nil)
        #expect(hits[0].distance == center.distance(to: near))
    }

    /// A tile cut short anywhere is an error naming the byte, not a crash or a wrong place.
    @Test func truncatedTilesThrow() throws {
        let center = try Coordinate(latitude: 35.68, longitude: 139.76)
        let whole = Self.packed([(356_801_000, 1_397_601_000, 3, "a", "Alpha", "shop"), (356_900_000, 1_397_601_000, 1, "z", "Zed", "")])
        for length in 1..<whole.readableBytes {
            let cut = whole.getSlice(at: 0, length: length)!
            // A cut exactly between the two places is a whole tile of one place.
            if length == 12 + 4 + 1 + 4 + 5 + 4 + 4 { continue }
            #expect(throws: PlaceTiles.MalformedTile.self, "cut at \(length)") {
                _ = try Self.hits(in: cut, center: center, radius: 5_000_000)
            }
        }
        var negative = ByteBuffer()
        negative.writeInteger(Int32(0))
        negative.writeInteger(Int32(0))
        negative.writeInteger(Int32(0))
        negative.writeInteger(Int32(-5))
        do {
            _ = try Self.hits(in: negative, center: center, radius: 1)
            Issue.record("a negative length was read")
        } catch {
            #expect(error.message.contains("byte 0"), "\(error.message)")
        }
    }

    /// The first schema (a planar `cell` column, no tiles): the query says what to run instead
    /// of failing obscurely, and the next import upgrades it, keeping its places.
    @Test func aVersionOneDatabaseIsUpgradedByTheNextImport() async throws {
        try await withPostGIS { server, store in
            try await server.psql(
                """
                CREATE EXTENSION IF NOT EXISTS postgis;
                CREATE TABLE locsim_place (
                    id text PRIMARY KEY, name text NOT NULL, kind text NOT NULL, level integer,
                    lat_e7 integer NOT NULL CHECK (lat_e7 BETWEEN -900000000 AND 900000000),
                    lon_e7 integer NOT NULL CHECK (lon_e7 BETWEEN -1800000000 AND 1799999999),
                    cell geometry(Point) GENERATED ALWAYS AS (ST_MakePoint(lon_e7, lat_e7)) STORED,
                    geog geography(Point, 4326) GENERATED ALWAYS AS (
                        ST_SetSRID(ST_MakePoint(lon_e7::float8 / 10000000.0::float8, lat_e7::float8 / 10000000.0::float8), 4326)::geography
                    ) STORED);
                CREATE INDEX locsim_place_cell ON locsim_place USING gist (cell);
                CREATE INDEX locsim_place_geog ON locsim_place USING gist (geog);
                CREATE TABLE locsim_meta (key text PRIMARY KEY, value text NOT NULL);
                INSERT INTO locsim_meta VALUES ('format', 'locsim-places'), ('version', '1');
                INSERT INTO locsim_place (id, name, kind, level, lat_e7, lon_e7) VALUES
                    ('a', 'Alpha', 'shop', 2, 356812000, 1397671000), ('b', 'Beta', '', NULL, 356813000, 1397672000),
                    ('c', 'Gamma', 'park', NULL, 357000000, 1398000000);
                """)
            let center = try Coordinate(latitude: 35.68, longitude: 139.76)
            do {
                _ = try await store.places(near: center, within: 50_000)
                Issue.record("a version-1 database answered the tile query")
            } catch let error as PostGISError {
                #expect(error.code == .schema)
                #expect(error.message.contains("locsim index import"), "\(error)")
            }
            try await withScratchFolder { directory in
                // The same places into SQLite, then one file into both: b moves to c's tile, d is new.
                try "id,name,lat,lon,kind,level\na,Alpha,35.6812,139.7671,shop,2\nb,Beta,35.6813,139.7672,,\nc,Gamma,35.7,139.8,park,\n"
                    .write(toFile: directory + "/v1.csv", atomically: true, encoding: .utf8)
                try "id,name,lat,lon\nb,Beta moved,35.7001,139.8001\nd,Delta,35.68,139.76\n".write(
                    toFile: directory + "/next.csv", atomically: true, encoding: .utf8)
                let report = try await store.importPlaces(fromFile: directory + "/next.csv")
                #expect(report.inserted == 1)
                #expect(report.updated == 1)
                #expect(report.placeCount == 4)
                let index = try sqliteIndex(in: directory, importing: ["v1.csv", "next.csv"])
                for radius in [10.0, 3_000, 50_000] {
                    #expect(try await store.places(near: center, within: radius) == index.places(near: center, within: radius))
                }
                #expect(try await store.places(near: center, within: 50_000).count == 4)
            }
        }
    }
}
