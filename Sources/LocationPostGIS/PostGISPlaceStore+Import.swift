package import Places
import PostgresNIO

extension PostGISPlaceStore {
    /// Imports a place file (CSV, GeoJSON, GeoNames) with the Places module's parsers, so it accepts
    /// and rejects exactly what `locsim index import --db` does, with the same errors.
    ///
    /// One transaction: the rows go to a temporary table in batches (one statement of six arrays
    /// per ``rowsPerBatch`` places), then one
    /// `INSERT … ON CONFLICT (id) DO UPDATE` (upsert by id) moves them into `locsim_place` in
    /// tile order (so a first import is stored clustered), writing only the places that are new
    /// or differ from the stored ones; the triggers on `locsim_place` rebuild the tiles of
    /// `locsim_tile` those places left or entered, in the same transaction. Readers see the previous places
    /// until the commit, then all of the new ones; a failure, a thrown progress callback or
    /// cancellation rolls everything back. Imports into one database run one after another.
    ///
    /// - Parameters:
    ///   - path: The place file.
    ///   - options: Format (guessed from the name when nil), strict or lenient, progress interval.
    ///   - replace: Also delete the places whose ids the file does not hold (same transaction):
    ///     `locsim_place` then holds exactly the file's places. A file of no places is refused
    ///     (`invalidArgument`, parameter `replace`) rather than empty the database.
    ///   - progress: Called while reading (every `progressInterval` rows) and while copying
    ///     (`tilesWritten`/`tilesTotal` count rows sent). Throwing aborts the import.
    /// - Returns: Rows read, places inserted, changed (`updated`) and given as stored
    ///   (`unchanged`), rows skipped, places now stored.
    /// - Throws: `IndexError` for bad input (naming file, line and column), ``PostGISError``
    ///   for the server, whatever `progress` throws.
    @discardableResult
    package func importPlaces(
        fromFile path: String, options: ImportOptions = ImportOptions(), replace: Bool = false,
        progress: @escaping @Sendable (ImportProgress) throws -> Void = { _ in }
    ) async throws -> ImportReport {
        let parsed = try ParsedPlaceFile(fromFile: path, options: options, progress: progress)
        // A file of no places would leave none: a header-only export (an upstream query that
        // failed) is not a wish to empty the database.
        if replace, parsed.places.isEmpty {
            throw IndexError(
                .invalidArgument, "holds no places, and --replace would delete every place the database holds; nothing was done",
                path: path, parameter: "replace")
        }
        // The server answers within the read deadline before anything is written: a frozen one
        // fails the import in `queryTimeout`, not after a connect and login that never end.
        try await checkReachable()
        try await prepareSchema()
        let interval = max(1, options.progressInterval)
        let (inserted, updated, deleted, count) = try await withOwnTransaction { connection in
            try await self.writeImport(parsed, replace: replace, interval: interval, on: connection, progress: progress)
        }
        // Fresh statistics for the planner; after the import's commit, so a failure does not undo it.
        try await withOwnTransaction { connection in
            try await connection.query("SET LOCAL statement_timeout = 0", logger: self.logger)
            try await connection.query("ANALYZE locsim_place, locsim_tile", logger: self.logger)
        }
        return ImportReport(
            rowsRead: parsed.rowsRead, inserted: inserted, updated: updated, unchanged: parsed.places.count - inserted - updated,
            deleted: deleted, skipped: parsed.skipped,
            issues: parsed.issues, placeCount: count)
    }

    /// The most places an import sends in one statement (fewer when its progress is asked for
    /// more often): a few hundred kilobytes, and a cancellation seen between two of them.
    package static let rowsPerBatch = 10_000

    /// The import's statements, in its transaction on `connection`: the places into a temporary
    /// table, then into `locsim_place`. Returns the places inserted, updated and deleted, and the
    /// places stored after.
    private func writeImport(
        _ parsed: ParsedPlaceFile, replace: Bool, interval: Int, on connection: PostgresConnection,
        progress: @escaping @Sendable (ImportProgress) throws -> Void
    ) async throws -> (Int, Int, Int, Int) {
        // An import is not a read: it may take minutes, so no read deadline.
        try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
        // One import at a time (the lock the tile triggers take too).
        try await connection.query("SELECT pg_advisory_xact_lock(7621002)", logger: logger)
        try await connection.query(
            """
            CREATE TEMPORARY TABLE locsim_import (
                id text NOT NULL, name text NOT NULL, kind text NOT NULL, level integer,
                lat_e7 integer NOT NULL, lon_e7 integer NOT NULL) ON COMMIT DROP
            """, logger: logger)
        // Batches of ordinary statements, six arrays each, not `COPY … FROM STDIN`: postgres-nio
        // 1.33's COPY writer waits for good when its connection closes while it waits to send
        // (PostgreSQL stopped during a 144k-place import: the import hung, deaf to SIGTERM).
        var sent = 0
        while sent < parsed.places.count {
            try Task.checkCancellation()
            let batch = parsed.places[sent..<min(sent + min(Self.rowsPerBatch, interval), parsed.places.count)]
            var columns = PostgresBindings(capacity: 6)
            columns.append(batch.map(\.id))
            columns.append(batch.map(\.name))
            columns.append(batch.map(\.kind))
            columns.append(batch.map(\.level))  // Int32.min for none: NULL in the table
            columns.append(batch.map(\.latitudeE7))
            columns.append(batch.map(\.longitudeE7))
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO locsim_import (id, name, kind, level, lat_e7, lon_e7)
                        SELECT id, name, kind, NULLIF(level, \(Int32.min)), lat_e7, lon_e7
                        FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::int4[], $6::int4[])
                            AS u(id, name, kind, level, lat_e7, lon_e7)
                        """, binds: columns), logger: logger)
            let before = sent
            sent += batch.count
            if sent / interval > before / interval || sent == parsed.places.count {
                try progress(ImportProgress(
                    phase: .writing, rowsRead: parsed.rowsRead, rowsSkipped: parsed.skipped, tilesWritten: sent,
                    tilesTotal: parsed.places.count))
            }
        }
        try Task.checkCancellation()
        // A UUID is one place whatever its case (`Place.identity(ofID:)`, as the SQLite
        // index keys it): a stored place whose UUID the file gives in another case takes
        // the file's spelling first, so the upsert below updates it rather than adding a
        // second row. A hash join on the file's UUIDs alone: a file without UUIDs reads
        // nothing of locsim_place here. Not where the file's spelling is stored already
        // (two spellings stored by an older locsim stay two places).
        var renamed: [String] = []
        for try await id in try await connection.query(
            """
            WITH uuids AS (
                SELECT id FROM locsim_import
                WHERE id ~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'),
            renamed AS (
                UPDATE locsim_place p SET id = u.id FROM uuids u
                WHERE lower(p.id) = lower(u.id) AND p.id <> u.id
                    AND NOT EXISTS (SELECT 1 FROM locsim_place q WHERE q.id = u.id)
                RETURNING p.id)
            SELECT id FROM renamed
            """, logger: logger
        ).decode(String.self) {
            renamed.append(id)
        }
        var renamedIDs = PostgresBindings()
        renamedIDs.append(renamed)
        var counts = (0, 0)
        for try await (inserted, updated) in try await connection.query(
            PostgresQuery(unsafeSQL: """
            WITH written AS (
                INSERT INTO locsim_place AS p (id, name, kind, level, lat_e7, lon_e7)
                SELECT id, name, kind, level, lat_e7, lon_e7 FROM locsim_import ORDER BY \(PlaceTiles.keyExpression), id
                ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, level = EXCLUDED.level,
                    lat_e7 = EXCLUDED.lat_e7, lon_e7 = EXCLUDED.lon_e7
                -- A place the file leaves as it is stays untouched: no new row version, no tile rebuilt.
                WHERE (p.name, p.kind, p.level, p.lat_e7, p.lon_e7)
                    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.kind, EXCLUDED.level, EXCLUDED.lat_e7, EXCLUDED.lon_e7)
                RETURNING (xmax = 0) AS new, id)
            SELECT count(*) FILTER (WHERE new),
                -- A renamed place is updated, whether or not the file changes it further.
                count(*) FILTER (WHERE NOT new) + (SELECT count(*) FROM unnest($1::text[]) r WHERE r NOT IN (SELECT id FROM written))
            FROM written
            """, binds: renamedIDs), logger: logger
        ).decode((Int64, Int64).self) {
            counts = (Int(inserted), Int(updated))
        }
        var deleted = 0
        if replace {
            for try await (value) in try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM locsim_place p WHERE NOT EXISTS (SELECT 1 FROM locsim_import i WHERE i.id = p.id) RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger
            ).decode(Int64.self) {
                deleted = Int(value)
            }
        }
        var total = 0
        for try await (value) in try await connection.query("SELECT count(*) FROM locsim_place", logger: logger).decode(
            Int64.self)
        {
            total = Int(value)
        }
        try Task.checkCancellation()
        return (counts.0, counts.1, deleted, total)
    }
}
