import Foundation
import LocationCore
import MapPages

/// `--report FILE.html`: a replay on one self-contained page (MapPages' replay.html draws it): the
/// track on a map, fetch points coloured by reason with the fetch radius, failed fetches crossed
/// out with their error, places shaded by when they appeared, encounters, a timeline strip of
/// fetches, failures, encounters and place counts, and the summary; for a scenario, what its
/// phone did too (fixes lost, changed, withheld or batched; the app in the background).
@MainActor
struct HTMLReport {
    let title: String
    let recorder: ReplayRecorder

    /// Writes the report atomically (a temporary file beside it, synced and renamed into place).
    func write(to path: String) throws(CommandFailure) {
        try Self.write(render(), to: path)
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
            throw CommandFailure(
                "cannot write \(what) to \(path): \(error.reason)",
                hint: "check that its folder still exists and can be written (it could when the command began)")
        }
    }

    /// The page, with what replay.html reads as `D`: the title; fixes, fetches, failures, places,
    /// encounters, the phone's notes and place counts, each a list of marks (`t` seconds since 1970, `at` [lat, lon]
    /// where there is a place, and what that kind of mark has); the summary's rows.
    func render() -> String {
        let trace = recorder.trace
        /// A mark: `t`, `at`, then what `body` writes.
        func mark(_ json: inout JSONWriter, _ time: Date, _ at: Coordinate?, _ body: (inout JSONWriter) -> Void) {
            json.object { json in
                json.member("t", time.timeIntervalSince1970)
                if let at {
                    json.key("at")
                    json.array([at.latitude, at.longitude]) { $0.number($1) }
                }
                body(&json)
            }
        }
        let fixes = trace.fixes.points
        var json = JSONWriter(capacity: 64 * fixes.count + 4096)
        json.object { json in
            // An interrupted run says so where the page begins, as the text summary's head does.
            json.member("title", recorder.interrupted ? title + " (interrupted: stopped early by a signal)" : title)
            json.key("fixes")
            json.array(fixes) { mark(&$0, $1.time, $1.coordinate) { _ in } }
            json.key("fetches")
            json.array(trace.fetches) { json, fetch in
                mark(&json, fetch.time, fetch.center) { json in
                    json.member("radius", fetch.radius)
                    json.member("reason", fetch.reason)
                }
            }
            json.key("failures")
            json.array(trace.failures) { json, failure in
                mark(&json, failure.time, failure.center) { json in
                    json.member("id", "\(failure.id)")
                    json.member("error", failure.error)
                }
            }
            json.key("places")
            json.array(trace.places.sorted { $0.key < $1.key }) { json, entry in
                mark(&json, entry.value.firstSeen, entry.value.place.coordinate) { json in
                    json.member("id", entry.key)
                    json.member("name", entry.value.place.name)
                }
            }
            json.key("encounters")
            json.array(trace.encounters) { json, encounter in
                mark(&json, encounter.time, encounter.place.coordinate) { json in
                    json.member("name", encounter.place.name)
                    json.member("distance", encounter.distance)
                }
            }
            json.key("phone")
            json.array(trace.phone) { json, note in
                mark(&json, note.time, note.at) { json in
                    json.member("kind", note.kind)
                    json.member("detail", note.detail)
                }
            }
            json.key("counts")
            json.array(trace.placeCounts) { json, count in mark(&json, count.time, nil) { $0.member("count", count.count) } }
            json.key("summary")
            json.array(recorder.summary.rows) { json, row in
                json.array([row.name.replacingOccurrences(of: "_", with: " "), row.value]) { $0.string($1) }
            }
        }
        return MapPage.replay.html(json: json.text)
    }
}
