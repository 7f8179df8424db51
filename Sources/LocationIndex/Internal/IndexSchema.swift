import LocationCore

/// The on-disk schema: what marks a file as a locsim index, and the migrations that build it.
///
/// - `PRAGMA application_id` is ``applicationID`` ("LSIX"), so `file(1)` and we can tell a
///   locsim index from any other SQLite database.
/// - `PRAGMA user_version` counts the migrations applied; ``migrations`` is append-only.
/// - Table `metadata` repeats the format name and holds the tile size and counters.
/// - Table `placeTile` holds the places, one row per stored node of a level (``TileGrid``), and
///   `placeSplit` the nodes split into their children (v2; v1 had level-0 rows only).
enum IndexSchema {
    /// "LSIX" in ASCII.
    static let applicationID: Int64 = 0x4C53_4958
    static let formatName = "locsim-index"
    /// 64 KiB pages: a whole tile row fits in one page, so reads need no overflow chain.
    static let pageSize = 65_536

    /// Ordered, named schema steps; step `i` brings `user_version` from `i` to `i + 1`.
    static let migrations: [(name: String, sql: String)] = [
        (
            "v1: metadata, kinds, tiles",
            """
            CREATE TABLE metadata(key TEXT PRIMARY KEY NOT NULL, value ANY) WITHOUT ROWID;
            CREATE TABLE placeKind(code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            INSERT INTO placeKind(code, name) VALUES (0, '');
            CREATE TABLE placeTile(key INTEGER PRIMARY KEY, count INTEGER NOT NULL, data BLOB NOT NULL);
            """
        ),
        (
            // v1 stored every place at level 0; that is a valid v2 layout once every node above
            // a v1 row is recorded as split (levels 1...5, nodes of 4^ℓ × 4^ℓ tiles, see TileGrid).
            "v2: levelled tiles, placeSplit",
            """
            CREATE TABLE placeSplit(node INTEGER PRIMARY KEY);
            WITH grid(perBand) AS (SELECT (3600000000 + value - 1) / value FROM metadata WHERE key = 'tileSizeE7'),
              level(l) AS (VALUES (1), (2), (3), (4), (5)),
              tile(band, cell) AS (SELECT DISTINCT (key >> 16) / perBand, (key >> 16) % perBand FROM placeTile, grid)
            INSERT OR IGNORE INTO placeSplit(node)
              SELECT (l << 48) | (((band >> (2 * l)) * ((perBand + (1 << (2 * l)) - 1) >> (2 * l)) + (cell >> (2 * l))) << 16)
              FROM tile, level, grid;
            """
        ),
    ]

    static var latestVersion: Int64 { Int64(migrations.count) }

    /// What the file at the other end of `connection` is.
    enum State {
        case empty
        case index(version: Int64)
    }

    /// Classifies the database, throwing ``IndexError/Code/notAnIndex`` for foreign files and
    /// ``IndexError/Code/unsupportedVersion`` for newer ones.
    static func inspect(_ connection: SQLiteConnection) throws(IndexError) -> State {
        let applicationID: Int64
        do {
            applicationID = try connection.integer("PRAGMA application_id")
        } catch where error.code == .notAnIndex {
            // A file that starts as SQLite but is damaged (cut short by a copy or a full disk) is
            // `corrupt`, with SQLite's advice to rebuild it, not "not an SQLite database".
            throw IndexError(
                .notAnIndex,
                "\(connection.path) is not an SQLite database; pass the path of a locsim index or a new file",
                path: connection.path, sqliteCode: error.sqliteCode)
        }
        if applicationID == 0 {
            let objects = try connection.integer("SELECT count(*) FROM sqlite_schema")
            if objects == 0 { return .empty }
        }
        guard applicationID == Self.applicationID else {
            throw IndexError(
                .notAnIndex,
                "\(connection.path) is an SQLite database but not a locsim index (application_id \(applicationID)); "
                    + "pass a new path or a file made by `locsim index import`",
                path: connection.path)
        }
        let version = try connection.integer("PRAGMA user_version")
        // Version 0 is an empty file: a file locsim marked as an index has had the first step.
        guard version >= 1 else {
            throw IndexError(
                .corrupt,
                "schema version \(version) is not one locsim writes (an index is version 1 to \(latestVersion)); "
                    + "its PRAGMA user_version was changed: rebuild the index with `locsim index import`",
                path: connection.path)
        }
        guard version <= latestVersion else {
            throw IndexError(
                .unsupportedVersion,
                "schema version \(version) was written by a newer locsim (this one knows up to \(latestVersion)); upgrade locsim",
                path: connection.path)
        }
        let format = try connection.withStatement("SELECT value FROM metadata WHERE key = 'format'") {
            statement throws(IndexError) in try statement.step() ? statement.text(0) : nil
        }
        guard format == formatName else {
            throw IndexError(
                .notAnIndex, "the metadata table does not name the locsim index format; rebuild the index",
                path: connection.path)
        }
        return .index(version: version)
    }

    /// Creates the schema in an empty database, or migrates an older one, in one transaction.
    static func prepare(_ connection: SQLiteConnection, tileSizeE7: Int64) throws(IndexError) {
        var state = try inspect(connection)
        if case .empty = state {
            // Page size can only change before the first table exists and outside WAL.
            try connection.execute("PRAGMA page_size = \(pageSize)")
        }
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("BEGIN IMMEDIATE")
        do throws(IndexError) {
            state = try inspect(connection)  // another process may have created it meanwhile
            var version: Int64 = 0
            if case .index(let existing) = state { version = existing }
            if version < latestVersion {
                for (number, step) in migrations.enumerated().dropFirst(Int(version)) {
                    do {
                        try connection.execute(step.sql)
                    } catch where version > 0 {
                        // The tables are not those of the version the file says it has.
                        throw IndexError(
                            .corrupt,
                            "cannot migrate it from schema version \(number) (\(step.name)): \(error.message); its tables "
                                + "are not those of the version it names (PRAGMA user_version changed?): rebuild the index",
                            path: connection.path, sqliteCode: error.sqliteCode)
                    }
                }
                if version == 0 {
                    try connection.execute("PRAGMA application_id = \(applicationID)")
                    try connection.withStatement(
                        """
                        INSERT INTO metadata(key, value) VALUES ('format', '\(formatName)'), ('tileSizeE7', ?1),
                          ('placeCount', 0), ('nameBytes', 0)
                        """
                    ) { statement throws(IndexError) in
                        try statement.bind(tileSizeE7, at: 1)
                        try statement.run()
                    }
                }
                try connection.execute("PRAGMA user_version = \(latestVersion)")
            }
            try connection.execute("COMMIT")
        } catch {
            throw rollback(connection, after: error)
        }
    }

    /// Rolls back the open transaction, if any, after `error`; returns the error to throw, which
    /// also reports a failed rollback rather than hiding it.
    static func rollback(_ connection: SQLiteConnection, after error: IndexError) -> IndexError {
        guard connection.isInTransaction else { return error }
        do {
            try connection.execute("ROLLBACK")
            return error
        } catch let rollbackError {
            var combined = error
            combined = IndexError(
                error.code, "\(error.message); the rollback also failed: \(rollbackError.message)", path: error.path,
                line: error.line, column: error.column, parameter: error.parameter, sqliteCode: error.sqliteCode)
            return combined
        }
    }

    /// Every kind's name, by code: `placeKind` as the index writes it, codes 0 (no kind, the
    /// empty name) and on without a gap. Kinds are only ever appended, so a gap is a row deleted
    /// behind the index's back: an import would then give a freed code to a new kind and relabel
    /// every place that holds it.
    static func kindNames(_ connection: SQLiteConnection) throws(IndexError) -> [String] {
        var names: [String] = []
        try connection.withStatement("SELECT code, name FROM placeKind ORDER BY code") { statement throws(IndexError) in
            while try statement.step() {
                guard statement.int64(0) == Int64(names.count), let name = statement.text(1), names.count > 0 || name.isEmpty else {
                    throw IndexError(
                        .corrupt, "placeKind codes are not 0 (no kind) and on without a gap: a row was deleted; rebuild the index",
                        path: connection.path)
                }
                names.append(name)
            }
        }
        guard !names.isEmpty else {
            throw IndexError(.corrupt, "placeKind is empty (it always holds code 0, no kind); rebuild the index", path: connection.path)
        }
        return names
    }

    static func metadataInteger(_ connection: SQLiteConnection, _ key: String) throws(IndexError) -> Int64 {
        try connection.withStatement("SELECT value FROM metadata WHERE key = ?1") { statement throws(IndexError) in
            try statement.bind(key, at: 1)
            guard try statement.step() else {
                throw IndexError(.corrupt, "metadata key \(key) is missing; rebuild the index", path: connection.path)
            }
            // Read as an integer, text such as 'abc' would be 0 and reported as that.
            guard statement.isInteger(0) else {
                let value = statement.text(0).map { "'\(TextExcerpt.cut($0, limit: 40))'" } ?? "NULL"
                throw IndexError(.corrupt, "metadata key \(key) is \(value), not an integer; rebuild the index", path: connection.path)
            }
            return statement.int64(0)
        }
    }
}
