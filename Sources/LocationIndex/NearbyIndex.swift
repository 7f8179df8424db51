package import LocationCore
// The parsers, the cap, the ranking and the errors every place store shares: whoever imports
// the index sees them as its own.
@_exported public import Places

/// An on-disk index of places answering "what is within r metres of here", exactly and fast.
///
/// The index is one SQLite file (system libsqlite3, WAL mode). Places are stored in tiles of a
/// latitude/longitude grid, sparse places sharing the rows of coarser levels (4×, 16×… the tile
/// size); a query reads the few rows that meet the bounding box of its spherical cap, tests
/// every candidate with the exact spherical distance, and sorts. See `docs/reference/place-index.md` for the
/// layout and the cap maths.
///
/// Thread-safe: any number of threads may query at once (each checks out its own read
/// connection), while one import writes. A query sees one consistent snapshot: all of an import
/// or none of it.
///
/// ```swift
/// let index = try NearbyIndex(path: "places.sqlite")
/// try index.importPlaces(fromFile: "geodata/tokyo.csv")
/// let hits = try index.places(near: try Coordinate(latitude: 35.68, longitude: 139.76), within: 500)
/// ```
package final class NearbyIndex: Sendable {
    /// How an index is opened.
    package struct Configuration: Sendable, Hashable {
        /// Whether the index may be written.
        package enum Access: Sendable, Hashable {
            /// Read and write; a missing or empty file becomes a new index. A file there that this
            /// process may not write is ``IndexError/Code/readOnly`` before anything is written.
            case readWrite
            /// Queries only; the file must already be an index. Imports throw
            /// ``IndexError/Code/readOnly``.
            case readOnly
        }

        /// Read-write (the default) or read-only.
        package var access: Access
        /// How long a writer waits for another process's write lock before throwing
        /// ``IndexError/Code/busy``. Default 5 s.
        package var busyTimeout: Duration
        /// Tile edge in degrees for a *new* index, 0.005…45 (existing indexes keep theirs).
        /// Default 0.02° (about 2.2 km north–south), chosen by `Benchmarks/IndexBenchmark`.
        package var tileSize: Double
        /// Read connections kept open for reuse between queries. Default 8.
        package var maximumIdleReaders: Int

        package init(
            access: Access = .readWrite, busyTimeout: Duration = .seconds(5), tileSize: Double = 0.02,
            maximumIdleReaders: Int = 8
        ) {
            self.access = access
            self.busyTimeout = busyTimeout
            self.tileSize = tileSize
            self.maximumIdleReaders = maximumIdleReaders
        }
    }

    /// The database file.
    package let path: String
    /// The configuration the index was opened with.
    package let configuration: Configuration
    let grid: TileGrid
    let writer: Locked<SQLiteConnection?>
    private let idleReaders: Locked<[ReadConnection]>
    /// The first damage a read found (see ``damage``).
    private let firstDamage = Locked<IndexError?>(nil)
    /// Whether read connections open the file read-write (always with `query_only`): with
    /// read-write access, and with read-only access when this process may write the file, so
    /// that the last connection to close takes the `-wal` and `-shm` files away (one opened
    /// read-only cannot, and `index query` left both beside the index). A file this process
    /// may not write is read through read-only connections, which SQLite needs then.
    private let readersOpenReadWrite: Bool
    /// The device and inode of the file opened: a read connection is opened by path, so it is
    /// opened only while the path still names this file (``replacement``).
    let openedFile: FileIdentity?

    /// Opens the index at `path`, creating it (read-write access) when the file is missing or empty.
    ///
    /// - Parameters:
    ///   - path: File path of the index. A new file is created in WAL mode, with `-wal` and `-shm`
    ///     files beside it while it is open.
    ///   - configuration: Access, busy timeout and (for a new index) the tile size.
    /// - Throws: ``IndexError`` — ``IndexError/Code/notAnIndex`` for a file that is not a locsim
    ///   index, ``IndexError/Code/unsupportedVersion`` for one from a newer locsim,
    ///   ``IndexError/Code/cannotOpen`` / ``IndexError/Code/readOnly`` / ``IndexError/Code/busy``
    ///   / ``IndexError/Code/corrupt`` as SQLite reports them, and
    ///   ``IndexError/Code/invalidArgument`` for a tile size out of range.
    package init(path: String, configuration: Configuration = Configuration()) throws(IndexError) {
        guard configuration.tileSize.isFinite, (0.005...45).contains(configuration.tileSize) else {
            throw IndexError(
                .invalidArgument, "tile size \(configuration.tileSize)° is outside 0.005...45", parameter: "tileSize")
        }
        guard configuration.maximumIdleReaders >= 0 else {
            throw IndexError(.invalidArgument, "must be ≥ 0", parameter: "maximumIdleReaders")
        }
        self.path = path
        self.configuration = configuration
        let milliseconds = min(Int64(Int32.max), max(0, configuration.busyTimeout.wholeMicroseconds / 1_000))
        let tileSizeE7: Int64
        switch configuration.access {
        case .readWrite:
            if let refusal = SQLiteConnection.writeRefusal(path) {
                throw IndexError(
                    .readOnly, "\(refusal); nothing was written: write it as a user who may, or a copy of your own (to query it, open it read-only)",
                    path: path)
            }
            let connection = try SQLiteConnection(path: path, readOnly: false, create: true)
            connection.setBusyTimeout(milliseconds: Int32(milliseconds))
            try IndexSchema.prepare(connection, tileSizeE7: Int64((configuration.tileSize * 1e7).rounded()))
            tileSizeE7 = try IndexSchema.metadataInteger(connection, "tileSizeE7")
            writer = Locked(connection)
        case .readOnly:
            let connection = try SQLiteConnection(path: path, readOnly: !SQLiteConnection.mayWrite(path), create: false)
            connection.setBusyTimeout(milliseconds: Int32(milliseconds))
            try connection.execute("PRAGMA query_only = 1")
            guard case .index(let version) = try IndexSchema.inspect(connection) else {
                throw IndexError(.notAnIndex, "the file is empty; import places into it first", path: path)
            }
            guard version == IndexSchema.latestVersion else {
                throw IndexError(
                    .readOnly, "schema version \(version) needs migrating; open the index read-write once", path: path)
            }
            tileSizeE7 = try IndexSchema.metadataInteger(connection, "tileSizeE7")
            writer = Locked(nil)
        }
        guard (50_000...450_000_000).contains(tileSizeE7) else {
            throw IndexError(.corrupt, "metadata tileSizeE7 \(tileSizeE7) is out of range; rebuild the index", path: path)
        }
        grid = TileGrid(sizeE7: tileSizeE7)
        idleReaders = Locked([])
        readersOpenReadWrite = configuration.access == .readWrite || SQLiteConnection.mayWrite(path)
        openedFile = FileIdentity(of: path)
    }

    /// Runs `body` with a read connection from the pool (opening one if none is idle) and puts
    /// it back afterwards.
    func withReader<T>(_ body: (ReadConnection) throws(IndexError) -> T) throws(IndexError) -> T {
        let reader: ReadConnection
        if let idle = idleReaders.withLock({ $0.popLast() }) {
            reader = idle
        } else {
            // Opened by path: after a rebuild published a new file there it would read another
            // index than the open connections (and share their -wal and -shm files by name).
            if let replaced = replacement { throw replaced }
            reader = try ReadConnection(path: path, readOnly: !readersOpenReadWrite)
        }
        let result: T
        do {
            result = try body(reader)
        } catch {
            if error.code == .corrupt { firstDamage.withLock { $0 = $0 ?? error } }
            throw error
        }
        let limit = configuration.maximumIdleReaders
        idleReaders.withLock { readers in
            if readers.count < limit { readers.append(reader) }
        }
        return result
    }

    /// The first damage a query or check of this instance found (``IndexError/Code/corrupt``),
    /// or nil. A damaged file stays damaged until it is rebuilt, and a query that does not read
    /// the damaged rows still answers; a server reports this in its health rather than answering
    /// `ok` while the queries that meet the damage fail.
    package var damage: IndexError? { firstDamage.withLock { $0 } }

    /// ``IndexError/Code/replaced`` when the file at ``path`` is no longer the one this instance
    /// opened (an `index build` published a new index there, or the file was removed), else nil.
    /// The open read connections still answer from the file opened; no new one is opened, so a
    /// server under more load than its idle connections fails its queries saying why, and
    /// reports this in its health: open the index again (restart it) to read the new file.
    package var replacement: IndexError? {
        guard let openedFile, FileIdentity(of: path) != openedFile else { return nil }
        return IndexError(
            .replaced, "\(path) was replaced or removed after it was opened (an index build?); restart to read the file there now",
            path: path)
    }

    /// Places within `radius` metres of `center`, nearest first.
    ///
    /// Distances are exact great-circle distances on the sphere of radius 6,371,008.8 m
    /// (``/LocationCore/Coordinate/distance(to:)``), so the result equals PostGIS
    /// `ST_DWithin(geography, geography, radius, use_spheroid => false)` ordered by
    /// `ST_Distance`. Places at equal distance are ordered by id. Correct at the poles and
    /// across ±180°.
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Metres, 1 … ``/LocationCore/Sphere/halfCircumference`` (about 20,015 km, which
    ///     covers the whole sphere).
    ///   - limit: At most this many places (the nearest), > 0; nil for all. Applied after sorting.
    /// - Returns: Places with their distances, sorted by distance, then id.
    /// - Throws: ``IndexError/Code/invalidArgument`` naming `radius` or `limit`;
    ///   ``IndexError/Code/corrupt``, ``IndexError/Code/io`` and other SQLite failures.
    package func places(near center: Coordinate, within radius: Double, limit: Int? = nil) throws(IndexError)
        -> [NearbyPlace]
    {
        try withNearbyRows(near: center, within: radius, limit: limit) { rows in
            // Not through `unsafeUninitializedCapacity` when there is nothing: with capacity 0 it
            // stores the count into the shared empty-array singleton, a write ThreadSanitizer
            // reports as a race between two threads' empty answers (docs/development/sanitizers.md).
            guard rows.count > 0 else { return [] }
            return [NearbyPlace](unsafeUninitializedCapacity: rows.count) { result, initialized in
                for position in 0..<rows.count { (result.baseAddress! + position).initialize(to: rows.place(at: position)) }
                initialized = rows.count
            }
        }
    }

    /// The answer of ``places(near:within:limit:)``, read in place by `body` instead of built
    /// as values: same places, same order, same checks and errors.
    ///
    /// - Parameter body: Reads the rows; they are valid only until it returns.
    package func withNearbyRows<Result>(
        near center: Coordinate, within radius: Double, limit: Int? = nil,
        _ body: (NearbyRows) throws(IndexError) -> Result
    ) throws(IndexError) -> Result {
        try NearbyPlace.checkQuery(radius: radius, limit: limit)
        let cap = SearchCap(center: center, radius: radius)
        return try withReader { reader throws(IndexError) in
            // Which rows to read depends on the split nodes, so they must be those of the
            // snapshot the rows come from: the connection's copy holds while no commit has
            // happened since it was loaded (the data version after the reads says so);
            // otherwise both are read again in one transaction.
            func search(_ splits: SplitNodes) throws(IndexError) -> Result? {
                try reader.search(
                    center: center, radius: radius, cap: cap, rowRanges: cap.rowRanges(in: grid, splits: splits), limit: limit,
                    dataVersion: splits.dataVersion, build: body)
            }
            if let result = try search(try reader.currentSplitNodes()) { return result }
            return try reader.inOneSnapshot { splits throws(IndexError) in
                // Inside the transaction the data version cannot move.
                guard let result = try search(splits) else {
                    throw IndexError(.busy, "the index changed inside a read transaction; retry", path: path)
                }
                return result
            }
        }
    }

    /// Switches the file from WAL to SQLite's rollback journal and closes the writer, for an
    /// index that is only opened read-only from now on (the default geodata cache): read-only
    /// connections then keep no `-wal` or `-shm` files beside it. Call it when no query is
    /// running. Afterwards this instance answers queries and refuses imports (the snapshot
    /// guarantees of concurrent reading need WAL); a later read-write open of the file puts it
    /// back into WAL mode.
    ///
    /// - Throws: ``IndexError/Code/readOnly`` for a read-only index; ``IndexError/Code/busy``
    ///   when another connection has the file open, which keeps SQLite in WAL mode (nothing
    ///   changes then: the writer stays open).
    package func useRollbackJournal() throws(IndexError) {
        try writer.withLock { connection throws(IndexError) in
            guard let open = connection else {
                throw IndexError(.readOnly, "a read-only index cannot change its journal mode", path: path)
            }
            // This instance's idle readers hold the WAL index open too; close them first.
            idleReaders.withLock { $0.removeAll() }
            let mode = try open.withStatement("PRAGMA journal_mode = DELETE") { statement throws(IndexError) in
                try statement.step() ? statement.text(0) : nil
            }
            guard mode == "delete" else {
                throw IndexError(
                    .busy, "SQLite kept journal mode \(mode ?? "unknown") instead of delete; another connection has the file open",
                    path: path)
            }
            connection = nil
        }
    }

    /// `EXPLAIN QUERY PLAN` of the tile read, for tests that check the primary key is used.
    func tileQueryPlan() throws(IndexError) -> [String] {
        try withReader { reader throws(IndexError) in
            try reader.connection.withStatement("EXPLAIN QUERY PLAN " + ReadConnection.tileSQL) {
                statement throws(IndexError) in
                var lines: [String] = []
                while try statement.step() { lines.append(statement.text(3) ?? "") }
                return lines
            }
        }
    }
}
