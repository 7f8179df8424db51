public import Logging
public import LocationCore
public import LocationIndex
import PostgresNIO

/// Places in a PostgreSQL database with PostGIS, answering the same nearby query as
/// LocationIndex's `NearbyIndex`, with the same answer: every place whose great-circle distance
/// (``/LocationCore/Coordinate/distance(to:)``, sphere of 6,371,008.8 m) is ≤ the radius, ordered by
/// distance then id, correct at the poles and across ±180°.
///
/// Schema (created by ``prepareSchema()``):
///
/// ```sql
/// CREATE TABLE locsim_place (
///     id text PRIMARY KEY, name text NOT NULL, kind text NOT NULL, level integer,
///     lat_e7 integer NOT NULL, lon_e7 integer NOT NULL,            -- 1e-7° units, as NearbyIndex
///     cell geometry(Point) GENERATED ALWAYS AS (ST_MakePoint(lon_e7, lat_e7)) STORED,
///     geog geography(Point, 4326) GENERATED ALWAYS AS (...) STORED);
/// CREATE INDEX ... USING gist (cell); CREATE INDEX ... USING gist (geog);
/// ```
///
/// The query (``places(near:within:limit:)``) is a prepared statement that asks the GiST index
/// on `cell` for the places inside the cap's latitude/longitude box (LocationIndex's
/// `SearchCap`, the same box the SQLite index reads; two boxes across ±180°), a cheap planar
/// test, and returns only the six columns the answer needs, in binary, as one row of six arrays
/// (`array_agg`) rather than one row per candidate. The exact distance, the radius test, the order and
/// the limit are then computed here with LocationCore's haversine, so the answer is
/// bit-identical to the SQLite index's. `textbookPlaces(near:within:limit:)` (package-only: the benchmark and the equivalence tests) is the usual
/// PostGIS query (`ST_DWithin` on `geography`, `ORDER BY ST_Distance`), kept for comparison.
///
/// The store needs ``run()`` to be running (it drives the connection pool; cancel it to close),
/// or use ``withRunning(_:clock:logger:_:)``.
public final class PostGISPlaceStore: Sendable {
    /// The server and login.
    public let url: PostgresURL
    let client: PostgresClient
    let logger: Logger
    /// How long a query (not an import) may wait for a connection and its answer.
    public let queryTimeout: Duration
    let clock: any Clock<Duration>

    /// - Parameters:
    ///   - url: Where the server is (the password is sent, never logged).
    ///   - maximumConnections: Pool size, ≥ 1.
    ///   - connectTimeout: How long one connection attempt may take.
    ///   - queryTimeout: How long a query may wait for a connection and its answer before it
    ///     throws ``PostGISError/Code/unavailable`` (the pool meanwhile keeps reconnecting with back-off).
    ///   - clock: The clock `queryTimeout` is measured on.
    ///   - logger: Background messages of the pool (connection failures, reconnects).
    public init(
        url: PostgresURL, maximumConnections: Int = 8, connectTimeout: Duration = .seconds(3),
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
        let tls: PostgresClient.Configuration.TLS
        switch url.tlsMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = connectTimeout
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Drives the connection pool until the calling task is cancelled. Queries wait for it.
    public func run() async {
        await client.run()
    }

    /// Runs `body` with a store whose pool runs for the duration, then closes it.
    public static func withRunning<T: Sendable>(
        _ url: PostgresURL, clock: any Clock<Duration>, logger: Logger, _ body: (PostGISPlaceStore) async throws -> T
    ) async throws -> T {
        let store = try PostGISPlaceStore(url: url, maximumConnections: 4, clock: clock, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            return try await body(store)
        }
    }

    // MARK: Schema

    static let schemaVersion = 1

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
            cell geometry(Point) GENERATED ALWAYS AS (ST_MakePoint(lon_e7, lat_e7)) STORED,
            geog geography(Point, 4326) GENERATED ALWAYS AS (
                ST_SetSRID(ST_MakePoint(lon_e7::float8 / 10000000.0::float8, lat_e7::float8 / 10000000.0::float8), 4326)::geography
            ) STORED
        )
        """,
        "CREATE INDEX IF NOT EXISTS locsim_place_cell ON locsim_place USING gist (cell)",
        "CREATE INDEX IF NOT EXISTS locsim_place_geog ON locsim_place USING gist (geog)",
        "CREATE TABLE IF NOT EXISTS locsim_meta (key text PRIMARY KEY, value text NOT NULL)",
        "INSERT INTO locsim_meta VALUES ('format', 'locsim-places'), ('version', '1') ON CONFLICT (key) DO NOTHING",
    ]

    /// Creates the PostGIS extension, the table and its indexes if missing (idempotent, one
    /// transaction), and checks that an existing table is this version's.
    ///
    /// - Throws: ``PostGISError/Code/schema`` for a newer or foreign schema; connection and
    ///   server errors as ``PostGISError``.
    public func prepareSchema() async throws {
        try await withTranslatedErrors {
            try await client.withTransaction(logger: logger) { connection in
                // Serialise concurrent first imports: CREATE ... IF NOT EXISTS alone can race.
                try await connection.query("SELECT pg_advisory_xact_lock(7621001)", logger: logger)
                for statement in Self.schemaStatements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let rows = try await connection.query(
                    "SELECT value FROM locsim_meta WHERE key = 'version'", logger: logger)
                var version: String?
                for try await (value) in rows.decode(String.self) { version = value }
                guard version == String(Self.schemaVersion) else {
                    throw PostGISError(
                        .schema, "locsim_meta says schema version \(version ?? "none"); this locsim knows version \(Self.schemaVersion)",
                        endpoint: url.endpoint)
                }
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
    public func places(near center: Coordinate, within radius: Double, limit: Int? = nil) async throws -> [NearbyPlace] {
        try Self.check(radius: radius, limit: limit)
        let cap = SearchCap(center: center, radius: radius)
        let latitudes = cap.latitudeE7
        let longitudes = cap.longitudeE7
        let south = Double(latitudes.lowerBound), north = Double(latitudes.upperBound)
        let first = longitudes[0], last = longitudes[longitudes.count - 1]
        let columns = try await withDeadline { () async throws -> PlaceColumns in
            if longitudes.count == 1 {
                try await self.candidates(BoxStatement(
                    south: south, north: north, west: Double(first.lowerBound), east: Double(first.upperBound)))
            } else {
                try await self.candidates(TwoBoxStatement(
                    south: south, north: north, west1: Double(first.lowerBound), east1: Double(first.upperBound),
                    west2: Double(last.lowerBound), east2: Double(last.upperBound)))
            }
        }
        let origin = HaversineOrigin(center)
        var hits: [NearbyPlace] = []
        for row in columns.ids.indices {
            let latitude = Double(columns.latitudesE7[row]) / 1e7
            let longitude = Double(columns.longitudesE7[row]) / 1e7
            let distance = origin.distance(toLatitude: latitude, longitude: longitude)
            guard distance <= radius else { continue }
            let coordinate = try Coordinate(latitude: latitude, longitude: longitude)
            let level = columns.levels[row]
            hits.append(NearbyPlace(
                place: Place(
                    id: columns.ids[row], name: columns.names[row], coordinate: coordinate, kind: columns.kinds[row],
                    level: level == PlaceColumns.noLevel ? nil : Int(level)),
                distance: distance))
        }
        return Self.ordered(hits, limit: limit)
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
        return try await withDeadline { () async throws -> [NearbyPlace] in
            var result: [NearbyPlace] = []
            for try await row in try await self.client.execute(statement, logger: self.logger) {
                let coordinate = try Coordinate(latitude: Double(row.latitudeE7) / 1e7, longitude: Double(row.longitudeE7) / 1e7)
                result.append(NearbyPlace(
                    place: Place(id: row.id, name: row.name, coordinate: coordinate, kind: row.kind, level: row.level.map(Int.init)),
                    distance: center.distance(to: coordinate)))
            }
            return result
        }
    }

    /// Whether the server answers now (`SELECT 1`); the error says why not.
    public func checkHealth() async throws {
        _ = try await withDeadline { try await self.client.query("SELECT 1", logger: self.logger) }
    }

    static func check(radius: Double, limit: Int?) throws(PostGISError) {
        guard radius.isFinite, radius >= 1, radius <= Sphere.halfCircumference else {
            throw PostGISError(
                .invalidArgument, "radius \(radius) m is outside 1...\(Sphere.halfCircumference) m (half the Earth's circumference)",
                parameter: "radius")
        }
        if let limit, limit <= 0 {
            throw PostGISError(.invalidArgument, "limit \(limit) must be > 0", parameter: "limit")
        }
    }

    /// Distance, then id (Swift `String` order, as NearbyIndex), then the first `limit`.
    static func ordered(_ hits: [NearbyPlace], limit: Int?) -> [NearbyPlace] {
        var hits = hits
        hits.sort { left, right in
            left.distance != right.distance ? left.distance < right.distance : left.place.id < right.place.id
        }
        if let limit, hits.count > limit { hits.removeSubrange(limit...) }
        return hits
    }

    /// The one row of a box statement's answer (no row at all is no candidate).
    func candidates<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> PlaceColumns
    where Statement.Row == PlaceColumns {
        var columns = PlaceColumns()
        for try await row in try await client.execute(statement, logger: logger) { columns = row }
        guard columns.isConsistent else {
            throw PostGISError(.query, "the box query's six arrays have different lengths", endpoint: url.endpoint)
        }
        return columns
    }

    /// Runs `body` with errors translated, giving up after ``queryTimeout`` with
    /// ``PostGISError/Code/unavailable`` (postgres-nio's pool keeps a request waiting while it
    /// retries a server that is down; the caller wants a prompt 503 instead).
    func withDeadline<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = queryTimeout
        let clock = self.clock
        let result = try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await self.withTranslatedErrors(body) }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let result else {
            throw PostGISError(.unavailable, "no answer within \(timeout) (server down or overloaded)", endpoint: url.endpoint)
        }
        return result
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
            return PostGISError(unavailable ? .unavailable : .query, message + detail + state, endpoint: url.endpoint)
        }
        let reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
        return PostGISError(.unavailable, "cannot reach the server: \(reason)", endpoint: url.endpoint)
    }
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

/// The tuned query's answer in one row: the candidates' columns as six arrays, in binary.
///
/// One `DataRow` instead of one per candidate: a 5 km answer near a city centre has ~3,500
/// candidates, and postgres-nio hands rows one by one through an async sequence, a suspension
/// and a hop between its event loop and the caller's task per row; decoding six arrays is a plain loop.
struct PlaceColumns: Sendable {
    /// `level` is nullable; the arrays carry this value for "no level" (the importers never store it:
    /// `ParsedPlace` uses it for "no level" too).
    static let noLevel = Int32.min

    var ids: [String] = []
    var names: [String] = []
    var kinds: [String] = []
    var levels: [Int32] = []
    var latitudesE7: [Int32] = []
    var longitudesE7: [Int32] = []

    init() {}

    init(_ row: PostgresRow) throws {
        // array_agg over no rows is NULL.
        let (ids, names, kinds, levels, latitudes, longitudes) = try row.decode(
            ([String]?, [String]?, [String]?, [Int32]?, [Int32]?, [Int32]?).self)
        self.ids = ids ?? []
        self.names = names ?? []
        self.kinds = kinds ?? []
        self.levels = levels ?? []
        latitudesE7 = latitudes ?? []
        longitudesE7 = longitudes ?? []
    }

    var isConsistent: Bool {
        let count = ids.count
        return names.count == count && kinds.count == count && levels.count == count && latitudesE7.count == count
            && longitudesE7.count == count
    }

    /// The select list both box statements share.
    static let selectList = """
        SELECT array_agg(id), array_agg(name), array_agg(kind), array_agg(coalesce(level, (-2147483648)::integer)),
            array_agg(lat_e7), array_agg(lon_e7) FROM locsim_place
        """
}

/// The tuned query for a cap that does not cross ±180°: one box through the GiST index on `cell`.
struct BoxStatement: PostgresPreparedStatement {
    static let name = "locsim_place_box_v2"
    static let sql = PlaceColumns.selectList + " WHERE cell && ST_MakeEnvelope($3, $1, $4, $2)"
    static let bindingDataTypes: [PostgresDataType] = [.float8, .float8, .float8, .float8]
    typealias Row = PlaceColumns

    var south, north, west, east: Double

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        for value in [south, north, west, east] { bindings.append(value) }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PlaceColumns { try PlaceColumns(row) }
}

/// The tuned query for a cap across ±180°: its two longitude ranges.
struct TwoBoxStatement: PostgresPreparedStatement {
    static let name = "locsim_place_two_boxes_v2"
    static let sql = PlaceColumns.selectList
        + " WHERE cell && ST_MakeEnvelope($3, $1, $4, $2) OR cell && ST_MakeEnvelope($5, $1, $6, $2)"
    static let bindingDataTypes: [PostgresDataType] = [.float8, .float8, .float8, .float8, .float8, .float8]
    typealias Row = PlaceColumns

    var south, north, west1, east1, west2, east2: Double

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        for value in [south, north, west1, east1, west2, east2] { bindings.append(value) }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PlaceColumns { try PlaceColumns(row) }
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
