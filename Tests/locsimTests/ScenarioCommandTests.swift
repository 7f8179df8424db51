import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim replay --scenario FILE --fast`: the delivery reference's cases
/// (scripts/reference/make_delivery_reference.py, Tests/MapFeatureTests/Fixtures/delivery-reference.json)
/// written as scenario files and replayed through the command give the reference's fetches
/// (times on the delivery clock, positions) and withheld fixes; the same file gives the same bytes.
///
/// Not serialized: `scripts/test.sh` bounds how many test cases run at once, and each case here
/// is a child process of its own with its own files. Serialized, each test waited for a free
/// place in that bound and then for the one before it, so the suite ran last, one test at a
/// time, and was the last 30 s of the whole run.
@Suite(.timeLimit(.minutes(1))) struct ScenarioCommandTests {
    /// A 100 m radius: the fetch rule does not depend on it, and small answers keep each run short.
    static func replay(_ scenario: String, _ extra: [String] = []) async throws -> CLI.Result {
        try await CLI.run(["replay", "--scenario", scenario, "--fast", "--format", "jsonl", "--geodata", "geodata", "--radius", "100"] + extra)
    }

    @Test("Each delivery case replayed from a scenario file: the reference's fetches (delivery time, position), deliveries and withheld fixes",
        arguments: DeliveryReference.scenarioCaseNames)
    func referenceCase(name: String) async throws {
        let reference = try #require(DeliveryReference.shared.cases.first { $0.name == name })
        let points = try #require(DeliveryReference.shared.tracks[reference.track])
        let file = try DeliveryReference.write(try DeliveryReference.scenario(for: reference.rule, track: reference.track), name: "case-" + name.filter { $0.isLetter || $0.isNumber })
        let result = try await Self.replay(file)
        #expect(result.status == 0, "\(result.stderr)")
        // Only the lines compared are parsed (ScenarioCommandTests.reproducible checks them all against the schema).
        let all = result.stdout.split(separator: "\n")
        let lines = all.filter { $0.hasPrefix(#"{"type":"fetch""#) || $0.hasPrefix(#"{"type":"withheld""#) }
            .compactMap { LiveCommand.parse(String($0)) }
        let t0 = Date(timeIntervalSince1970: Double(DeliveryReference.shared.t0))
        func offset(_ line: LiveCommand.JSONLine) -> Int? {
            line.time.map { Int(($0.timeIntervalSince(t0) * 1000).rounded()) }
        }
        let fetches = lines.filter { $0.type == "fetch" }
        #expect(fetches.map { offset($0) } == reference.fetches.map { $0[0] * 1000 }, "fetch times (ms after the first fix)")
        for (line, expected) in zip(fetches, reference.fetches) {
            let point = points[expected[1]]
            #expect(abs((line.latitude ?? 0) - point[0]) < 1e-9 && abs((line.longitude ?? 0) - point[1]) < 1e-9,
                "fetch at \(expected[0]) s is at fix \(expected[1])")
        }
        #expect(all.filter { $0.hasPrefix(#"{"type":"fix""#) }.count == reference.deliveries.count, "one fix line per delivery")
        var withheld: [String: Int] = [:]
        for line in lines where line.type == "withheld" { withheld[line.strings["rule"] ?? "?", default: 0] += 1 }
        #expect(withheld == reference.withheld)
    }

    @Test("Background for 2 minutes at walking pace: on return the app fetches at the stale cached position; with game.maximumFixAge it does not")
    func backgroundStaleFetch() async throws {
        let stale = try #require(DeliveryReference.shared.cases.first { $0.name == "background 2 minutes while walking" })
        let guarded = try #require(DeliveryReference.shared.cases.first { $0.name == "background 2 minutes while walking, maximumFixAge 10 s" })
        let back = try #require(stale.rule.app?.last.flatMap { move -> Int? in if case .time(let t) = move[0] { t } else { nil } })
        // The reference's fetch at the moment of return is at a fix from before the background.
        let staleFetch = try #require(stale.fetches.first { $0[0] == back && $0[1] < back })
        #expect(!guarded.fetches.contains { $0[1] < $0[0] }, "with maximumFixAge every fetch is at a fresh fix")

        let result = try await Self.replay(try DeliveryReference.write(try DeliveryReference.scenario(for: stale.rule, track: stale.track), name: "stale"))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").compactMap { LiveCommand.parse(String($0)) }
        let t0 = Date(timeIntervalSince1970: Double(DeliveryReference.shared.t0))
        let returned = t0.addingTimeInterval(Double(back))
        // The cached fix: its own time, delivered at the return.
        let cached = try #require(lines.first { $0.type == "fix" && $0.strings["delivered"] != nil })
        #expect(cached.time == t0.addingTimeInterval(Double(staleFetch[1])))
        #expect(cached.strings["delivered"].flatMap(LiveCommand.parseTimestamp) == returned)
        let fetchesOnReturn = lines.filter { $0.type == "fetch" && $0.time == returned }
        #expect(fetchesOnReturn.count == 2, "the stale fetch, then the fresh one")
        let point = DeliveryReference.shared.tracks[stale.track]?[staleFetch[1]] ?? []
        #expect(fetchesOnReturn.first?.latitude == point.first && fetchesOnReturn.first?.longitude == point.last)

        let age = try await Self.replay(try DeliveryReference.write(try DeliveryReference.scenario(for: guarded.rule, track: guarded.track), name: "max-age"))
        #expect(age.status == 0, "\(age.stderr)")
        let ageLines = age.stdout.split(separator: "\n").compactMap { LiveCommand.parse(String($0)) }
        let rejected = try #require(ageLines.first { $0.type == "fix" && $0.strings["delivered"] != nil })
        #expect(rejected.strings["rejected"]?.hasSuffix("s old") == true, "\(rejected.strings)")
        #expect(ageLines.filter { $0.type == "fetch" && $0.time == returned }.count == 1)
    }

    @Test("The same scenario and seed give byte-identical jsonl; another seed moves the trouble; trouble and batches are logged")
    func reproducible() async throws {
        let trouble = """
            "trouble": [
                {"kind": "coldStart", "at": "0", "for": "20s"},
                {"kind": "signalLoss", "at": "3m", "for": "60s"},
                {"kind": "urbanCanyon", "at": "6m", "for": "2m"},
                {"kind": "jump", "at": "9m", "distance": 300},
                {"kind": "stale", "at": "10m", "age": "2m"}
              ]
            """
        let rule = try #require(DeliveryReference.shared.cases.first { $0.rule.service == "fused" && ($0.rule.maximumDelay ?? 0) > 0 }).rule
        let text = try DeliveryReference.scenario(for: rule, track: "walk-stop-walk", extra: #""seed": 7,"# + "\n  " + trouble)
        let first = try await Self.replay(try DeliveryReference.write(text, name: "seed-7"))
        let second = try await Self.replay(try DeliveryReference.write(text, name: "seed-7-again"))
        let other = try await Self.replay(try DeliveryReference.write(text.replacingOccurrences(of: #""seed": 7"#, with: #""seed": 8"#), name: "seed-8"))
        #expect(first.status == 0 && second.status == 0 && other.status == 0, "\(first.stderr)\(other.stderr)")
        #expect(first.stdout == second.stdout)
        #expect(first.stdout != other.stdout)
        let types = try SchemaCheck.check(first.stdout)
        #expect(types.isSuperset(of: ["fix", "fetch", "withheld", "trouble", "batch", "summary"]), "\(types)")
        for effect in ["noFix", "reacquiring", "multipath", "jumped", "stale"] {
            #expect(first.stdout.contains(#""effect":"\#(effect)""#), "a \(effect) trouble record")
        }
        // The summary counts what the timeline shows, fix by fix (a fix that met several
        // troubles has a line for each).
        let records = try first.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        func of(_ type: String) -> [[String: Any]] { records.filter { $0["type"] as? String == type } }
        let troubleLines = of("trouble")
        let lost = Set(troubleLines.filter { $0["lat"] is NSNull }.compactMap { $0["t"] as? String })
        let changed = Set(troubleLines.filter { !($0["lat"] is NSNull) }.compactMap { $0["t"] as? String })
        let phone = try #require(of("summary").first?["phone"] as? [String: Int])
        #expect(phone["lost_fixes"] == lost.count && lost.count > 0)
        #expect(phone["changed_fixes"] == changed.count && changed.count > 0)
        #expect(phone["withheld_fixes"] == of("withheld").count)
        #expect(phone["batches"] == of("batch").count)
        #expect(phone["batched_fixes"] == of("batch").compactMap { $0["count"] as? Int }.reduce(0, +))
    }

    @Test("The shipped example runs; a track argument overrides the route; the app's moves are logged")
    func example() async throws {
        let result = try await CLI.run([
            "replay", "--scenario", "tracks/scenarios/background-walk.json", "--fast", "--format", "jsonl", "--geodata", "geodata",
            "--radius", "100",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let types = try SchemaCheck.check(result.stdout)
        #expect(types.isSuperset(of: ["fix", "fetch", "app", "withheld", "summary"]), "\(types)")
        // The reference's drive, in Tokyo.
        let overridden = try await CLI.run([
            "replay", "\(DeliveryReference.folder)/drive.gpx", "--scenario", "tracks/scenarios/background-walk.json", "--fast", "--format",
            "jsonl", "--geodata", "geodata", "--radius", "100",
        ])
        #expect(overridden.status == 0, "\(overridden.stderr)")
        let firstFix = overridden.stdout.split(separator: "\n").first { $0.hasPrefix(#"{"type":"fix""#) }.flatMap { LiveCommand.parse(String($0)) }
        #expect((firstFix?.latitude ?? 0) > 35 && (firstFix?.latitude ?? 0) < 36, "the Tokyo drive, not the scenario's route")
    }

    @Test("A scenario read from a pipe (/dev/stdin) runs as from its file, not 'Permission denied'")
    func scenarioFromPipe() async throws {
        let scenario = PackagePaths.path("tracks/scenarios/background-walk.json")
        let route = PackagePaths.path("tracks/sf-mission-walk.gpx")
        // The route's path made absolute: a scenario read from a pipe has no folder of its own.
        let command = "sed 's|\\.\\./sf-mission-walk\\.gpx|\(route)|' '\(scenario)' | '\(CLI.binary)' replay --scenario /dev/stdin --fast --format jsonl --geodata geodata --radius 100"
        let piped = try await ChildProcess.run(
            ["/bin/sh", "-c", command], environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory], directory: PackagePaths.root)
        #expect(piped.status == 0, "\(piped.errors)")
        let direct = try await CLI.run([
            "replay", "--scenario", "tracks/scenarios/background-walk.json", "--fast", "--format", "jsonl", "--geodata", "geodata", "--radius", "100",
        ])
        #expect(piped.output.split(separator: "\n").last == direct.stdout.split(separator: "\n").last, "the same summary")
    }

    @Test("A polyline route (as routing services return one) replays from route.start at 1 Hz, the same on every run")
    func polylineRoute() async throws {
        let arguments = [
            "replay", "--scenario", "tracks/scenarios/polyline-walk.json", "--fast", "--format", "jsonl", "--geodata", "geodata",
            "--radius", "100",
        ]
        let first = try await CLI.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let types = try SchemaCheck.check(first.stdout)
        #expect(types.isSuperset(of: ["fix", "fetch", "answer", "trouble", "summary"]), "\(types)")
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix(#"{"type":"fix","t":"2024-11-07T18:00:00.000Z""#) == true, "\(lines.first ?? "")")
        // Between the route's 12 points, a fix a second: more fixes than points reach the phone.
        #expect(lines.filter { $0.hasPrefix(#"{"type":"fix""#) }.count > 12)
        let again = try await CLI.run(arguments)
        #expect(again.stdout == first.stdout)
    }

    @Test("A bad scenario is refused naming the file and the key path; its server list as serve reads it")
    func refused() async throws {
        let file = try DeliveryReference.write(#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "soon"}]}"#, name: "bad")
        // A bad value is a usage error (status 2) in every command that takes a scenario.
        for command in [
            ["replay", "--scenario", file, "--fast"], ["replay", "--scenario", file, "--speed", "1000"],
            ["simulate", "stationary", "--at", "35.68,139.76", "--duration", "5", "--map", "--scenario", file],
            ["serve", "--port", "0", "--player", "a=\(file)"],
        ] {
            let bad = try await CLI.run(command + ["--geodata", "geodata"])
            #expect(bad.status == 2, "\(command): \(bad.stderr)")
            #expect(bad.stderr.contains("\(file): trouble[0].for: "), "\(bad.stderr)")
        }
        // A scenario that is not there is a missing file (status 1).
        let missing = try await CLI.run(["replay", "--scenario", "/nonexistent/walk.json", "--fast"])
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("locsim: error: /nonexistent/walk.json: cannot read the scenario: No such file or directory\n"), "\(missing.stderr)")
        // So is a folder in its place (it was a usage error, status 2).
        try await withScratchFolder("locsim-scenario-folder") { directory in
            try FileManager.default.createDirectory(atPath: directory + "/s.json", withIntermediateDirectories: false)
            let folder = try await CLI.run(["replay", "--scenario", directory + "/s.json", "--fast"])
            #expect(folder.status == 1 && folder.stderr.contains("cannot read the scenario"), "\(folder.stderr)")
            // The scenario's own route is read before the place data: its error is said, not a
            // missing --geodata's (QA).
            let noRoute = try DeliveryReference.write(#"{"route": {"file": "gone.gpx"}}"#, name: "gone-route")
            try FileManager.default.createDirectory(atPath: directory + "/no-places", withIntermediateDirectories: false)
            let routeFirst = try await CLI.run(["replay", "--scenario", noRoute, "--fast", "--geodata", directory + "/no-places"])
            #expect(routeFirst.status == 1, "\(routeFirst.stderr)")
            #expect(routeFirst.stderr.hasPrefix("locsim: error: \(noRoute): route.file: "), "\(routeFirst.stderr)")
        }
        let missingPlayer = try await CLI.run(["serve", "--port", "0", "--player", "a=/nonexistent/walk.json"])
        #expect(missingPlayer.status == 1, "\(missingPlayer.stderr)")
        #expect(missingPlayer.stderr == "locsim: error: --player a: /nonexistent/walk.json: cannot read the scenario: No such file or directory\n"
            + "hint: check that the path names a file that exists and can be read\n")
        // A walk that is not there says whose it is too.
        let missingWalk = try await CLI.run(["serve", "--port", "0", "--player", "alice=/nonexistent/walk.gpx"])
        #expect(missingWalk.status == 1, "\(missingWalk.stderr)")
        #expect(missingWalk.stderr == "locsim: error: --player alice: /nonexistent/walk.gpx: cannot read: No such file or directory\n"
            + "hint: check that the path names a file that exists and can be read\n")
        // A server list serve would refuse is refused by replay too, though replay does not play it.
        let server = try DeliveryReference.write(#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC"}, "server": [{"status": 503}, {"status": 999}]}"#, name: "bad-server")
        let refused = try await CLI.run(["replay", "--scenario", server, "--fast", "--geodata", "geodata"])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("locsim: error: \(server): server[1].status: must be a whole number 200...599 (a 1xx is an interim answer, not the answer), got 999\n"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        let served = try await CLI.run(["serve", "--port", "0", "--player", "a=\(server)", "--geodata", "geodata"])
        #expect(served.status == 2)
        #expect(served.stderr.contains("\(server): server[1].status: must be a whole number 200...599 (a 1xx is an interim answer, not the answer), got 999"), "\(served.stderr)")
    }

    @Test("A route file the scenario names but that cannot be read: the scenario, route.file, the file and the system's reason, in replay and serve",
          arguments: ["gpx", "nmea", "kml", "geojson"])
    func unreadableRouteFile(fileExtension: String) async throws {
        let file = try DeliveryReference.write(#"{"route": {"file": "no-such-walk.\#(fileExtension)"}}"#, name: "no-route-\(fileExtension)")
        let folder = (file as NSString).deletingLastPathComponent
        // replay, and serve's player made from the scenario.
        for command in [["replay", "--scenario", file, "--fast"], ["serve", "--port", "0", "--player", "a=\(file)"]] {
            let result = try await CLI.run(command + ["--geodata", "geodata"])
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            // serve says whose scenario it is.
            let player = command[0] == "serve" ? "--player a: " : ""
            #expect(lines.first?.hasPrefix("locsim: error: \(player)\(file): route.file: \(folder)/no-such-walk.\(fileExtension): cannot ") == true, "\(result.stderr)")
            #expect(lines.first?.hasSuffix(": No such file or directory") == true, "\(result.stderr)")
            #expect(lines.last?.hasPrefix("hint: a relative route.file is read from the scenario file's folder") == true, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("Trouble and app moves past the route's end are warned about when it ends, in virtual and in real time", arguments: [["--fast"], ["--speed", "1000"]])
    func unreachedWarned(timing: [String]) async throws {
        // The shipped walk lasts 50:24.
        let walk = FileManager.default.currentDirectoryPath + "/tracks/sf-mission-walk.gpx"
        let file = try DeliveryReference.write(#"""
            {"route": {"file": "\#(walk)"},
             "trouble": [{"kind": "signalLoss", "at": "8m", "for": "60s"}, {"kind": "jump", "at": "1h", "distance": 300}],
             "app": [{"at": "20m", "state": "background"}, {"at": "55m", "state": "foreground"}]}
            """#, name: "unreached-\(timing.count)")
        let result = try await CLI.run(["replay", "--scenario", file, "--geodata", "geodata", "--radius", "100"] + timing)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n") == [
            "locsim: warning: \(file): trouble[1] (jump at 1:00:00) never begins: it comes after the route's end, 50:24 after its first fix",
            "locsim: warning: \(file): app[1] (foreground at 55:00) is never applied: it comes after the route's end, 50:24 after its first fix",
        ])
    }

    @Test("Every error of a scenario's route file names the scenario and route.file: a folder, a malformed GPX (its line and column), an unknown extension (status 2)")
    func routeFileErrorsNamed() async throws {
        try await withScratchFolder("locsim-route-file") { folder in
            try #"<?xml version="1.0"?><gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><time>bad</time></trkpt></trkseg></trk></gpx>"#
                .write(toFile: folder + "/bad.gpx", atomically: true, encoding: .utf8)
            let cases: [(route: String, status: Int32, says: String)] = [
                (".", 1, ": cannot read: Is a directory"),
                ("bad.gpx", 1, "bad.gpx:1:77: <time> \"bad\" is not an ISO-8601 time"),
                ("other.json", 2, "'other.json' has an unknown extension '.json'"),
            ]
            for (index, (route, status, says)) in cases.enumerated() {
                let scenario = folder + "/s\(index).json"
                try #"{"route": {"file": "\#(route)"}}"#.write(toFile: scenario, atomically: true, encoding: .utf8)
                let result = try await CLI.run(["replay", "--scenario", scenario, "--fast", "--geodata", "geodata"])
                #expect(result.status == status, "\(route): \(result.stderr)")
                let first = result.stderr.split(separator: "\n").first ?? ""
                #expect(first.hasPrefix("locsim: error: \(scenario): route.file: ") && first.contains(says), "\(route): \(result.stderr)")
            }
        }
    }

    @Test("A route of legs refuses --start and --noise (status 2) rather than ignoring them", arguments: [["--start", "10h"], ["--noise", "50"]])
    func legsRefuseStartAndNoise(_ option: [String]) async throws {
        let result = try await CLI.run(["replay", "--scenario", "tracks/scenarios/legs-walk.json", "--fast", "--geodata", "geodata"] + option)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("locsim: error: \(option[0]) applies to a route file or a polyline; "), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout.prefix(200))")
    }

    @Test("A run stopped by a signal says nothing of what the route did not reach: it had not ended")
    func interruptedWarnsNothing() async throws {
        // The shipped background walk: its trouble and app moves come 8 to 22 minutes in.
        let command = try await LiveCommand(
            ["replay", "--scenario", "tracks/scenarios/background-walk.json", "--speed", "20", "--format", "jsonl", "--geodata", "geodata"])
        defer { command.stop() }
        try await command.wait(for: "the first fix") { lines in lines.contains { $0.text.contains(#""type":"fix""#) } }
        command.interrupt()
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        #expect(!command.child.errors.contains("warning"), "\(command.child.errors)")
        #expect(command.lines.last?.text.contains(#""interrupted":1"#) == true)
    }

    @Test("A serve player walking legs is warned about trouble and app moves past their end when it gets there")
    func unreachedWarnedByServeAtLegsEnd() async throws {
        let file = try DeliveryReference.write(#"""
            {"seed": 3, "route": {"start": "2024-11-07T18:00:00Z", "legs": [{"from": "37.7651,-122.4197", "to": "37.7640,-122.4195", "speed": 5}]},
             "trouble": [{"kind": "jump", "at": "10s", "distance": 50}, {"kind": "jump", "at": "1h", "distance": 300}],
             "app": [{"at": "2h", "state": "background"}]}
            """#, name: "unreached-legs")
        let server = try await ServeProcess.start(["--player", "legs=\(file) --speed 100"])
        defer { server.stop() }
        _ = try await server.waitFor("legs", "the end of its legs") { $0["state"] as? String == "ended" }
        try await server.command.child.wait(for: "the warnings") { server.command.child.errors.contains("app[0]") }
        let warnings = server.command.child.errors.split(separator: "\n").filter { $0.hasPrefix("locsim: warning:") }
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first?.hasPrefix("locsim: warning: \(file): trouble[1] (jump at 1:00:00) never begins: it comes after the route's end, 0:") == true)
        #expect(warnings.last?.hasPrefix("locsim: warning: \(file): app[0] (background at 2:00:00) is never applied") == true)
    }

    @Test("A serve player walking a route file is warned about trouble and app moves past its end as it starts")
    func unreachedWarnedByServe() async throws {
        // The shipped walk lasts 50:24.
        let walk = PackagePaths.path("tracks/sf-mission-walk.gpx")
        let file = try DeliveryReference.write(#"""
            {"route": {"file": "\#(walk)"},
             "trouble": [{"kind": "signalLoss", "at": "8m", "for": "60s"}, {"kind": "jump", "at": "1h", "distance": 300}],
             "app": [{"at": "20m", "state": "background"}, {"at": "55m", "state": "foreground"}]}
            """#, name: "unreached-serve")
        let server = try await ServeProcess.start(["--player", "alice=\(file) --loop"])
        defer { server.stop() }
        let warnings = server.command.child.errors.split(separator: "\n").filter { $0.hasPrefix("locsim: warning:") }
        #expect(warnings == [
            "locsim: warning: \(file): trouble[1] (jump at 1:00:00) never begins: it comes after the route's end, 50:24 after its first fix",
            "locsim: warning: \(file): app[1] (foreground at 55:00) is never applied: it comes after the route's end, 50:24 after its first fix",
        ])
    }

    @Test("A stop longer than a year is refused naming its key path, before any fix")
    func stopOverAYear() async throws {
        let file = try DeliveryReference.write(
            #"{"route": {"legs": [{"from": "37.7651,-122.4197", "to": "37.7600,-122.4190", "stop": "100000d"}]}}"#, name: "long-stop")
        let result = try await CLI.run(["replay", "--scenario", file, "--fast", "--geodata", "geodata"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(#"locsim: error: \#(file): route.legs[0].stop: must be at most 366d"#), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("Without --fast a scenario plays in real time at --speed: the phone does what it does in virtual time (the same app moves, withheld fixes and trouble; the same first fetch), a timed route or an untimed polyline",
          arguments: ["background-walk.json", "polyline-walk.json"])
    func realTime(scenario: String) async throws {
        let arguments = [
            "replay", "--scenario", "tracks/scenarios/" + scenario, "--format", "jsonl", "--geodata", "geodata", "--radius", "100",
        ]
        let real = try await CLI.run(arguments + ["--speed", "1000"])
        let virtual = try await CLI.run(arguments + ["--fast"])
        #expect(real.status == 0 && virtual.status == 0, "\(real.stderr)\(virtual.stderr)")
        _ = try SchemaCheck.check(real.stdout)
        // What the phone did depends only on the fixes; the answers' timing (real here) can
        // only change which later fixes find a request in flight.
        func lines(_ output: String, _ type: String) -> [Substring] {
            output.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"\#(type)""#) }
        }
        // An untimed route's fixes carry its walk's times, not times squeezed by --speed (which
        // left the polyline 6 s long at 100×, every fix "too soon" and no trouble reached).
        for type in ["app", "withheld", "trouble"] {
            #expect(lines(real.stdout, type) == lines(virtual.stdout, type), "\(scenario): \(type) lines")
            #expect(!lines(real.stdout, type).isEmpty || (type == "app" && scenario == "polyline-walk.json"), "\(scenario): \(type)")
        }
        #expect(lines(real.stdout, "fetch").first == lines(virtual.stdout, "fetch").first)
    }

    @Test("simulate --map --scenario: the synthetic motion goes through the scenario's phone (its moves, withheld fixes and trouble), the same on every run; without --map it is refused")
    func simulate() async throws {
        let arguments = [
            "simulate", "line", "--from", "37.76,-122.42", "--to", "37.78,-122.40", "--start-time", "2024-01-01T00:00:00Z", "--map",
            "--scenario", "tracks/scenarios/background-walk.json", "--geodata", "geodata", "--radius", "100", "--format", "jsonl",
        ]
        let first = try await CLI.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let types = try SchemaCheck.check(first.stdout)
        #expect(types.isSuperset(of: ["fix", "fetch", "app", "withheld", "trouble", "summary"]), "\(types)")
        // The motion is the route: the first fix is at --from, not on the scenario's walk.
        let firstFix = first.stdout.split(separator: "\n").first { $0.hasPrefix(#"{"type":"fix""#) }.flatMap { LiveCommand.parse(String($0)) }
        #expect(firstFix?.latitude == 37.76 && firstFix?.longitude == -122.42)
        let again = try await CLI.run(arguments)
        #expect(again.stdout == first.stdout)
        let refused = try await CLI.run(["simulate", "line", "--from", "37.76,-122.42", "--to", "37.78,-122.40", "--scenario", "x.json"])
        #expect(refused.status == 2 && refused.stderr.contains("--scenario needs --map"), "\(refused.stderr)")
    }

    @Test("A route as legs (walk, stop, cycle, drive) replays through the phone, the same on every run")
    func legsRoute() async throws {
        let arguments = [
            "replay", "--scenario", "tracks/scenarios/legs-walk.json", "--fast", "--format", "jsonl", "--geodata", "geodata", "--radius", "100",
        ]
        let first = try await CLI.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let types = try SchemaCheck.check(first.stdout)
        #expect(types.isSuperset(of: ["fix", "fetch", "app", "withheld", "summary"]), "\(types)")
        #expect(first.stdout.hasPrefix(#"{"type":"fix","t":"2024-11-07T18:00:00.000Z","lat":37.7651,"lon":-122.4197"#), "\(first.stdout.prefix(200))")
        let again = try await CLI.run(arguments)
        #expect(again.stdout == first.stdout)
    }

    @Test("serve --player NAME=SCENARIO.json: the route with its trouble on the gpsd feed and the event stream, its phone's notes on the event stream, its server outcomes for the app; conflicts refused")
    func servePlayer() async throws {
        let walk = PackagePaths.path("tracks/sf-mission-walk.gpx")
        let file = try DeliveryReference.write(
            """
            {"seed": 3, "route": {"file": "\(walk)"}, "device": {"platform": "ios", "distanceFilter": 50},
             "trouble": [{"kind": "signalLoss", "at": "30s", "for": "20s"}],
             "app": [{"at": "60s", "state": "background"}, {"at": "80s", "state": "foreground"}],
             "server": [{"status": 503}]}
            """, name: "serve-tunnel")
        // The same phone, no server list, for a player started 70 s into the route.
        let late = try DeliveryReference.write(
            """
            {"route": {"file": "\(walk)"}, "device": {"platform": "ios", "distanceFilter": 50},
             "app": [{"at": "60s", "state": "background"}, {"at": "80s", "state": "foreground"}]}
            """, name: "serve-late")
        // At 10× the tunnel is 3 s after the start, the app is back 8 s after it.
        let server = try await ServeProcess.start(gpsd: true, ["--player", "alice=\(file) --speed 10", "--player", "bob=\(late) --speed 10 --start 70s"])
        defer { server.command.stop() }
        let bob = try SocketLines.events(port: server.http, path: "/players/bob/fixes", token: nil)
        defer { bob.stop() }
        let stream = try SocketLines.events(port: server.http, path: "/players/alice/fixes", token: nil)
        defer { stream.stop() }
        let gpsd = try RawGPSDClient(port: try #require(server.gpsd))
        defer { gpsd.stop() }
        // What was posted before the stream opened is in its first state's history.
        @Sendable func notes(_ event: String, on stream: SocketLines) -> [[String: Any]] {
            let history = (stream.events("state").first?["history"] as? [String: Any])?["notes"] as? [[String: Any]] ?? []
            return history.filter { $0["event"] as? String == event }.compactMap { $0["data"] as? [String: Any] } + stream.events(event)
        }
        @Sendable func notes(_ event: String) -> [[String: Any]] { notes(event, on: stream) }
        try await stream.wait("the app back in the foreground", timeout: .seconds(45)) { _ in
            notes("phone").contains { $0["type"] as? String == "app" && $0["state"] as? String == "foreground" }
        }
        let trouble = notes("trouble")
        #expect(trouble.contains { $0["effect"] as? String == "noFix" }, "\(trouble.prefix(3))")
        #expect(trouble.contains { $0["effect"] as? String == "reacquiring" })
        #expect(trouble.allSatisfy { $0["player"] as? String == "alice" && ($0["offset"] as? Double ?? -1) >= 30 }, "\(trouble.prefix(3))")
        let phone = notes("phone")
        #expect(phone.allSatisfy { $0["player"] as? String == "alice" })
        #expect(phone.contains { $0["type"] as? String == "withheld" && $0["rule"] as? String == "withinDistanceFilter" })
        #expect(phone.contains { $0["type"] as? String == "withheld" && $0["rule"] as? String == "inBackground" })
        #expect(phone.contains { $0["type"] as? String == "app" && $0["state"] as? String == "background" })
        // Started 70 s in, the app moves stay where the route puts them: in the background from
        // its first fix (the move at 60 s is behind it), back at 80 s.
        try await bob.wait("bob's app back in the foreground", timeout: .seconds(45)) { lines in
            notes("phone", on: lines).contains { $0["type"] as? String == "app" && $0["state"] as? String == "foreground" }
        }
        let moves = notes("phone", on: bob).filter { $0["type"] as? String == "app" }
        #expect(moves.map { $0["state"] as? String } == ["background", "foreground"], "\(moves)")
        #expect(abs((moves.last?["offset"] as? Double ?? 0) - 80) < 1.5, "\(moves)")
        // The receiver reacquiring after the tunnel, as a gpsd client reads it: 50 m at first.
        try await gpsd.wait(for: "a TPV reacquiring after the tunnel") { client in
            client.tpvs.contains { ($0.horizontalError ?? 0) > 30 }
        }
        // The app's first nearby request meets the scenario's first outcome; the next the real answer.
        let nearby = "/locations/nearby?lat=37.7599&lng=-122.4148&radius=300&limit=5"
        await #expect(try server.call("GET", nearby, token: nil).status == 503)
        await #expect(try server.call("GET", nearby, token: nil).status == 200)

        // One list of server outcomes: two scenarios that give one, or one and --script, are refused.
        let twice = try await CLI.run(["serve", "--port", "0", "--player", "alice=\(file)", "--player", "bob=\(file)"])
        #expect(twice.status == 2 && twice.stderr.contains("the server takes one list"), "\(twice.stderr)")
        let script = try DeliveryReference.write("[{}]", name: "serve-script")
        let both = try await CLI.run(["serve", "--port", "0", "--player", "alice=\(file)", "--script", script])
        #expect(both.status == 2 && both.stderr.contains("--script and the scenario \(file)"), "\(both.stderr)")
        let noRoute = try DeliveryReference.write(#"{"device": {"platform": "ios", "distanceFilter": 50}}"#, name: "serve-no-route")
        let routeless = try await CLI.run(["serve", "--port", "0", "--player", "alice=\(noRoute)"])
        #expect(routeless.status == 2 && routeless.stderr.contains("\(noRoute) has no route"), "\(routeless.stderr)")
        let bad = try DeliveryReference.write(#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "soon"}]}"#, name: "serve-bad")
        let refused = try await CLI.run(["serve", "--port", "0", "--player", "alice=\(bad)"])
        #expect(refused.status == 2 && refused.stderr.contains("\(bad): trouble[0].for: "), "\(refused.stderr)")
    }
}
