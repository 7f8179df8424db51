import LocationCore

/// Writes parsed places into the levelled tiles (see ``TileGrid``'s levels), in one
/// `BEGIN IMMEDIATE` transaction.
///
/// 1. New kinds get codes in `placeKind`.
/// 2. The top-level nodes to rewrite ("affected") are those the new places fall in and, if the
///    index already has places, those holding a row with an imported id: every stored id is
///    checked, and a row's top-level node follows from its row id alone.
/// 3. Every row of an affected node, at any level, is read, stripped of the imported ids and
///    deleted; the places it kept join the new ones. The node's `placeSplit` entries go too.
/// 4. The places are partitioned top-down (``Layout``): a node with at most
///    ``maximumPlacesPerNode`` places is one row at its level, a fuller one is split into its 16
///    children, and level 0 always stores (in parts when a row would exceed
///    ``PlaceTileCodec/maximumBytes``). Rows are written in row-id order with the new split nodes.
/// 5. The counters in `metadata` are updated, and the transaction commits.
struct IndexWriter {
    /// A node with at most this many places is stored as one row at its own level instead of
    /// being split into its children.
    ///
    /// A row costs about 20 bytes of SQLite cell overhead and count whatever it holds, so sparse
    /// places gathered 64 to a row pay under half a byte each for it, where one place per level-0
    /// tile paid the whole row (GeoNames: 0.96 rows per place at level 0 alone, 0.08 with levels).
    /// A query reads a coarse row by a binary search on latitude and a scan of the latitude
    /// window, so 64 keeps that row's work to a few comparisons even for a 100 m query; dense
    /// places still end up in level-0 rows where the box is tight.
    static let maximumPlacesPerNode = 64

    let connection: SQLiteConnection
    let grid: TileGrid
    let interval: Int

    /// - Parameters:
    ///   - places: Places with unique ids.
    ///   - indexByID: The position of each id in `places`.
    ///   - source: The file they were read from, named with a place's origin in errors.
    func write(
        _ places: [ParsedPlace], indexByID: [ExactText: Int], rowsRead: Int, skipped: Int, source: String,
        progress: (ImportProgress) throws -> Void
    ) throws -> (inserted: Int, updated: Int, unchanged: Int, count: Int) {
        try connection.execute("BEGIN IMMEDIATE")
        let result: (inserted: Int, updated: Int, unchanged: Int, count: Int)
        do {
            result = try writeInTransaction(
                places, importedIDs: indexByID, rowsRead: rowsRead, skipped: skipped, source: source, progress: progress)
            try connection.execute("COMMIT")
        } catch {
            let failure = (error as? IndexError) ?? IndexError(.cancelled, "the import stopped: \(error)", path: connection.path)
            let afterRollback = IndexSchema.rollback(connection, after: failure)
            if afterRollback != failure { throw afterRollback }  // the rollback failed too: say so
            throw error
        }
        // Committed. Move the new pages into the main file now, so readers map them instead of
        // searching the WAL (a no-op for pages readers still need). A failure here does not undo
        // the import, and the error says so.
        do {
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        } catch {
            throw IndexError(
                error.code, "the import was committed, but checkpointing the WAL failed: \(error.message)", path: error.path,
                sqliteCode: error.sqliteCode)
        }
        return result
    }

    private func writeInTransaction(
        _ places: [ParsedPlace], importedIDs: [ExactText: Int], rowsRead: Int, skipped: Int, source: String,
        progress: (ImportProgress) throws -> Void
    ) throws -> (inserted: Int, updated: Int, unchanged: Int, count: Int) {
        let kindCodes = try assignKindCodes(places, source: source)
        var records: [PlaceRecord] = []
        records.reserveCapacity(places.count)
        var nameBytesAdded: Int64 = 0
        var affected = Set<Int64>()
        for place in places {
            nameBytesAdded += Int64(place.name.utf8.count)
            let record = PlaceRecord(
                id: place.id, name: place.name, latitudeE7: place.latitudeE7, longitudeE7: place.longitudeE7,
                kindCode: kindCodes[ExactText(place.kind)] ?? 0, level: place.level)
            affected.insert(grid.topNodeKey(of: record))
            records.append(record)
        }
        let existingCount = try IndexSchema.metadataInteger(connection, "placeCount")
        var nameBytes = try IndexSchema.metadataInteger(connection, "nameBytes")

        // Stored ids the file holds: changed (any byte of the id or name, the position, kind or
        // level), or as stored. Both are rewritten with their tiles; only the first is "updated".
        var updated = 0
        var unchanged = 0
        if existingCount > 0 {
            // Which rows each top-level node has, and which nodes hold an imported id.
            var rowsByNode: [Int64: [Int64]] = [:]
            try connection.withStatement("SELECT key, data FROM placeTile") { statement throws(IndexError) in
                while try statement.step() {
                    let rowID = statement.int64(0)
                    let node = try topNodeKey(ofRow: rowID)
                    rowsByNode[node, default: []].append(rowID)
                    try statement.withBlob(1) { bytes throws(IndexError) in
                        let tile = try PlaceTileView(bytes, path: connection.path)
                        for index in 0..<tile.count {
                            let id = tile.id(index)
                            guard let position = importedIDs[ExactText(Place.identity(ofID: id))] else { continue }
                            affected.insert(node)
                            let record = records[position]
                            let same =
                                tile.latitudeE7(index) == record.latitudeE7 && tile.longitudeE7(index) == record.longitudeE7
                                && tile.kindCode(index) == record.kindCode && tile.level(index) == record.level
                                && id.utf8.elementsEqual(record.id.utf8) && tile.name(index).utf8.elementsEqual(record.name.utf8)
                            if same { unchanged += 1 } else { updated += 1 }
                        }
                    }
                }
            }
            // The affected nodes' rows: keep what is not replaced, delete the rows.
            let select = try connection.cached("SELECT data FROM placeTile WHERE key = ?1")
            let delete = try connection.cached("DELETE FROM placeTile WHERE key = ?1")
            for node in affected.sorted() {
                for rowID in rowsByNode[node] ?? [] {
                    try select.bind(rowID, at: 1)
                    do {
                        defer { select.reset() }
                        guard try select.step() else {
                            throw IndexError(.corrupt, "placeTile row \(rowID) vanished during the import", path: connection.path)
                        }
                        try select.withBlob(0) { bytes throws(IndexError) in
                            for record in try PlaceTileCodec.decode(bytes, path: connection.path) {
                                if importedIDs[ExactText(Place.identity(ofID: record.id))] == nil {
                                    records.append(record)
                                } else {
                                    nameBytes -= Int64(record.name.utf8.count)
                                }
                            }
                        }
                    }
                    try delete.bind(rowID, at: 1)
                    try delete.run()
                }
            }
            // Their split entries: the partition below records the new ones.
            var staleSplits: [Int64] = []
            try connection.withStatement("SELECT node FROM placeSplit") { statement throws(IndexError) in
                while try statement.step() {
                    let node = statement.int64(0)
                    if affected.contains(try topNodeKey(ofRow: node)) { staleSplits.append(node) }
                }
            }
            let deleteSplit = try connection.cached("DELETE FROM placeSplit WHERE node = ?1")
            for node in staleSplits {
                try deleteSplit.bind(node, at: 1)
                try deleteSplit.run()
            }
        }

        let layout = Layout(records: records, grid: grid)
        let insert = try connection.cached("INSERT INTO placeTile(key, count, data) VALUES (?1, ?2, ?3)")
        // Reports (and cancellation checks) every `interval` tiles and at least every tenth of
        // them: a tile holds many rows, so the rows' interval alone (100,000 for the command)
        // left a million-row import silent, and deaf to Ctrl-C, for all of its writing.
        let every = max(1, min(interval, (layout.nodes.count + 9) / 10))
        for (number, node) in layout.nodes.enumerated() {
            var rows = layout.order[node.start..<node.end].map { records[$0] }
            rows.sort(by: Self.precedes)
            for (part, data) in PlaceTileCodec.encodeParts(rows[...]).enumerated() {
                guard part < (1 << TileGrid.partBits) else {
                    throw IndexError(
                        .invalidArgument, "more than \(1 << TileGrid.partBits) tile parts at one spot; use a smaller tile size",
                        path: connection.path, parameter: "tileSize")
                }
                try insert.bind(node.rowID | Int64(part), at: 1)
                try insert.bind(Int64(PlaceTileView.count(of: data)), at: 2)
                try insert.bind(data, at: 3)
                try insert.run()
            }
            // And at the last, so a report always ends with the whole count.
            if (number + 1) % every == 0 || number + 1 == layout.nodes.count {
                if Task.isCancelled {
                    throw IndexError(.cancelled, "the import was cancelled; nothing was written", path: connection.path)
                }
                try progress(
                    ImportProgress(
                        phase: .writing, rowsRead: rowsRead, rowsSkipped: skipped, tilesWritten: number + 1,
                        tilesTotal: layout.nodes.count))
            }
        }
        let insertSplit = try connection.cached("INSERT INTO placeSplit(node) VALUES (?1)")
        for node in layout.splits {
            try insertSplit.bind(node, at: 1)
            try insertSplit.run()
        }

        let inserted = places.count - updated - unchanged
        let count = existingCount + Int64(inserted)
        nameBytes += nameBytesAdded
        let setMetadata = try connection.cached("UPDATE metadata SET value = ?2 WHERE key = ?1")
        for (key, value) in [("placeCount", count), ("nameBytes", nameBytes)] {
            try setMetadata.bind(key, at: 1)
            try setMetadata.bind(value, at: 2)
            try setMetadata.run()
        }
        return (inserted, updated, unchanged, Int(count))
    }

    /// The top-level node of a `placeTile` or `placeSplit` row id; a corrupt error for an id this
    /// layout never makes.
    private func topNodeKey(ofRow rowID: Int64) throws(IndexError) -> Int64 {
        guard let level = TileGrid.level(ofRow: rowID) else {
            throw IndexError(
                .corrupt, "row id \(rowID) is not a tile of any level; rebuild the index", path: connection.path)
        }
        return grid.topNodeKey(ofRow: rowID, level: level)
    }

    /// Where a set of places goes: which rows (nodes) hold which places, and which nodes are split.
    struct Layout {
        /// Positions into the records, grouped so that each node's places are one run.
        var order: [Int]
        /// One entry per stored node, sorted by row id: its row id (part 0) and its run in `order`.
        var nodes: [(rowID: Int64, start: Int, end: Int)]
        /// Row ids (`level << 48 | key << 16`) of the nodes split into children, levels ≥ 1.
        var splits: [Int64]

        /// Partitions `records` top-down: each top-level node, then recursively each child of a
        /// node holding more than ``IndexWriter/maximumPlacesPerNode`` places.
        ///
        /// The places are sorted once by their path through the tree (``TileGrid/pathKey(band0:cell0:)``),
        /// so every node at every level is a contiguous run.
        init(records: [PlaceRecord], grid: TileGrid) {
            // Never with capacity 0: that stores into the shared empty-array singleton (see
            // `NearbyIndex.places(near:within:limit:)`).
            var packed: [UInt64] = records.isEmpty ? [] : .init(unsafeUninitializedCapacity: records.count) { buffer, initialized in
                for position in records.indices {
                    let band = grid.band(latitudeE7: Int64(records[position].latitudeE7))
                    let cell = grid.cell(longitudeE7: Int64(records[position].longitudeE7))
                    buffer[position] = UInt64(grid.pathKey(band0: band, cell0: cell)) << 32 | UInt64(position)
                }
                initialized = records.count
            }
            packed.sort()
            var nodes: [(rowID: Int64, start: Int, end: Int)] = []
            var splits: [Int64] = []
            func place(_ start: Int, _ end: Int, level: Int) {
                let first = records[Int(packed[start] & 0xFFFF_FFFF)]
                let key = grid.nodeKey(
                    level: level, band0: grid.band(latitudeE7: Int64(first.latitudeE7)),
                    cell0: grid.cell(longitudeE7: Int64(first.longitudeE7)))
                if level == 0 || end - start <= IndexWriter.maximumPlacesPerNode {
                    nodes.append((TileGrid.rowID(level: level, key: key), start, end))
                    return
                }
                splits.append(TileGrid.rowID(level: level, key: key))
                forEachRun(start, end, shift: UInt64(32 + 4 * (level - 1))) { place($0, $1, level: level - 1) }
            }
            func forEachRun(_ start: Int, _ end: Int, shift: UInt64, _ body: (Int, Int) -> Void) {
                var runStart = start
                while runStart < end {
                    let prefix = packed[runStart] >> shift
                    var runEnd = runStart + 1
                    while runEnd < end && packed[runEnd] >> shift == prefix { runEnd += 1 }
                    body(runStart, runEnd)
                    runStart = runEnd
                }
            }
            forEachRun(0, packed.count, shift: UInt64(32 + 4 * TileGrid.topLevel)) { place($0, $1, level: TileGrid.topLevel) }
            nodes.sort { $0.rowID < $1.rowID }
            order = packed.map { Int($0 & 0xFFFF_FFFF) }
            self.nodes = nodes
            self.splits = splits
        }
    }

    /// Tile order: latitude, then longitude, then id.
    static func precedes(_ a: PlaceRecord, _ b: PlaceRecord) -> Bool {
        if a.latitudeE7 != b.latitudeE7 { return a.latitudeE7 < b.latitudeE7 }
        if a.longitudeE7 != b.longitudeE7 { return a.longitudeE7 < b.longitudeE7 }
        return a.id < b.id
    }

    /// Codes for every kind in `places`, adding new kinds to `placeKind`.
    ///
    /// - Throws: ``IndexError/Code/invalidArgument`` (parameter `kind`) naming `source` and the
    ///   place whose kind would be the index's 65,536th.
    private func assignKindCodes(_ places: [ParsedPlace], source: String) throws(IndexError) -> [ExactText: UInt16] {
        var codes: [ExactText: UInt16] = [:]
        for (code, name) in try IndexSchema.kindNames(connection).enumerated() { codes[ExactText(name)] = UInt16(truncatingIfNeeded: code) }
        var next = codes.count
        let insert = try connection.cached("INSERT INTO placeKind(code, name) VALUES (?1, ?2)")
        for place in places where codes[ExactText(place.kind)] == nil {
            // Code 0 is none: the codes after it are the shared reader's limit of kinds.
            guard next <= ParsedPlaceFile.maximumKinds else {
                let kind = TextExcerpt.render(place.kind, limit: 64)
                throw IndexError(
                    .invalidArgument,
                    "\(place.origin): kind '\(kind)' would be the index's 65,536th distinct kind; it stores up to 65,535. Nothing was imported",
                    path: source, parameter: "kind")
            }
            try insert.bind(Int64(next), at: 1)
            try insert.bind(place.kind, at: 2)
            try insert.run()
            codes[ExactText(place.kind)] = UInt16(next)
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
