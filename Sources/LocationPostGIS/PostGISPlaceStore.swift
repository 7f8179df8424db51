package import Logging
package import LocationCore
package import Places
import ConnectFailure
import PostgresNIO

/// Places in a PostgreSQL database with PostGIS, answering the same nearby query as
/// LocationIndex's `NearbyIndex`, with the same answer: every place whose great-circle distance
/// (``/LocationCore/Coordinate/distance(to:)``, sphere of 6,371,008.8 m) is ≤ the radius, ordered by
/// distance then id, correct at the poles and across ±180°.
///
/// Schema (version 4, created by ``prepareSchema()``, which also upgrades versions 1 to 3), in
/// the first schema of the session's `search_path` (`public` unless the URL's `options` say):
///
/// ```sql
/// CREATE TABLE locsim_place (
///     id text PRIMARY KEY, name text NOT NULL, kind text NOT NULL, level integer,
///     lat_e7 integer NOT NULL, lon_e7 integer NOT NULL,            -- 1e-7° units, as NearbyIndex
///     tile integer GENERATED ALWAYS AS (<its 0.01° tile>) STORED,
///     geog geography(Point, 4326) GENERATED ALWAYS AS (...) STORED);
/// CREATE INDEX ... (tile); CREATE INDEX ... USING gist (geog);
/// CREATE TABLE locsim_tile (tile integer PRIMARY KEY, places bytea NOT NULL);
/// ```
///
/// `locsim_place` is the place set and the only truth (what imports upsert into, what a PostGIS
/// user queries and edits); `locsim_tile` is derived from it by statement triggers on
/// `locsim_place` (``triggerStatements``), in the transaction of any `INSERT`, `UPDATE`, `DELETE`
/// or `TRUNCATE`, whoever makes it: one row per 0.01° × 0.01° tile holding its places packed in
/// binary (`PlaceTiles`). The tiles are kept because they answer a 5 km query 2.7× faster than
/// the plain GiST query in the database (docs/benchmarks/postgis.md, issue #30). The query (``places(near:within:limit:)``)
/// is a prepared statement that reads the tiles covering the cap (the bands of Places'
/// `SearchCap`, the box the SQLite index reads, each cut to the longitudes the cap reaches in
/// it; key ranges, one per band of tiles) and returns them as one `bytea`: a 5 km answer is a
/// few dozen index probes instead of thousands of rows. The exact distance, the radius test, the order and the limit are then
/// computed here with LocationCore's haversine, so the answer is bit-identical to the SQLite
/// index's. `textbookPlaces(near:within:limit:)` (package-only: the benchmark and the equivalence
/// tests) is the usual PostGIS query (`ST_DWithin` on `geography`, `ORDER BY ST_Distance`), kept
/// for comparison.
///
/// Every read has a deadline, ``queryTimeout`` (2 s unless told), from the moment it asks for a
/// connection until its answer: the server enforces it too (each connection's session has
/// `statement_timeout` set to it), and a read still unanswered when it passes is cancelled (its
/// connection closed; the server drops the statement at its next check of the client,
/// `client_connection_check_interval`, or at its own `statement_timeout`), so no read waits
/// longer than the deadline for a lock, a frozen server or a lost network. Imports, schema
/// changes and statistics are not reads: they run without `statement_timeout` in their transaction.
///
/// The store needs ``run()`` to be running (it drives the connection pool; cancel it to close),
/// or use ``withRunning(_:clock:logger:_:)``.
package final class PostGISPlaceStore: Sendable {
    /// The server and login.
    package let url: PostgresURL
    /// A pool for each way of connecting (``TLSSettings/attempts(_:)``): one, or two for `allow`
    /// and `prefer`; only the settled one ever connects.
    private let clients: [PostgresClient]
    /// How connections use TLS, in the order libpq tries them, with the trusted roots read once.
    private let attempts: [TLSSettings]
    /// Which of ``attempts`` a login succeeded with, once one has: the way every later
    /// connection, pooled or not, is made.
    private let settled = Locked<Int?>(nil)
    let logger: Logger
    /// The deadline of a read (not an import): how long it may wait for a connection and its
    /// answer together; also each session's `statement_timeout`.
    package let queryTimeout: Duration
    let clock: any Clock<Duration>
    /// Whether `locsim_tile` has been seen to exist. Until then every query first asks (an
    /// unprepared statement): postgres-nio remembers a prepared statement that failed to
    /// prepare on a connection, and would keep failing it there after an import had created the
    /// table (`locsim serve` started before the first import, or on a version-1 database).
    private let tilesExist = Locked(false)

    /// - Parameters:
    ///   - url: Where the server is (the password is sent, never logged).
    ///   - maximumConnections: Pool size, ≥ 1.
    ///   - queryTimeout: The deadline of a read: how long it may wait for a connection and its
    ///     answer. Past it, a read that has no connection yet throws ``PostGISError/Code/unavailable``
    ///     (the pool meanwhile keeps reconnecting with back-off), one that was sent is cancelled and
    ///     throws ``PostGISError/Code/timedOut``. Each connection's `statement_timeout`, rounded up
    ///     to whole milliseconds.
    ///   - clock: The clock `queryTimeout` is measured on.
    ///   - logger: Background messages of the pool (connection failures, reconnects).
    package init(
        url: PostgresURL, maximumConnections: Int = 8,
        queryTimeout: Duration = .seconds(2), clock: any Clock<Duration>, logger: Logger
    ) throws(PostGISError) {
        guard queryTimeout > .zero else {
            throw PostGISError(.invalidArgument, "must be > 0, got \(queryTimeout)", parameter: "queryTimeout")
        }
        self.queryTimeout = queryTimeout
        self.clock = clock
        guard maximumConnections >= 1 else {
            throw PostGISError(.invalidArgument, "must be ≥ 1, got \(maximumConnections)", parameter: "maximumConnections")
        }
        self.url = url
        self.logger = logger
        let attempts = try TLSSettings.attempts(url)
        self.attempts = attempts
        clients = attempts.map { attempt in
            let poolTLS: PostgresClient.Configuration.TLS
            switch attempt {
            case .disable: poolTLS = .disable
            case .prefer(let configuration): poolTLS = .prefer(configuration)
            case .require(let configuration): poolTLS = .require(configuration)
            }
            var configuration = PostgresClient.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: poolTLS)
            configuration.options.maximumConnections = maximumConnections
            configuration.options.connectTimeout = url.connectTimeout
            configuration.options.additionalStartupParameters = Self.sessionSettings(url: url, queryTimeout: queryTimeout)
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
    }

    /// The pool of the way of connecting that has worked (the first way until one has).
    var client: PostgresClient { clients[settled.withLock { $0 } ?? 0] }

    /// The settings every connection's session starts with (sent in the startup message, so
    /// they cost no round trip):
    /// - `options`: ``PostgresURL/options`` (a `search_path`, say), applied by the server
    ///   before the settings below, which therefore win;
    /// - `application_name`: ``PostgresURL/applicationName``, so the server's activity view and
    ///   log say which sessions are locsim's;
    /// - `statement_timeout`: the read deadline, enforced by the server itself, so a statement
    ///   stuck behind a lock ends there even when this process cannot cancel it (imports set it
    ///   to 0 in their own transaction);
    /// - `client_connection_check_interval` (PostgreSQL 14 and later): while a statement runs, the
    ///   server checks every second that the client is still there, so a read this store
    ///   cancelled by closing its connection, or an import whose process died, stops at once
    ///   rather than when it next writes to the socket;
    /// - `tcp_keepalives_idle`/`_interval`/`_count`: the server's TCP keepalives on the
    ///   connection (first probe after 30 s idle, then every 10 s, dead after 3 lost), so a
    ///   backend whose client host or network vanished is ended in about a minute, with its locks.
    static func sessionSettings(url: PostgresURL, queryTimeout: Duration) -> [(String, String)] {
        url.options.map { [("options", $0)] } ?? []
        + [
            ("application_name", url.applicationName),
            ("statement_timeout", String(milliseconds(queryTimeout))),
            ("client_connection_check_interval", "1000"),
            ("tcp_keepalives_idle", "30"),
            ("tcp_keepalives_interval", "10"),
            ("tcp_keepalives_count", "3"),
        ]
    }

    /// `duration` (> 0) in whole milliseconds, rounded up, within 1 ... 2³¹ − 1: PostgreSQL's
    /// unit and range for its timeouts.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let microseconds = duration.wholeMicroseconds
        let milliseconds = microseconds / 1000 + (microseconds % 1000 > 0 ? 1 : 0)
        return min(Int64(Int32.max), max(1, milliseconds))
    }

    /// The deadline as messages say it: `2 s`, `1500 ms`.
    var deadlineText: String { Self.secondsText(queryTimeout) }

    /// A timeout as messages say it: `2 s`, `1500 ms`.
    static func secondsText(_ duration: Duration) -> String {
        let milliseconds = milliseconds(duration)
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// Drives the connection pool until the calling task is cancelled. Queries wait for it.
    package func run() async {
        await withDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.run() } }
        }
    }

    /// Runs `body` with a store whose pool runs for the duration, then closes it.
    ///
    /// The pool outlives a cancellation of the calling task (Ctrl-C during `index import`):
    /// `body` sees the cancellation and ends its transaction (an import closes its connection,
    /// which rolls it back), and the pool is closed only after that. (A pool in a child task,
    /// cancelled at the same moment, once closed a connection under an import's COPY, which
    /// postgres-nio 1.33 answered with a crash or an import that never ended; imports no longer
    /// use COPY.)
    package static func withRunning<T: Sendable>(
        _ url: PostgresURL, clock: any Clock<Duration>, logger: Logger, _ body: (PostGISPlaceStore) async throws -> T
    ) async throws -> T {
        let store = try PostGISPlaceStore(url: url, maximumConnections: 4, clock: clock, logger: logger)
        // Not a child task, so the caller's cancellation does not reach it; awaited below.
        let pool = Task { await store.run() }
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(store))
        } catch {
            outcome = .failure(error)
        }
        pool.cancel()
        await pool.value
        return try outcome.get()
    }

    // MARK: Schema

    static let schemaVersion = 4

    /// The `geog` column every version has.
    static let geographyColumn = """
        geog geography(Point, 4326) GENERATED ALWAYS AS (
            ST_SetSRID(ST_MakePoint(lon_e7::float8 / 10000000.0::float8, lat_e7::float8 / 10000000.0::float8), 4326)::geography
        ) STORED
        """

    /// The tile table and the place table's index on its tile; shared by a new schema and the upgrade from version 1.
    static let tileStatements: [String] = [
        "CREATE INDEX IF NOT EXISTS locsim_place_tile ON locsim_place (tile)",
        // Rows up to a page stay in the heap (a tile near a city centre is a few kB), larger
        // ones go out of line uncompressed: reading them is a copy, not a decompression.
        "CREATE TABLE IF NOT EXISTS locsim_tile (tile integer PRIMARY KEY, places bytea NOT NULL) WITH (toast_tuple_target = 8160)",
        "ALTER TABLE locsim_tile ALTER COLUMN places SET STORAGE EXTERNAL",
    ]

    /// The triggers (version 3; version 4 pins the function's `search_path`) that keep
    /// `locsim_tile` equal to `locsim_place` in the transaction of any change to it, by anyone (an import, psql, QGIS): after each statement, the tiles
    /// its rows left or entered are rebuilt from `locsim_place`. The advisory lock (the one
    /// imports hold) makes writers of places take turns until they commit, so a rebuild in
    /// READ COMMITTED sees every committed change to its tiles; at REPEATABLE READ or above, a
    /// writer whose snapshot misses another's tile fails (a serialization failure or a duplicate
    /// tile) instead of writing a stale tile.
    ///
    /// The function runs with the `search_path` set to the schema it was made in, so an edit
    /// by a session whose `search_path` differs (`UPDATE team.locsim_place …` from psql)
    /// rebuilds that schema's tiles, not another's or none.
    static let triggerStatements: [String] = [
        """
        CREATE OR REPLACE FUNCTION locsim_place_retile() RETURNS trigger LANGUAGE plpgsql AS $locsim$
        BEGIN
            PERFORM pg_advisory_xact_lock(7621002);
            IF TG_OP = 'TRUNCATE' THEN
                DELETE FROM locsim_tile;
            ELSIF TG_OP = 'INSERT' THEN
                \(retile("SELECT tile FROM locsim_new"))
            ELSIF TG_OP = 'UPDATE' THEN
                \(retile("SELECT tile FROM locsim_new UNION SELECT tile FROM locsim_old"))
            ELSE
                \(retile("SELECT tile FROM locsim_old"))
            END IF;
            RETURN NULL;
        END
        $locsim$
        """,
        """
        DO $locsim$ BEGIN
            EXECUTE format('ALTER FUNCTION locsim_place_retile() SET search_path = %I', current_schema());
        END $locsim$
        """,
        "DROP TRIGGER IF EXISTS locsim_place_tiles_insert ON locsim_place",
        "DROP TRIGGER IF EXISTS locsim_place_tiles_update ON locsim_place",
        "DROP TRIGGER IF EXISTS locsim_place_tiles_delete ON locsim_place",
        "DROP TRIGGER IF EXISTS locsim_place_tiles_truncate ON locsim_place",
        """
        CREATE TRIGGER locsim_place_tiles_insert AFTER INSERT ON locsim_place
        REFERENCING NEW TABLE AS locsim_new FOR EACH STATEMENT EXECUTE FUNCTION locsim_place_retile()
        """,
        """
        CREATE TRIGGER locsim_place_tiles_update AFTER UPDATE ON locsim_place
        REFERENCING OLD TABLE AS locsim_old NEW TABLE AS locsim_new FOR EACH STATEMENT EXECUTE FUNCTION locsim_place_retile()
        """,
        """
        CREATE TRIGGER locsim_place_tiles_delete AFTER DELETE ON locsim_place
        REFERENCING OLD TABLE AS locsim_old FOR EACH STATEMENT EXECUTE FUNCTION locsim_place_retile()
        """,
        """
        CREATE TRIGGER locsim_place_tiles_truncate AFTER TRUNCATE ON locsim_place
        FOR EACH STATEMENT EXECUTE FUNCTION locsim_place_retile()
        """,
    ]

    /// The trigger's statements that rebuild the tiles `tiles` (a query of tile keys) lists:
    /// each emptied, then built again from `locsim_place` (the transition tables only exist in
    /// the trigger that declares them, hence one call per kind of change).
    private static func retile(_ tiles: String) -> String {
        """
        DELETE FROM locsim_tile WHERE tile IN (\(tiles));
                \(PlaceTiles.rebuildStatement(where: "tile IN (\(tiles))"));
        """
    }

    /// A new database: schema version 4.
    static let schemaStatements: [String] = [
        "CREATE EXTENSION IF NOT EXISTS postgis",
        """
        CREATE TABLE IF NOT EXISTS locsim_place (
            id text PRIMARY KEY,
            name text NOT NULL,
            kind text NOT NULL,
            level integer,
            lat_e7 integer NOT NULL CHECK (lat_e7 BETWEEN -900000000 AND 900000000),
            lon_e7 integer NOT NULL CHECK (lon_e7 BETWEEN -1800000000 AND 1799999999),
            tile integer GENERATED ALWAYS AS (\(PlaceTiles.keyExpression)) STORED,
            \(geographyColumn)
        )
        """,
        "CREATE INDEX IF NOT EXISTS locsim_place_geog ON locsim_place USING gist (geog)",
    ] + tileStatements + triggerStatements + [
        "CREATE TABLE IF NOT EXISTS locsim_meta (key text PRIMARY KEY, value text NOT NULL)",
        "INSERT INTO locsim_meta VALUES ('format', 'locsim-places'), ('version', '\(schemaVersion)') ON CONFLICT (key) DO NOTHING",
    ]

    /// Rebuilds every tile from `locsim_place` (the end of an upgrade: a version-2 database's
    /// tiles miss every change made to `locsim_place` with SQL).
    static let retileAllStatements: [String] = [
        "DELETE FROM locsim_tile",
        PlaceTiles.rebuildStatement(where: "true"),
        setVersion,
    ]

    /// Marks the schema as this version's.
    static let setVersion = "UPDATE locsim_meta SET value = '\(schemaVersion)' WHERE key = 'version'"

    /// Version 1 (a planar `cell` column and its GiST index, no tiles) to version 4, in the
    /// transaction of ``prepareSchema()``: the column becomes `tile`, the triggers are made, every tile is built.
    static let upgradeStatementsFrom1: [String] = [
        "ALTER TABLE locsim_place DROP COLUMN IF EXISTS cell",
        "ALTER TABLE locsim_place ADD COLUMN IF NOT EXISTS tile integer GENERATED ALWAYS AS (\(PlaceTiles.keyExpression)) STORED",
    ] + tileStatements + triggerStatements + retileAllStatements

    /// Version 2 (tiles maintained only by locsim's import) to version 4: the triggers, and every tile rebuilt.
    static let upgradeStatementsFrom2: [String] = triggerStatements + retileAllStatements

    /// Version 3 (a trigger function that followed the writer's `search_path`) to version 4.
    static let upgradeStatementsFrom3: [String] = triggerStatements + [setVersion]

    /// Creates the PostGIS extension, the tables and their indexes if missing, upgrades a
    /// version 1 to 3 schema (making the triggers, rebuilding the tiles), all in one
    /// transaction, and checks that an existing schema is this version's.
    ///
    /// - Throws: ``PostGISError/Code/schema`` for a newer or foreign schema; connection and
    ///   server errors as ``PostGISError``.
    package func prepareSchema() async throws {
        try await withOwnTransaction { connection in
            // A schema change (an upgrade rebuilds every tile) is not a read: no read deadline.
            try await connection.query("SET LOCAL statement_timeout = 0", logger: self.logger)
            // Serialise concurrent first imports: CREATE ... IF NOT EXISTS alone can race.
            try await connection.query("SELECT pg_advisory_xact_lock(7621001)", logger: self.logger)
            // In the schema the tables are created in (the first of the search_path that
            // exists): a `team,public` path must not find `public`'s tables and write there.
            try await self.requireSchemaOnPath(connection)
            var hasMeta = false
            for try await (exists) in try await connection.query(
                "SELECT to_regclass(format('%I.locsim_meta', current_schema())) IS NOT NULL", logger: self.logger
            ).decode(Bool.self) {
                hasMeta = exists
            }
            var version: String?
            if hasMeta {
                for try await (value) in try await connection.query(
                    "SELECT value FROM locsim_meta WHERE key = 'version'", logger: self.logger
                ).decode(String.self) {
                    version = value
                }
            }
            let statements: [String]
            switch version {
            case nil: statements = Self.schemaStatements
            case "1": statements = Self.upgradeStatementsFrom1
            case "2": statements = Self.upgradeStatementsFrom2
            case "3": statements = Self.upgradeStatementsFrom3
            case String(Self.schemaVersion): statements = []
            case let version?:
                throw PostGISError(
                    .schema, "locsim_meta says schema version \(version); this locsim knows versions 1 to \(Self.schemaVersion)",
                    endpoint: self.url.endpoint)
            }
            if let version, version != String(Self.schemaVersion) {
                self.logger.info("upgrading the place tables from schema version \(version) to \(Self.schemaVersion)")
            }
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
            }
        }
    }

    // MARK: Queries

    /// Places within `radius` metres of `center`, nearest first, ties by id; the answer of
    /// `NearbyIndex.places(near:within:limit:)` over the same places, bit for bit.
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Metres, 1 … ``/LocationCore/Sphere/halfCircumference``.
    ///   - limit: The nearest `limit` places (> 0), or nil for all.
    /// - Throws: ``PostGISError`` — `invalidArgument` naming `radius` or `limit`, `unavailable`
    ///   when the server cannot be reached, `query` for server errors.
    package func places(near center: Coordinate, within radius: Double, limit: Int? = nil) async throws -> [NearbyPlace] {
        try await withNearbyRows(near: center, within: radius, limit: limit) { rows in
            (0..<rows.count).map { rows.place(at: $0) }
        }
    }

    /// The answer of ``places(near:within:limit:)`` read in place from the tiles' bytes, for a
    /// writer that copies ids and names straight into its output (the nearby server's JSON):
    /// same places, same order, same checks and errors.
    ///
    /// - Parameter body: Reads the rows; they are valid only until it returns.
    package func withNearbyRows<Answer>(
        near center: Coordinate, within radius: Double, limit: Int? = nil, _ body: (PackedHits) -> Answer
    ) async throws -> Answer {
        try Self.check(radius: radius, limit: limit)
        let ranges = PlaceTiles.keyRanges(center: center, radius: radius)
        let packed = try await withDeadline { connection in try await self.readTiles(ranges, on: connection) }
        do {
            return try PlaceTiles.withHits(in: packed, center: center, radius: radius, limit: limit, body)
        } catch {
            throw PostGISError(.query, "locsim_tile: \(error.message)", endpoint: url.endpoint)
        }
    }

    /// The tiles of `ranges`, one after the other (the tile statement's one value).
    private func readTiles(_ ranges: [ClosedRange<Int64>], on connection: PostgresConnection) async throws -> ByteBuffer {
        if !tilesExist.withLock({ $0 }) { try await checkTilesExist(on: connection) }
        var packed: ByteBuffer?
        for try await row in try await connection.execute(TileStatement(ranges: ranges), logger: logger) {
            packed = row
        }
        // No tile in range: string_agg over no rows is NULL.
        return packed ?? ByteBuffer()
    }

    /// Throws ``PostGISError/Code/schema`` unless `locsim_tile` exists (then remembers that it does).
    private func checkTilesExist(on connection: PostgresConnection) async throws {
        var exists = false
        for try await (value) in try await connection.query(
            "SELECT to_regclass('locsim_tile') IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            exists = value
        }
        guard exists else {
            throw PostGISError(
                .schema,
                "database \(url.database) has no locsim_tile table (no import yet, or places imported by an older locsim); "
                    + "`locsim index import FILE --postgres URL` creates or upgrades the place tables",
                endpoint: url.endpoint)
        }
        tilesExist.withLock { $0 = true }
    }

    /// The textbook PostGIS query: `ST_DWithin(geog, centre, radius, false) ORDER BY
    /// ST_Distance(geog, centre, false), id [LIMIT n]` (a KNN `<->` order when only a limit
    /// matters is not exact at equal distances, so the limit cuts the exact order).
    ///
    /// PostGIS's sphere is 6,371,008.7714 m (the WGS 84 mean radius), not LocationCore's
    /// 6,371,008.8 m, so a place within about 4.5e-9 × radius of the edge can differ; the
    /// distances returned are recomputed with LocationCore's haversine. For the benchmark and
    /// the comparison tests; serve with ``places(near:within:limit:)``.
    package func textbookPlaces(near center: Coordinate, within radius: Double, limit: Int? = nil) async throws -> [NearbyPlace] {
        try Self.check(radius: radius, limit: limit)
        let statement = TextbookStatement(
            latitude: center.latitude, longitude: center.longitude, radius: radius, limit: limit.map(Int64.init) ?? Int64.max)
        return try await withDeadline { connection async throws -> [NearbyPlace] in
            var result: [NearbyPlace] = []
            for try await row in try await connection.execute(statement, logger: self.logger) {
                let coordinate = try Coordinate(latitude: Double(row.latitudeE7) / 1e7, longitude: Double(row.longitudeE7) / 1e7)
                result.append(NearbyPlace(
                    place: Place(id: row.id, name: row.name, coordinate: coordinate, kind: row.kind, level: row.level.map(Int.init)),
                    distance: center.distance(to: coordinate)))
            }
            return result
        }
    }

    /// Whether a nearby read works now, by making one: the real query path (a connection, the
    /// tile table, the prepared statement, the grant to read it, no lock in the way, the
    /// deadline) for a 1 m cap at 0°, 0°, which reads one tile. The error says why not
    /// (PostgreSQL's message and SQLSTATE when the server refused).
    ///
    /// When the pool has no connection to give within the deadline, a connection of its own
    /// (``checkReadable()``) finds out why: the pool retries a login that fails without saying
    /// why, a connection of its own gets PostgreSQL's answer (a wrong password, SQLSTATE 28P01;
    /// no such database, 3D000). So this can take up to twice ``queryTimeout``.
    package func checkHealth() async throws {
        do {
            try await withNearbyRows(near: Self.healthCheckCenter, within: 1, limit: 1) { _ in }
        } catch let error as PostGISError where error.code == .unavailable {
            try await checkReadable()
            throw error
        }
    }

    /// The same 1 m read as ``checkHealth()`` on a connection of its own, opened for it and
    /// closed after, within the deadline: whether a login works and reads the tiles (the
    /// credentials, the database, the tables, the grant to read them), with PostgreSQL's own error
    /// when not. For a check at startup, before the pool runs.
    package func checkReadable() async throws {
        let ranges = PlaceTiles.keyRanges(center: Self.healthCheckCenter, radius: 1)
        _ = try await withDeadline(on: .ownConnection) { connection in try await self.readTiles(ranges, on: connection) }
    }

    private static let healthCheckCenter: Coordinate = {
        do {
            return try Coordinate(latitude: 0, longitude: 0)
        } catch {
            preconditionFailure("0°, 0° is a coordinate: \(error)")
        }
    }()

    /// Whether the server takes a login and answers `SELECT 1` within the deadline, on a
    /// connection of its own (so a refused login says PostgreSQL's reason): what an import or
    /// the statistics check first, so a server that is down or refuses them fails them promptly.
    func checkReachable() async throws {
        _ = try await withDeadline(on: .ownConnection) { connection in
            try await connection.query("SELECT 1", logger: self.logger)
        }
    }

    /// A connection of its own, not the pool's: the same server, login, TLS mode, timeouts and
    /// session settings. Until a login has succeeded, `allow` and `prefer` try their second way
    /// when the server refuses the first (``TLSSettings/attempts(_:)``), and the way that worked
    /// is the one every later connection, the pool's too, is made.
    private func connect() async throws -> PostgresConnection {
        let settled = self.settled.withLock { $0 }
        let order = settled.map { [$0] } ?? Array(attempts.indices)
        for (position, index) in order.enumerated() {
            let tls: PostgresConnection.Configuration.TLS
            switch attempts[index] {
            case .disable: tls = .disable
            case .prefer(let configuration): tls = .prefer(try NIOSSLContext(configuration: configuration))
            case .require(let configuration): tls = .require(try NIOSSLContext(configuration: configuration))
            }
            var configuration = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
            configuration.options.connectTimeout = TimeAmount(url.connectTimeout)
            configuration.options.additionalStartupParameters = Self.sessionSettings(url: url, queryTimeout: queryTimeout)
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                if settled == nil { self.settled.withLock { $0 = index } }
                return connection
            } catch let error as PSQLError where error.serverInfo != nil && position < order.count - 1 {
                // The server refused this way's login: libpq tries the next way.
                logger.debug("\(url.endpoint) refused a login (\(translate(error).message)); trying sslmode=\(url.tlsMode.rawValue)'s other way")
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// Settles the way of connecting (``connect()``) before the pool's first connection, when
    /// there is a choice: the pool only retries a login the server refuses, so it cannot be the
    /// one to find that the other way works. A server that cannot be reached leaves it unsettled,
    /// for the pool to wait on as it does for one way.
    private func settleConnectionWay() async throws {
        guard attempts.count > 1, settled.withLock({ $0 }) == nil else { return }
        let connection: PostgresConnection
        do {
            connection = try await connect()
        } catch let error as PSQLError where error.serverInfo == nil {
            return
        }
        // The server has just answered a login: its goodbye is prompt (and the caller's
        // deadline bounds it).
        try await connection.close()
    }

    /// ``PostGISError/Code/invalidArgument`` (parameter `search_path`) when no schema of the
    /// session's search_path exists (`PGOPTIONS='-c search_path=nosuch'`): there is nowhere to
    /// find or make the tables, and PostgreSQL's own errors would be about formatting a null, or
    /// a missing table that an import cannot make.
    func requireSchemaOnPath(_ connection: PostgresConnection) async throws {
        var missing: String?
        for try await (schema, searchPath) in try await connection.query(
            "SELECT current_schema(), current_setting('search_path')", logger: logger
        ).decode((String?, String).self) {
            if schema == nil { missing = searchPath }
        }
        guard let path = missing else { return }
        throw PostGISError(
            .invalidArgument,
            "no schema it names exists in database \(url.database) ('\(TextExcerpt.render(path, limit: 120))'): create one, "
                + "or set a search_path that names one (the URL's options, PGOPTIONS, or the role's setting)",
            endpoint: url.endpoint, parameter: "search_path")
    }

    /// Runs `body` in one transaction on a connection of its own (not the pool's, which would
    /// keep it waiting while it retries a server that is down), for work that is not a read:
    /// no deadline, but it ends when the connection does. A server that stops or crashes during
    /// the work fails it at once with ``PostGISError/Code/unavailable``; cancelling the calling
    /// task (Ctrl-C) closes the connection, so a statement a frozen server holds ends too, and
    /// the server rolls the transaction back.
    ///
    /// The work runs in a task of its own that is abandoned when the connection closes first:
    /// postgres-nio 1.33 leaves a statement sent on a connection that has just closed waiting
    /// for good, deaf to cancellation (an import whose server stopped hung, and ignored SIGTERM).
    func withOwnTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await withTranslatedErrors { try await self.connect() }
        defer { close(connection) }
        let race = DeadlineRace<T>()
        let logger = self.logger
        let work = Task {
            do {
                let value = try await self.withTranslatedErrors {
                    try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
                }
                race.finish(.read(.success(value)))
            } catch {
                race.finish(.read(.failure(error)))
            }
        }
        connection.closeFuture.whenComplete { _ in race.finish(.closed) }
        let end = await withTaskCancellationHandler {
            await race.wait()
        } onCancel: {
            race.finish(.cancelled)
        }
        switch end {
        case .read(let result):
            return try result.get()
        case .cancelled:
            work.cancel()
            throw CancellationError()
        case .closed, .deadline:
            work.cancel()
            throw PostGISError(
                .unavailable,
                "the server closed the connection before the transaction ended (it stopped or restarted): rolled back, "
                    + "unless its commit had reached the server",
                endpoint: url.endpoint)
        }
    }

    /// Closes `connection` without waiting (a frozen server would hold a TLS goodbye); a failure
    /// is logged at debug level: the connection is gone either way. The connection is kept until
    /// it has closed (postgres-nio asserts that none is released open).
    func close(_ connection: PostgresConnection) {
        let logger = self.logger
        let endpoint = url.endpoint
        connection.close().whenComplete { result in
            if case .failure(let error) = result { logger.debug("closing a connection to \(endpoint): \(error)") }
            withExtendedLifetime(connection) {}
        }
    }

    static func check(radius: Double, limit: Int?) throws(PostGISError) {
        do {
            try NearbyPlace.checkQuery(radius: radius, limit: limit)
        } catch {
            throw PostGISError(.invalidArgument, error.message, parameter: error.parameter)
        }
    }

    /// Runs `body` on a connection of the pool with errors translated, within the read deadline
    /// (``queryTimeout`` on ``clock``, from now): the one deadline every read has.
    ///
    /// When the deadline passes first, a read still waiting for a connection stops waiting
    /// (postgres-nio's pool keeps a request waiting while it retries a server that is down) and
    /// throws ``PostGISError/Code/unavailable``; a read whose query was sent is cancelled by
    /// closing its connection (postgres-nio neither sends PostgreSQL's CancelRequest nor stops a
    /// query when its task is cancelled, so this is what ends the wait for a frozen server) and
    /// throws ``PostGISError/Code/timedOut``. The server's own `statement_timeout` (the same
    /// deadline) ends the statement on its side. Either way this returns at the deadline, never
    /// after the query.
    func withDeadline<T: Sendable>(
        on source: ConnectionSource = .pool, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let timeout = queryTimeout
        let clock = self.clock
        let phase = Locked(ReadPhase.waitingForConnection)
        let race = DeadlineRace<T>()
        let timers = Locked<[Task<Void, Never>]>([])
        /// Ends the race at `delay` from now unless something ends it first.
        @Sendable func deadline(after delay: Duration, unlessConnected: Bool = false) {
            let timer = Task {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return  // Cancelled: the read finished first, or the caller gave up.
                }
                if unlessConnected, phase.withLock({ if case .waitingForConnection = $0 { false } else { true } }) { return }
                race.finish(.deadline)
            }
            timers.withLock { $0.append(timer) }
        }
        @Sendable func run(_ connection: PostgresConnection) async throws -> T {
            let sent = phase.withLock { phase in
                guard case .waitingForConnection = phase else { return false }
                phase = .running(connection)
                return true
            }
            // The deadline passed while the connection was handed over.
            guard sent else { throw CancellationError() }
            // A connection of its own had connect_timeout to open; its query has the read
            // deadline from now. (A pooled read's deadline runs from its start.)
            if case .ownConnection = source { deadline(after: timeout) }
            defer {
                phase.withLock { phase in
                    if case .running = phase { phase = .finished }
                }
            }
            do {
                return try await body(connection)
            } catch {
                // A pooled connection on which a read failed is not given back: postgres-nio
                // remembers a prepared statement whose preparation failed (cancelled behind a
                // lock by statement_timeout or by someone, a missing table) and fails every
                // later use of it on that connection with the same error, without asking the
                // server. Closed, the pool opens a fresh connection that prepares it again.
                // Not waited for: the server may be frozen, and a close waited for under a read
                // that has failed would hold it past its deadline (a read the deadline stopped
                // has had its connection closed already).
                if case .pool = source, case .running = phase.withLock({ $0 }) { self.close(connection) }
                throw error
            }
        }
        // The read runs in a task of its own and the caller waits for whichever comes first, the
        // read or the deadline, never for the read to notice it was cancelled: a child of a task
        // group would be waited for, and postgres-nio's pool has been seen to leave a cancelled
        // wait for a connection unanswered (a read once hung past its deadline this way).
        let work = Task { () async throws -> T in
            try await self.withTranslatedErrors {
                switch source {
                case .pool:
                    try await self.settleConnectionWay()
                    return try await self.client.withConnection { connection in try await run(connection) }
                case .ownConnection:
                    let connection = try await self.connect()
                    do {
                        let answer = try await run(connection)
                        try await connection.close()
                        return answer
                    } catch {
                        self.close(connection)
                        throw error
                    }
                }
            }
        }
        /// Stops the read unless it has finished: a query sent is cancelled by closing its
        /// connection, which fails it at once (before any TLS goodbye to a frozen peer; the pool
        /// drops the connection and opens another when it needs one).
        func stop() -> ReadPhase {
            let before = phase.withLock { phase in
                let before = phase
                if case .finished = phase {} else { phase = .expired }
                return before
            }
            if case .running(let connection) = before { close(connection) }
            work.cancel()
            return before
        }
        switch source {
        case .pool: deadline(after: timeout)
        case .ownConnection: deadline(after: url.connectTimeout, unlessConnected: true)
        }
        Task {
            let result = await work.result
            race.finish(.read(result))
        }
        let end = await withTaskCancellationHandler {
            await race.wait()
        } onCancel: {
            race.finish(.cancelled)
        }
        for timer in timers.withLock({ $0 }) { timer.cancel() }
        switch end {
        case .read(let result):
            return try result.get()
        case .cancelled:
            // The caller gave up (its task was cancelled): stop the read too.
            _ = stop()
            throw CancellationError()
        case .deadline, .closed:
            break
        }
        switch stop() {
        case .finished:
            // The read finished as the deadline passed: its answer (or error) is there.
            return try await work.value
        case .running:
            throw PostGISError(
                .timedOut,
                "query got no answer within its \(deadlineText) deadline; cancelled (its connection closed)",
                endpoint: url.endpoint)
        case .waitingForConnection, .expired:
            switch source {
            case .pool:
                throw PostGISError(
                    .unavailable,
                    "no connection within the \(deadlineText) deadline (the pool cannot connect or log in, "
                        + "or every connection is busy)",
                    endpoint: url.endpoint)
            case .ownConnection:
                throw PostGISError(
                    .unavailable, "could not connect and log in within \(Self.secondsText(url.connectTimeout)) (connect_timeout)",
                    endpoint: url.endpoint)
            }
        }
    }

    /// Runs `body`, turning postgres-nio's errors into ``PostGISError`` naming the server.
    func withTranslatedErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            // What went wrong first is what the caller needs: the closure's error (a bad
            // progress callback, cancellation, a failed statement), else BEGIN's or COMMIT's.
            // A rollback that fails after it changes nothing: the server discards the transaction.
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
            if cause is PostgresTransactionError { throw cause }
            return try await withTranslatedErrors { throw cause }
        } catch let error as PostGISError {
            throw error
        } catch let error as PSQLError {
            throw translate(error)
        } catch where String(reflecting: type(of: error)).hasPrefix("_ConnectionPoolModule.") {
            // The pool's own errors (its circuit breaker after repeated connection failures);
            // the module is underscored, so it is recognised by name rather than imported.
            throw PostGISError(.unavailable, "cannot reach the server: \(error)", endpoint: url.endpoint)
        }
    }

    func translate(_ error: PSQLError) -> PostGISError {
        if let fields = error.serverInfo {
            let message = fields[.message] ?? "server error"
            let state = fields[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = fields[.detail].map { "; \($0)" } ?? ""
            // 28xxx: authentication; 3D000: no such database; 57P0x: shutting down.
            let unavailable = fields[.sqlState].map { $0.hasPrefix("28") || $0 == "3D000" || $0.hasPrefix("57P") } ?? false
            // 57014: query_canceled, by the session's statement_timeout (the read deadline) or by
            // someone's pg_cancel_backend.
            if fields[.sqlState] == "57014" {
                guard message.contains("statement timeout") else {
                    return PostGISError(.query, message + state, endpoint: url.endpoint, sqlState: fields[.sqlState])
                }
                return PostGISError(
                    .timedOut, "query exceeded its \(deadlineText) deadline (statement_timeout); cancelled by the server",
                    endpoint: url.endpoint, sqlState: fields[.sqlState])
            }
            // 42P01: no such table (a database no import has prepared, or an older schema).
            if fields[.sqlState] == "42P01" {
                return PostGISError(
                    .schema, message + state + "; `locsim index import FILE --postgres URL` creates or upgrades the place tables",
                    endpoint: url.endpoint, sqlState: fields[.sqlState])
            }
            return PostGISError(
                unavailable ? .unavailable : .query, message + detail + state, endpoint: url.endpoint, sqlState: fields[.sqlState])
        }
        // A PSQLError's own description is deliberately generic; its code, and an underlying
        // cause that is not another PSQLError (a socket error), say what happened.
        if let inner = error.underlying as? PSQLError { return translate(inner) }
        if let underlying = error.underlying as? ChannelError, case .connectTimeout = underlying {
            return PostGISError(
                .unavailable, "no connection within \(url.connectTimeout) (connect_timeout): TCP, TLS and the login must "
                    + "finish within it", endpoint: url.endpoint)
        }
        // The server was reached, and said no before any query: say what to change.
        if error.code == .sslUnsupported {
            return PostGISError(
                .unavailable,
                "the server offers no TLS, and sslmode=\(url.tlsMode.rawValue) asks for it: turn ssl on in its postgresql.conf, "
                    + "or use sslmode=prefer", endpoint: url.endpoint, parameter: "sslmode")
        }
        if error.code == .authMechanismRequiresPassword {
            return PostGISError(
                .unavailable,
                "the server asks for a password and none was given (in the URL, PGPASSWORD, or the password file ~/.pgpass or PGPASSFILE)",
                endpoint: url.endpoint, parameter: "password")
        }
        if let underlying = error.underlying, underlying is NIOSSLError || underlying is NIOSSLExtraError || underlying is BoringSSLError {
            return PostGISError(
                .unavailable, "TLS with the server failed (sslmode=\(url.tlsMode.rawValue)): \(underlying)", endpoint: url.endpoint,
                parameter: "sslmode")
        }
        // A connection that was never made: in the system's words (`Connection refused`, `no such host`).
        if error.code == .connectionError, let underlying = error.underlying {
            return PostGISError(.unavailable, "cannot reach the server: \(ConnectFailure.reason(underlying))", endpoint: url.endpoint)
        }
        // Reached, but what answered does not speak PostgreSQL's protocol (an HTTP server on
        // the port answers the TLS request with 'H'), or the server closed the connection before
        // a login: postgres-nio's codes (`serverClosedConnection`) are no words for a person.
        if error.code == .serverClosedConnection || error.code == .messageDecodingFailure || error.code == .unexpectedBackendMessage {
            return PostGISError(
                .unavailable,
                "something answered at this address but closed the connection without speaking PostgreSQL's protocol "
                    + "(another service on the port, or a server that just stopped)", endpoint: url.endpoint)
        }
        let reason = error.underlying.map { "\(error.code) (\($0))" } ?? "\(error.code)"
        return PostGISError(.unavailable, "cannot reach the server: \(reason)", endpoint: url.endpoint)
    }
}

/// Where a read under ``PostGISPlaceStore/withDeadline(on:_:)`` gets its connection.
enum ConnectionSource: Sendable {
    /// One of the pool's: what reads use.
    case pool
    /// One of its own, opened for the read and closed after it: a login that fails says
    /// PostgreSQL's reason (the pool only retries it).
    case ownConnection
}

/// Where a read under ``PostGISPlaceStore/withDeadline(on:_:)`` is. The read and its deadline each
/// move it under its lock, so exactly one of "answered" and "cancelled" happens.
/// Which came first for a read under ``PostGISPlaceStore/withDeadline(on:_:)``, handed to the one
/// caller waiting: the first ``finish(_:)`` wins, later ones are dropped.
final class DeadlineRace<T: Sendable>: Sendable {
    enum End: Sendable {
        case read(Result<T, any Error>)
        case deadline
        case cancelled
        /// The connection closed (the server stopped or crashed) before the work ended.
        case closed
    }

    private struct State {
        var end: End?
        var waiter: CheckedContinuation<End, Never>?
    }

    private let state = Locked(State())

    func finish(_ end: End) {
        let waiter = state.withLock { state -> CheckedContinuation<End, Never>? in
            if state.end != nil { return nil }
            state.end = end
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: end)
    }

    /// The first end, once there is one.
    func wait() async -> End {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> End? in
                if let end = state.end { return end }
                state.waiter = continuation
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }
}

enum ReadPhase: Sendable {
    case waitingForConnection
    /// Its query was sent on this connection.
    case running(PostgresConnection)
    case finished
    /// The deadline passed: a connection handed over now is not used.
    case expired
}

/// One row of the answer: the columns a `Place` needs, in binary.
struct PlaceRow: Sendable {
    var id: String
    var name: String
    var kind: String
    var level: Int32?
    var latitudeE7: Int32
    var longitudeE7: Int32

    init(_ row: PostgresRow) throws {
        (id, name, kind, level, latitudeE7, longitudeE7) = try row.decode((String, String, String, Int32?, Int32, Int32).self)
    }
}

/// The textbook query, for comparison.
struct TextbookStatement: PostgresPreparedStatement {
    static let name = "locsim_place_textbook_v1"
    static let sql = """
        SELECT id, name, kind, level, lat_e7, lon_e7 FROM locsim_place
        WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $3, false)
        ORDER BY ST_Distance(geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, false), id COLLATE "C"
        LIMIT $4
        """
    static let bindingDataTypes: [PostgresDataType] = [.float8, .float8, .float8, .int8]
    typealias Row = PlaceRow

    var latitude, longitude, radius: Double
    var limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(latitude)
        bindings.append(longitude)
        bindings.append(radius)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PlaceRow { try PlaceRow(row) }
}

/// One way of connecting as libpq's `sslmode` asks for it (``PostgresURL/TLSMode``): whether to
/// use TLS, and how the server's certificate is checked.
enum TLSSettings: Sendable {
    case disable
    /// TLS when the server offers it (postgres-nio's `prefer`: plain when the server answers
    /// that it has no TLS).
    case prefer(TLSConfiguration)
    /// TLS or no connection.
    case require(TLSConfiguration)

    /// The ways libpq tries, in its order: `allow` first without TLS, then with it; `prefer` first
    /// with TLS, then without; every other mode one way. The second is tried when the server
    /// refuses the login made the first way (an error during the startup, as a `pg_hba.conf` that
    /// takes only `hostssl` or only `hostnossl` connections answers), as libpq retries.
    ///
    /// - Throws: ``PostGISError/Code/invalidURL`` naming `sslrootcert` when its file cannot be
    ///   read as PEM certificates.
    static func attempts(_ url: PostgresURL) throws(PostGISError) -> [TLSSettings] {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch url.rootCertificates {
        case .file(let path):
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw PostGISError(.invalidURL, "cannot read '\(path)' as PEM certificates: \(error)", parameter: "sslrootcert")
            }
        case .system, nil:
            configuration.trustRoots = .default
        }
        switch url.tlsMode {
        case .disable:
            return [.disable]
        case .allow:
            configuration.certificateVerification = .none
            return [.disable, .prefer(configuration)]
        case .prefer:
            configuration.certificateVerification = .none
            return [.prefer(configuration), .disable]
        case .require:
            // libpq: with a root certificate given, require checks the chain as verify-ca does.
            configuration.certificateVerification = url.rootCertificates == nil ? .none : .noHostnameVerification
            return [.require(configuration)]
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
            return [.require(configuration)]
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
            return [.require(configuration)]
        }
    }
}
