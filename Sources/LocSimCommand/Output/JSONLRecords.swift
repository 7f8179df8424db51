import GPXFormat
import LocationCore
import LocationIndex
#if PostGIS
import LocationPostGIS
#endif
import LocationSimulation
import MapFeature

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record of the command's JSON output (docs/reference/jsonl.md), written member by member
/// through ``LocationCore/JSONWriter`` in the documented order: a type per record, or for a
/// library's event (``GPSDRecord``, ``MapEventRecord``) the record each kind of event is.
/// `JSONLSchemaTests` checks every record and member the types write against that page, and the
/// page against the types.
protocol JSONLRecord {
    /// Writes the record's members, `type` first when it has one.
    func write(to json: inout JSONWriter)
}

extension JSONLRecord {
    /// The record as one line of compact JSON (no newline).
    var line: String {
        var json = JSONWriter(capacity: 192)
        json.object { write(to: &$0) }
        return json.text
    }
}

extension JSONWriter {
    /// `"type":type,"t":time`: how a fix, a gpsd status and every record of the map timeline start.
    mutating func head(_ type: String, _ time: Date) {
        member("type", type)
        member("t", time)
    }
}

// MARK: Fixes

/// `fix`: the same members in `replay`, `simulate` and `gpsd` (`rejected` only in a map timeline).
struct FixRecord: JSONLRecord {
    var fix: Fix
    /// Why the map logic ignored the fix; `nil` outside a map timeline and for accepted fixes.
    var rejection: String? = nil
    /// When the phone handed the fix to the app, when that is not the fix's own time (a
    /// scenario's cached fix on returning from the background, a batch, a stale fix).
    var delivered: Date? = nil

    func write(to json: inout JSONWriter) {
        json.head("fix", fix.time)
        json.member("lat", fix.coordinate?.latitude)
        json.member("lon", fix.coordinate?.longitude)
        json.member("accuracy", fix.horizontalAccuracy, decimals: 3)
        json.member("mode", fix.mode.description)
        json.member("alt", ifPresent: fix.altitude, decimals: 3)
        json.member("vaccuracy", ifPresent: fix.verticalAccuracy, decimals: 3)
        json.member("speed", ifPresent: fix.speed, decimals: 3)
        json.member("course", ifPresent: fix.course, decimals: 2)
        json.member("rejected", ifPresent: rejection)
        if let delivered { json.member("delivered", delivered) }
    }
}

// MARK: A scenario's phone

/// `withheld`: the phone's OS kept a fix from the app (`replay --scenario`).
struct WithheldRecord: JSONLRecord {
    var time: Date
    var fix: Fix
    var reason: WithholdReason

    func write(to json: inout JSONWriter) {
        json.head("withheld", time)
        json.member("fix_t", fix.time)
        json.member("lat", fix.coordinate?.latitude)
        json.member("lon", fix.coordinate?.longitude)
        json.member("rule", reason.name)
        json.member("reason", reason.description)
    }
}

/// `trouble`: a GPS trouble window changed or dropped the receiver's fix (`replay --scenario`).
struct TroubleRecord: JSONLRecord {
    var time: Date
    var effect: TroubleEffect
    /// The fix reported instead; `nil` when the window dropped it.
    var reported: Fix?

    func write(to json: inout JSONWriter) {
        json.head("trouble", time)
        json.member("effect", effect.name)
        json.member("lat", reported?.coordinate?.latitude)
        json.member("lon", reported?.coordinate?.longitude)
        json.member("accuracy", reported?.horizontalAccuracy, decimals: 3)
        json.member("detail", effect.description)
    }
}

/// `app`: the app moved to the background or the foreground (`replay --scenario`).
struct AppRecord: JSONLRecord {
    var time: Date
    var state: String

    func write(to json: inout JSONWriter) {
        json.head("app", time)
        json.member("state", state)
    }
}

/// `batch`: several fixes handed to the app at once; the app reads the last (`replay --scenario`).
struct BatchRecord: JSONLRecord {
    var time: Date
    var fixes: [Fix]

    func write(to json: inout JSONWriter) {
        json.head("batch", time)
        json.member("count", fixes.count)
        json.member("first_t", fixes.first?.time)
    }
}

// MARK: The map timeline

/// `fetch`, `coalesced`, `answer`, `fetch_failed`, `discarded`, `cancelled` and `provider_failed`:
/// a map session's event as the timeline writes it. Fixes, places and encounters have records of
/// their own; the other events write nothing.
struct MapEventRecord: JSONLRecord {
    var event: MapEvent

    func write(to json: inout JSONWriter) {
        let time = event.time
        switch event.kind {
        case .fetchStarted(let request):
            json.head("fetch", time)
            json.member("id", request.id)
            json.member("lat", request.center.latitude)
            json.member("lon", request.center.longitude)
            json.member("radius", request.radius)
            json.member("reason", request.reason.rawValue)
        case .fetchCoalesced(let reason, let inFlight):
            json.head("coalesced", time)
            json.member("reason", reason.rawValue)
            json.member("in_flight", inFlight)
        case .fetchSucceeded(let request, let count):
            json.head("answer", time)
            json.member("id", request.id)
            json.member("count", count)
        case .fetchFailed(let request, let error, let retryNotBefore):
            json.head("fetch_failed", time)
            json.member("id", request.id)
            json.member("error", "\(error)")
            json.member("retry_not_before", retryNotBefore)
        case .answerDiscarded(let id):
            json.head("discarded", time)
            json.member("id", id)
        case .fetchCancelled(let request):
            json.head("cancelled", time)
            json.member("id", request.id)
        case .providerStateChanged(.failed(let error)):
            json.head("provider_failed", time)
            json.member("error", "\(error)")
        case .fixAccepted, .fixRejected, .placesAppeared, .placesDisappeared, .placesChanged, .providerStateChanged, .stopped:
            break
        }
    }
}

/// `places`
struct PlacesRecord: JSONLRecord {
    var time: Date
    var count: Int
    var appeared: [String]
    var disappeared: [String]
    var changed: [String]

    func write(to json: inout JSONWriter) {
        json.head("places", time)
        json.member("count", count)
        json.member("appeared", appeared)
        json.member("disappeared", disappeared)
        json.member("changed", changed)
    }
}

/// `encounter`
struct EncounterRecord: JSONLRecord {
    var time: Date
    var place: Place
    var distance: Double

    func write(to json: inout JSONWriter) {
        json.head("encounter", time)
        json.member("place", place.id)
        json.member("name", place.name)
        json.member("distance_m", distance, decimals: 2)
    }
}

/// `summary`
struct SummaryRecord: JSONLRecord {
    var fixes: Int
    var acceptedFixes: Int
    var rejectedFixes: Int
    var distance: Double
    var duration: Double?
    var fetches: Int
    var fetchesByReason: [String: Int]
    var failedFetches: Int
    var placesSeen: Int
    var placesOnMap: Int
    var encounters: Int
    var busiestMinuteFetches: Int
    /// Stopped early by SIGINT, SIGTERM or SIGHUP.
    var interrupted: Bool
    /// What a scenario's phone did to the receiver's fixes; nil without a scenario.
    var phone: PhoneSummary? = nil

    func write(to json: inout JSONWriter) {
        json.member("type", "summary")
        json.member("fixes", fixes)
        json.member("accepted_fixes", acceptedFixes)
        json.member("rejected_fixes", rejectedFixes)
        json.member("distance_m", distance, decimals: 3)
        json.member("duration_s", duration, decimals: 3)
        json.member("fetches", fetches)
        json.key("fetches_by_reason")
        json.object { json in
            for reason in FetchThrottle.Reason.allCases {
                json.key(reason.rawValue)
                json.integer(fetchesByReason[reason.rawValue] ?? 0)
            }
        }
        json.member("failed_fetches", failedFetches)
        json.member("places_seen", placesSeen)
        json.member("places_on_map", placesOnMap)
        json.member("encounters", encounters)
        json.member("busiest_minute_fetches", busiestMinuteFetches)
        json.member("interrupted", interrupted ? 1 : 0)
        if let phone {
            json.key("phone")
            json.object { json in
                json.member("lost_fixes", phone.lost)
                json.member("changed_fixes", phone.changed)
                json.member("withheld_fixes", phone.withheld)
                json.member("batches", phone.batches)
                json.member("batched_fixes", phone.batchedFixes)
            }
        }
    }

    /// Fetches per reason, in the rule's order: `first 1, moved 0, …` for people.
    private var reasons: String {
        FetchThrottle.Reason.allCases.map { "\($0.rawValue) \(fetchesByReason[$0.rawValue] ?? 0)" }.joined(separator: ", ")
    }

    /// The summary for people (`--format text`).
    var text: [String] {
        [
            interrupted ? "Summary (interrupted: stopped early by a signal)" : "Summary",
            "  fixes:          \(fixes) (\(acceptedFixes) accepted, \(rejectedFixes) rejected)",
            "  distance:       \(DecimalText.fixed(distance / 1000, decimals: 3)) km",
            "  duration:       \(duration.map { DurationText.clockText($0) } ?? "-")",
            "  fetches:        \(fetches) (\(reasons)); \(failedFetches) failed",
            "  busiest minute: \(PeopleText.count(busiestMinuteFetches, "fetch", "fetches"))",
            "  places seen:    \(placesSeen) (\(placesOnMap) on the map at the end)",
            "  encounters:     \(encounters)",
        ] + (phone.map { ["  phone:          \($0.text)"] } ?? [])
    }

    /// Each member but `type` with its value as a person reads it (the HTML report's table),
    /// under the member's name.
    var rows: [(name: String, value: String)] {
        [
            ("fixes", "\(fixes)"), ("accepted_fixes", "\(acceptedFixes)"), ("rejected_fixes", "\(rejectedFixes)"),
            ("distance_m", PeopleText.number(distance, decimals: 3)),
            ("duration_s", duration.map { PeopleText.number($0, decimals: 3) } ?? "–"), ("fetches", "\(fetches)"),
            ("fetches_by_reason", reasons), ("failed_fetches", "\(failedFetches)"),
            ("places_seen", "\(placesSeen)"), ("places_on_map", "\(placesOnMap)"), ("encounters", "\(encounters)"),
            ("busiest_minute_fetches", "\(busiestMinuteFetches)"), ("interrupted", interrupted ? "yes" : "no"),
            ("phone", phone?.text ?? "–"),
        ]
    }
}

/// What a scenario's phone did to the receiver's fixes on their way to the app (`summary`'s
/// `phone`): the fixes the map logic never saw, or saw changed, and why. The timeline has a
/// line for each; this is their count.
struct PhoneSummary: Equatable {
    /// Fixes GPS trouble dropped (no signal).
    var lost = 0
    /// Fixes GPS trouble changed (a jump, a worse accuracy, a stale time).
    var changed = 0
    /// Fixes the OS kept from the app, by ``MapFeature/WithholdReason/name``.
    var withheldByReason: [String: Int] = [:]
    /// Deliveries of several fixes at once, and the fixes they held (the app reads the last of each).
    var batches = 0
    var batchedFixes = 0

    var withheld: Int { withheldByReason.values.reduce(0, +) }

    /// `2609 withheld (withinDistanceFilter 2489, inBackground 120); trouble: 60 lost, 31 changed; no batches`
    var text: String {
        let reasons = withheldByReason.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }
        return "\(withheld) withheld" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))")
            + "; trouble: \(lost) lost, \(changed) changed; "
            + (batches == 0 ? "no batches" : "\(PeopleText.count(batches, "batch", "batches")) of \(PeopleText.count(batchedFixes, "fix", "fixes"))")
    }
}

// MARK: index query, track stats, index stats

/// `query result`: one query's places, nearest first.
struct QueryResultRecord: JSONLRecord {
    var hits: [NearbyPlace]

    func write(to json: inout JSONWriter) {
        json.key("places")
        json.array(hits) { json, hit in
            json.object { place in
                place.member("id", hit.place.id)
                place.member("name", hit.place.name)
                place.member("lat", hit.place.coordinate.latitude)
                place.member("lon", hit.place.coordinate.longitude)
                place.member("distance_m", hit.distance)
                place.member("kind", hit.place.kind)
                place.member("level", hit.place.level)
            }
        }
    }
}

/// `track stats`: a file's figures, and what its read left out.
struct TrackStatsRecord: JSONLRecord {
    var statistics: GPXStatistics
    /// Bad sentences an NMEA log's read skipped (not those of a type it does not decode); 0 for
    /// other formats.
    var skippedSentences = 0

    func write(to json: inout JSONWriter) {
        statistics.writeMembers(to: &json)
        json.member("skipped_sentences", skippedSentences)
    }
}

extension GPXStatistics {
    /// The members of `track stats`' record that are the file's figures.
    func writeMembers(to json: inout JSONWriter) {
        json.member("tracks", tracks)
        json.member("segments", segments)
        json.member("points", points)
        json.member("route_points", routePoints)
        json.member("waypoints", waypoints)
        json.member("distance_m", distance, decimals: 3)
        json.member("duration_s", duration, decimals: 3)
        for (key, point): (StaticString, GPXPoint?) in [("start", start), ("end", end)] {
            json.key(key)
            guard let point else {
                json.null()
                continue
            }
            json.object { object in
                object.member("lat", point.coordinate.latitude)
                object.member("lon", point.coordinate.longitude)
                object.member("time", point.time)
            }
        }
        json.key("bbox")
        if let box = bounds {
            json.object { object in
                object.member("min_lat", box.minLatitude)
                object.member("min_lon", box.minLongitude)
                object.member("max_lat", box.maxLatitude)
                object.member("max_lon", box.maxLongitude)
            }
        } else {
            json.null()
        }
        // What standard error's warnings say, for a script that reads only this line.
        json.member("time_reversals", timeReversals)
        json.member("skipped_points", skippedPoints)
        json.member("dropped_values", droppedValues)
        json.key("cut_off")
        guard let cut = truncation else { return json.null() }
        json.object { object in
            object.member("line", cut.line)
            object.member("column", cut.column)
            object.member("message", cut.message)
        }
    }
}

/// `index stats`
struct IndexStatsRecord: JSONLRecord {
    var path: String
    var statistics: IndexStatistics
    /// Whether `--verify` checked every page (a failed check is an error, not a record).
    var verified = false

    func write(to json: inout JSONWriter) {
        json.member("path", path)
        json.member("places", statistics.placeCount)
        json.member("tile_rows", statistics.tileRowCount)
        json.member("rows_per_level", statistics.rowsPerLevel)
        json.member("split_nodes", statistics.splitNodeCount)
        json.member("kinds", statistics.kindCount)
        json.member("file_bytes", statistics.fileBytes)
        json.member("wal_bytes", statistics.walBytes)
        json.member("name_bytes", statistics.nameBytes)
        json.member("bytes_per_place_beyond_names", statistics.bytesPerPlaceBeyondNames, decimals: 1)
        json.member("tile_size_deg", statistics.tileSize)
        json.member("schema_version", statistics.schemaVersion)
        json.member("page_size", statistics.pageSize)
        if verified { json.member("integrity", "ok") }
    }
}

#if PostGIS
/// `index stats --postgres`
struct PostGISStatsRecord: JSONLRecord {
    var database: String
    var statistics: PostGISStatistics
    /// With `--verify`: the tiles checked against `locsim_place`.
    var tiles: TileCheck?
    /// With `--repair`, when tiles disagreed: how many were rebuilt.
    var rebuilt: Int?

    func write(to json: inout JSONWriter) {
        json.member("database", database)
        json.member("places", statistics.placeCount)
        json.member("kinds", statistics.kindCount)
        json.member("table_bytes", statistics.tableBytes)
        json.member("index_bytes", statistics.indexBytes)
        json.member("postgis", statistics.postgisVersion)
        json.member("server", statistics.serverVersion)
        if let tiles {
            json.member("tiles", tiles.tiles)
            json.member("tiles_disagreeing", tiles.disagreeing)
        }
        json.member("tiles_rebuilt", ifPresent: rebuilt)
    }
}
#endif
