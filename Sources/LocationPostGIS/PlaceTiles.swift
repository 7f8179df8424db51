package import LocationCore
package import LocationIndex
package import NIOCore
import PostgresNIO

/// The `locsim_tile` table: the places of `locsim_place` grouped by 0.01° × 0.01° tile, each
/// tile's places packed into one `bytea`, so a nearby query reads a few dozen rows however many
/// places they hold.
///
/// A tile is a band of latitude `sizeE7` high (from −90°) cut into cells `sizeE7` wide (from
/// −180°), in the 1e-7° integers the places are stored in, so assigning a place to its tile has
/// no rounding. Its key is `band × cellsPerBand + cell`: one band's cells are consecutive keys,
/// and a longitude range within a band is one key range.
///
/// Each place in a tile's `places`, one after the other, ordered by id (big-endian, as
/// PostgreSQL's `int4send` writes them):
///
/// ```
/// int32 lat_e7, int32 lon_e7, int32 level (−2147483648: no level)
/// int32 length, UTF-8 id; int32 length, UTF-8 name; int32 length, UTF-8 kind
/// ```
///
/// The tiles are derived data: an import rebuilds the tiles it touches in its own transaction
/// (``rebuildStatement(where:)``), so a reader sees the old tiles or the new ones, never a mix.
package enum PlaceTiles {
    /// Tile edge in 1e-7° units: 0.01°, about 1.1 km north–south. A 5 km query at mid-latitudes
    /// reads about ten bands of a dozen tiles; a 100 m query one to four tiles.
    package static let sizeE7: Int64 = 100_000
    /// Cells per band (360° / 0.01°); bands run from 0 (−90°) to 18,000 (the north pole's own).
    package static let cellsPerBand: Int64 = 36_000
    static let lastBand: Int64 = 1_800_000_000 / sizeE7

    /// The tile of a place, in SQL (`lat_e7`, `lon_e7` columns); the same integers as ``key(latitudeE7:longitudeE7:)``.
    static let keyExpression =
        "((lat_e7 + 900000000) / 100000) * 36000 + ((lon_e7::bigint + 1800000000) / 100000)::integer"

    /// The tile of a place.
    package static func key(latitudeE7: Int64, longitudeE7: Int64) -> Int64 {
        band(latitudeE7) * cellsPerBand + cell(longitudeE7)
    }

    static func band(_ latitudeE7: Int64) -> Int64 {
        (min(max(latitudeE7, -900_000_000), 900_000_000) + 900_000_000) / sizeE7
    }

    static func cell(_ longitudeE7: Int64) -> Int64 {
        (min(max(longitudeE7, -1_800_000_000), 1_799_999_999) + 1_800_000_000) / sizeE7
    }

    /// One place packed, in SQL, over `locsim_place`'s columns.
    static let packExpression = """
        int4send(lat_e7) || int4send(lon_e7) || int4send(coalesce(level, (-2147483648)::integer))
            || int4send(octet_length(convert_to(id, 'UTF8'))) || convert_to(id, 'UTF8')
            || int4send(octet_length(convert_to(name, 'UTF8'))) || convert_to(name, 'UTF8')
            || int4send(octet_length(convert_to(kind, 'UTF8'))) || convert_to(kind, 'UTF8')
        """

    /// Writes the tiles of the places of `locsim_place` matching `condition` (which must select
    /// whole tiles); the caller has deleted their old rows. Tiles are written in key order, so
    /// neighbouring tiles share heap pages.
    static func rebuildStatement(where condition: String) -> String {
        """
        INSERT INTO locsim_tile (tile, places)
        SELECT tile, string_agg(\(packExpression), ''::bytea ORDER BY id COLLATE "C")
        FROM locsim_place WHERE \(condition) GROUP BY tile ORDER BY tile
        """
    }

    /// The tile key ranges covering `cap`'s box: per band, one range per longitude range of the
    /// cap (two across ±180°), adjacent ranges merged (a cap over a pole covers whole bands).
    package static func keyRanges(covering cap: SearchCap) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        let longitudes = cap.longitudeE7.map { cell($0.lowerBound)...cell($0.upperBound) }.sorted { $0.lowerBound < $1.lowerBound }
        for band in band(cap.latitudeE7.lowerBound)...band(cap.latitudeE7.upperBound) {
            for cells in longitudes {
                let range = band * cellsPerBand + cells.lowerBound...band * cellsPerBand + cells.upperBound
                if let last = ranges.last, last.upperBound + 1 >= range.lowerBound {
                    ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                } else {
                    ranges.append(range)
                }
            }
        }
        return ranges
    }

    /// A `places` value that is not what ``rebuildStatement(where:)`` writes.
    package struct MalformedTile: Error, Sendable {
        package var message: String
    }

    /// The places of the packed tiles within `radius` metres of `center` (exact haversine, as
    /// NearbyIndex), unordered. Only the coordinates of a place are read until it is a hit.
    package static func hits(in packed: ByteBuffer, center: Coordinate, radius: Double) throws(MalformedTile) -> [NearbyPlace] {
        var buffer = packed
        let origin = HaversineOrigin(center)
        var hits: [NearbyPlace] = []
        while buffer.readableBytes > 0 {
            let offset = buffer.readerIndex - packed.readerIndex
            guard let latitudeE7 = buffer.readInteger(as: Int32.self), let longitudeE7 = buffer.readInteger(as: Int32.self),
                let level = buffer.readInteger(as: Int32.self)
            else {
                throw MalformedTile(message: "a place is cut short at byte \(offset) of \(packed.readableBytes)")
            }
            let latitude = Double(latitudeE7) / 1e7
            let longitude = Double(longitudeE7) / 1e7
            let distance = origin.distance(toLatitude: latitude, longitude: longitude)
            guard distance <= radius else {
                for _ in 0..<3 { try skipText(&buffer, offset: offset, of: packed) }
                continue
            }
            let id = try readText(&buffer, offset: offset, of: packed)
            let name = try readText(&buffer, offset: offset, of: packed)
            let kind = try readText(&buffer, offset: offset, of: packed)
            let coordinate: Coordinate
            do {
                coordinate = try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw MalformedTile(message: "place \(id) at byte \(offset): \(error)")
            }
            hits.append(NearbyPlace(
                place: Place(id: id, name: name, coordinate: coordinate, kind: kind, level: level == Int32.min ? nil : Int(level)),
                distance: distance))
        }
        return hits
    }

    private static func textLength(_ buffer: inout ByteBuffer, offset: Int, of packed: ByteBuffer) throws(MalformedTile) -> Int {
        guard let length = buffer.readInteger(as: Int32.self), length >= 0, Int(length) <= buffer.readableBytes else {
            throw MalformedTile(message: "a text of the place at byte \(offset) of \(packed.readableBytes) is cut short")
        }
        return Int(length)
    }

    private static func skipText(_ buffer: inout ByteBuffer, offset: Int, of packed: ByteBuffer) throws(MalformedTile) {
        buffer.moveReaderIndex(forwardBy: try textLength(&buffer, offset: offset, of: packed))
    }

    private static func readText(_ buffer: inout ByteBuffer, offset: Int, of packed: ByteBuffer) throws(MalformedTile) -> String {
        let length = try textLength(&buffer, offset: offset, of: packed)
        guard let text = buffer.readString(length: length) else {
            throw MalformedTile(message: "a text of the place at byte \(offset) of \(packed.readableBytes) is cut short")
        }
        return text
    }
}

/// The tuned query: the tiles whose keys fall in the ranges, concatenated into one `bytea`
/// (NULL when there is none), through `locsim_tile`'s primary key.
struct TileStatement: PostgresPreparedStatement {
    static let name = "locsim_tile_ranges_v1"
    static let sql = """
        SELECT string_agg(t.places, ''::bytea) FROM unnest($1::integer[], $2::integer[]) AS r(low, high)
        JOIN locsim_tile t ON t.tile BETWEEN r.low AND r.high
        """
    static let bindingDataTypes: [PostgresDataType] = [.int4Array, .int4Array]
    typealias Row = ByteBuffer?

    var ranges: [ClosedRange<Int64>]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(ranges.map { Int32($0.lowerBound) })
        bindings.append(ranges.map { Int32($0.upperBound) })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> ByteBuffer? { try row.decode(ByteBuffer?.self) }
}
