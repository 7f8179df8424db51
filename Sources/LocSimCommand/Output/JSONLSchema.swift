import MapFeature
import Swarm

/// One member of a record in the command's JSON output: its name, JSON type, unit, rounding, when
/// it is present and what it means.
///
/// ``JSONLWriter`` takes the keys from here, in this order, so a record cannot write a member the
/// schema does not list, nor in another order; docs/reference/jsonl.md is this schema rendered
/// (``JSONLSchema/markdown``), and a test fails when the two differ.
package struct JSONLField: Sendable {
    /// The JSON type of a value.
    package enum Kind: Sendable, Equatable {
        case string
        /// A string: a UTC time with milliseconds, `2024-11-07T18:00:00.000Z`.
        case timestamp
        case integer
        case number
        case strings
        case integers
        /// An object of the named ``JSONLRecordSchema`` (one without a `type` member).
        case object(String)
        /// An array of objects of the named ``JSONLRecordSchema``.
        case objects(String)
    }

    /// When the member is written.
    package enum Presence: Sendable, Equatable {
        /// In every record, never null.
        case always
        /// In every record; `null` in the case described.
        case nullable(String)
        /// Only in the case described; absent otherwise.
        case optional(String)
        /// Exactly in the records whose `event` member is one of these (gpsd's connection events).
        case events([String])
    }

    package let name: String
    package let kind: Kind
    /// `m`, `m/s`, `s`, `°` or empty.
    package let unit: String
    /// Numbers are rounded to this many decimals; `nil`: written as the shortest text that reads
    /// back as the same `Double` (coordinates, radii).
    package let decimals: Int?
    package let presence: Presence
    /// One line for the documentation.
    package let meaning: String
    /// `"name":`, and with a leading comma, precomputed for the writer.
    package let key: String
    package let continuedKey: String

    /// A member present in every record, never null.
    package init(_ name: String, _ kind: Kind, unit: String = "", decimals: Int? = nil, _ meaning: String) {
        self.init(name, kind, unit: unit, decimals: decimals, .always, meaning)
    }

    package init(_ name: String, _ kind: Kind, unit: String = "", decimals: Int? = nil, _ presence: Presence, _ meaning: String) {
        self.name = name
        self.kind = kind
        self.unit = unit
        self.decimals = decimals
        self.presence = presence
        self.meaning = meaning
        self.key = "\"\(name)\":"
        self.continuedKey = ",\"\(name)\":"
    }

    /// Whether a record may leave the member out.
    package var mayBeAbsent: Bool {
        switch presence {
        case .always, .nullable: false
        case .optional, .events: true
        }
    }

    /// Whether the member may be `null`.
    package var isNullable: Bool {
        if case .nullable = presence { return true }
        return false
    }
}

/// A record of the command's JSON output: a jsonl line, a `--format json` document, or an object
/// nested in one.
package struct JSONLRecordSchema: Sendable {
    /// The heading in docs/reference/jsonl.md: the `type` value, or a name for records without one.
    package let name: String
    /// The value of the record's first member, `type`; `nil` for documents and nested objects.
    package let type: String?
    /// Which commands write it, and when.
    package let writtenBy: String
    /// The members in the order written (`type` first when there is one).
    package let fields: [JSONLField]
    /// `{"type":"fix"` for a typed record, `{` otherwise: what every line of it starts with.
    package let opening: String

    package init(_ name: String, type: String? = nil, writtenBy: String, _ fields: [JSONLField]) {
        self.name = name
        self.type = type
        self.writtenBy = writtenBy
        if let type {
            self.fields = [JSONLField("type", .string, "`\"\(type)\"`")] + fields
            self.opening = "{\"type\":\"\(type)\""
        } else {
            self.fields = fields
            self.opening = "{"
        }
    }

    package func field(named name: String) -> JSONLField? { fields.first { $0.name == name } }
}

/// Every record the command writes as JSON, in one place: `replay`, `simulate` (with and without
/// `--map`) and `gpsd` with `--format jsonl`, `index query` with `--format json` or `jsonl`, `track
/// stats` and `index stats` with `--format json`.
package enum JSONLSchema {
    // MARK: Fixes (replay, simulate, gpsd)

    package static let fix = JSONLRecordSchema(
        "fix", type: "fix",
        writtenBy: "`replay`, `simulate` (with and without `--map`), `gpsd`, `replay --gpsd`: one per fix",
        [
            JSONLField("t", .timestamp, "the fix's time"),
            JSONLField("lat", .number, unit: "°", .nullable("the fix has no position (only a rejected fix)"), "latitude, WGS-84"),
            JSONLField("lon", .number, unit: "°", .nullable("the fix has no position (only a rejected fix)"), "longitude, WGS-84"),
            JSONLField(
                "accuracy", .number, unit: "m", decimals: 3, .nullable("the source gives no estimate"),
                "horizontal accuracy (gpsd's `eph`, the noise model's estimate)"),
            JSONLField("mode", .string, "`none`, `2d` or `3d`"),
            JSONLField("alt", .number, unit: "m", decimals: 3, .optional("known"), "altitude"),
            JSONLField("vaccuracy", .number, unit: "m", decimals: 3, .optional("known"), "vertical accuracy"),
            JSONLField(
                "speed", .number, unit: "m/s", decimals: 3, .optional("known"),
                "speed over ground (gpsd, simulate; replay: the file's, or derived between points with `--rate`)"),
            JSONLField("course", .number, unit: "°", decimals: 2, .optional("known"), "course over ground, clockwise from true north (as speed)"),
            JSONLField(
                "rejected", .string, .optional("the map logic ignored the fix (`replay`, `simulate --map`)"),
                "why: `no position`, `accuracy 80.5 m` (rounded to 0.1 m), `invalid time`"),
        ])

    package static let status = JSONLRecordSchema(
        "status", type: "status", writtenBy: "`gpsd`: a report without a position",
        [
            JSONLField("t", .timestamp, "the report's time"),
            JSONLField("mode", .string, "`none`, `2d` or `3d`"),
        ])

    package static let event = JSONLRecordSchema(
        "event", type: "event", writtenBy: "`gpsd`, `replay --gpsd`: the connection to gpsd and its devices",
        [
            JSONLField("event", .string, "`connected`, `disconnected`, `retrying`, `deviceActivated`, `deviceRemoved`, `daemonError`"),
            JSONLField("endpoint", .string, .events(["connected", "disconnected"]), "gpsd's `host:port`"),
            JSONLField("release", .string, .events(["connected"]), "gpsd's release (may be empty)"),
            JSONLField("error", .string, .events(["disconnected"]), "why the connection ended"),
            JSONLField("attempt", .integer, .events(["retrying"]), "reconnection attempt, from 1"),
            JSONLField("delay", .number, unit: "s", decimals: 3, .events(["retrying"]), "wait before the attempt"),
            JSONLField("device", .string, .events(["deviceActivated", "deviceRemoved"]), "the receiver's path"),
            JSONLField("message", .string, .events(["daemonError"]), "gpsd's error message"),
        ])

    // MARK: The map timeline (replay, simulate --map)

    package static let fetch = JSONLRecordSchema(
        "fetch", type: "fetch", writtenBy: "`replay`, `simulate --map`: a request for nearby places starts",
        [
            JSONLField("t", .timestamp, "when it starts"),
            JSONLField("id", .integer, "the request's number, from 1"),
            JSONLField("lat", .number, unit: "°", "centre latitude"),
            JSONLField("lon", .number, unit: "°", "centre longitude"),
            JSONLField("radius", .number, unit: "m", "search radius"),
            JSONLField("reason", .string, "`first`, `moved`, `elapsed` or `retry`"),
        ])

    package static let coalesced = JSONLRecordSchema(
        "coalesced", type: "coalesced",
        writtenBy: "`replay`, `simulate --map`: a fetch fell due while one was in flight; once per in-flight request",
        [
            JSONLField("t", .timestamp, "when it fell due"),
            JSONLField("reason", .string, "why it was due: `moved`, `elapsed`, …"),
            JSONLField("in_flight", .integer, "the id of the request in flight; one follow-up is queued behind it"),
        ])

    package static let answer = JSONLRecordSchema(
        "answer", type: "answer", writtenBy: "`replay`, `simulate --map`: a request was answered",
        [
            JSONLField("t", .timestamp, "when the answer arrived"),
            JSONLField("id", .integer, "the request's id"),
            JSONLField("count", .integer, "places in the answer"),
        ])

    package static let fetchFailed = JSONLRecordSchema(
        "fetch_failed", type: "fetch_failed", writtenBy: "`replay`, `simulate --map`: a request failed",
        [
            JSONLField("t", .timestamp, "when it failed"),
            JSONLField("id", .integer, "the request's id"),
            JSONLField("error", .string, "what went wrong"),
            JSONLField("retry_not_before", .timestamp, "the earliest time of a retry"),
        ])

    package static let discarded = JSONLRecordSchema(
        "discarded", type: "discarded",
        writtenBy: "`replay`, `simulate --map`: an answer arrived after a newer request superseded it",
        [
            JSONLField("t", .timestamp, "when it arrived"),
            JSONLField("id", .integer, "the request's id"),
        ])

    package static let cancelled = JSONLRecordSchema(
        "cancelled", type: "cancelled", writtenBy: "`replay`, `simulate --map`: a request in flight was cancelled (the run stopped)",
        [
            JSONLField("t", .timestamp, "when"),
            JSONLField("id", .integer, "the request's id"),
        ])

    package static let providerFailed = JSONLRecordSchema(
        "provider_failed", type: "provider_failed", writtenBy: "`replay`, `simulate --map`: the source of fixes failed after its first fix",
        [
            JSONLField("t", .timestamp, "the last fix's time"),
            JSONLField("error", .string, "what went wrong"),
        ])

    package static let places = JSONLRecordSchema(
        "places", type: "places", writtenBy: "`replay`, `simulate --map`: the places on the map changed",
        [
            JSONLField("t", .timestamp, "when"),
            JSONLField("count", .integer, "places on the map now"),
            JSONLField("appeared", .strings, "ids of places new on the map"),
            JSONLField("disappeared", .strings, "ids of places gone from it"),
            JSONLField("changed", .strings, "ids of places still there with new values (moved, renamed)"),
        ])

    package static let encounter = JSONLRecordSchema(
        "encounter", type: "encounter",
        writtenBy: "`replay`, `simulate --map`: the player came within `--reach` of a place on the map",
        [
            JSONLField("t", .timestamp, "the fix's time"),
            JSONLField("place", .string, "the place's id"),
            JSONLField("name", .string, "its name"),
            JSONLField("distance_m", .number, unit: "m", decimals: 2, "the player's distance from it"),
        ])

    package static let summary = JSONLRecordSchema(
        "summary", type: "summary", writtenBy: "`replay`, `simulate --map`: the last line",
        [
            JSONLField("fixes", .integer, "fixes, accepted and rejected"),
            JSONLField("accepted_fixes", .integer, "fixes the map logic used"),
            JSONLField("rejected_fixes", .integer, "fixes it ignored"),
            JSONLField("distance_m", .number, unit: "m", decimals: 3, "length of the accepted fixes' path (WGS-84 geodesic)"),
            JSONLField("duration_s", .number, unit: "s", decimals: 3, .nullable("there was no fix"), "last fix time minus the first"),
            JSONLField("fetches", .integer, "requests made"),
            JSONLField("fetches_by_reason", .object("fetches_by_reason"), "requests by reason"),
            JSONLField("failed_fetches", .integer, "requests that failed"),
            JSONLField("places_seen", .integer, "distinct places that were ever on the map"),
            JSONLField("places_on_map", .integer, "places on the map at the end"),
            JSONLField("encounters", .integer, "encounters"),
            JSONLField("busiest_minute_fetches", .integer, "most requests started in one minute of fix time"),
        ])

    package static let fetchesByReason = JSONLRecordSchema(
        "fetches_by_reason", writtenBy: "in `summary`",
        FetchThrottle.Reason.allCases.map { JSONLField($0.rawValue, .integer, "requests with reason `\($0.rawValue)`") })

    // MARK: index query

    package static let queryResult = JSONLRecordSchema(
        "query result", writtenBy: "`index query --format json` (one query), `index query --queries FILE --format jsonl` (one line per query)",
        [JSONLField("places", .objects("place"), "the places within the radius, nearest first, ties by id")])

    package static let place = JSONLRecordSchema(
        "place", writtenBy: "in `query result`",
        [
            JSONLField("id", .string, "the place's id"),
            JSONLField("name", .string, "its name"),
            JSONLField("lat", .number, unit: "°", "latitude"),
            JSONLField("lon", .number, unit: "°", "longitude"),
            JSONLField("distance_m", .number, unit: "m", "exact spherical distance from the centre (R = 6,371,008.8 m)"),
            JSONLField("kind", .string, "its kind, empty when it has none"),
            JSONLField("level", .integer, .nullable("it has no level"), "its level"),
        ])

    // MARK: track stats, index stats

    package static let trackStats = JSONLRecordSchema(
        "track stats", writtenBy: "`track stats --format json`",
        [
            JSONLField("tracks", .integer, "`<trk>` elements"),
            JSONLField("segments", .integer, "`<trkseg>` elements"),
            JSONLField("points", .integer, "track points"),
            JSONLField("route_points", .integer, "route points"),
            JSONLField("waypoints", .integer, "waypoints"),
            JSONLField("distance_m", .number, unit: "m", decimals: 3, "WGS-84 geodesic length within segments"),
            JSONLField("duration_s", .number, unit: "s", decimals: 3, .nullable("the track points have no times"), "last track-point time minus the first"),
            JSONLField("start", .object("track point"), .nullable("there are no track points"), "the first track point"),
            JSONLField("end", .object("track point"), .nullable("there are no track points"), "the last track point"),
            JSONLField("bbox", .object("bbox"), .nullable("the file has no points"), "bounds of all points"),
        ])

    package static let trackPoint = JSONLRecordSchema(
        "track point", writtenBy: "in `track stats`",
        [
            JSONLField("lat", .number, unit: "°", "latitude"),
            JSONLField("lon", .number, unit: "°", "longitude"),
            JSONLField("time", .timestamp, .nullable("the point has no time"), "its time"),
        ])

    package static let bbox = JSONLRecordSchema(
        "bbox", writtenBy: "in `track stats`",
        [
            JSONLField("min_lat", .number, unit: "°", "southern edge"),
            JSONLField("min_lon", .number, unit: "°", "western edge"),
            JSONLField("max_lat", .number, unit: "°", "northern edge"),
            JSONLField("max_lon", .number, unit: "°", "eastern edge"),
        ])

    package static let indexStats = JSONLRecordSchema(
        "index stats", writtenBy: "`index stats --format json`",
        [
            JSONLField("path", .string, "the index file"),
            JSONLField("places", .integer, "places"),
            JSONLField("tile_rows", .integer, "rows of the tile table"),
            JSONLField("rows_per_level", .integers, "tile rows per level, from level 0"),
            JSONLField("split_nodes", .integer, "tiles split into finer levels"),
            JSONLField("kinds", .integer, "distinct kinds, including none"),
            JSONLField("file_bytes", .integer, "size of the database file"),
            JSONLField("wal_bytes", .integer, "size of its write-ahead log"),
            JSONLField("name_bytes", .integer, "bytes of names"),
            JSONLField(
                "bytes_per_place_beyond_names", .number, decimals: 1, .nullable("the index is empty"),
                "file bytes per place, names left out"),
            JSONLField("tile_size_deg", .number, unit: "°", "width of a level-0 tile"),
            JSONLField("schema_version", .integer, "the index's schema version"),
            JSONLField("page_size", .integer, "SQLite page size, bytes"),
        ])

    // MARK: swarm (real time)

    package static let swarmSecond = JSONLRecordSchema(
        "swarm_second", type: "swarm_second",
        writtenBy: "`swarm --server … --format jsonl`: one per wall-clock second of the run, as it ends",
        [
            JSONLField("second", .integer, unit: "s", "wall-clock seconds since the start"),
            JSONLField("active", .integer, "players with the app open"),
            JSONLField("requests", .integer, "requests started in the second"),
            JSONLField("first", .integer, "… with reason `first`"),
            JSONLField("moved", .integer, "… with reason `moved`"),
            JSONLField("elapsed", .integer, "… with reason `elapsed`"),
            JSONLField("retry", .integer, "… with reason `retry`"),
            JSONLField("ignored", .integer, "… by players ignoring the rule (`--misbehave`)"),
            JSONLField("answered", .integer, "answers with status 200 that arrived in the second"),
            JSONLField("failed", .integer, "failures (other statuses, network errors, timeouts) in the second"),
            JSONLField("p50_ms", .number, unit: "ms", decimals: 3, "median latency of the answers and failures of the second (0 without any)"),
            JSONLField("p99_ms", .number, unit: "ms", decimals: 3, "their 99th percentile"),
        ])

    package static let swarmSummary = JSONLRecordSchema(
        "swarm_summary", type: "swarm_summary", writtenBy: "`swarm --server … --format jsonl`: the last line",
        [
            JSONLField("server", .string, "the server, `http://host:port[/prefix]`"),
            JSONLField("players", .integer, "players"),
            JSONLField("misbehaving", .strings, "`X-Player-ID`s of the players that ignored the rule"),
            JSONLField("speed", .number, "game seconds per wall-clock second"),
            JSONLField("game_s", .number, unit: "s", decimals: 3, "game time run"),
            JSONLField("wall_s", .number, unit: "s", decimals: 3, "wall-clock time, waiting for the last answers included"),
            JSONLField("interrupted", .integer, "1 when the run was stopped early (SIGINT, SIGTERM), else 0"),
            JSONLField("fixes", .integer, "fixes fed to the players' sessions"),
            JSONLField("requests", .integer, "requests sent"),
            JSONLField("requests_per_s", .number, decimals: 2, "requests per wall-clock second"),
            JSONLField("peak_1s", .integer, "the most requests started in one wall-clock second"),
            JSONLField("by_kind", .object("swarm requests"), "requests by reason"),
            JSONLField("answered", .integer, "answers with status 200"),
            JSONLField("failed", .integer, "failures"),
            JSONLField("unanswered", .integer, "requests still in flight when the run stopped"),
            JSONLField("status_codes", .objects("status count"), "answers by HTTP status, ascending"),
            JSONLField("errors", .objects("error count"), "failures by kind, by name"),
            JSONLField("latency_ms", .object("latency"), "latency of every answer and failure"),
            JSONLField("places_per_answer", .object("places per answer"), .nullable("no answer had status 200"), "places in the answers with status 200"),
            JSONLField("interval_s", .object("fetch interval"), .nullable("no player made two requests"), "game time between one player's consecutive requests (players following the rule)"),
            JSONLField("interval_histogram", .objects("interval bucket"), "the same in whole-second buckets"),
        ])

    package static let swarmRequests = JSONLRecordSchema(
        "swarm requests", writtenBy: "in `swarm_summary`",
        LiveSwarmStats.kinds.map { JSONLField($0, .integer, "requests of kind `\($0)`") })

    package static let statusCount = JSONLRecordSchema(
        "status count", writtenBy: "in `swarm_summary`",
        [JSONLField("status", .integer, "an HTTP status"), JSONLField("count", .integer, "answers with it")])

    package static let errorCount = JSONLRecordSchema(
        "error count", writtenBy: "in `swarm_summary`",
        [
            JSONLField("kind", .string, "`connect`, `timeout`, `closed`, `network`, `http` (status other than 200) or `malformed`"),
            JSONLField("count", .integer, "failures of the kind"),
            JSONLField("first", .string, "the first one's message"),
        ])

    package static let latency = JSONLRecordSchema(
        "latency", writtenBy: "in `swarm_summary`",
        [
            JSONLField("count", .integer, "answers and failures"),
            JSONLField("mean", .number, unit: "ms", decimals: 3, "mean"),
            JSONLField("p50", .number, unit: "ms", decimals: 3, "median (within 0.8 %, see `LogHistogram`)"),
            JSONLField("p90", .number, unit: "ms", decimals: 3, "90th percentile"),
            JSONLField("p99", .number, unit: "ms", decimals: 3, "99th percentile"),
            JSONLField("p999", .number, unit: "ms", decimals: 3, "99.9th percentile"),
            JSONLField("max", .number, unit: "ms", decimals: 3, "maximum (exact)"),
        ])

    package static let placesPerAnswer = JSONLRecordSchema(
        "places per answer", writtenBy: "in `swarm_summary`",
        [
            JSONLField("answers", .integer, "answers counted"),
            JSONLField("mean", .number, decimals: 2, "mean places"),
            JSONLField("p50", .integer, "median"),
            JSONLField("p99", .integer, "99th percentile"),
            JSONLField("max", .integer, "maximum"),
        ])

    package static let fetchInterval = JSONLRecordSchema(
        "fetch interval", writtenBy: "in `swarm_summary`",
        [
            JSONLField("count", .integer, "intervals"),
            JSONLField("min", .number, unit: "s", decimals: 3, "shortest"),
            JSONLField("p10", .number, unit: "s", decimals: 3, "10th percentile"),
            JSONLField("p50", .number, unit: "s", decimals: 3, "median"),
            JSONLField("p90", .number, unit: "s", decimals: 3, "90th percentile"),
            JSONLField("max", .number, unit: "s", decimals: 3, "longest"),
        ])

    package static let intervalBucket = JSONLRecordSchema(
        "interval bucket", writtenBy: "in `swarm_summary`",
        [
            JSONLField("upto_s", .integer, unit: "s", "intervals longer than the previous bucket's bound, at most this many whole seconds"),
            JSONLField("count", .integer, "intervals in the bucket"),
        ])

    /// Every record, in the order docs/reference/jsonl.md lists them.
    package static let all: [JSONLRecordSchema] = [
        fix, status, event, fetch, coalesced, answer, fetchFailed, discarded, cancelled, providerFailed, places,
        encounter, summary, fetchesByReason, queryResult, place, trackStats, trackPoint, bbox, indexStats,
        swarmSecond, swarmSummary, swarmRequests, statusCount, errorCount, latency, placesPerAnswer, fetchInterval,
        intervalBucket,
    ]

    /// The record with `type` (the jsonl lines' first member).
    package static func record(type: String) -> JSONLRecordSchema? { all.first { $0.type == type } }

    /// The record named `name` (for nested objects).
    package static func record(named name: String) -> JSONLRecordSchema? { all.first { $0.name == name } }
}

// MARK: Documentation

extension JSONLSchema {
    /// The tables of docs/reference/jsonl.md, between its `schema:begin` and `schema:end` markers.
    package static var markdown: String {
        var out = ""
        for record in all {
            out += "### `\(record.name)`\n\n"
            out += "Written by: \(record.writtenBy).\n\n"
            out += "| field | type | unit | decimals | present | meaning |\n"
            out += "|---|---|---|---|---|---|\n"
            for field in record.fields {
                let cells = [
                    "`\(field.name)`", typeText(field), field.unit.isEmpty ? "" : field.unit,
                    field.decimals.map(String.init) ?? "", presenceText(field.presence), field.meaning,
                ]
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\n"
        }
        return out
    }

    private static func typeText(_ field: JSONLField) -> String {
        let base =
            switch field.kind {
            case .string: "string"
            case .timestamp: "string (UTC time)"
            case .integer: "integer"
            case .number: "number"
            case .strings: "array of strings"
            case .integers: "array of integers"
            case .object(let name): "object (`\(name)`)"
            case .objects(let name): "array of `\(name)` objects"
            }
        return field.isNullable ? base + " or null" : base
    }

    private static func presenceText(_ presence: JSONLField.Presence) -> String {
        switch presence {
        case .always: "always"
        case .nullable(let when): "always; null when \(when)"
        case .optional(let when): "when \(when)"
        case .events(let events): "in " + events.map { "`\($0)`" }.joined(separator: ", ") + " events"
        }
    }
}
