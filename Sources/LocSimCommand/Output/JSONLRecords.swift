import GPXFormat
import LocationCore
import LocationIndex
import MapFeature

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The records of ``JSONLSchema``, one type each: what a record holds, written in the schema's
// order. The schema says which members there are; these say where their values come from.

// MARK: Fixes

/// `fix`: the same members in `replay`, `simulate` and `gpsd` (`rejected` only in a map timeline).
struct FixRecord: JSONLRecord {
    static let schema = JSONLSchema.fix
    var fix: Fix
    /// Why the map logic ignored the fix; `nil` outside a map timeline and for accepted fixes.
    var rejection: String? = nil

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(fix.time)
        writer.number(fix.coordinate?.latitude)
        writer.number(fix.coordinate?.longitude)
        writer.number(fix.horizontalAccuracy)
        writer.string(fix.mode.description)
        writer.number(fix.altitude)
        writer.number(fix.verticalAccuracy)
        writer.number(fix.speed)
        writer.number(fix.course)
        writer.string(rejection)
    }
}

/// `status`: a gpsd report without a position.
struct StatusRecord: JSONLRecord {
    static let schema = JSONLSchema.status
    var fix: Fix

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(fix.time)
        writer.string(fix.mode.description)
    }
}

/// `event`: the connection to gpsd and its devices.
struct GPSDEventRecord: JSONLRecord {
    static let schema = JSONLSchema.event
    var name: String
    var endpoint: String? = nil
    var release: String? = nil
    var error: String? = nil
    var attempt: Int? = nil
    var delay: Double? = nil
    var device: String? = nil
    var message: String? = nil

    func write(to writer: inout JSONLWriter) {
        writer.string(name)
        writer.string(endpoint)
        writer.string(release)
        writer.string(error)
        writer.integer(attempt)
        writer.number(delay)
        writer.string(device)
        writer.string(message)
    }
}

// MARK: The map timeline

/// `fetch`
struct FetchRecord: JSONLRecord {
    static let schema = JSONLSchema.fetch
    var time: Date
    var request: FetchRequest

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.integer(request.id)
        writer.number(request.center.latitude)
        writer.number(request.center.longitude)
        writer.number(request.radius)
        writer.string(request.reason.rawValue)
    }
}

/// `coalesced`
struct CoalescedRecord: JSONLRecord {
    static let schema = JSONLSchema.coalesced
    var time: Date
    var reason: FetchThrottle.Reason
    var inFlight: Int

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.string(reason.rawValue)
        writer.integer(inFlight)
    }
}

/// `answer`
struct AnswerRecord: JSONLRecord {
    static let schema = JSONLSchema.answer
    var time: Date
    var id: Int
    var count: Int

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.integer(id)
        writer.integer(count)
    }
}

/// `fetch_failed`
struct FetchFailedRecord: JSONLRecord {
    static let schema = JSONLSchema.fetchFailed
    var time: Date
    var id: Int
    var error: String
    var retryNotBefore: Date

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.integer(id)
        writer.string(error)
        writer.timestamp(retryNotBefore)
    }
}

/// `discarded`
struct DiscardedRecord: JSONLRecord {
    static let schema = JSONLSchema.discarded
    var time: Date
    var id: Int

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.integer(id)
    }
}

/// `cancelled`
struct CancelledRecord: JSONLRecord {
    static let schema = JSONLSchema.cancelled
    var time: Date
    var id: Int

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.integer(id)
    }
}

/// `provider_failed`
struct ProviderFailedRecord: JSONLRecord {
    static let schema = JSONLSchema.providerFailed
    var time: Date
    var error: String

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.string(error)
    }
}

/// `places`
struct PlacesRecord: JSONLRecord {
    static let schema = JSONLSchema.places
    var time: Date
    var count: Int
    var appeared: [String]
    var disappeared: [String]
    var changed: [String]

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.integer(count)
        writer.strings(appeared)
        writer.strings(disappeared)
        writer.strings(changed)
    }
}

/// `encounter`
struct EncounterRecord: JSONLRecord {
    static let schema = JSONLSchema.encounter
    var time: Date
    var place: Place
    var distance: Double

    func write(to writer: inout JSONLWriter) {
        writer.timestamp(time)
        writer.string(place.id)
        writer.string(place.name)
        writer.number(distance)
    }
}

/// `summary`
struct SummaryRecord: JSONLRecord {
    static let schema = JSONLSchema.summary
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

    func write(to writer: inout JSONLWriter) {
        writer.integer(fixes)
        writer.integer(acceptedFixes)
        writer.integer(rejectedFixes)
        writer.number(distance)
        writer.number(duration)
        writer.integer(fetches)
        writer.object { reasons in
            for reason in FetchThrottle.Reason.allCases { reasons.integer(fetchesByReason[reason.rawValue] ?? 0) }
        }
        writer.integer(failedFetches)
        writer.integer(placesSeen)
        writer.integer(placesOnMap)
        writer.integer(encounters)
        writer.integer(busiestMinuteFetches)
    }

    /// Each member but `type` with its value as a person reads it (the HTML report's table).
    var rows: [(name: String, value: String)] {
        var writer = JSONLWriter(rowsOf: Self.schema)
        write(to: &writer)
        return writer.rows ?? []
    }
}

// MARK: index query, track stats, index stats

/// `query result`: one query's places, nearest first.
struct QueryResultRecord: JSONLRecord {
    static let schema = JSONLSchema.queryResult
    var hits: [NearbyPlace]

    func write(to writer: inout JSONLWriter) {
        writer.objects(hits) { place, hit in
            place.string(hit.place.id)
            place.string(hit.place.name)
            place.number(hit.place.coordinate.latitude)
            place.number(hit.place.coordinate.longitude)
            place.number(hit.distance)
            place.string(hit.place.kind)
            place.integer(hit.place.level)
        }
    }
}

/// `track stats`
struct TrackStatsRecord: JSONLRecord {
    static let schema = JSONLSchema.trackStats
    var stats: GPXStatistics

    func write(to writer: inout JSONLWriter) {
        writer.integer(stats.tracks)
        writer.integer(stats.segments)
        writer.integer(stats.points)
        writer.integer(stats.routePoints)
        writer.integer(stats.waypoints)
        writer.number(stats.distance)
        writer.number(stats.duration)
        for point in [stats.start, stats.end] {
            writer.object(if: point != nil) { object in
                guard let point else { return }
                object.number(point.coordinate.latitude)
                object.number(point.coordinate.longitude)
                object.timestamp(point.time)
            }
        }
        writer.object(if: stats.bounds != nil) { object in
            guard let box = stats.bounds else { return }
            object.number(box.minLatitude)
            object.number(box.minLongitude)
            object.number(box.maxLatitude)
            object.number(box.maxLongitude)
        }
    }
}

/// `index stats`
struct IndexStatsRecord: JSONLRecord {
    static let schema = JSONLSchema.indexStats
    var path: String
    var statistics: IndexStatistics

    func write(to writer: inout JSONLWriter) {
        writer.string(path)
        writer.integer(statistics.placeCount)
        writer.integer(statistics.tileRowCount)
        writer.integers(statistics.rowsPerLevel)
        writer.integer(statistics.splitNodeCount)
        writer.integer(statistics.kindCount)
        writer.integer(statistics.fileBytes)
        writer.integer(statistics.walBytes)
        writer.integer(statistics.nameBytes)
        writer.number(statistics.bytesPerPlaceBeyondNames)
        writer.number(statistics.tileSize)
        writer.integer(statistics.schemaVersion)
        writer.integer(statistics.pageSize)
    }
}
