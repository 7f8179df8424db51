import GPXFormat
import LocationCore
import LocationIndex
import MapFeature

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record of the command's JSON output, one type per record of docs/reference/jsonl.md, written
/// member by member through ``LocationCore/JSONWriter`` in the documented order.
/// `JSONLSchemaTests` checks every record and member each type writes against that page, and the
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

// MARK: Fixes

/// `fix`: the same members in `replay`, `simulate` and `gpsd` (`rejected` only in a map timeline).
struct FixRecord: JSONLRecord {
    var fix: Fix
    /// Why the map logic ignored the fix; `nil` outside a map timeline and for accepted fixes.
    var rejection: String? = nil

    func write(to json: inout JSONWriter) {
        json.member("type", "fix")
        json.member("t", fix.time)
        json.member("lat", fix.coordinate?.latitude)
        json.member("lon", fix.coordinate?.longitude)
        json.member("accuracy", fix.horizontalAccuracy, decimals: 3)
        json.member("mode", fix.mode.description)
        json.member("alt", ifPresent: fix.altitude, decimals: 3)
        json.member("vaccuracy", ifPresent: fix.verticalAccuracy, decimals: 3)
        json.member("speed", ifPresent: fix.speed, decimals: 3)
        json.member("course", ifPresent: fix.course, decimals: 2)
        json.member("rejected", ifPresent: rejection)
    }
}

/// `status`: a gpsd report without a position.
struct StatusRecord: JSONLRecord {
    var fix: Fix

    func write(to json: inout JSONWriter) {
        json.member("type", "status")
        json.member("t", fix.time)
        json.member("mode", fix.mode.description)
    }
}

/// `event`: the connection to gpsd and its devices; each event has its own members.
enum GPSDEventRecord: JSONLRecord {
    case connected(endpoint: String, release: String)
    case disconnected(endpoint: String, error: String)
    case retrying(attempt: Int, delay: Double)
    case deviceActivated(device: String)
    case deviceRemoved(device: String)
    case daemonError(message: String)

    func write(to json: inout JSONWriter) {
        json.member("type", "event")
        switch self {
        case .connected(let endpoint, let release):
            json.member("event", "connected")
            json.member("endpoint", endpoint)
            json.member("release", release)
        case .disconnected(let endpoint, let error):
            json.member("event", "disconnected")
            json.member("endpoint", endpoint)
            json.member("error", error)
        case .retrying(let attempt, let delay):
            json.member("event", "retrying")
            json.member("attempt", attempt)
            json.member("delay", delay, decimals: 3)
        case .deviceActivated(let device):
            json.member("event", "deviceActivated")
            json.member("device", device)
        case .deviceRemoved(let device):
            json.member("event", "deviceRemoved")
            json.member("device", device)
        case .daemonError(let message):
            json.member("event", "daemonError")
            json.member("message", message)
        }
    }
}

// MARK: The map timeline

/// `fetch`
struct FetchRecord: JSONLRecord {
    var time: Date
    var request: FetchRequest

    func write(to json: inout JSONWriter) {
        json.member("type", "fetch")
        json.member("t", time)
        json.member("id", request.id)
        json.member("lat", request.center.latitude)
        json.member("lon", request.center.longitude)
        json.member("radius", request.radius)
        json.member("reason", request.reason.rawValue)
    }
}

/// `coalesced`
struct CoalescedRecord: JSONLRecord {
    var time: Date
    var reason: FetchThrottle.Reason
    var inFlight: Int

    func write(to json: inout JSONWriter) {
        json.member("type", "coalesced")
        json.member("t", time)
        json.member("reason", reason.rawValue)
        json.member("in_flight", inFlight)
    }
}

/// `answer`
struct AnswerRecord: JSONLRecord {
    var time: Date
    var id: Int
    var count: Int

    func write(to json: inout JSONWriter) {
        json.member("type", "answer")
        json.member("t", time)
        json.member("id", id)
        json.member("count", count)
    }
}

/// `fetch_failed`
struct FetchFailedRecord: JSONLRecord {
    var time: Date
    var id: Int
    var error: String
    var retryNotBefore: Date

    func write(to json: inout JSONWriter) {
        json.member("type", "fetch_failed")
        json.member("t", time)
        json.member("id", id)
        json.member("error", error)
        json.member("retry_not_before", retryNotBefore)
    }
}

/// `discarded` (an answer a newer request superseded) and `cancelled` (a request the run's end
/// cancelled): a time and a request's id.
struct RequestEndRecord: JSONLRecord {
    enum Kind { case discarded, cancelled }
    var kind: Kind
    var time: Date
    var id: Int

    func write(to json: inout JSONWriter) {
        json.member("type", kind == .discarded ? "discarded" : "cancelled")
        json.member("t", time)
        json.member("id", id)
    }
}

/// `provider_failed`
struct ProviderFailedRecord: JSONLRecord {
    var time: Date
    var error: String

    func write(to json: inout JSONWriter) {
        json.member("type", "provider_failed")
        json.member("t", time)
        json.member("error", error)
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
        json.member("type", "places")
        json.member("t", time)
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
        json.member("type", "encounter")
        json.member("t", time)
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
    }

    /// Each member but `type` with its value as a person reads it (the HTML report's table),
    /// under the member's name.
    var rows: [(name: String, value: String)] {
        let reasons = FetchThrottle.Reason.allCases.map { "\($0.rawValue) \(fetchesByReason[$0.rawValue] ?? 0)" }
        return [
            ("fixes", "\(fixes)"), ("accepted_fixes", "\(acceptedFixes)"), ("rejected_fixes", "\(rejectedFixes)"),
            ("distance_m", PeopleText.number(distance, decimals: 3)),
            ("duration_s", duration.map { PeopleText.number($0, decimals: 3) } ?? "–"), ("fetches", "\(fetches)"),
            ("fetches_by_reason", reasons.joined(separator: ", ")), ("failed_fetches", "\(failedFetches)"),
            ("places_seen", "\(placesSeen)"), ("places_on_map", "\(placesOnMap)"), ("encounters", "\(encounters)"),
            ("busiest_minute_fetches", "\(busiestMinuteFetches)"),
        ]
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

/// `track stats`
struct TrackStatsRecord: JSONLRecord {
    var stats: GPXStatistics

    func write(to json: inout JSONWriter) {
        json.member("tracks", stats.tracks)
        json.member("segments", stats.segments)
        json.member("points", stats.points)
        json.member("route_points", stats.routePoints)
        json.member("waypoints", stats.waypoints)
        json.member("distance_m", stats.distance, decimals: 3)
        json.member("duration_s", stats.duration, decimals: 3)
        for (key, point): (StaticString, GPXPoint?) in [("start", stats.start), ("end", stats.end)] {
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
        guard let box = stats.bounds else { return json.null() }
        json.object { object in
            object.member("min_lat", box.minLatitude)
            object.member("min_lon", box.minLongitude)
            object.member("max_lat", box.maxLatitude)
            object.member("max_lon", box.maxLongitude)
        }
    }
}

/// `index stats`
struct IndexStatsRecord: JSONLRecord {
    var path: String
    var statistics: IndexStatistics

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
    }
}
