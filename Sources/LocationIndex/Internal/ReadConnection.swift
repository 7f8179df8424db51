import LocationCore

/// A read connection with its prepared statements and a cache of kind names.
///
/// `@unchecked Sendable` for the same reason as ``SQLiteConnection``: one user at a time,
/// enforced by ``NearbyIndex``'s pool.
final class ReadConnection: @unchecked Sendable {
    static let tileSQL = "SELECT data FROM placeTile WHERE key BETWEEN ?1 AND ?2"

    let connection: SQLiteConnection
    private let tiles: SQLiteStatement
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private var kinds: [String] = []

    init(path: String, readOnly: Bool) throws(IndexError) {
        connection = try SQLiteConnection(path: path, readOnly: readOnly, create: false)
        // Tile rows are read straight from the mapped file; the page cache only holds the WAL.
        try connection.execute("PRAGMA mmap_size = 4294967296; PRAGMA cache_size = -16384; PRAGMA query_only = 1")
        tiles = try connection.cached(Self.tileSQL)
        begin = try connection.cached("BEGIN")
        commit = try connection.cached("COMMIT")
    }

    private func kindName(_ code: UInt16) throws(IndexError) -> String {
        let index = Int(code)
        if index < kinds.count { return kinds[index] }
        // Kinds are only ever appended, so a reload inside this snapshot finds every code it holds.
        var loaded: [String] = []
        try connection.withStatement("SELECT code, name FROM placeKind ORDER BY code") { statement throws(IndexError) in
            while try statement.step() {
                guard statement.int64(0) == Int64(loaded.count), let name = statement.text(1) else {
                    throw IndexError(.corrupt, "placeKind codes are not consecutive; rebuild the index", path: connection.path)
                }
                loaded.append(name)
            }
        }
        kinds = loaded
        guard index < kinds.count else {
            throw IndexError(.corrupt, "kind code \(code) is not in placeKind; rebuild the index", path: connection.path)
        }
        return kinds[index]
    }

    /// Reads the tiles in `rowRanges`, keeps the places within `radius`, sorts and limits.
    func search(
        center: Coordinate, radius: Double, cap: SearchCap, rowRanges: [(Int64, Int64)], limit: Int?
    ) throws(IndexError) -> [NearbyPlace] {
        // Several range reads must see one snapshot: wrap them in one read transaction.
        let needsTransaction = rowRanges.count > 1
        if needsTransaction { try begin.run() }
        var hits: [NearbyPlace] = []
        do throws(IndexError) {
            for range in rowRanges {
                try collect(center: center, radius: radius, cap: cap, range: range, into: &hits)
            }
            if needsTransaction { try commit.run() }
        } catch {
            tiles.reset()
            throw IndexSchema.rollback(connection, after: error)
        }
        hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.place.id < $1.place.id) }
        if let limit, hits.count > limit { hits.removeSubrange(limit...) }
        return hits
    }

    @inline(__always)
    private func collect(
        center: Coordinate, radius: Double, cap: SearchCap, range: (Int64, Int64), into hits: inout [NearbyPlace]
    ) throws(IndexError) {
        defer { tiles.reset() }
        try tiles.bind(range.0, at: 1)
        try tiles.bind(range.1, at: 2)
        let south = Int32(cap.latitudeE7.lowerBound)
        let north = Int32(cap.latitudeE7.upperBound)
        let allLongitudes = cap.coversAllLongitudes
        let first = cap.longitudeE7[0]
        let second = cap.longitudeE7.count > 1 ? cap.longitudeE7[1] : first
        let path = connection.path
        while try tiles.step() {
            try tiles.withBlob(0) { bytes throws(IndexError) in
                let tile = try PlaceTileView(bytes, path: path)
                var index = tile.firstIndex(latitudeAtLeast: south)
                while index < tile.count {
                    let latitude = tile.latitudeE7(index)
                    if latitude > north { break }
                    let longitude = Int64(tile.longitudeE7(index))
                    if allLongitudes || first.contains(longitude) || second.contains(longitude) {
                        let coordinate = Coordinate(
                            validLatitude: PlaceRecord.degrees(latitude), longitude: PlaceRecord.degrees(Int32(longitude)))
                        let distance = center.distance(to: coordinate)
                        if distance <= radius {
                            let level = tile.level(index)
                            let place = Place(
                                id: tile.id(index), name: tile.name(index), coordinate: coordinate,
                                kind: try kindName(tile.kindCode(index)),
                                level: level == PlaceRecord.noLevel ? nil : Int(level))
                            hits.append(NearbyPlace(place: place, distance: distance))
                        }
                    }
                    index += 1
                }
            }
        }
    }
}
