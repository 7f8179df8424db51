/// Writes parsed places into the tiles, in one `BEGIN IMMEDIATE` transaction.
///
/// 1. New kinds get codes in `placeKind`.
/// 2. If the index already has places, every stored id is checked against the imported ids;
///    the tiles holding an imported id are "affected", as are the tiles the new places fall in.
/// 3. Each affected tile is read, stripped of the imported ids, merged with its new places,
///    sorted by (latitude, longitude, id), split into parts and written back.
/// 4. The counters in `metadata` are updated, and the transaction commits.
struct IndexWriter {
    let connection: SQLiteConnection
    let grid: TileGrid
    let interval: Int

    /// - Parameters:
    ///   - places: Places with unique ids.
    ///   - indexByID: The position of each id in `places`.
    func write(
        _ places: [ParsedPlace], indexByID: [String: Int], rowsRead: Int, skipped: Int,
        progress: (ImportProgress) throws -> Void
    ) throws -> (inserted: Int, updated: Int, count: Int) {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let result = try writeInTransaction(
                places, importedIDs: indexByID, rowsRead: rowsRead, skipped: skipped, progress: progress)
            try connection.execute("COMMIT")
            // Move the new pages into the main file now, so readers map them instead of
            // searching the WAL (a no-op for pages readers still need).
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            return result
        } catch {
            let failure = (error as? IndexError) ?? IndexError(.cancelled, "the import stopped: \(error)", path: connection.path)
            let afterRollback = IndexSchema.rollback(connection, after: failure)
            if afterRollback != failure { throw afterRollback }  // the rollback failed too: say so
            throw error
        }
    }

    private func writeInTransaction(
        _ places: [ParsedPlace], importedIDs: [String: Int], rowsRead: Int, skipped: Int,
        progress: (ImportProgress) throws -> Void
    ) throws -> (inserted: Int, updated: Int, count: Int) {
        let kindCodes = try assignKindCodes(places)
        var records: [PlaceRecord] = []
        records.reserveCapacity(places.count)
        var nameBytesAdded: Int64 = 0
        for place in places {
            nameBytesAdded += Int64(place.name.utf8.count)
            records.append(
                PlaceRecord(
                    id: place.id, name: place.name, latitudeE7: place.latitudeE7, longitudeE7: place.longitudeE7,
                    kindCode: kindCodes[place.kind] ?? 0, level: place.level))
        }
        let existingCount = try IndexSchema.metadataInteger(connection, "placeCount")
        var nameBytes = try IndexSchema.metadataInteger(connection, "nameBytes")

        // Tiles to rewrite: where new places go, and where replaced ones are now.
        var keys = records.map { grid.key(latitudeE7: $0.latitudeE7, longitudeE7: $0.longitudeE7) }
        var affected = Set(keys)
        var updated = 0
        if existingCount > 0 {
            try connection.withStatement("SELECT key, data FROM placeTile") { statement throws(IndexError) in
                while try statement.step() {
                    let key = statement.int64(0) >> TileGrid.partBits
                    try statement.withBlob(1) { bytes throws(IndexError) in
                        let tile = try PlaceTileView(bytes, path: connection.path)
                        for index in 0..<tile.count where importedIDs[tile.id(index)] != nil {
                            affected.insert(key)
                            updated += 1
                        }
                    }
                }
            }
        }

        // Group the new records by tile: sort (key, position) packed into one integer, then
        // order each tile's records by (latitude, longitude, id).
        var packed = [UInt64](unsafeUninitializedCapacity: records.count) { buffer, initialized in
            for position in records.indices {
                buffer[position] = UInt64(keys[position]) << 32 | UInt64(position)
            }
            initialized = records.count
        }
        packed.sort()
        var newByKey: [Int64: [PlaceRecord]] = [:]
        newByKey.reserveCapacity(affected.count)
        var start = 0
        while start < packed.count {
            let key = Int64(packed[start] >> 32)
            var end = start + 1
            while end < packed.count && packed[end] >> 32 == packed[start] >> 32 { end += 1 }
            var tile = packed[start..<end].map { records[Int($0 & 0xFFFF_FFFF)] }
            tile.sort(by: Self.precedes)
            newByKey[key] = tile
            start = end
        }
        packed = []
        keys = []
        records = []

        let sortedKeys = affected.sorted()
        let insert = try connection.cached("INSERT INTO placeTile(key, count, data) VALUES (?1, ?2, ?3)")
        let select = try connection.cached("SELECT data FROM placeTile WHERE key BETWEEN ?1 AND ?2")
        let delete = try connection.cached("DELETE FROM placeTile WHERE key BETWEEN ?1 AND ?2")
        for (number, key) in sortedKeys.enumerated() {
            var merged: [PlaceRecord] = newByKey.removeValue(forKey: key) ?? []
            if existingCount > 0 {
                let (first, last) = grid.rowRange(firstKey: key, lastKey: key)
                try select.bind(first, at: 1)
                try select.bind(last, at: 2)
                var kept: [PlaceRecord] = []
                do {
                    defer { select.reset() }
                    while try select.step() {
                        try select.withBlob(0) { bytes throws(IndexError) in
                            for record in try PlaceTileCodec.decode(bytes, path: connection.path) {
                                if importedIDs[record.id] == nil {
                                    kept.append(record)
                                } else {
                                    nameBytes -= Int64(record.name.utf8.count)
                                }
                            }
                        }
                    }
                }
                if !kept.isEmpty {
                    merged += kept
                    merged.sort(by: Self.precedes)
                }
                try delete.bind(first, at: 1)
                try delete.bind(last, at: 2)
                try delete.run()
            }
            for (part, data) in PlaceTileCodec.encodeParts(merged[...]).enumerated() {
                guard part < (1 << TileGrid.partBits) else {
                    throw IndexError(
                        .invalidArgument, "more than \(1 << TileGrid.partBits) tile parts at one spot; use a smaller tile size",
                        path: connection.path, parameter: "tileSize")
                }
                try insert.bind((key << TileGrid.partBits) | Int64(part), at: 1)
                try insert.bind(Int64(PlaceTileView.count(of: data)), at: 2)
                try insert.bind(data, at: 3)
                try insert.run()
            }
            if (number + 1) % interval == 0 {
                if Task.isCancelled {
                    throw IndexError(.cancelled, "the import was cancelled; nothing was written", path: connection.path)
                }
                try progress(
                    ImportProgress(
                        phase: .writing, rowsRead: rowsRead, rowsSkipped: skipped, tilesWritten: number + 1,
                        tilesTotal: sortedKeys.count))
            }
        }
        let inserted = places.count - updated
        let count = existingCount + Int64(inserted)
        nameBytes += nameBytesAdded
        let setMetadata = try connection.cached("UPDATE metadata SET value = ?2 WHERE key = ?1")
        for (key, value) in [("placeCount", count), ("nameBytes", nameBytes)] {
            try setMetadata.bind(key, at: 1)
            try setMetadata.bind(value, at: 2)
            try setMetadata.run()
        }
        return (inserted, updated, Int(count))
    }

    /// Tile order: latitude, then longitude, then id.
    static func precedes(_ a: PlaceRecord, _ b: PlaceRecord) -> Bool {
        if a.latitudeE7 != b.latitudeE7 { return a.latitudeE7 < b.latitudeE7 }
        if a.longitudeE7 != b.longitudeE7 { return a.longitudeE7 < b.longitudeE7 }
        return a.id < b.id
    }

    /// Codes for every kind in `places`, adding new kinds to `placeKind`.
    private func assignKindCodes(_ places: [ParsedPlace]) throws(IndexError) -> [String: UInt16] {
        var codes: [String: UInt16] = [:]
        try connection.withStatement("SELECT code, name FROM placeKind") { statement throws(IndexError) in
            while try statement.step() {
                codes[statement.text(1) ?? ""] = UInt16(truncatingIfNeeded: statement.int64(0))
            }
        }
        var next = codes.count
        let insert = try connection.cached("INSERT INTO placeKind(code, name) VALUES (?1, ?2)")
        for place in places where codes[place.kind] == nil {
            guard next <= Int(UInt16.max) else {
                throw IndexError(
                    .invalidArgument, "more than \(UInt16.max) distinct kinds; the index stores up to 65,535",
                    path: connection.path, parameter: "kind")
            }
            try insert.bind(Int64(next), at: 1)
            try insert.bind(place.kind, at: 2)
            try insert.run()
            codes[place.kind] = UInt16(next)
            next += 1
        }
        return codes
    }
}

extension PlaceTileView {
    /// The place count stored at the start of an encoded part.
    static func count(of data: [UInt8]) -> Int {
        data.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
    }
}
