import Foundation
import LocationCore
import MapPages

/// `--report FILE.html`: a replay on one self-contained page (MapPages' replay.html draws it): the
/// track on a map, fetch points coloured by reason with the fetch radius, failed fetches crossed
/// out with their error, places shaded by when they appeared, encounters, a timeline strip of
/// fetches, failures, encounters and place counts, and the summary.
@MainActor
struct HTMLReport {
    let title: String
    let recorder: ReplayRecorder

    /// Something drawn at a time (seconds since 1970) and mostly a place ([lat, lon]); what it is
    /// says which other fields it has.
    struct Mark: Encodable {
        var t: Double, at: [Double]? = nil
        var radius: Double? = nil, reason: String? = nil, id: String? = nil, name: String? = nil, error: String? = nil
        var distance: Double? = nil, count: Int? = nil
    }

    /// What replay.html reads as `D`.
    struct Data: Encodable {
        var title: String
        var fixes, fetches, failures, places, encounters, counts: [Mark]
        var summary: [[String]]
    }

    /// Writes the report atomically (a temporary file beside it, synced and renamed into place).
    func write(to path: String) throws {
        try Self.write(try render(), to: path)
        Terminal.err("report written to \(path)")
    }

    /// The command's one writer of a page: atomically, a temporary file beside `path` synced and
    /// renamed into place (`replay`, `simulate` and `swarm --report`, `serve --audit-report`).
    ///
    /// - Parameter what: The page, as the error names it.
    /// - Throws: ``CommandFailure`` naming the page, the path and the system's reason.
    nonisolated static func write(_ page: String, to path: String, what: String = "the report") throws(CommandFailure) {
        do {
            let file = try AtomicFile(path: path)
            try file.write(page)
            try file.commit()
        } catch {
            throw CommandFailure("cannot write \(what) to \(path): \(error.reason)")
        }
    }

    func render() throws(MapPage.DataError) -> String {
        let trace = recorder.trace
        func t(_ time: Date) -> Double { time.timeIntervalSince1970 }
        func at(_ c: Coordinate) -> [Double] { [c.latitude, c.longitude] }
        let data = Data(
            title: title,
            fixes: trace.fixes.map { Mark(t: t($0.time), at: at($0.coordinate)) },
            fetches: trace.fetches.map { Mark(t: t($0.time), at: at($0.center), radius: $0.radius, reason: $0.reason) },
            failures: trace.failures.map { Mark(t: t($0.time), at: at($0.center), id: "\($0.id)", error: $0.error) },
            places: trace.places.sorted { $0.key < $1.key }.map { id, entry in
                Mark(t: t(entry.firstSeen), at: at(entry.place.coordinate), id: id, name: entry.place.name)
            },
            encounters: trace.encounters.map { Mark(t: t($0.time), at: at($0.place.coordinate), name: $0.place.name, distance: $0.distance) },
            counts: trace.placeCounts.map { Mark(t: t($0.time), count: $0.count) },
            summary: recorder.summary.rows.map { [$0.name.replacingOccurrences(of: "_", with: " "), $0.value] })
        return try MapPage.replay.html(data: data)
    }
}
