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
    /// The split nodes of the snapshot last seen (NodeDirectory.swift); nil until loaded.
    var splitNodes: SplitNodes?

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

    /// A candidate that passed the exact test, kept as plain values until sorting is done:
    /// its text lives in ``text``, so no `String` is made for a place the limit drops.
    private struct Hit {
        var distance: Double
        var latitudeE7: Int32
        var longitudeE7: Int32
        var level: Int32
        var kindCode: UInt16
        var idLength: UInt16
        var textStart: Int32
        var nameLength: UInt16
    }

    /// Scratch space reused by every query on this connection.
    private var hits: [Hit] = []
    private var text: [UInt8] = []

    /// Reads the tiles in `rowRanges`, keeps the places within `radius`, sorts and limits.
    func search(
        center: Coordinate, radius: Double, cap: SearchCap, rowRanges: [(Int64, Int64)], limit: Int?
    ) throws(IndexError) -> [NearbyPlace] {
        // Take the scratch buffers out of the object: locals need no dynamic exclusivity checks.
        var hits = self.hits, text = self.text
        self.hits = []
        self.text = []
        hits.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
        defer {
            self.hits = hits
            self.text = text
        }
        // Several range reads must see one snapshot: wrap them in one read transaction.
        let needsTransaction = rowRanges.count > 1
        if needsTransaction { try begin.run() }
        do throws(IndexError) {
            for range in rowRanges {
                try collect(center: center, radius: radius, cap: cap, range: range, hits: &hits, text: &text)
            }
            if needsTransaction { try commit.run() }
        } catch {
            tiles.reset()
            throw IndexSchema.rollback(connection, after: error)
        }
        // Sort by distance alone (a tight loop on doubles), then order runs of equal distance by id.
        Self.sortByDistance(&hits, radius: radius)
        var runStart = 0
        while runStart < hits.count {
            var runEnd = runStart + 1
            while runEnd < hits.count && hits[runEnd].distance == hits[runStart].distance { runEnd += 1 }
            if runEnd - runStart > 1 {
                hits[runStart..<runEnd].sort {
                    Self.string(text, $0.textStart, $0.idLength) < Self.string(text, $1.textStart, $1.idLength)
                }
            }
            runStart = runEnd
        }
        let count = min(hits.count, limit ?? hits.count)
        var result: [NearbyPlace] = []
        result.reserveCapacity(count)
        for hit in hits[..<count] {
            let place = Place(
                id: Self.string(text, hit.textStart, hit.idLength),
                name: Self.string(text, hit.textStart + Int32(hit.idLength), hit.nameLength),
                coordinate: Coordinate(
                    validLatitude: PlaceRecord.degrees(hit.latitudeE7), longitude: PlaceRecord.degrees(hit.longitudeE7)),
                kind: try kindName(hit.kindCode),
                level: hit.level == PlaceRecord.noLevel ? nil : Int(hit.level))
            result.append(NearbyPlace(place: place, distance: hit.distance))
        }
        return result
    }

    /// Sorts by distance in expected linear time: distances lie in 0...radius, so a counting
    /// pass spreads them over `count` buckets, and each bucket (a few hits on average) is
    /// finished by insertion sort; a crowded bucket falls back to the library sort.
    private static func sortByDistance(_ hits: inout [Hit], radius: Double) {
        let count = hits.count
        guard count > 64 else {
            hits.withUnsafeMutableBufferPointer { $0.sort { $0.distance < $1.distance } }
            return
        }
        let scale = Double(count) / radius
        var starts = [Int](repeating: 0, count: count + 1)
        hits.withUnsafeBufferPointer { hits in
            for hit in hits { starts[min(Int(hit.distance * scale), count - 1) + 1] += 1 }
        }
        for bucket in 0..<count { starts[bucket + 1] += starts[bucket] }
        let sorted = [Hit](unsafeUninitializedCapacity: count) { buffer, initialized in
            var next = starts
            for hit in hits {
                let bucket = min(Int(hit.distance * scale), count - 1)
                (buffer.baseAddress! + next[bucket]).initialize(to: hit)
                next[bucket] += 1
            }
            initialized = count
            for bucket in 0..<count {
                let low = starts[bucket], high = starts[bucket + 1]
                if high - low > 32 {
                    var crowded = UnsafeMutableBufferPointer(rebasing: buffer[low..<high])
                    crowded.sort { $0.distance < $1.distance }
                } else if high - low > 1 {
                    for position in (low + 1)..<high {
                        let hit = buffer[position]
                        var slot = position
                        while slot > low && buffer[slot - 1].distance > hit.distance {
                            buffer[slot] = buffer[slot - 1]
                            slot -= 1
                        }
                        buffer[slot] = hit
                    }
                }
            }
        }
        hits = sorted
    }

    @inline(__always)
    private static func string(_ text: [UInt8], _ start: Int32, _ length: UInt16) -> String {
        text.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(start)..<(Int(start) + Int(length))]), as: UTF8.self)
        }
    }

    @inline(__always)
    private func collect(
        center: Coordinate, radius: Double, cap: SearchCap, range: (Int64, Int64), hits: inout [Hit], text: inout [UInt8]
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
                    let longitude = tile.longitudeE7(index)
                    let wide = Int64(longitude)
                    if allLongitudes || first.contains(wide) || second.contains(wide) {
                        let coordinate = Coordinate(
                            validLatitude: PlaceRecord.degrees(latitude), longitude: PlaceRecord.degrees(longitude))
                        let distance = center.distance(to: coordinate)
                        if distance <= radius {
                            let (id, name) = tile.textBytes(index)
                            let start = Int32(text.count)
                            text.append(contentsOf: id)
                            text.append(contentsOf: name)
                            hits.append(
                                Hit(
                                    distance: distance, latitudeE7: latitude, longitudeE7: longitude, level: tile.level(index),
                                    kindCode: tile.kindCode(index), idLength: UInt16(id.count), textStart: start,
                                    nameLength: UInt16(name.count)))
                        }
                    }
                    index += 1
                }
            }
        }
    }
}
