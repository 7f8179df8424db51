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
