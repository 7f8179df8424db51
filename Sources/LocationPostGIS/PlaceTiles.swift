package import LocationCore
package import Places
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
    /// reads about ten bands of up to a dozen tiles (~100); a 100 m query one to four tiles.
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

    /// The tile key ranges a query of `radius` metres around `center` reads: per band of tiles,
    /// only the longitudes the cap reaches within that band, adjacent ranges merged.
    ///
    /// The cap's box (``SearchCap``) is as wide as the cap at its widest latitude; a band away
    /// from it needs less. Within a band the cap's longitude half-width is largest at the band
    /// edge nearest the latitude of the cap's widest point (the half-width rises towards that
    /// latitude and falls after it), so the band reads center ± that width: about a sixth fewer
    /// tiles than the box at 5 km. A band holding the widest latitude, and a cap over a pole,
    /// read the box's longitudes. Across ±180° a band has two ranges.
    package static func keyRanges(center: Coordinate, radius: Double) -> [ClosedRange<Int64>] {
        let cap = SearchCap(center: center, radius: radius)
        var ranges: [ClosedRange<Int64>] = []
        ranges.reserveCapacity(16)
        func add(band: Int64, cells: ClosedRange<Int64>) {
            let range = band * cellsPerBand + cells.lowerBound...band * cellsPerBand + cells.upperBound
            if let last = ranges.last, last.upperBound + 1 >= range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
        let boxCells = cap.longitudeE7.map { cell($0.lowerBound)...cell($0.upperBound) }.sorted { $0.lowerBound < $1.lowerBound }
        let firstBand = band(cap.latitudeE7.lowerBound), lastBand = band(cap.latitudeE7.upperBound)
        let delta = radius / Sphere.radius
        let phi0 = center.latitude * .pi / 180
        // The latitude of the cap's widest point: sin φ* = sin φ0 / cos δ (|·| < 1 when the cap
        // holds no pole, which is when the box does not cover all longitudes).
        let widest = asin(min(1, max(-1, sin(phi0) / cos(delta))))
        for band in firstBand...lastBand {
            let south = Double(band * sizeE7 - 900_000_000) / 1e7 * .pi / 180
            let north = Double((band + 1) * sizeE7 - 900_000_000) / 1e7 * .pi / 180
            guard !cap.coversAllLongitudes, !(south...north).contains(widest) else {
                for cells in boxCells { add(band: band, cells: cells) }
                continue
            }
            let edge = north < widest ? north : south
            // cos δ = sin φ0 sin φ + cos φ0 cos φ cos Δλ, at the edge's latitude.
            let cosine = (cos(delta) - sin(phi0) * sin(edge)) / (cos(phi0) * cos(edge))
            let halfWidth = acos(min(1, max(-1, cosine))) * 180 / .pi + bandMargin
            guard halfWidth < 180 else {
                for cells in boxCells { add(band: band, cells: cells) }
                continue
            }
            let west = Int64(((center.longitude - halfWidth) * 1e7).rounded(.down))
            let east = Int64(((center.longitude + halfWidth) * 1e7).rounded(.up))
            if west < -1_800_000_000 {
                add(band: band, cells: 0...cell(east))
                add(band: band, cells: cell(west + 3_600_000_000)...(cellsPerBand - 1))
            } else if east > 1_799_999_999 {
                add(band: band, cells: 0...cell(east - 3_600_000_000))
                add(band: band, cells: cell(west)...(cellsPerBand - 1))
            } else {
                add(band: band, cells: cell(west)...cell(east))
            }
        }
        return ranges
    }

    /// Widening of a band's longitude half-width, in degrees (about a metre at the equator):
    /// `acos` near 1 loses digits, and this covers it; it rarely adds a tile 0.01° wide.
    static let bandMargin = 1e-5

    /// A `places` value that is not what ``rebuildStatement(where:)`` writes.
    package struct MalformedTile: Error, Sendable {
        package var message: String
    }

    /// Runs `body` with the hits of the packed tiles read in place (``PackedHits``): the places
    /// within `radius` metres of `center`, nearest first, ties by id, the first `limit`. Only a
    /// place's coordinates are read until it is a hit, and its text is never copied.
    package static func withHits<Answer>(
        in packed: ByteBuffer, center: Coordinate, radius: Double, limit: Int?, _ body: (PackedHits) -> Answer
    ) throws(MalformedTile) -> Answer {
        let answer: Result<Answer, MalformedTile> = packed.withUnsafeReadableBytes { bytes in
            do throws(MalformedTile) {
                return .success(body(try PackedHits(bytes: bytes, center: center, radius: radius, limit: limit)))
            } catch {
                return .failure(error)
            }
        }
        return try answer.get()
    }
}

/// One nearby answer read from packed tiles in place: the hits' positions in the bytes, sorted.
/// Valid only inside the closure given to ``PlaceTiles/withHits(in:center:radius:limit:_:)``.
package struct PackedHits {
    struct Hit {
        var distance: Double
        var latitudeE7: Int32
        var longitudeE7: Int32
        var level: Int32
        var textStart: Int32
        var idLength: Int32
        var nameLength: Int32
        var kindLength: Int32
    }

    private let bytes: UnsafeRawBufferPointer
    private let hits: [Hit]
    private let order: [Int32]

    init(bytes: UnsafeRawBufferPointer, center: Coordinate, radius: Double, limit: Int?) throws(PlaceTiles.MalformedTile) {
        self.bytes = bytes
        let origin = HaversineOrigin(center)
        var hits: [Hit] = []
        var position = 0
        let end = bytes.count
        func integer(at offset: Int) -> Int32 { Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }
        while position < end {
            let start = position
            guard end - position >= 12 else {
                throw PlaceTiles.MalformedTile(message: "a place is cut short at byte \(start) of \(end)")
            }
            let latitudeE7 = integer(at: position), longitudeE7 = integer(at: position + 4), level = integer(at: position + 8)
            guard (-900_000_000...900_000_000).contains(latitudeE7), (-1_800_000_000...1_799_999_999).contains(longitudeE7) else {
                throw PlaceTiles.MalformedTile(message: "the place at byte \(start) of \(end) has a coordinate out of range")
            }
            position += 12
            let textStart = position + 4
            func textLength() throws(PlaceTiles.MalformedTile) -> Int32 {
                guard end - position >= 4, case let length = integer(at: position), length >= 0, Int(length) <= end - position - 4 else {
                    throw PlaceTiles.MalformedTile(message: "a text of the place at byte \(start) of \(end) is cut short")
                }
                position += 4 + Int(length)
                return length
            }
            let idLength = try textLength(), nameLength = try textLength(), kindLength = try textLength()
            let distance = origin.distance(toLatitude: Double(latitudeE7) / 1e7, longitude: Double(longitudeE7) / 1e7)
            guard distance <= radius else { continue }
            hits.append(Hit(
                distance: distance, latitudeE7: latitudeE7, longitudeE7: longitudeE7, level: level, textStart: Int32(textStart),
                idLength: idLength, nameLength: nameLength, kindLength: kindLength))
        }
        // Ranked as the SQLite index ranks its hits: a radix sort of distance keys, ids (only on
        // equal distances) in Swift `String` order.
        var order: [Int32] = []
        var rank = DistanceRank()
        hits.withUnsafeBufferPointer { hits in
            func precedes(_ a: Int32, _ b: Int32) -> Bool {
                let left = hits[Int(a)], right = hits[Int(b)]
                if left.distance != right.distance { return left.distance < right.distance }
                return DistanceRank.idPrecedes(
                    UnsafeRawBufferPointer(rebasing: bytes[Int(left.textStart)..<Int(left.textStart + left.idLength)]),
                    UnsafeRawBufferPointer(rebasing: bytes[Int(right.textStart)..<Int(right.textStart + right.idLength)]))
            }
            rank.rank(count: hits.count, radius: radius, distance: { hits[$0].distance }, into: &order, by: precedes)
        }
        if order.count > hits.count { order.removeSubrange(hits.count...) }
        if let limit, order.count > limit { order.removeSubrange(limit...) }
        self.hits = hits
        self.order = order
    }

    /// The places in the answer (after the limit).
    package var count: Int { order.count }

    /// Bytes of every id, name and kind in the answer together.
    package var textByteCount: Int {
        order.reduce(0) { total, position in
            let hit = hits[Int(position)]
            return total + Int(hit.idLength + hit.nameLength + hit.kindLength)
        }
    }

    /// The `position`-th place, its text as the tile's bytes (UTF-8 from PostgreSQL's `convert_to`).
    package func row(at position: Int) -> PackedRow {
        let hit = hits[Int(order[position])]
        let idStart = Int(hit.textStart), nameStart = idStart + Int(hit.idLength) + 4
        let kindStart = nameStart + Int(hit.nameLength) + 4
        let base = bytes.bindMemory(to: UInt8.self)
        return PackedRow(
            id: UnsafeBufferPointer(rebasing: base[idStart..<(idStart + Int(hit.idLength))]),
            name: UnsafeBufferPointer(rebasing: base[nameStart..<(nameStart + Int(hit.nameLength))]),
            kind: UnsafeBufferPointer(rebasing: base[kindStart..<(kindStart + Int(hit.kindLength))]),
            coordinate: Coordinate(uncheckedLatitude: Double(hit.latitudeE7) / 1e7, longitude: Double(hit.longitudeE7) / 1e7),
            level: hit.level == Int32.min ? nil : Int(hit.level), distance: hit.distance)
    }

    /// The `position`-th place as a value.
    package func place(at position: Int) -> NearbyPlace {
        let row = row(at: position)
        return NearbyPlace(
            place: Place(
                id: String(decoding: row.id, as: UTF8.self), name: String(decoding: row.name, as: UTF8.self),
                coordinate: row.coordinate, kind: String(decoding: row.kind, as: UTF8.self), level: row.level),
            distance: row.distance)
    }
}

/// One place of ``PackedHits``, read in place.
package struct PackedRow {
    package var id: UnsafeBufferPointer<UInt8>
    package var name: UnsafeBufferPointer<UInt8>
    package var kind: UnsafeBufferPointer<UInt8>
    package var coordinate: Coordinate
    package var level: Int?
    /// Great-circle distance from the query centre, metres.
    package var distance: Double
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
