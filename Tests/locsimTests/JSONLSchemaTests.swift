import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

@testable import LocSimCommand
import GPXFormat
import LocationCore
@testable import LocationGPSD
import LocationIndex
import LocationSimulation
import MapFeature

/// The command's JSON output against docs/reference/jsonl.md: every record type writes exactly
/// the records and members the page documents (with their types, rounding and presence), and
/// every line each command writes is checked against the page (members, order, types, rounding,
/// when present).
@Suite(.timeLimit(.minutes(1)))
struct JSONLSchemaTests {
    static let time = Date(timeIntervalSince1970: 1_730_995_200.1234)

    /// A line of every record type, with every optional member present and absent, and every `event`.
    static func samples() throws -> [String] {
        let place = Place(id: "p\"1", name: "Café\n", coordinate: try Coordinate(latitude: 37.5, longitude: -122.25), kind: "park", level: 3)
        let full = Fix(
            time: time, coordinate: try Coordinate(latitude: 37.7577536, longitude: -122.4189538), altitude: 16.71234,
            speed: 1.23456, course: 359.987, horizontalAccuracy: 4.56789, verticalAccuracy: 7.1, source: .synthetic)
        let bare = Fix.noFix(time: time, source: .synthetic)
        let summary = SummaryRecord(
            fixes: 10, acceptedFixes: 9, rejectedFixes: 1, distance: 123.45678, duration: 9.5, fetches: 3,
            fetchesByReason: ["first": 1, "moved": 2], failedFetches: 0, placesSeen: 4, placesOnMap: 2, encounters: 1,
            busiestMinuteFetches: 2, interrupted: false,
            phone: PhoneSummary(lost: 2, changed: 1, withheldByReason: ["inBackground": 3, "tooSoon": 1], batches: 1, batchedFixes: 4))
        var noFixes = summary
        noFixes.duration = nil
        noFixes.phone = nil
        let stats = GPXStatistics(trackSegments: [[
            GPXPoint(coordinate: try Coordinate(latitude: 1.5, longitude: 2.5), time: time),
            GPXPoint(coordinate: try Coordinate(latitude: 1.6, longitude: 2.6)),
        ]])
        // A recording cut off mid-write, read leniently: `cut_off` present.
        let cutReader = GPXReader(
            string: #"<gpx version="1.1" creator="t"><trk><trkseg><trkpt lat="1.5" lon="2.5"></trkpt><trkpt lat="1.6" lon="2.6"><time>20"#,
            options: .lenient)
        let cut = try GPXStatistics(reader: cutReader)
        #expect(cut.truncation != nil && cut.points == 1)
        let request = FetchRequest(id: 7, center: try Coordinate(latitude: 37.5, longitude: -122.25), radius: 800, time: time, reason: .moved)
        let gpsd: [GPSDEvent] = [
            .fix(full), .fix(bare), .connected(release: "3.22"), .disconnected(GPSDError(.daemonClosed, host: "127.0.0.1", port: 2947, detail: "closed")),
            .retrying(attempt: 2, after: .milliseconds(500)), .deviceActivated(path: "/dev/ttyACM0"), .deviceRemoved(path: "/dev/ttyACM0"),
            .daemonError("no such device"), .skyUnreadable("satellite 1 has \"prRes\", which libgps does not read"),
        ]
        let timeline: [MapEvent.Kind] = [
            .fetchStarted(request), .fetchCoalesced(reason: .elapsed, inFlight: 7), .fetchSucceeded(request, count: 12),
            .fetchFailed(request, AppError(.networkUnavailable, message: "timed out"), retryNotBefore: time.addingTimeInterval(5)),
            .answerDiscarded(requestID: 7), .fetchCancelled(request), .providerStateChanged(.failed(AppError(.networkUnavailable, message: "gone"))),
        ]
        // A scenario's phone (`replay --scenario`).
        let phone: [any JSONLRecord] = [
            FixRecord(fix: full, rejection: "121.0 s old", delivered: time.addingTimeInterval(121)),
            WithheldRecord(time: time, fix: full, reason: .inBackground(since: time)), WithheldRecord(time: time, fix: bare, reason: .noPosition),
            TroubleRecord(time: time, effect: .jumped(distance: 300, honest: false), reported: full),
            TroubleRecord(time: time, effect: .noFix(kind: "signalLoss"), reported: nil),
            AppRecord(time: time, state: "background"), BatchRecord(time: time, fixes: [full, full]),
        ]
        let records: [any JSONLRecord] =
            [FixRecord(fix: full), FixRecord(fix: full, rejection: "accuracy 4.6 m"), FixRecord(fix: bare, rejection: "no position")]
            + phone
            + gpsd.map { GPSDRecord(event: $0, endpoint: "127.0.0.1:2947") }
            + timeline.map { MapEventRecord(event: MapEvent(time: time, kind: $0)) }
            + [
                PlacesRecord(time: time, count: 2, appeared: ["a", "b"], disappeared: ["c"], changed: []),
                EncounterRecord(time: time, place: place, distance: 12.3456), summary, noFixes, TrackStatsRecord(statistics: stats), TrackStatsRecord(statistics: cut),
                TrackStatsRecord(statistics: GPXStatistics(), skippedSentences: 2),
            ]
        var unplaced = place
        unplaced.level = nil
        unplaced.kind = ""
        return records.map(\.line) + [QueryResultRecord(hits: [NearbyPlace(place: place, distance: 1.5), NearbyPlace(place: unplaced, distance: 2)]).line]
    }

    /// Records whose members these samples cannot all reach (an index's statistics, a PostGIS
    /// database's, a real-time swarm's): `otherCommands`, `PostGISCommandTests` and
    /// `SwarmLiveCommandTests` check them on real runs.
    static let checkedOnRuns: Set<String> = [
        "index stats", "index stats --postgres", "swarm_second", "swarm_summary", "swarm requests", "status count", "error count", "latency",
        "places per answer", "fetch interval", "interval bucket",
    ]

    @Test("docs/reference/jsonl.md and the record types agree: every member a type writes is documented with its type, and every documented one is written")
    func documentationIsTheTypes() throws {
        #expect(SchemaCheck.records.count >= 33, "\(SchemaCheck.records.map(\.name))")
        var written = Set<String>()
        for line in try Self.samples() {
            let problems = SchemaCheck.problems(line, record: line.hasPrefix(#"{"places""#) ? SchemaCheck.record(named: "query result") : line.hasPrefix(#"{"tracks""#) ? SchemaCheck.record(named: "track stats") : nil, members: &written)
            #expect(problems.isEmpty, "\(problems): \(line)")
        }
        let documented = Set(
            SchemaCheck.records.filter { !Self.checkedOnRuns.contains($0.name) }.flatMap { record in record.fields.map { "\(record.name).\($0.name)" } })
        #expect(documented.subtracting(written).isEmpty, "documented, but no record type writes them: \(documented.subtracting(written).sorted())")
        // The HTML report's summary table: the summary's members, by the same names.
        let summary = try #require(SchemaCheck.record(type: "summary"))
        #expect(SummaryRecord(
            fixes: 0, acceptedFixes: 0, rejectedFixes: 0, distance: 0, duration: nil, fetches: 0, fetchesByReason: [:], failedFetches: 0,
            placesSeen: 0, placesOnMap: 0, encounters: 0, busiestMinuteFetches: 0, interrupted: true
        ).rows.map(\.name) == summary.fields.dropFirst().map(\.name))
    }

    @Test("The text summary has a phone line after a scenario, with the withheld fixes by rule, most first; none without one")
    func phoneLine() {
        var summary = SummaryRecord(
            fixes: 5, acceptedFixes: 5, rejectedFixes: 0, distance: 0, duration: nil, fetches: 0, fetchesByReason: [:], failedFetches: 0,
            placesSeen: 0, placesOnMap: 0, encounters: 0, busiestMinuteFetches: 0, interrupted: false)
        #expect(!summary.text.contains { $0.contains("phone") })
        summary.phone = PhoneSummary(lost: 2, changed: 1, withheldByReason: ["tooSoon": 1, "inBackground": 3, "tooClose": 1])
        #expect(summary.text.last == "  phone:          5 withheld (inBackground 3, tooClose 1, tooSoon 1); trouble: 2 lost, 1 changed; no batches")
        summary.phone?.batches = 1
        summary.phone?.batchedFixes = 4
        #expect(summary.text.last?.hasSuffix("; 1 batch of 4 fixes") == true)
    }

    @Test("README names every record type the command writes and links the schema")
    func readmeListsEveryType() throws {
        let readme = try String(contentsOfFile: PackagePaths.path("README.md"), encoding: .utf8)
        #expect(readme.contains("(docs/reference/jsonl.md)"))
        for record in SchemaCheck.records {
            guard let type = record.type else { continue }
            #expect(readme.contains("`\(type)`"), "README does not name the `\(type)` record")
        }
    }

    @Test("The checker catches what it must: unknown or missing members, order, type, rounding, presence")
    func checkerFailsOnBadLines() throws {
        let good = #"{"type":"answer","t":"2024-11-07T18:00:00.000Z","id":1,"count":3}"#
        #expect(SchemaCheck.problems(good).isEmpty)
        let bad = [
            #"{"type":"answer","t":"2024-11-07T18:00:00.000Z","id":1,"count":3,"extra":1}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00.000Z","id":1}"#,
            #"{"type":"answer","id":1,"t":"2024-11-07T18:00:00.000Z","count":3}"#,
            #"{"type":"answer","t":"2024-11-07 18:00","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00Z","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00.0Z","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00.000+00:00","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07t18:00:00.000Z","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-13-07T18:00:00.000Z","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00.000Z ","id":1,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00.000Z","id":1.5,"count":3}"#,
            #"{"type":"answer","t":"2024-11-07T18:00:00.000Z","id":null,"count":3}"#,
            #"{"type":"encounter","t":"2024-11-07T18:00:00.000Z","place":"a","name":"b","distance_m":1.234}"#,
            #"{"type":"event","event":"retrying","attempt":1}"#,
            #"{"type":"event","event":"retrying","attempt":1,"delay":0.5,"device":"/dev/x"}"#,
            #"{"type":"nonsense"}"#,
        ]
        for line in bad { #expect(!SchemaCheck.problems(line).isEmpty, "accepted: \(line)") }
        // The documented form reads to the instant Foundation's ISO 8601 formatter reads (to
        // a microsecond: the two may round the last bit of the double differently).
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for text in ["2024-11-07T18:00:00.300Z", "2024-11-07T18:00:01.000Z", "1999-12-31T23:59:59.999Z"] {
            let read = try #require(LiveCommand.parseTimestamp(text), "\(text)")
            let reference = try #require(formatter.date(from: text))
            #expect(abs(read.timeIntervalSince(reference)) < 1e-6, "\(text): \(read) and \(reference)")
        }
    }

    @Test("replay and simulate --map: every jsonl line matches its record, for a walk and an index")
    func replayAndSimulateMap() async throws {
        var seen = Set<String>()
        let replay = try await CLI.run([
            "replay", "tracks/sf-mission-walk.gpx", "--fast", "--format", "jsonl", "--start", "40:00", "--radius", "800",
            "--geodata", "geodata",
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        seen.formUnion(try SchemaCheck.check(replay.stdout))
        let map = try await CLI.run([
            "simulate", "line", "--from", "37.7577,-122.4189", "--to", "37.7610,-122.4150", "--noise", "3", "--seed", "7",
            "--start-time", "2024-05-01T00:00:00Z", "--map", "--format", "jsonl", "--radius", "1000", "--min-accuracy", "5",
            "--geodata", "geodata",
        ])
        #expect(map.status == 0, "\(map.stderr)")
        seen.formUnion(try SchemaCheck.check(map.stdout))
        #expect(seen.isSuperset(of: ["fix", "fetch", "answer", "places", "encounter", "summary"]), "\(seen)")
        #expect(map.stdout.contains(#""rejected":"accuracy"#), "a fix over --min-accuracy is written as rejected")
    }

    @Test("replay --online against a slow and a failing server: fetch_failed and coalesced lines match their records too",
        arguments: ["slow-1s", "slow-1s-fail", "server-error"])
    func replayOnline(scenario: String) async throws {
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        let result = try await CLI.run([
            "replay", "tracks/sf-mission-walk.gpx", "--speed", "50", "--start", "48:10", "--online",
            "http://127.0.0.1:\(server.port)/\(scenario)", "--format", "jsonl", "--no-progress",
        ])
        let types = try SchemaCheck.check(result.stdout)
        #expect(types.contains(scenario == "slow-1s" ? "coalesced" : "fetch_failed"), "\(types)")
    }

    @Test("simulate, index query, track stats, index stats: every JSON line matches its record")
    func otherCommands() async throws {
        let simulate = try await CLI.run([
            "simulate", "circle", "--center", "35.6812,139.7671", "--circle-radius", "50", "--duration", "30", "--noise", "2",
            "--seed", "3", "--format", "jsonl",
        ])
        #expect(simulate.status == 0, "\(simulate.stderr)")
        #expect(try SchemaCheck.check(simulate.stdout) == ["fix"])

        try await withScratchFolder("locsim-jsonl-schema") { directory in
            let database = directory + "/i.sqlite"
            let imported = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--db", database])
            #expect(imported.status == 0, "\(imported.stderr)")
            try "lat,lon,radius\n37.7599,-122.4148,300\n0,0,10\n".write(toFile: directory + "/q.csv", atomically: true, encoding: .utf8)
            let batch = try await CLI.run(["index", "query", "--db", database, "--queries", directory + "/q.csv", "--format", "jsonl"])
            #expect(batch.status == 0, "\(batch.stderr)")
            _ = try SchemaCheck.check(batch.stdout, record: SchemaCheck.record(named: "query result"))
            #expect(batch.stdout.contains(#""kind":"#) && batch.stdout.contains(#""level":"#), "--queries carries kind and level")
            let one = try await CLI.run(["index", "query", "--db", database, "--lat", "37.7599", "--lon", "-122.4148", "--radius", "300", "--format", "json"])
            #expect(one.status == 0, "\(one.stderr)")
            _ = try SchemaCheck.check(one.stdout, record: SchemaCheck.record(named: "query result"))
            let batchFirst: Substring? = batch.stdout.split(separator: "\n").first
            let oneFirst: Substring? = one.stdout.split(separator: "\n").first
            #expect(batchFirst == oneFirst,
                "one query's json is the --queries line for the same query")

            let stats = try await CLI.run(["index", "stats", "--db", database, "--verify", "--format", "json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            var members = Set<String>()
            let indexStats = try #require(SchemaCheck.record(named: "index stats"))
            #expect(SchemaCheck.problems(String(stats.stdout.dropLast()), record: indexStats, members: &members).isEmpty, "\(stats.stdout)")
            #expect(members == Set(indexStats.fields.map { "index stats.\($0.name)" }), "\(stats.stdout)")
            #expect(stats.stdout.contains(#""integrity":"ok""#), "\(stats.stdout)")
            let unverified = try await CLI.run(["index", "stats", "--db", database, "--format", "json"])
            #expect(unverified.status == 0 && !unverified.stdout.contains("integrity"), "\(unverified.stdout)")

            // A walk, and a file with one waypoint and no track (start, end and duration null).
            let waypoint = directory + "/waypoint.gpx"
            try #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1.5" lon="2.5"/></gpx>"#
                .write(toFile: waypoint, atomically: true, encoding: .utf8)
            for track in [PackagePaths.path("tracks/sf-mission-walk.gpx"), waypoint] {
                let result = try await CLI.run(["track", "stats", track, "--format", "json"])
                #expect(result.status == 0, "\(result.stderr)")
                _ = try SchemaCheck.check(result.stdout, record: SchemaCheck.record(named: "track stats"))
            }
        }
    }

}


/// `--format text` is for people: plurals agree, numbers are rounded, names cannot break a line.
@Suite(.timeLimit(.minutes(1)))
struct TextOutputTests {
    /// A name with a line feed, a tab and an escape sequence (red text on a terminal).
    static let trickyName = "Line one\nLine\ttwo \u{1B}[31mred\u{1B}[0m"
    static let escapedName = #"Line one\nLine\ttwo \u{1B}[31mred\u{1B}[0m"#

    /// An index of one place, at the first point of the walk `--start 40:00` begins with, named `trickyName`.
    static func oneTrickyPlace(in directory: String) async throws -> String {
        let feature: [String: Any] = [
            "type": "FeatureCollection",
            "features": [[
                "type": "Feature", "id": "odd-1",
                "geometry": ["type": "Point", "coordinates": [-122.4189538, 37.7577536]],
                "properties": ["name": trickyName, "kind": "park\u{7}"],
            ]],
        ]
        let path = directory + "/one.geojson"
        try JSONSerialization.data(withJSONObject: feature).write(to: URL(fileURLWithPath: path))
        let database = directory + "/one.sqlite"
        let imported = try await CLI.run(["index", "import", path, "--db", database])
        #expect(imported.status == 0, "\(imported.stderr)")
        return database
    }

    @Test("index query text: '1 place', a radius without float noise, the name escaped on its one line")
    func indexQuery() async throws {
        try await withScratchFolder("locsim-text-output") { directory in
            let database = try await Self.oneTrickyPlace(in: directory)
            let result = try await CLI.run(["index", "query", "--db", database, "--lat", "37.7577", "--lon", "-122.4189", "--radius", "300"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3, "one line per place, one total, nothing else: \(result.stdout)")
            #expect(lines.first?.contains(Self.escapedName) == true, "\(result.stdout)")
            #expect(lines.first?.contains(#"park\u{7}"#) == true, "\(result.stdout)")
            #expect(lines.dropFirst().first?.hasPrefix("1 place within 300 m of ") == true, "\(result.stdout)")
            #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control characters reach the terminal")
            let none = try await CLI.run(["index", "query", "--db", database, "--lat", "0", "--lon", "0", "--radius", "12.5"])
            #expect(none.stdout.hasPrefix("0 places within 12.5 m of "), "\(none.stdout)")
            // jsonl keeps the name as it is (JSON escapes it).
            let json = try await CLI.run(["index", "query", "--db", database, "--lat", "37.7577", "--lon", "-122.4189", "--radius", "300", "--format", "json"])
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: [[String: Any]]]
            #expect(object?["places"]?.first?["name"] as? String == Self.trickyName)
        }
    }

    @Test("simulate --map text: a fix over --min-accuracy is ignored with its accuracy rounded to 0.1 m")
    func ignoredFixAccuracy() async throws {
        let result = try await CLI.run([
            "simulate", "line", "--from", "37.7577,-122.4189", "--to", "37.7610,-122.4150", "--noise", "3", "--seed", "7",
            "--start-time", "2024-05-01T00:00:00Z", "--map", "--radius", "1000", "--min-accuracy", "5", "--geodata", "geodata",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let ignored = result.stdout.split(separator: "\n").filter { $0.contains("fix ignored: accuracy ") }
        #expect(!ignored.isEmpty, "\(result.stdout.prefix(800))")
        #expect(!result.stderr.contains("rejected"), "some fixes were used: no warning (\(result.stderr))")
        for line in ignored {
            #expect(line.wholeMatch(of: /.*fix ignored: accuracy \d+(\.\d)? m/) != nil, "\(line)")
        }
    }

    @Test("simulate --map whose every fix is over --min-accuracy: status 0 with a warning on standard error saying why nothing was fetched")
    func everyFixRejected() async throws {
        let result = try await CLI.run([
            "simulate", "line", "--from", "37.7577,-122.4189", "--to", "37.7610,-122.4150", "--noise", "3", "--seed", "7",
            "--start-time", "2024-05-01T00:00:00Z", "--map", "--radius", "1000", "--min-accuracy", "0.5", "--geodata", "geodata",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("fetches:        0"), "\(result.stdout.suffix(600))")
        let warning = result.stderr.split(separator: "\n").filter { $0.hasPrefix("locsim: warning: all ") }
        #expect(warning.count == 1, "\(result.stderr)")
        #expect(
            warning.first?.wholeMatch(
                of: /locsim: warning: all \d+ fixes were rejected, so the map never fetched: \d+ less accurate than --min-accuracy 0\.5 m, the best \d+\.\d m; --min-accuracy inf keeps every fix/
            ) != nil, "\(result.stderr)")
    }

    @Test("replay of a walk the place data does not cover: status 0, and a warning that every answer was empty and what to give instead")
    func everyAnswerEmpty() async throws {
        try await withScratchFolder("locsim-empty-answers") { geodata in
            // Tokyo's places only: the San Francisco walk fetches and is answered with nothing.
            try FileManager.default.copyItem(atPath: PackagePaths.root + "/geodata/tokyo-central.csv", toPath: geodata + "/tokyo-central.csv")
            let result = try await CLI.run(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--geodata", geodata])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("places seen:    0"), "\(result.stdout.suffix(600))")
            let warning = result.stderr.split(separator: "\n").filter { $0.hasPrefix("locsim: warning: ") }
            #expect(warning.count == 1, "\(result.stderr)")
            #expect(
                warning.first?.wholeMatch(
                    of: /locsim: warning: all \d+ answers were empty: the place data has no place within 5000 m of this walk; give --db or --geodata with places where the walk is \(or a larger --radius\)/
                ) != nil, "\(result.stderr)")
            // With places where it walks: no warning.
            let covered = try await CLI.run(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--geodata", "geodata"])
            #expect(!covered.stderr.contains("warning"), "\(covered.stderr)")
        }
    }

    @Test("replay text: 'answer #1: 1 place', 'map: 1 place', the encounter's name escaped, one fetch in the busiest minute")
    func replay() async throws {
        try await withScratchFolder("locsim-text-output") { directory in
            let database = try await Self.oneTrickyPlace(in: directory)
            let result = try await CLI.run([
                "replay", "tracks/sf-mission-walk.gpx", "--fast", "--start", "40:00", "--radius", "800", "--throttle-interval", "1000",
                "--db", database,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let text = result.stdout
            #expect(text.contains("answer #1: 1 place\n"), "\(text.prefix(600))")
            #expect(text.contains("map: 1 place (+1 −0): \(Self.escapedName)\n"), "\(text.prefix(600))")
            #expect(text.contains("encounter: \(Self.escapedName) (odd-1) at "), "\(text.prefix(600))")
            #expect(!text.contains(" 1 places") && !text.contains(" 1 fetches"), "\(text)")
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control characters reach the terminal")
            // The summary's busiest minute, counted from the fetch lines.
            let fetchMinutes = text.split(separator: "\n").filter { $0.contains("  fetch #") && !$0.contains("failed") }
                .map { $0.prefix(16) }
            let busiest = Dictionary(grouping: fetchMinutes, by: { $0 }).values.map(\.count).max() ?? 0
            let expected = busiest == 1 ? "busiest minute: 1 fetch\n" : "busiest minute: \(busiest) fetches\n"
            #expect(text.contains(expected), "\(text.suffix(400))")
        }
    }
}
