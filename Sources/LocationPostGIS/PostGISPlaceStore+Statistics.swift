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
        try await checkReachable()
        let lockTimeout = Self.milliseconds(queryTimeout)
        return try await withTranslatedErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(lockTimeout)"), logger: logger)
                var exists = false
                for try await (value) in try await connection.query(
                    "SELECT to_regclass('locsim_place') IS NOT NULL", logger: logger
                ).decode(Bool.self) {
                    exists = value
                }
                guard exists else {
                    throw PostGISError(
                        .schema, "database \(url.database) has no locsim_place table; import places into it first",
                        endpoint: url.endpoint)
                }
                var result = PostGISStatistics(
                    placeCount: 0, kindCount: 0, tableBytes: 0, indexBytes: 0, postgisVersion: "", serverVersion: "")
                for try await (places, kinds, table, indexes, postgis, server) in try await connection.query(
                    """
                    SELECT (SELECT count(*) FROM locsim_place), (SELECT count(DISTINCT kind) FROM locsim_place),
                        pg_table_size('locsim_place') + coalesce(pg_table_size(to_regclass('locsim_tile')), 0),
                        pg_indexes_size('locsim_place') + coalesce(pg_indexes_size(to_regclass('locsim_tile')), 0),
                        postgis_lib_version(), current_setting('server_version')
                    """, logger: logger
                ).decode((Int64, Int64, Int64, Int64, String, String).self) {
                    result = PostGISStatistics(
                        placeCount: Int(places), kindCount: Int(kinds), tableBytes: Int(table), indexBytes: Int(indexes),
                        postgisVersion: postgis, serverVersion: server)
                }
                return result
            }
        }
    }
}
