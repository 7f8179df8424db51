import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

@Suite(.timeLimit(.minutes(1))) struct SimulateCommandTests {
    let line = ["simulate", "line", "--from", "35.6812,139.7671", "--to", "35.6852,139.7528", "--start-time", "2024-05-01T00:00:00Z"]

    /// What parsing `arguments` says, or nil when they parse and validate.
    static func refusal(_ arguments: [String]) -> String? { NumericFlagTests.message(arguments) }

    @Test("An option the run would not use is refused, naming it and where it applies, never silently ignored", arguments: [
        (["line", "--from", "1,1", "--to", "1,2", "--at", "1,1"], "--at applies to stationary, not line"),
        (["circle", "--center", "1,1", "--to", "1,2", "--duration", "5"], "--to applies to line and route, not circle"),
        (["line", "--from", "1,1", "--to", "1,2", "--via", "1,1.5"], "--via applies to route, not line"),
        (["line", "--from", "1,1", "--to", "1,2", "--circle-radius", "50"], "--circle-radius applies to circle, not line"),
        // Given at its default value, it is given all the same.
        (["line", "--from", "1,1", "--to", "1,2", "--circle-radius", "200"], "--circle-radius applies to circle, not line"),
        // The path's own checks are usage errors (status 2), before anything runs.
        (["line", "--from", "0,0", "--to", "0,180"], "is the antipode of 0.0000000,0.0000000"),
        (["stationary", "--at", "1,1", "--from", "1,2", "--duration", "5"], "--from applies to line, route and random-walk, not stationary"),
        (["stationary", "--at", "1,1", "--within", "5", "--duration", "5"], "--within applies to random-walk, not stationary"),
        (["line", "--from", "1,1", "--to", "1,2", "--mps", "3", "--profile", "run"], "--mps sets a constant speed in place of --profile run"),
        (["stationary", "--at", "1,1", "--duration", "3", "--mps", "2"], "--mps applies to a path that moves (line, route, circle, random-walk)"),
        (["stationary", "--at", "1,1", "--duration", "3", "--profile", "drive"], "--profile applies to a path that moves"),
        (["line", "--from", "1,1", "--to", "1,2", "--out", "q.gpx", "--format", "jsonl"], "--format applies to what is printed; with --out"),
        // Times the outputs cannot write are refused before the walk, not part-way or in a file no reader takes.
        (["line", "--from", "1,1", "--to", "1,2", "--out", "y.nmea", "--start-time", "1975-01-01T00:00:00Z"],
         "--start-time 1975-01-01T00:00:00Z: an .nmea file carries years 1980…2079"),
        (["stationary", "--at", "1,1", "--duration", "2d", "--out", "y.nmea", "--start-time", "2079-12-31T12:00:00Z"],
         "an .nmea file carries years 1980…2079"),
        (["line", "--from", "1,1", "--to", "1,2", "--out", "far.gpx", "--start-time", "9999-12-31T23:59:50Z"],
         "a walk must end by 9999-12-31"),
        // A time typed without a zone is refused, not taken as UTC (9 hours off for a tester in Tokyo).
        (["line", "--from", "1,1", "--to", "1,2", "--start-time", "2024-03-31T01:59:59"],
         "--start-time 2024-03-31T01:59:59 has no zone: add Z for UTC (2024-03-31T01:59:59Z) or the offset meant, such as +09:00"),
        (["line", "--from", "1,1", "--to", "1,2", "--radius", "7"], "--radius applies with --map"),
        (["line", "--from", "1,1", "--to", "1,2", "--throttle-interval", "5s"], "--throttle-interval applies with --map"),
        (["line", "--from", "1,1", "--to", "1,2", "--flush"], "--flush applies with --map"),
        (["line", "--from", "1,1", "--to", "1,2", "--geodata", "geodata"], "--geodata applies with --map"),
        (["line", "--from", "1,1", "--to", "1,2", "--report", "r.html"], "--report applies with --map"),
        (["line", "--from", "1,1", "--to", "1,2", "--map", "--online", "http://127.0.0.1:9", "--geodata", "geodata"],
         "--geodata builds the default index, which --online replaces"),
    ])
    func unusedOptions(_ arguments: [String], says: String) {
        let message = Self.refusal(["simulate"] + arguments)
        #expect(message?.contains(says) == true, "\(message ?? "accepted")")
    }

    @Test("A walk without --duration that runs past 2079 into an .nmea file: no file, an error saying why and the ways out, not a code name")
    func nmeaWalkPastItsYears() async throws {
        try await withScratchFolder("locsim-simulate") { directory in
            let out = directory + "/late.nmea"
            let result = try await CLI.run([
                "simulate", "line", "--from", "35.6812,139.7671", "--to", "35.6852,139.7528", "--start-time", "2079-12-31T23:59:00Z", "--out", out,
            ])
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(result.stderr)")
            #expect(
                lines.first == "locsim: error: \(out) not written: the walk has a fix NMEA cannot write "
                    + "(year 2080 is outside 1980…2079, which RMC's two-digit year can say)", "\(result.stderr)")
            #expect(lines.last?.hasPrefix("hint: an .nmea file carries years 1980…2079: give an earlier --start-time") == true, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "no temporary file left")
        }
    }

    @Test("replay --gpsd refuses each option that only a replayed file uses, naming it, rather than ignoring it (exit status 2)", arguments: [
        ["--fast"], ["--speed", "2"], ["--rate", "1"], ["--loop"], ["--start", "5m"], ["--noise", "50"], ["--seed", "3"], ["--lenient"],
    ])
    func fileOnlyOptionsWithGPSD(_ option: [String]) async throws {
        let arguments = ["replay", "--gpsd", "127.0.0.1:2947", "--format", "jsonl"] + option
        let message = Self.refusal(arguments)
        #expect(message?.contains("\(option[0]) applies to a replayed file, not to a live --gpsd source") == true, "\(message ?? "accepted")")
        let result = try await CLI.run(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        // And the file takes it (--seed, with the noise it seeds).
        let alongside = option[0] == "--seed" ? ["--noise", "5"] : []
        #expect(Self.refusal(["replay", "walk.gpx"] + option + alongside) == nil, "\(option)")
    }

    @Test("The same options are taken where they apply")
    func usedOptions() {
        for arguments in [
            ["stationary", "--at", "1,1", "--duration", "5"], ["route", "--from", "1,1", "--via", "1,1.5", "--to", "1,2"],
            ["circle", "--center", "1,1", "--circle-radius", "50", "--duration", "5"], ["random-walk", "--from", "1,1", "--within", "5", "--duration", "5"],
            ["line", "--from", "1,1", "--to", "1,2", "--mps", "3"], ["line", "--from", "1,1", "--to", "1,2", "--profile", "run"],
            ["line", "--from", "1,1", "--to", "1,2", "--map", "--radius", "7", "--flush", "--geodata", "geodata", "--report", "/tmp/r.html"],
            ["line", "--from", "1,1", "--to", "1,2", "--radius", "5000"],  // the default, written out
        ] {
            #expect(Self.refusal(["simulate"] + arguments) == nil, "\(arguments)")
        }
        #expect(Self.refusal(["replay", "walk.gpx", "--online", "http://127.0.0.1:9", "--geodata", "geodata"])?.contains("--geodata builds") == true)
    }

    @Test("The same seed gives byte-identical fixes; another seed does not")
    func reproducible() async throws {
        let a = try await CLI.run(line + ["--seed", "7", "--noise", "3", "--format", "jsonl"])
        let b = try await CLI.run(line + ["--seed", "7", "--noise", "3", "--format", "jsonl"])
        let c = try await CLI.run(line + ["--seed", "8", "--noise", "3", "--format", "jsonl"])
        #expect(a.status == 0 && b.status == 0 && c.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(a.stdout != c.stdout)
        let lines = a.stdout.split(separator: "\n")
        #expect(lines.count > 100)
        #expect(lines.first?.contains(#""t":"2024-05-01T00:00:00.000Z""#) == true)
        #expect(lines.allSatisfy { $0.contains(#""type":"fix""#) && $0.contains(#""accuracy":"#) })
    }

    @Test("--out FILE.gpx --xcode writes <wpt> elements with <time> only (the iOS Simulator's form)")
    func xcodeGPX() async throws {
        try await withScratchFolder("locsim-simulate") { folder in
            let out = folder + "/sim.gpx"
            let result = try await CLI.run(line + ["--out", out, "--xcode"])
            #expect(result.status == 0, "\(result.stderr)")
            let text = try String(contentsOfFile: out, encoding: .utf8)
            #expect(!text.contains("<trk") && !text.contains("<rte"))
            let waypoints = text.components(separatedBy: "<wpt ").count - 1
            let times = text.components(separatedBy: "<time>").count - 1
            #expect(waypoints > 100 && times == waypoints)
            // The file reads back as waypoints with the times one second apart.
            let stats = try await CLI.run(["track", "stats", out, "--format", "json"])
            #expect(stats.stdout.contains(#""waypoints":\#(waypoints)"#))
        }
    }

    @Test("--out FILE.nmea writes checksummed sentences; --map runs the map logic")
    func nmeaAndMap() async throws {
        try await withScratchFolder("locsim-simulate") { folder in
            let out = folder + "/sim.nmea"
            #expect(try await CLI.run(line + ["--out", out]).status == 0)
            let sentences = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\r\n")
            #expect(sentences.contains { $0.hasPrefix("$GPRMC,") })
            #expect(sentences.contains { $0.hasPrefix("$GPGGA,") })
            for sentence in sentences {
                let body = sentence.dropFirst().prefix { $0 != "*" }
                let checksum = body.utf8.reduce(UInt8(0), ^)
                #expect(sentence.hasSuffix("*" + String(format: "%02X", checksum)), "\(sentence)")
            }

            let map = try await CLI.run(
                ["simulate", "circle", "--center", "35.68,139.76", "--circle-radius", "300", "--duration", "300",
                 "--start-time", "2024-05-01T00:00:00Z", "--map", "--format", "jsonl", "--radius", "1000", "--geodata", "geodata"])
            #expect(map.status == 0, "\(map.stderr)")
            #expect(map.stdout.contains(#""type":"fetch""#) && map.stdout.contains(#""reason":"first""#))
            #expect(map.stdout.split(separator: "\n").last?.contains(#""type":"summary""#) == true)
        }
    }
}
