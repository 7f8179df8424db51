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
        kinds = try IndexSchema.kindNames(connection)
        guard index < kinds.count else {
            throw IndexError(.corrupt, "kind code \(code) is not in placeKind; rebuild the index", path: connection.path)
        }
        return kinds[index]
    }

    /// A candidate that passed the exact test, kept as plain values until sorting is done:
    /// its id and name bytes live in the scratch text, so no `String` is made for a place the
    /// limit drops.
    struct Hit {
        var distance: Double
        var latitude: Double
        var longitude: Double
        var level: Int32
        var textStart: Int32
        var kindCode: UInt16
        var idLength: UInt16
        var nameLength: UInt16
    }

    /// A place of the tile being read that lies inside the cap's box, and its distance.
    /// Its coordinates are kept as the degrees the distance was computed from, so the result is
    /// built without converting them again.
    private struct Candidate {
        var index: Int32
        var distance: Double
        var latitude: Double
        var longitude: Double
    }

    /// Buffers reused by every query on this connection. The arrays serve as storage with their
    /// own fill counts, grown before each tile, so the loops write through pointers with no
    /// per-element capacity or uniqueness checks.
    private struct Scratch {
        var candidates: [Candidate] = []
        var hits: [Hit] = []
        var hitCount = 0
        var text: [UInt8] = []
        var textCount = 0
        var order: [Int32] = []
        var radix = DistanceRank()

        /// Room for `places` more hits and candidates and `textBytes` more text.
        mutating func reserve(places: Int, textBytes: Int) {
            if candidates.count < places {
                candidates += repeatElement(
                    Candidate(index: 0, distance: 0, latitude: 0, longitude: 0), count: places - candidates.count)
            }
            if hits.count < hitCount + places {
                let empty = Hit(
                    distance: 0, latitude: 0, longitude: 0, level: 0, textStart: 0, kindCode: 0, idLength: 0, nameLength: 0)
                hits += repeatElement(empty, count: max(hitCount + places, 2 * hits.count) - hits.count)
            }
            if text.count < textCount + textBytes {
                text += repeatElement(0, count: max(textCount + textBytes, 2 * text.count) - text.count)
            }
        }
    }

    private var scratch = Scratch()

    /// Reads the tiles in `rowRanges`, keeps the places within `radius`, sorts and limits.
    ///
    /// - Parameter dataVersion: The data version `rowRanges` were computed for (the split nodes'
    ///   snapshot). Returns nil, before any sorting or result building, when the reads saw a
    ///   later one: the caller reloads the split nodes and asks again.
    func search<Result>(
        center: Coordinate, radius: Double, cap: SearchCap, rowRanges: [(Int64, Int64)], limit: Int?,
        dataVersion: UInt32, build: (NearbyRows) throws(IndexError) -> Result
    ) throws(IndexError) -> Result? {
        // Take the scratch space out of the object: a local needs no dynamic exclusivity checks.
        var scratch = self.scratch
        self.scratch = Scratch()
        defer { self.scratch = scratch }
        scratch.hitCount = 0
        scratch.textCount = 0
        // Several range reads must see one snapshot: wrap them in one read transaction.
        let needsTransaction = rowRanges.count > 1 && !connection.isInTransaction
        if needsTransaction { try begin.run() }
        do throws(IndexError) {
            let origin = HaversineOrigin(center)
            for range in rowRanges {
                try collect(origin: origin, radius: radius, cap: cap, range: range, into: &scratch)
            }
            if needsTransaction { try commit.run() }
        } catch {
            tiles.reset()
            throw IndexSchema.rollback(connection, after: error)
        }
        guard try connection.dataVersion() == dataVersion else { return nil }
        let hitCount = scratch.hitCount
        return try scratch.hits.withUnsafeBufferPointer { allHits throws(IndexError) in
            let hits = UnsafeBufferPointer(rebasing: allHits[..<hitCount])
            return try scratch.text.withUnsafeBufferPointer { text throws(IndexError) in
                @inline(__always) func bytes(_ start: Int32, _ length: UInt16) -> UnsafeRawBufferPointer {
                    UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[Int(start)..<(Int(start) + Int(length))]))
                }
                // Equal distances (duplicates, or places mirrored about the centre) go by id.
                func precedes(_ a: Int32, _ b: Int32) -> Bool {
                    let first = hits[Int(a)], second = hits[Int(b)]
                    if first.distance != second.distance { return first.distance < second.distance }
                    return DistanceRank.idPrecedes(bytes(first.textStart, first.idLength), bytes(second.textStart, second.idLength))
                }
                scratch.radix.rank(count: hits.count, radius: radius, distance: { hits[$0].distance }, into: &scratch.order, by: precedes)
                return try scratch.order.withUnsafeBufferPointer { order throws(IndexError) in
                    let count = min(hitCount, limit ?? hitCount)
                    // Load the kind names before building the result, so building cannot fail halfway:
                    // codes are consecutive, so loading the largest loads them all.
                    var largestKind: UInt16 = 0
                    for position in 0..<count {
                        let hit = hits[Int(order[position])]
                        largestKind = max(largestKind, hit.kindCode)
                        // Bytes overwritten in a row can leave its layout sound: an id or name
                        // that is not UTF-8 fails the query rather than coming back as U+FFFD.
                        guard bytes(hit.textStart, hit.idLength + hit.nameLength).isValidUTF8 else {
                            throw IndexError(
                                .corrupt, "a place's id or name read back is not UTF-8; delete the file and rebuild it with `locsim index import`",
                                path: connection.path)
                        }
                    }
                    _ = try kindName(largestKind)
                    return try build(NearbyRows(
                        hits: hits, order: UnsafeBufferPointer(rebasing: order[..<count]), text: text, kinds: self.kinds))
                }
            }
        }
    }

    @inline(__always)
    private func collect(
        origin: HaversineOrigin, radius: Double, cap: SearchCap, range: (Int64, Int64), into scratch: inout Scratch
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
                scratch.reserve(places: tile.count, textBytes: tile.textByteCount)
                var hitCount = scratch.hitCount, textCount = scratch.textCount
                defer {
                    scratch.hitCount = hitCount
                    scratch.textCount = textCount
                }
                // In a sound row the hits' text spans are disjoint parts of the row's text, so
                // they fit in the room reserved above; a damaged row's may overlap and not fit.
                let textLimit = textCount + tile.textByteCount
                var spansOverflow = false
                scratch.candidates.withUnsafeMutableBufferPointer { candidates in
                    // Pass 1: the places inside the box.
                    var candidateCount = 0
                    var index = tile.firstIndex(latitudeAtLeast: south)
                    while index < tile.count {
                        let latitude = tile.latitudeE7(index)
                        if latitude > north { break }
                        let longitude = Int64(tile.longitudeE7(index))
                        if allLongitudes || first.contains(longitude) || second.contains(longitude) {
                            candidates[candidateCount].index = Int32(index)
                            candidateCount += 1
                        }
                        index += 1
                    }
                    // Pass 2: their distances, four at a time where the series apply (see
                    // HaversineOrigin), in a loop with no branch on the result.
                    var position = 0
                    while position + 4 <= candidateCount {
                        let a = Int(candidates[position].index), b = Int(candidates[position + 1].index)
                        let c = Int(candidates[position + 2].index), d = Int(candidates[position + 3].index)
                        let latitudes = SIMD4<Double>(
                            Double(tile.latitudeE7(a)), Double(tile.latitudeE7(b)), Double(tile.latitudeE7(c)),
                            Double(tile.latitudeE7(d))) / 1e7
                        let longitudes = SIMD4<Double>(
                            Double(tile.longitudeE7(a)), Double(tile.longitudeE7(b)), Double(tile.longitudeE7(c)),
                            Double(tile.longitudeE7(d))) / 1e7
                        let distances = origin.distances(toLatitudes: latitudes, longitudes: longitudes)
                        for lane in 0..<4 {
                            candidates[position + lane].distance = distances[lane]
                            candidates[position + lane].latitude = latitudes[lane]
                            candidates[position + lane].longitude = longitudes[lane]
                        }
                        position += 4
                    }
                    while position < candidateCount {
                        let index = Int(candidates[position].index)
                        let latitude = PlaceRecord.degrees(tile.latitudeE7(index))
                        let longitude = PlaceRecord.degrees(tile.longitudeE7(index))
                        candidates[position].distance = origin.distance(toLatitude: latitude, longitude: longitude)
                        candidates[position].latitude = latitude
                        candidates[position].longitude = longitude
                        position += 1
                    }
                    // Pass 3: the hits, with their text copied out of the row.
                    scratch.hits.withUnsafeMutableBufferPointer { hits in
                        scratch.text.withUnsafeMutableBytes { text in
                            for candidate in candidates[..<candidateCount] where candidate.distance <= radius {
                                let index = Int(candidate.index)
                                let (bytes, idLength) = tile.textSpan(index)
                                guard textCount + bytes.count <= textLimit else {
                                    spansOverflow = true
                                    break
                                }
                                // An empty span may come from an empty buffer, with no address.
                                if !bytes.isEmpty {
                                    (text.baseAddress! + textCount).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                                }
                                hits[hitCount] = Hit(
                                    distance: candidate.distance, latitude: candidate.latitude,
                                    longitude: candidate.longitude, level: tile.level(index),
                                    textStart: Int32(textCount), kindCode: tile.kindCode(index), idLength: UInt16(idLength),
                                    nameLength: UInt16(bytes.count - idLength))
                                hitCount += 1
                                textCount += bytes.count
                            }
                        }
                    }
                }
                if spansOverflow { throw PlaceTileView.corrupt(path) }
            }
        }
    }
}
