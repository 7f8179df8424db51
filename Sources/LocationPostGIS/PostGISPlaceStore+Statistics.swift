import PostgresNIO

/// Counts and sizes of a PostGIS place table (`locsim index stats --postgres`).
package struct PostGISStatistics: Sendable, Hashable {
    /// Places stored.
    package var placeCount: Int
    /// Distinct kinds, including the empty one.
    package var kindCount: Int
    /// Bytes of the tables (`locsim_place` and its tiles, `locsim_tile`: heap, TOAST) and of their indexes.
    package var tableBytes: Int
    package var indexBytes: Int
    /// PostGIS and server versions.
    package var postgisVersion: String
    package var serverVersion: String
}

extension PostGISPlaceStore {
    /// Counts and sizes; ``PostGISError/Code/schema`` when the database has no place table.
    ///
    /// Not a read under the deadline: counting millions of places can take longer than a read
    /// may, so the server must answer `SELECT 1` within ``queryTimeout`` first, then the counts
    /// run without `statement_timeout`, but with `lock_timeout` at the same deadline, so a lock
    /// held on the tables fails them promptly (PostgreSQL's "canceling statement due to lock
    /// timeout", SQLSTATE 55P03) rather than waiting for it.
    package func statistics() async throws -> PostGISStatistics {
        try await withMaintenanceTransaction(lockTimeout: true, tiles: false) { connection in
            var result = PostGISStatistics(
                placeCount: 0, kindCount: 0, tableBytes: 0, indexBytes: 0, postgisVersion: "", serverVersion: "")
            for try await (places, kinds, table, indexes, postgis, server) in try await connection.query(
                """
                SELECT (SELECT count(*) FROM locsim_place), (SELECT count(DISTINCT kind) FROM locsim_place),
                    pg_table_size('locsim_place') + coalesce(pg_table_size(to_regclass('locsim_tile')), 0),
                    pg_indexes_size('locsim_place') + coalesce(pg_indexes_size(to_regclass('locsim_tile')), 0),
                    postgis_lib_version(), current_setting('server_version')
                """, logger: self.logger
            ).decode((Int64, Int64, Int64, Int64, String, String).self) {
                result = PostGISStatistics(
                    placeCount: Int(places), kindCount: Int(kinds), tableBytes: Int(table), indexBytes: Int(indexes),
                    postgisVersion: postgis, serverVersion: server)
            }
            return result
        }
    }
}

/// How `locsim_tile`, the derived table the query reads, compares with `locsim_place`.
package struct TileCheck: Sendable, Hashable {
    /// Tiles `locsim_place`'s places fill.
    package var tiles: Int
    /// Tiles whose stored bytes differ from what `locsim_place` gives, are missing, or have no
    /// place left (0 when the triggers kept every change).
    package var disagreeing: Int

    package init(tiles: Int, disagreeing: Int) {
        self.tiles = tiles
        self.disagreeing = disagreeing
    }
}

extension PostGISPlaceStore {
    /// Rebuilds each tile from `locsim_place` in the query and compares it with the stored one:
    /// the check behind `locsim index stats --postgres URL --verify`. The triggers keep the two
    /// equal for every change made while they are enabled; a change made with them disabled
    /// (`session_replication_role = replica`, as logical replication and `pg_restore
    /// --disable-triggers` apply rows, or `ALTER TABLE … DISABLE TRIGGER`), or a write to
    /// `locsim_tile` itself, is what this finds. One statement, so one snapshot; like
    /// ``statistics()``, no read deadline but a lock timeout.
    package func verifyTiles() async throws -> TileCheck {
        try await withMaintenanceTransaction(lockTimeout: true, tiles: true) { connection in
            var check = TileCheck(tiles: 0, disagreeing: 0)
            for try await (tiles, disagreeing) in try await connection.query(
                PostgresQuery(unsafeSQL: """
                WITH expected AS (
                    SELECT tile, string_agg(\(PlaceTiles.packExpression), ''::bytea ORDER BY id COLLATE "C") AS places
                    FROM locsim_place GROUP BY tile)
                SELECT count(e.tile), count(*) FILTER (WHERE e.places IS DISTINCT FROM t.places)
                FROM expected e FULL JOIN locsim_tile t ON t.tile = e.tile
                """), logger: self.logger
            ).decode((Int64, Int64).self) {
                check = TileCheck(tiles: Int(tiles), disagreeing: Int(disagreeing))
            }
            return check
        }
    }

    /// Rebuilds every tile from `locsim_place` in one transaction, under the lock imports and
    /// the triggers take (readers see the old tiles until the commit): the repair for what
    /// ``verifyTiles()`` finds. Returns the tiles written.
    @discardableResult
    package func rebuildTiles() async throws -> Int {
        let written = try await withMaintenanceTransaction(lockTimeout: false, tiles: true) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7621002)", logger: self.logger)
            try await connection.query("DELETE FROM locsim_tile", logger: self.logger)
            try await connection.query(PostgresQuery(unsafeSQL: PlaceTiles.rebuildStatement(where: "true")), logger: self.logger)
            var count = 0
            for try await (value) in try await connection.query("SELECT count(*) FROM locsim_tile", logger: self.logger).decode(
                Int64.self)
            {
                count = Int(value)
            }
            return count
        }
        try await withMaintenanceTransaction(lockTimeout: false, tiles: nil) { connection in
            _ = try await connection.query("ANALYZE locsim_tile", logger: self.logger)
        }
        return written
    }

    /// Runs `body` in a transaction for work that is not a read (counts, checks, rebuilds): the
    /// server must first answer `SELECT 1` within ``queryTimeout``; then no `statement_timeout`
    /// (counting or rebuilding millions of places may take longer than a read may), and with
    /// `lockTimeout` a `lock_timeout` at the read deadline, so a lock held on the tables fails the
    /// work promptly (SQLSTATE 55P03) rather than waiting for it. `tiles`: the tables required
    /// first (`false`: `locsim_place`; `true`: it and `locsim_tile`; `nil`: none).
    private func withMaintenanceTransaction<T: Sendable>(
        lockTimeout: Bool, tiles: Bool?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await checkReachable()
        let milliseconds = Self.milliseconds(queryTimeout)
        return try await withOwnTransaction { connection in
            try await connection.query("SET LOCAL statement_timeout = 0", logger: self.logger)
            if lockTimeout {
                try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"), logger: self.logger)
            }
            if let tiles {
                try await self.requireSchemaOnPath(connection)
                try await self.requireTables(on: connection, tiles: tiles)
            }
            return try await body(connection)
        }
    }

    /// ``PostGISError/Code/schema`` unless `locsim_place` (and, with `tiles`, `locsim_tile`) exists.
    private func requireTables(on connection: PostgresConnection, tiles: Bool) async throws {
        for try await (place, tile) in try await connection.query(
            "SELECT to_regclass('locsim_place') IS NOT NULL, to_regclass('locsim_tile') IS NOT NULL", logger: logger
        ).decode((Bool, Bool).self) {
            guard place, tile || !tiles else {
                throw PostGISError(
                    .schema, "database \(url.database) has no \(place ? "locsim_tile" : "locsim_place") table; import places into it first",
                    endpoint: url.endpoint)
            }
        }
    }
}

/// One way in which the place tables differ from what locsim made: found by
/// ``PostGISPlaceStore/verifySchema()``, in words (`the trigger locsim_place_tiles_update is
/// disabled`).
package struct SchemaFinding: Sendable, Hashable, CustomStringConvertible {
    package var description: String
    /// Whether ``PostGISPlaceStore/repairSchema()`` mends it: a trigger missing or disabled, an
    /// index missing. A column, a constraint or a row is not changed by a repair.
    package var isRepairable: Bool

    package init(_ description: String, isRepairable: Bool) {
        self.description = description
        self.isRepairable = isRepairable
    }
}

extension PostGISPlaceStore {
    /// `locsim_place`'s columns as locsim makes them: name, type, `NOT NULL`, generated.
    private static let expectedColumns: [(name: String, type: String, notNull: Bool, generated: Bool)] = [
        ("id", "text", true, false), ("name", "text", true, false), ("kind", "text", true, false),
        ("level", "integer", false, false), ("lat_e7", "integer", true, false), ("lon_e7", "integer", true, false),
        ("tile", "integer", false, true), ("geog", "geography(Point,4326)", false, true),
    ]

    /// The triggers that keep `locsim_tile` equal to `locsim_place` (``triggerStatements``).
    private static let expectedTriggers = [
        "locsim_place_tiles_insert", "locsim_place_tiles_update", "locsim_place_tiles_delete", "locsim_place_tiles_truncate",
    ]

    /// The shape of the place tables against what locsim makes, for `--verify`: every column of
    /// `locsim_place` with its type, `NOT NULL` and generation; its primary key and the range
    /// checks on `lat_e7` and `lon_e7`; its indexes on `tile` and (GiST) on `geog`; the four
    /// triggers, each enabled; `locsim_tile`'s primary key; and no row that the constraints
    /// would have refused (a `NULL`, a latitude past a pole), up to three ids named. Empty when
    /// all is as made. A change by hand (`ALTER TABLE … DROP CONSTRAINT`, `DISABLE TRIGGER`,
    /// `DROP INDEX`) leaves queries wrong, stale or slow while the tiles still agree today.
    package func verifySchema() async throws -> [SchemaFinding] {
        try await withMaintenanceTransaction(lockTimeout: true, tiles: true) { connection in
            var findings: [SchemaFinding] = []
            var columns: [String: (type: String, notNull: Bool, generated: Bool)] = [:]
            for try await (name, type, notNull, generated) in try await connection.query(
                """
                SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attgenerated::text
                FROM pg_attribute a WHERE a.attrelid = 'locsim_place'::regclass AND a.attnum > 0 AND NOT a.attisdropped
                """, logger: self.logger
            ).decode((String, String, Bool, String).self) {
                columns[name] = (type, notNull, generated == "s")
            }
            for expected in Self.expectedColumns {
                guard let column = columns[expected.name] else {
                    findings.append(SchemaFinding("locsim_place has no column \(expected.name)", isRepairable: false))
                    continue
                }
                if column.type != expected.type {
                    findings.append(SchemaFinding("column \(expected.name) is \(column.type), not \(expected.type)", isRepairable: false))
                }
                if expected.notNull, !column.notNull {
                    findings.append(SchemaFinding("column \(expected.name) takes NULL (its NOT NULL was dropped)", isRepairable: false))
                }
                if expected.generated, !column.generated {
                    findings.append(SchemaFinding("column \(expected.name) is not generated from lat_e7 and lon_e7", isRepairable: false))
                }
            }
            // Keys and checks, by the columns they are on.
            func constraints(on table: String) async throws -> [(kind: String, columns: String)] {
                var found: [(String, String)] = []
                for try await row in try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                        SELECT c.contype::text, array_to_string(ARRAY(SELECT a.attname::text FROM pg_attribute a
                            WHERE a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey) ORDER BY 1), ',')
                        FROM pg_constraint c WHERE c.conrelid = '\(table)'::regclass AND c.contype IN ('c', 'p')
                        """), logger: self.logger
                ).decode((String, String).self) {
                    found.append(row)
                }
                return found
            }
            let placeConstraints = try await constraints(on: "locsim_place")
            if !placeConstraints.contains(where: { $0.kind == "p" && $0.columns == "id" }) {
                findings.append(SchemaFinding("locsim_place has no primary key on id (one id may name two places)", isRepairable: false))
            }
            for column in ["lat_e7", "lon_e7"] where columns[column] != nil {
                if !placeConstraints.contains(where: { $0.kind == "c" && $0.columns.split(separator: ",").contains(Substring(column)) }) {
                    findings.append(SchemaFinding("column \(column) has no range check (its CHECK was dropped)", isRepairable: false))
                }
            }
            if !(try await constraints(on: "locsim_tile")).contains(where: { $0.kind == "p" && $0.columns == "tile" }) {
                findings.append(SchemaFinding("locsim_tile has no primary key on tile", isRepairable: false))
            }
            // Rows the constraints would have refused: a query near them fails or misplaces them.
            if ["id", "name", "kind", "lat_e7", "lon_e7"].allSatisfy({ columns[$0] != nil }) {
                for try await (count, ids) in try await connection.query(
                    """
                    SELECT count(*), coalesce((array_agg(coalesce(id, '(no id)') ORDER BY id COLLATE "C"))[1:3], '{}')
                    FROM locsim_place WHERE id IS NULL OR name IS NULL OR kind IS NULL OR lat_e7 IS NULL OR lon_e7 IS NULL
                        OR lat_e7 NOT BETWEEN -900000000 AND 900000000 OR lon_e7 NOT BETWEEN -1800000000 AND 1799999999
                    """, logger: self.logger
                ).decode((Int64, [String]).self) where count > 0 {
                    let named = ids.map { "\"\($0)\"" }.joined(separator: ", ") + (count > Int64(ids.count) ? ", …" : "")
                    findings.append(
                        SchemaFinding(
                            "\(count) row\(count == 1 ? "" : "s") of locsim_place with a NULL or a coordinate out of range (\(named))",
                            isRepairable: false))
                }
            }
            var indexes: [(method: String, columns: String)] = []
            for try await row in try await connection.query(
                """
                SELECT am.amname::text, array_to_string(ARRAY(SELECT a.attname::text FROM pg_attribute a
                    WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) ORDER BY 1), ',')
                FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
                WHERE i.indrelid = 'locsim_place'::regclass AND i.indisvalid
                """, logger: self.logger
            ).decode((String, String).self) {
                indexes.append(row)
            }
            if columns["tile"] != nil, !indexes.contains(where: { $0.method == "btree" && $0.columns == "tile" }) {
                findings.append(SchemaFinding("locsim_place has no index on tile (every edit rebuilds its tiles by a full scan)", isRepairable: true))
            }
            if columns["geog"] != nil, !indexes.contains(where: { $0.method == "gist" && $0.columns == "geog" }) {
                findings.append(SchemaFinding("locsim_place has no GiST index on geog", isRepairable: true))
            }
            var triggers: [String: String] = [:]
            for try await (name, enabled) in try await connection.query(
                "SELECT t.tgname::text, t.tgenabled::text FROM pg_trigger t WHERE t.tgrelid = 'locsim_place'::regclass AND NOT t.tgisinternal",
                logger: self.logger
            ).decode((String, String).self) {
                triggers[name] = enabled
            }
            for name in Self.expectedTriggers {
                switch triggers[name] {
                case nil:
                    findings.append(SchemaFinding("the trigger \(name) is missing (edits leave locsim_tile stale)", isRepairable: true))
                case "O"?, "A"?:
                    break
                default:
                    findings.append(SchemaFinding("the trigger \(name) is disabled (edits leave locsim_tile stale)", isRepairable: true))
                }
            }
            return findings
        }
    }

    /// Makes again what ``verifySchema()`` finds missing and can make without touching a row:
    /// the four triggers (enabled) and their function, the indexes on `tile` and `geog`. In one
    /// transaction, under the lock imports and the triggers take. The tiles are not rebuilt
    /// here: ``rebuildTiles()`` does that, for the edits made while the triggers were off.
    package func repairSchema() async throws {
        try await withMaintenanceTransaction(lockTimeout: false, tiles: true) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7621002)", logger: self.logger)
            for statement in Self.triggerStatements + [
                "CREATE INDEX IF NOT EXISTS locsim_place_tile ON locsim_place (tile)",
                "CREATE INDEX IF NOT EXISTS locsim_place_geog ON locsim_place USING gist (geog)",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
            }
        }
    }
}
