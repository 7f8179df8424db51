#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// Issue 17, items 1 and 2: no input crashes or stalls the command, and every error is two
/// readable lines (`locsim: error: …`, `hint: …`) with the right exit status.
@Suite(.timeLimit(.minutes(1))) struct CommandHardeningTests {
    static let track = "tracks/sf-mission-walk.gpx"
    static let line = ["simulate", "line", "--from", "35.68,139.76", "--to", "35.69,139.77"]

    /// One bad value, and the flag the message must name.
    struct BadOption: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let flag: String
        var testDescription: String { arguments.joined(separator: " ") }
        init(_ arguments: [String], _ flag: String) {
            self.arguments = arguments
            self.flag = flag
        }
    }

    static let badOptions: [BadOption] = [
        // Values that aborted with exit 132 (Double → Int64) or ran with nonsense.
        BadOption(["replay", "--fast", "--radius", "1e19", track], "--radius"),
        BadOption(["replay", "--fast", "--radius", "0.5", track], "--radius"),
        BadOption(["replay", "--fast", "--throttle-interval", "1e16", track], "--throttle-interval"),
        BadOption(["serve", "--throttle-interval", "1e16"], "--throttle-interval"),
        BadOption(["serve", "--audit-tolerance", "1e16"], "--audit-tolerance"),
        BadOption(["serve", "--max-radius", "1e19"], "--max-radius"),
        BadOption(["replay", "--fast", "--throttle-distance", "1e300", track], "--throttle-distance"),
        BadOption(["replay", "--fast", "--throttle-distance", "-1", track], "--throttle-distance"),
        BadOption(["replay", "--fast", "--reach", "1e30", track], "--reach"),
        BadOption(["replay", "--fast", "--noise", "1e30", track], "--noise"),
        BadOption(["replay", "--fast", "--rate", "1000", track], "--rate"),
        BadOption(["replay", "--fast", "--start", "99:00:00", track], "--start"),
        BadOption(["replay", "--fast", "--start", "1e300", track], "--start"),
        // A scenario's polyline route goes through the same check as a file's path.
        BadOption(["replay", "--scenario", "tracks/scenarios/polyline-walk.json", "--fast", "--start", "99:00:00"], "--start"),
        BadOption(["replay", "--speed", "1e9", track], "--speed"),
        BadOption(["replay", "--gpsd", "127.0.0.1:99999"], "--gpsd"),
        BadOption(line + ["--map", "--radius", "1e19"], "--radius"),
        BadOption(line + ["--map", "--throttle-interval", "1e16"], "--throttle-interval"),
        BadOption(line + ["--noise", "1e30"], "--noise"),
        BadOption(line + ["--mps", "1e300"], "--mps"),
        BadOption(line + ["--rate", "0"], "--rate"),
        BadOption(line + ["--seed", "-1"], "--seed"),
        BadOption(["replay", "--fast", "--seed", "18446744073709551616", track], "--seed"),
        BadOption(["simulate", "random-walk", "--from", "35,139", "--within", "1e30", "--duration", "10"], "--within"),
        BadOption(["simulate", "circle", "--center", "35,139", "--circle-radius", "1e30", "--duration", "10"], "--circle-radius"),
        BadOption(["simulate", "stationary", "--at", "35,139", "--duration", "1e300"], "--duration"),
        BadOption(["nmea", "serve", "--port", "4001", "--from", "35,139", "--mps", "1e300"], "--mps"),
        BadOption(["nmea", "serve", "--port", "4001", "--from", "35,139", "--altitude", "1e9"], "--altitude"),
        BadOption(["nmea", "serve", "--port", "4001", "--from", "35,139", "--count", "0"], "--count"),
        // gpsd takes a fix with no satellites in use for none: it would report no fix at all.
        BadOption(["nmea", "serve", "--port", "4001", "--from", "35,139", "--satellites", "0"], "--satellites 0"),
        BadOption(["nmea", "serve", "--port", "4001", "--from", "35,139", "--bearing", "1e300"], "--bearing"),
        BadOption(["nmea", "serve", "--port", "70000", "--from", "35,139"], "--port"),
        BadOption(["gpsd", "--port", "0"], "--port"),
        BadOption(["index", "query", "--lat", "1", "--lon", "1", "--radius", "1e9"], "--radius"),
        BadOption(["index", "query", "--lat", "1", "--lon", "1", "--radius", "10", "--limit", "0"], "--limit"),
        BadOption(["index", "query", "--lat", "100", "--lon", "1", "--radius", "10"], "--lat"),
        BadOption(["serve", "--drain-period", "2h"], "--drain-period"),
        // The server's own limits (NearbyServer.Configuration), named by flag as the others.
        BadOption(["serve", "--port", "70000"], "--port"),
        BadOption(["serve", "--max-connections", "0"], "--max-connections"),
        BadOption(["serve", "--header-timeout", "2d"], "--header-timeout"),
        BadOption(["serve", "--idle-timeout", "0s"], "--idle-timeout"),
        BadOption(["serve", "--port", "18183", "--gpsd-port", "18183"], "--gpsd-port"),
        BadOption(["serve", "--event-heartbeat", "0s"], "--event-heartbeat"),
        BadOption(["serve", "--event-heartbeat", "2h"], "--event-heartbeat"),
    ]

    @Test("A numeric option out of range stops at parse time: exit 2, the flag named, two lines", arguments: badOptions)
    func badOption(_ option: BadOption) async throws {
        let result = try await CLI.run(option.arguments)
        #expect(result.status == 2, "\(result.stderr)")
        let lines = try Self.expectErrorLines(result)
        #expect(lines[0].contains(option.flag), "the message names \(option.flag): \(lines[0])")
        #expect(lines[1].contains("locsim \(option.arguments[0])"), "the hint points at the command's help: \(lines[1])")
        #expect(result.stdout.isEmpty, "nothing ran")
    }

    @Test("A walk given wrong (none, or beside --gpsd or --from) is a usage error naming every format a walk can be, not GPX alone")
    func walkUsageNamesEveryFormat() async throws {
        for arguments in [
            ["replay"], ["replay", "walk.nmea", "--gpsd", "127.0.0.1:2947"],
            ["nmea", "serve", "--port", "4001", "walk.nmea", "--from", "35,139"],
        ] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            let lines = try Self.expectErrorLines(result)
            #expect(lines[0].contains("(GPX, NMEA, GeoJSON or KML)"), "\(arguments): \(lines[0])")
        }
    }

    /// Every duration flag: the command line before it, and the flag.
    static let durationFlags: [BadOption] = [
        BadOption(["serve", "--latency"], "--latency"), BadOption(["serve", "--latency-jitter"], "--latency-jitter"),
        BadOption(["serve", "--throttle-interval"], "--throttle-interval"),
        BadOption(["serve", "--audit-tolerance"], "--audit-tolerance"),
        BadOption(["serve", "--drain-period"], "--drain-period"), BadOption(["serve", "--event-heartbeat"], "--event-heartbeat"),
        BadOption(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--start"], "--start"),
        BadOption(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--throttle-interval"], "--throttle-interval"),
        BadOption(["simulate", "stationary", "--at", "35.68,139.76", "--duration"], "--duration"),
        BadOption(["nmea", "serve", "--port", "1", "--interval"], "--interval"),
        BadOption(["swarm", "--players", "2", "--duration"], "--duration"), BadOption(["swarm", "--players", "2", "--ramp"], "--ramp"),
        BadOption(["swarm", "--players", "2", "--server", "http://127.0.0.1:1", "--timeout"], "--timeout"),
    ]

    @Test("Every duration flag reads one grammar: a negative value is 'must not be negative' naming the flag; junk says what a duration is",
        arguments: durationFlags)
    func durationFlag(_ option: BadOption) async throws {
        try await Self.expectRefused(option, valueName: "duration", [
            ("-5s", "must not be negative"), ("-1:30", "must not be negative"),
            ("5 minutes", "must be a duration such as 500ms, 30s, 5m, 2h, 1d, 1h30m, 1:30 (m:ss), 1:30:00 (h:mm:ss) or plain seconds (90, 1.5)"),
        ])
    }

    @Test("Files made for a user follow the umask, as '>' makes them (002: a team's group may write them); 077 keeps them private")
    func outputsFollowUmask() async throws {
        try await withScratchFolder("locsim-umask") { directory in
            for (umask, mode) in [("002", 0o664), ("077", 0o600)] {
                let command = "umask \(umask) && \"$0\" simulate line --from 1,1 --to 1,1.001 --start-time 2024-01-01T00:00:00Z --out o\(umask).gpx"
                    + " && \"$0\" index import \"$1\" --db i\(umask).sqlite"
                let run = try await ChildProcess.run(
                    ["/bin/sh", "-c", command, CLI.binary, PackagePaths.root + "/geodata/sf-mission.csv"],
                    environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory], directory: directory)
                #expect(run.status == 0, "\(run.errors)")
                for name in ["o\(umask).gpx", "i\(umask).sqlite"] {
                    var info = stat()
                    #expect(stat(directory + "/" + name, &info) == 0 && info.st_mode & 0o777 == mode, "\(name): \(String(info.st_mode & 0o777, radix: 8))")
                }
            }
        }
    }

    @Test("A file this user may not write is refused as cp refuses it (a root-owned 444 report in a shared folder), not replaced",
          .enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"), "needs root and runuser to act as another user"))
    func readOnlyOutputRefused() async throws {
        try await withScratchFolder("locsim-readonly-output") { directory in
            try #require(chmod(directory, 0o1777) == 0)
            let report = directory + "/root-ro.gpx"
            try "root's".write(toFile: report, atomically: false, encoding: .utf8)
            try #require(chmod(report, 0o444) == 0)
            let run = try await ChildProcess.run(
                ["/usr/sbin/runuser", "-u", "nobody", "--", CLI.binary, "simulate", "line", "--from", "1,1", "--to", "1,1.001",
                 "--out", report], environment: ["LOCSIM_CACHE_DIR": directory + "/cache"], directory: directory)
            #expect(run.status == 1, "\(run.errors)")
            #expect(run.errors.contains("this user may not write the file there"), "\(run.errors)")
            #expect(try String(contentsOfFile: report, encoding: .utf8) == "root's")
        }
    }

    typealias RunAs = (_ user: String, _ arguments: [String]) async throws -> ChildProcess.Outcome

    /// What ``withSharedIndex(_:)`` needs: root, runuser and the users daemon and nobody.
    static let asOtherUsers = ConditionTrait.enabled(
        if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") && getpwnam("daemon") != nil,
        "needs root, runuser and the users daemon and nobody")

    /// `body` with `places.sqlite` imported by `daemon` (from geodata/sf-mission.csv) in a folder
    /// everyone may write, as /tmp, and a way to run locsim there as another user.
    static func withSharedIndex(_ body: (_ index: String, _ run: RunAs) async throws -> Void) async throws {
        try await withScratchFolder("locsim-shared-index") { directory in
            try #require(chmod(directory, 0o1777) == 0)
            let index = directory + "/places.sqlite"
            let run: RunAs = { user, arguments in
                try await ChildProcess.run(
                    ["/usr/sbin/runuser", "-u", user, "--", CLI.binary] + arguments, environment: ["LOCSIM_CACHE_DIR": directory + "/cache-" + user],
                    directory: directory)
            }
            let csv = PackagePaths.root + "/geodata/sf-mission.csv"
            #expect(try await run("daemon", ["index", "import", csv, "--db", index]).status == 0)
            try await body(index, run)
        }
    }

    @Test("Another user's read of an index leaves its -wal and -shm; the owner's next import says so, naming them and who may remove them",
          Self.asOtherUsers)
    func readersLeftovers() async throws {
        try await Self.withSharedIndex { index, run in
            let csv = PackagePaths.root + "/geodata/sf-mission.csv"
            #expect(try await run("nobody", ["index", "query", "--db", index, "--lat", "37.76", "--lon", "-122.42", "--radius", "50"]).status == 0)
            let again = try await run("daemon", ["index", "import", csv, "--db", index])
            #expect(again.status == 1)
            #expect(
                again.errors.contains(
                    "places.sqlite-wal and places.sqlite-shm beside it belong to nobody, whose read of the index left them, and this user may not write them: "
                        + "once no one has the index open, have nobody or root remove \(index)-wal and \(index)-shm"), "\(again.errors)")
        }
    }

    @Test("An import by a user who may not write the index is refused before it writes anything: no -wal or -shm of theirs to block the owner",
          Self.asOtherUsers)
    func importWithoutWriteAccess() async throws {
        try await Self.withSharedIndex { index, run in
            let csv = PackagePaths.root + "/geodata/sf-mission.csv"
            let refused = try await run("nobody", ["index", "import", csv, "--db", index])
            #expect(refused.status == 1)
            #expect(
                refused.errors.contains("places.sqlite: read-only database: this user (nobody) may not write the index (its owner: daemon, mode 644); nothing was written"),
                "\(refused.errors)")
            #expect(!FileManager.default.fileExists(atPath: index + "-wal") && !FileManager.default.fileExists(atPath: index + "-shm"))
            let again = try await run("daemon", ["index", "import", csv, "--db", index])
            #expect(again.status == 0, "\(again.errors)")
            // The owner's own read of the index while it was read-only leaves files of its mode.
            try #require(chmod(index, 0o444) == 0)
            #expect(try await run("daemon", ["index", "query", "--db", index, "--lat", "37.76", "--lon", "-122.42", "--radius", "50"]).status == 0)
            try #require(chmod(index, 0o644) == 0)
            let blocked = try await run("daemon", ["index", "import", csv, "--db", index])
            #expect(blocked.status == 1)
            #expect(blocked.errors.contains("this user's but read-only (made with the index's mode by an earlier read): once no one has the index open, remove \(index)-wal and \(index)-shm"), "\(blocked.errors)")
        }
    }

    @Test("A cache shared between users (LOCSIM_CACHE_DIR, sticky as /tmp): another user's earlier builds are theirs, left in place, and this user's build is served",
          .enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"), "needs root and runuser to act as another user"))
    func sharedCacheOtherUsersBuilds() async throws {
        try await withScratchFolder("locsim-shared-cache") { directory in
            try #require(chmod(directory, 0o755) == 0)
            let cache = directory + "/cache"
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            try #require(chmod(cache, 0o1777) == 0)
            // Geodata folders that differ, as checkouts at different commits.
            func geodata(_ number: Int) throws -> String {
                let folder = directory + "/geodata-\(number)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try "id,name,lat,lon\np\(number),Place \(number),10,20\n".write(toFile: folder + "/places.csv", atomically: true, encoding: .utf8)
                return folder
            }
            func stats(_ number: Int, as user: String? = nil) async throws -> ChildProcess.Outcome {
                let command = [CLI.binary, "index", "stats", "--geodata", try geodata(number)]
                return try await ChildProcess.run(
                    (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + command, environment: ["LOCSIM_CACHE_DIR": cache],
                    directory: directory)
            }
            // Four builds of root's, one more than a cache keeps beside the current one.
            for number in 1...4 {
                let run = try await stats(number)
                #expect(run.status == 0, "\(run.errors)")
            }
            let roots = Set(try FileManager.default.contentsOfDirectory(atPath: cache))
            #expect(roots.count == 4)
            let theirs = try await stats(5, as: "nobody")
            #expect(theirs.status == 0, "\(theirs.errors)")
            let places = theirs.output.split(separator: "\n").first { $0.hasPrefix("places:") }
            #expect(places?.dropFirst("places:".count).trimmingCharacters(in: .whitespaces) == "1", "\(theirs.output)")
            // root's oldest is past the three kept, but nobody may not remove it: it stays.
            let files = Set(try FileManager.default.contentsOfDirectory(atPath: cache))
            #expect(files.isSuperset(of: roots) && files.count == 5, "\(files)")
        }
    }

    @Test("help names commands: a misspelt one is a usage error listing the known ones, not the nearest command's help and status 0")
    func helpTopic() async throws {
        try await Self.expectUsageErrors([
            (["help", "replya"], "no command 'replya' in 'locsim'; its commands: track, index, replay, simulate, gpsd, nmea, serve, swarm"),
            (["help", "index", "querry"], "no command 'querry' in 'locsim index'; its commands: import, query, stats"),
            (["help", "track", "stats", "x"], "no command 'x' in 'locsim track stats' (it has no subcommands)"),
        ])
        let known = try await CLI.run(["help", "index", "query"])
        #expect(known.status == 0)
        #expect(known.stdout.hasPrefix("OVERVIEW: Places within a radius"))
        // help after a command's name, as git takes it, says where help goes.
        for (arguments, words) in [(["nmea", "help", "serve"], "nmea serve"), (["index", "help", "import", "x.csv"], "index import")] {
            let late = try await CLI.run(arguments)
            #expect(late.status == 2, "\(late.stderr)")
            let lines = try Self.expectErrorLines(late)
            #expect(lines[1] == "hint: help comes first: 'locsim help \(words)', or 'locsim \(words) --help'", "\(lines[1])")
        }
    }

    @Test("An option the rest of the command line would ignore is refused, naming what it is for")
    func ignoredOptions() async throws {
        let track = "tracks/sf-mission-walk.gpx"
        let straightLine = [["--bearing", "90"], ["--mps", "3"], ["--interval", "2s"], ["--count", "5"], ["--altitude", "40"]].map { flag in
            (["nmea", "serve", track, "--port", "0"] + flag,
             "\(flag[0]) is for straight-line motion (--from LAT,LON): \(track)'s own points set the way and the pace")
        }
        try await Self.expectUsageErrors(
            [(["replay", track, "--fast", "--seed", "7"], "--seed seeds the noise: add --noise SIGMA, or leave --seed out")] + straightLine)
    }

    @Test("replay --device picks a live --gpsd source's device: without --gpsd, or empty, it is refused naming what to give")
    func replayDevice() async throws {
        try await Self.expectUsageErrors([
            (["replay", "tracks/sf-mission-walk.gpx", "--device", "/dev/ttyACM0"], "--device picks one of a live --gpsd source's devices: give --gpsd HOST:PORT too"),
            (["replay", "--gpsd", "127.0.0.1:2947", "--device", ""], "--device must not be empty"),
        ])
    }

    @Test("serve --latency-jitter wider than --latency (or without it), and rates outside 0...1, are refused by the fault plan, naming the flag")
    func jitterWithinLatency() async throws {
        let spread = "below zero, where a delay cannot go (give a latency at least as large as the jitter)"
        try await Self.expectUsageErrors([
            (["--latency-jitter", "200ms"], "--latency-jitter: a jitter of ± 0.2 s spreads a latency of 0 s " + spread),
            (["--latency", "100ms", "--latency-jitter", "0.2"], "--latency-jitter: a jitter of ± 0.2 s spreads a latency of 0.1 s " + spread),
            (["--fail-rate", "1.5"], "--fail-rate: fail rate must be within 0...1, got 1.5"),
            (["--timeout-rate", "2"], "--timeout-rate: timeout rate must be within 0...1, got 2"),
        ].map { (["serve", "--port", "0"] + $0.0, $0.1) })
    }

    @Test("serve refuses an audit whose interval, divided by --audit-speed, is within its tolerance, or 0: no request could be too soon")
    func auditIntervalOverTolerance() async throws {
        let remedy = ": the audit could flag no request as too soon (give a tolerance shorter than that)"
        try await Self.expectUsageErrors([
            (["--audit-speed", "100"], "--audit-tolerance: the interval 30 s at speed 100 leaves 0.3 s between fetches, no more than the tolerance 1 s" + remedy),
            (["--throttle-interval", "1s"], "--audit-tolerance: the interval 1 s leaves 1 s between fetches, no more than the tolerance 1 s" + remedy),
            // 0 made every request due and was accepted, while 1ms was refused.
            (["--throttle-interval", "0"], "--throttle-interval: 0 s makes every request due (the rule then fetches on every fix): "
                + "the audit could flag no request as too soon (give the app's interval: the game's is 30s)"),
        ].map { (["serve", "--port", "0"] + $0.0, $0.1) })
    }

    /// Each of `values` after `option`'s command line is a usage error whose message names the
    /// flag as ArgumentParser does (`'--seed <seed>'`) and ends with what the value says.
    static func expectRefused(_ option: BadOption, valueName: String, _ values: [(value: String, says: String)]) async throws {
        for (value, says) in values {
            let result = try await CLI.run(option.arguments + [value])
            #expect(result.status == 2, "\(value): \(result.stderr)")
            let lines = try expectErrorLines(result)
            #expect(lines[0].contains("'\(option.flag) <\(valueName)>'") && lines[0].hasSuffix(says), "\(value): \(lines[0])")
        }
    }

    /// Every seed flag: the command line before it, and the flag.
    static let seedFlags: [BadOption] = [
        BadOption(["simulate", "stationary", "--at", "35.68,139.76", "--duration", "2", "--seed"], "--seed"),
        BadOption(["replay", "tracks/sf-mission-walk.gpx", "--fast", "--seed"], "--seed"),
        BadOption(["serve", "--port", "0", "--seed"], "--seed"),
        BadOption(["swarm", "--virtual", "--players", "2", "--seed"], "--seed"),
    ]

    @Test("Every seed flag says why a value is none: negative, or not a whole number in range", arguments: seedFlags)
    func seedFlag(_ option: BadOption) async throws {
        try await Self.expectRefused(option, valueName: "seed", [
            ("-1", "must not be negative"), ("1.5", "must be a whole number 0...18446744073709551615"),
            ("18446744073709551616", "must be a whole number 0...18446744073709551615"),
        ])
    }

    /// Every coordinate flag: the command line before it, and the flag.
    static let coordinateFlags: [BadOption] = [
        BadOption(["simulate", "stationary", "--duration", "2", "--at"], "--at"),
        BadOption(["simulate", "line", "--to", "35.69,139.77", "--from"], "--from"),
        BadOption(["simulate", "line", "--from", "35.68,139.76", "--to"], "--to"),
        BadOption(["simulate", "route", "--from", "35.68,139.76", "--to", "35.69,139.77", "--via"], "--via"),
        BadOption(["simulate", "circle", "--duration", "2", "--center"], "--center"),
        BadOption(["nmea", "serve", "--port", "1", "--from"], "--from"),
    ]

    @Test("Every coordinate flag says what is wrong with its value: the shape, which number, or its range",
        arguments: coordinateFlags)
    func coordinateFlag(_ option: BadOption) async throws {
        for (value, says) in [
            ("35.68", "must be LAT,LON in decimal degrees, such as 35.6812,139.7671"),
            ("35.68,east", "the longitude 'east' is not a number (LAT,LON in decimal degrees)"),
            ("-91,139", "the latitude -91.0 is out of range; expected degrees in -90...90"),
        ] {
            let result = try await CLI.run(option.arguments + [value])
            #expect(result.status == 2, "\(value): \(result.stderr)")
            let lines = try Self.expectErrorLines(result)
            #expect(lines[0].contains("'\(option.flag) <lat,lon>'") && lines[0].hasSuffix(says), "\(value): \(lines[0])")
        }
    }

    /// A run-time failure, the environment it needs, and what the message must say.
    struct Failure: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let environment: [String: String]
        let says: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let scratch: String = {
        let path = processScratchFolder("locsim-hardening")
        _ = FileManager.default.createFile(atPath: path + "/plain-file", contents: Data("x".utf8))
        return path
    }()

    static let failures: [Failure] = [
        Failure(arguments: ["replay", "/nonexistent/walk.gpx", "--fast"], environment: [:], says: "No such file or directory"),
        Failure(arguments: ["replay", scratch, "--fast"], environment: [:], says: "cannot read: Is a directory"),
        Failure(arguments: ["track", "stats", scratch], environment: [:], says: "cannot read: Is a directory"),
        Failure(
            arguments: ["replay", track, "--fast"], environment: ["LOCSIM_CACHE_DIR": scratch + "/plain-file/cache"],
            says: "Not a directory"),
        Failure(arguments: ["replay", track, "--fast", "--geodata", "/nonexistent"], environment: [:], says: "No such file or directory"),
        Failure(
            arguments: ["index", "import", "/nonexistent/places.csv", "--db", scratch + "/never.sqlite"], environment: [:],
            says: "No such file or directory"),
        Failure(arguments: ["index", "query", "--queries", scratch, "--format", "jsonl"], environment: [:], says: "Is a directory"),
        // Output paths are checked before the run: nothing is printed first.
        Failure(arguments: ["replay", track, "--fast", "--report", "/nonexistent/r.html"], environment: [:], says: "--report"),
        Failure(arguments: ["replay", track, "--fast", "--report", scratch], environment: [:], says: "is a directory"),
        Failure(arguments: line + ["--out", "/nonexistent/walk.gpx"], environment: [:], says: "--out"),
        // A folder is a folder whatever extension checks come first (they were status 2).
        Failure(arguments: line + ["--out", scratch], environment: [:], says: "--out \(scratch) is a directory"),
        Failure(arguments: ["gpsd", "--port", "1", "--record", scratch], environment: [:], says: "--record \(scratch) is a directory"),
        Failure(arguments: line + ["--map", "--report", "/nonexistent/r.html"], environment: [:], says: "--report"),
    ]

    @Test("Run-time failures: exit 1, the system's reason in one line, never a Foundation dump", arguments: failures)
    func runtimeFailure(_ failure: Failure) async throws {
        var arguments = failure.arguments
        let readsPlaces = arguments[0] == "replay" || (arguments[0] == "simulate" && arguments.contains("--map"))
        if readsPlaces && !arguments.contains("--geodata") { arguments += ["--geodata", "geodata"] }
        let result = try await CLI.run(arguments, environment: failure.environment)
        #expect(result.status == 1, "\(result.stderr)")
        let lines = try Self.expectErrorLines(result)
        #expect(lines[0].contains(failure.says), "\(lines[0])")
        #expect(result.stdout.isEmpty, "the failure comes before any output")
    }

    @Test("A report under a data format's name (x.json, x.GPX) is refused before the run: every report is an HTML page")
    func reportUnderADataName() async throws {
        try await withScratchFolder("locsim-report-name") { directory in
            let walk = PackagePaths.path("tracks/sf-mission-walk.gpx")
            for (arguments, name) in [
                (["replay", walk, "--fast", "--report", directory + "/run.json"], "run.json"),
                (["replay", walk, "--fast", "--report", directory + "/run.GPX"], "run.GPX"),
                (["serve", "--port", "0", "--audit-report", directory + "/audit.jsonl"], "audit.jsonl"),
            ] {
                let result = try await CLI.run(arguments + ["--geodata", "geodata"])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = try Self.expectErrorLines(result)
                #expect(lines[0].hasSuffix("\(name): the report is an HTML page, not a .\(name.split(separator: ".").last!.lowercased()) file"), "\(lines[0])")
                #expect(lines[1].hasPrefix("hint: give it a name ending in .html"), "\(lines[1])")
                #expect(!FileManager.default.fileExists(atPath: directory + "/" + name))
            }
        }
    }

    @Test("An output that names a file the command reads is refused before the run, and the file is left as it was")
    func outputOverInput() async throws {
        try await withScratchFolder("locsim-same-file") { directory in
            let walk = directory + "/walk.gpx"
            try FileManager.default.copyItem(atPath: PackagePaths.path("tracks/sf-mission-walk.gpx"), toPath: walk)
            try FileManager.default.createSymbolicLink(atPath: directory + "/link.gpx", withDestinationPath: "walk.gpx")
            try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: false)
            let scenario = directory + "/s.json"
            try #"{"route": {"file": "walk.gpx"}}"#.write(toFile: scenario, atomically: true, encoding: .utf8)
            let original = try Data(contentsOf: URL(fileURLWithPath: walk))
            let cases: [(arguments: [String], says: String)] = [
                (["replay", walk, "--fast", "--report", walk], "--report \(walk) is the track to replay"),
                (["replay", walk, "--fast", "--report", directory + "/link.gpx"], "is the track to replay"),
                (["replay", walk, "--fast", "--report", directory + "/./walk.gpx"], "is the track to replay"),
                (["replay", "--scenario", scenario, "--fast", "--report", scenario], "--report \(scenario) is the scenario"),
                (["replay", "--gpsd", "127.0.0.1:1", "--record", directory + "/r.gpx", "--report", directory + "/r.gpx"], "is the --record file"),
                (["replay", "--gpsd", "127.0.0.1:1", "--record", directory + "/r.gpx", "--report", directory + "/sub/../r.gpx"], "is the --record file"),
                (["simulate", "line", "--from", "37.76,-122.42", "--to", "37.77,-122.42", "--map", "--scenario", scenario, "--report", scenario],
                 "is the scenario"),
                (["serve", "--port", "0", "--player", "a=\(walk)", "--audit-report", walk], "is player a's file"),
            ]
            for (arguments, says) in cases {
                let result = try await CLI.run(arguments + ["--geodata", "geodata"])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = try Self.expectErrorLines(result)
                #expect(lines[0].contains(says) && lines[0].hasSuffix("writing it would replace it"), "\(lines[0])")
                #expect(try Data(contentsOf: URL(fileURLWithPath: walk)) == original)
                #expect(try String(contentsOfFile: scenario, encoding: .utf8).hasPrefix("{"))
            }
            // A scenario's route file, read or not (a track argument replaces the route): a route
            // has a data format's name, which no report takes.
            for arguments in [
                ["replay", "--scenario", scenario, "--fast", "--report", walk],
                ["replay", PackagePaths.path("tracks/tokyo-marunouchi-walk.gpx"), "--scenario", scenario, "--fast", "--report", walk],
                ["simulate", "line", "--from", "37.76,-122.42", "--to", "37.77,-122.42", "--map", "--scenario", scenario, "--report", walk],
            ] {
                let result = try await CLI.run(arguments + ["--geodata", "geodata"])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = try Self.expectErrorLines(result)
                #expect(lines[0].hasSuffix("the report is an HTML page, not a .gpx file"), "\(lines[0])")
                #expect(try Data(contentsOf: URL(fileURLWithPath: walk)) == original)
            }
            // swarm --server's report: never the index it reads, nor a track of --tracks.
            let tracks = directory + "/tracks"
            try FileManager.default.createDirectory(atPath: tracks, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: walk, toPath: tracks + "/walk.gpx")
            let index = directory + "/places.sqlite"
            let imported = try await CLI.run(["index", "import", PackagePaths.path("geodata/sf-mission.csv"), "--db", index])
            #expect(imported.status == 0, "\(imported.stderr)")
            let swarm = ["swarm", "--server", "http://127.0.0.1:1", "--players", "1", "--duration", "1", "--area", "37.76,-122.42,3000"]
            for (arguments, says, file) in [
                (swarm + ["--tracks", tracks, "--report", tracks + "/walk.gpx"], "is a track of --tracks", tracks + "/walk.gpx"),
                (swarm + ["--db", index, "--report", index], "--report \(index) is the place index", index),
            ] {
                let before = try Data(contentsOf: URL(fileURLWithPath: file))
                let result = try await CLI.run(arguments)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = try Self.expectErrorLines(result)
                #expect(lines[0].contains(says) && lines[0].hasSuffix("writing it would replace it"), "\(lines[0])")
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
            }
            // The default index's own files: a place CSV of the --geodata folder, and its cache.
            let places = directory + "/geo"
            try FileManager.default.createDirectory(atPath: places, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: PackagePaths.path("geodata/sf-mission.csv"), toPath: places + "/sf-mission.csv")
            let csv = try Data(contentsOf: URL(fileURLWithPath: places + "/sf-mission.csv"))
            let cache = directory + "/cache"
            for (arguments, says) in [
                (["replay", walk, "--fast", "--report", places + "/sf-mission.csv"], "is a place CSV of the default index"),
                (["simulate", "line", "--from", "37.76,-122.42", "--to", "37.77,-122.42", "--map", "--report", places + "/sf-mission.csv"],
                 "is a place CSV of the default index"),
            ] {
                let result = try await CLI.run(arguments + ["--geodata", places], environment: ["LOCSIM_CACHE_DIR": cache])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = try Self.expectErrorLines(result)
                #expect(lines[0].contains(says) && lines[0].hasSuffix("writing it would replace it"), "\(lines[0])")
                #expect(try Data(contentsOf: URL(fileURLWithPath: places + "/sf-mission.csv")) == csv)
            }
            let built = try await CLI.run(["index", "stats", "--geodata", places], environment: ["LOCSIM_CACHE_DIR": cache])
            #expect(built.status == 0, "\(built.stderr)")
            let cached = try #require(try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.hasSuffix(".sqlite") })
            let overCache = try await CLI.run(
                ["replay", walk, "--fast", "--report", cache + "/" + cached, "--geodata", places], environment: ["LOCSIM_CACHE_DIR": cache])
            #expect(overCache.status == 2, "\(overCache.stderr)")
            #expect(overCache.stderr.contains("is the default index's cache: writing it would replace it"), "\(overCache.stderr)")
            // Not an input: a report to a symbolic link is written through it, the link kept.
            try FileManager.default.createSymbolicLink(atPath: directory + "/report-link.html", withDestinationPath: "report.html")
            let through = try await CLI.run(["replay", walk, "--fast", "--report", directory + "/report-link.html", "--geodata", "geodata"])
            #expect(through.status == 0, "\(through.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/report-link.html") == "report.html")
            #expect(try String(contentsOfFile: directory + "/report.html", encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        }
    }

    @Test("Standard output that cannot be written (a full disk) is an error, exit 1, not a lost log and exit 0", arguments: [
        ["replay", track, "--fast", "--format", "jsonl", "--geodata", "geodata"],
        line,
        ["track", "stats", track],
        ["index", "stats", "--geodata", "geodata"],
        ["--help"], ["replay", "--help"], ["--version"],
    ])
    func fullDisk(_ arguments: [String]) async throws {
        let command = ([CLI.binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try await ChildProcess.run(
            ["/bin/sh", "-c", command + " > /dev/full"], environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory], directory: PackagePaths.root)
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.split(separator: "\n") == [
            "locsim: error: cannot write standard output: No space left on device; what it shows is incomplete",
            "hint: make room where standard output goes, or send it elsewhere",
        ])
    }

    @Test(
        "Standard output closed (>&-), or a reader gone with SIGPIPE ignored: each error's hint fits its cause; a run that stops on Ctrl-C stops so, status 141"
    )
    func closedOrAbandonedOutput() async throws {
        let command = ([CLI.binary] + ["track", "stats", Self.track]).map { "'\($0)'" }.joined(separator: " ")
        let closed = try await ChildProcess.run(
            ["/bin/sh", "-c", command + " >&-"], environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory], directory: PackagePaths.root)
        #expect(closed.status == 1, "\(closed.errors)")
        #expect(closed.errors.contains("hint: standard output is closed; give it somewhere to go"), "\(closed.errors)")
        // Python starts its children with SIGPIPE ignored unless told otherwise: the write fails with EPIPE.
        let script = """
            import signal, subprocess, sys
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
            child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=False)
            child.stdout.read(10); child.stdout.close()
            sys.stderr.write(child.stderr.read().decode()); sys.exit(child.wait())
            """
        // A one-shot command writes on to its end, then says its output is incomplete.
        let abandoned = try await ChildProcess.run(
            [
                "/usr/bin/env", "python3", "-c", script, CLI.binary, "index", "query", "--geodata", "geodata", "--lat", "35.68", "--lon",
                "139.76", "--radius", "20000", "--limit", "100000",
            ],
            environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory], directory: PackagePaths.root)
        #expect(abandoned.status == 1, "\(abandoned.errors)")
        #expect(abandoned.errors.contains("Broken pipe"), "\(abandoned.errors)")
        #expect(abandoned.errors.contains("hint: the program reading standard output stopped reading"), "\(abandoned.errors)")
        // A run that stops cleanly on Ctrl-C stops the same way, its report written, as SIGPIPE would end it.
        try await withScratchFolder("locsim-pipe") { folder in
            let report = folder + "/walk.html"
            let replay = try await ChildProcess.run(
                [
                    "/usr/bin/env", "python3", "-c", script, CLI.binary, "replay", Self.track, "--fast", "--format", "jsonl", "--geodata", "geodata",
                    "--report", report,
                ],
                environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory], directory: PackagePaths.root)
            #expect(replay.status == 128 + SIGPIPE, "\(replay.errors)")
            #expect(replay.errors == "report written to \(report)\n")
            let page = try String(contentsOfFile: report, encoding: .utf8)
            #expect(page.contains(#"["interrupted","yes"]"#), "\(page.prefix(300))")
        }
    }

    @Test("Southern and western coordinates work as typed, in every coordinate option", arguments: [
        ["simulate", "line", "--from", "-33.85,151.21", "--to", "-33.86,151.22"],
        ["simulate", "route", "--from", "-33.85,-70.6", "--via", "-33.851,-70.61", "--to", "-33.86,-70.62"],
        ["simulate", "stationary", "--at", "-33.85,-70.6", "--duration", "2"],
        ["simulate", "circle", "--center", "-33.85,-70.6", "--duration", "2"],
        ["simulate", "random-walk", "--from", "-0.5,-0.5", "--duration", "2"],
    ])
    func negativeCoordinates(_ arguments: [String]) async throws {
        let result = try await CLI.run(arguments + ["--format", "jsonl", "--start-time", "2024-05-01T00:00:00Z"])
        #expect(result.status == 0, "\(result.stderr)")
        let first = try #require(result.stdout.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let typed = try #require(arguments.firstIndex { ["--from", "--at", "--center"].contains($0) })
        let expectedLatitude = try #require(Double(arguments[typed + 1].split(separator: ",")[0]))
        let latitude = try #require(object["lat"] as? Double)
        // A circle starts on its rim (200 m from the centre), the others where they were told.
        #expect(abs(latitude - expectedLatitude) < 0.01, "\(first)")
        #expect(latitude < 0)
    }

    @Test("A failed import into a new index file leaves no file behind; an existing index keeps its places")
    func failedImportLeavesNothing() async throws {
        try await withScratchFolder("locsim-failed-import") { directory in
            let bad = directory + "/bad.csv"
            try "id,name,lat,lon\na,A,35.0,139.0\nb,B,north,139.0\n".write(toFile: bad, atomically: true, encoding: .utf8)
            let db = directory + "/new.sqlite"
            for input in [bad, directory + "/missing.csv"] {
                let result = try await CLI.run(["index", "import", input, "--db", db])
                #expect(result.status == 1, "\(result.stderr)")
                _ = try Self.expectErrorLines(result)
                let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("new.sqlite") }
                #expect(left.isEmpty, "\(input): left \(left)")
            }
            // An index that existed before a failed import is kept, with its places.
            #expect(try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--db", db]).status == 0)
            let before = try await CLI.run(["index", "stats", "--db", db, "--format", "json"]).stdout
            #expect(try await CLI.run(["index", "import", bad, "--db", db]).status == 1)
            #expect(FileManager.default.fileExists(atPath: db))
            #expect(try await CLI.run(["index", "stats", "--db", db, "--format", "json"]).stdout == before)
        }
    }

    @Test("Hints name only what the command takes: --format geonames for a GeoNames header, no --lenient for index query")
    func hintsFitTheCommand() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            try "lat,lon,name,admin1,admin2,cc\n35.68,139.76,Tokyo,13,,JP\n".write(toFile: directory + "/g.csv", atomically: true, encoding: .utf8)
            let geonames = try await CLI.run(["index", "import", directory + "/g.csv", "--db", directory + "/g.sqlite"])
            #expect(geonames.status == 1)
            #expect(try Self.expectErrorLines(geonames)[1].contains("--format geonames"), "\(geonames.stderr)")
            try "lat,lon,radius\n35.68,east,100\n".write(toFile: directory + "/q.csv", atomically: true, encoding: .utf8)
            let query = try await CLI.run(["index", "query", "--queries", directory + "/q.csv", "--format", "jsonl"])
            #expect(query.status == 1, "\(query.stderr)")
            #expect(!query.stderr.contains("--lenient"), "\(query.stderr)")
        }
    }

    @Test("A walk where only some points have a time: the file, line and column and the point named, the command's remedy (not a library setting)")
    func someTimesMissing() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            let track = directory + "/mixed.gpx"
            try """
                <?xml version="1.0"?>
                <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                <trkpt lat="35.6812" lon="139.7671"><time>2024-01-01T00:00:00Z</time></trkpt>
                <trkpt lat="35.6822" lon="139.7681"/>
                <trkpt lat="35.6832" lon="139.7691"><time>2024-01-01T00:00:20Z</time></trkpt>
                </trkseg></trk></gpx>
                """.write(toFile: track, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["replay", track, "--fast"])
            #expect(result.status == 1)
            let lines = try Self.expectErrorLines(result)
            // The point's start tag, line and column: the file's fourth line.
            #expect(lines[0] == "locsim: error: \(track):4:1: 2 of 3 points have a <time> but this one has none (track segment 0, point 1)", "\(lines[0])")
            #expect(lines[1].contains("--lenient") && !result.stderr.contains("ignoresTimestamps"), "\(lines[1])")
            let lenient = try await CLI.run(["replay", track, "--fast", "--lenient"])
            #expect(lenient.status == 0, "\(lenient.stderr)")
            // A log with no fix at all names the file too.
            let empty = directory + "/nothing.nmea"
            try "hello\nnot a sentence\n".write(toFile: empty, atomically: true, encoding: .utf8)
            let none = try await CLI.run(["replay", empty, "--fast"])
            #expect(none.status == 1)
            #expect(try Self.expectErrorLines(none)[0].hasPrefix("locsim: error: \(empty)"), "\(none.stderr)")
        }
    }

    @Test("An error quoting a 60 KB value (a scenario's key) stays two short lines, its length said")
    func longValuesCut() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            let scenario = directory + "/long.json"
            try "{\"\(String(repeating: "k", count: 60_000))\": 1}".write(toFile: scenario, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["replay", "--scenario", scenario, "--fast"])
            #expect(result.status != 0)
            let lines = try Self.expectErrorLines(result)
            #expect(result.stderr.utf8.count < 2_000, "\(result.stderr.utf8.count) bytes")
            // The key cut with its length, and what is wrong with it after (it was cut away).
            #expect(lines[0].hasSuffix("…(60000_characters): unknown key (seed, route, device, trouble, app, game, server)"), "\(lines[0].suffix(120))")
            // A path too long for the system, in the middle of its error: the reason after it is kept.
            let longPath = directory + "/long-path.json"
            let file = String(repeating: "a", count: 2_000) + ".gpx"
            try #"{"route": {"file": "\#(file)"}}"#.write(toFile: longPath, atomically: true, encoding: .utf8)
            let path = try await CLI.run(["replay", "--scenario", longPath, "--fast", "--geodata", PackagePaths.path("geodata")])
            #expect(path.status == 1, "\(path.stderr)")
            let pathLines = try Self.expectErrorLines(path)
            #expect(pathLines[0].contains("_characters)…"), "\(pathLines[0].suffix(120))")
            #expect(pathLines[0].hasSuffix("File name too long"), "\(pathLines[0].suffix(120))")
            #expect(pathLines[0].count < 1_100, "\(pathLines[0].count) characters")
        }
    }

    @Test("simulate --out in real time: Ctrl-C writes the walk up to the signal as a whole file, says so, and leaves no temporary file")
    func simulateOutInterrupted() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            for name in ["walk.gpx", "walk.nmea"] {
                let out = directory + "/" + name
                let command = try await LiveCommand(Self.line + ["--speed", "1", "--out", out])
                defer { command.stop() }
                try await command.child.wait(for: "the start line") { command.child.errors.contains("Ctrl-C stops the walk there") }
                command.interrupt()
                #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
                let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".partial-") }
                #expect(left.isEmpty, "left \(left)")
                // The signal may come before the first fix: then nothing is written (an empty NMEA
                // log is no log: 'track stats' refuses it), and the command says so.
                if command.child.errors.contains("locsim: interrupted before the first fix: \(out) not written") {
                    #expect(!FileManager.default.fileExists(atPath: out))
                    continue
                }
                #expect(command.child.errors.contains("locsim: interrupted: wrote \(out) with the walk up to the signal"), "\(command.child.errors)")
                let read = try await CLI.run(["track", "stats", out])
                #expect(read.status == 0, "the file is whole: \(read.stderr)")
            }
        }
    }

    @Test("index import: Ctrl-C mid-way imports nothing, says so, exits 130, and a new index file is not left behind")
    func importInterrupted() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            // Enough rows that the signal, sent at the first progress line (100,000 rows read), finds
            // the import still running.
            let csv = directory + "/many.csv"
            var text = "id,name,lat,lon\n"
            for i in 0..<600_000 { text += "p\(i),P,\(35 + Double(i % 1000) / 1000),\(139 + Double(i / 1000) / 1000)\n" }
            try text.write(toFile: csv, atomically: true, encoding: .utf8)
            let db = directory + "/new.sqlite"
            let command = try await LiveCommand(["index", "import", csv, "--db", db, "--progress"])
            defer { command.stop() }
            try await command.child.wait(for: "the first progress line") { command.child.errors.contains("read ") }
            command.interrupt()
            #expect(try await command.waitForExit(timeout: .seconds(60)) == .exited(130), "\(command.child.errors)")
            #expect(command.child.errors.contains("locsim: interrupted: nothing was imported; no index was made at \(db)"), "\(command.child.errors)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("new.sqlite") }
            #expect(left.isEmpty, "left \(left)")
        }
    }

    @Test("simulate --out past the file-size limit: status 1, the output's hint (its folder, the disk's room), no half file left", arguments: ["nmea", "gpx"])
    func outputTooLarge(kind: String) async throws {
        try await withScratchFolder("locsim-hardening") { folder in
            let out = folder + "/walk.\(kind)"
            let command = (["ulimit -f 1 && exec '\(CLI.binary)'"] + Self.line.map { "'\($0)'" } + ["--out", "'\(out)'"]).joined(separator: " ")
            let result = try await ChildProcess.run(["/bin/sh", "-c", command])
            #expect(result.status == 1, "\(result.errors)")
            #expect(result.errors.contains("File too large"), "\(result.errors)")
            #expect(result.errors.contains("hint: check that its folder exists and can be written, and that the disk has room"), "\(result.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    @Test("gpsd pointed at an NMEA feed (not gpsd): status 1 saying what answered is not gpsd, not 'is gpsd running?'")
    func gpsdAtAnNMEAFeed() async throws {
        let (feed, port) = try await NMEAServe.start(["--from", "35.68,139.76", "--interval", "20ms", "--count", "500"])
        defer { feed.stop() }
        let result = try await CLI.run(["gpsd", "--port", String(port)])
        #expect(result.status == 1)
        #expect(result.stderr.contains("malformed report"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: something answers at 127.0.0.1:\(port), but not as gpsd does"), "\(result.stderr)")
        #expect(!result.stderr.contains("is gpsd running"), "\(result.stderr)")
    }

    @Test("replay --gpsd fails as locsim gpsd does, by the kind of failure: a host that does not resolve is not 'is gpsd running?'; no --reconnect it lacks")
    func replayGPSDFailures() async throws {
        let refused = try LoopbackSocket.freePort()
        for (arguments, message, hint) in [
            (["replay", "--gpsd", "no-such-host.invalid:2947"], "gpsd at no-such-host.invalid:2947: no such host",
             "hint: check the host name, or give an address such as 127.0.0.1"),
            (["replay", "--gpsd", "127.0.0.1:\(refused)"], "gpsd at 127.0.0.1:\(refused): connection refused",
             "hint: is gpsd running at 127.0.0.1:\(refused)? Start it with 'gpsd -N -n /dev/ttyACM0' (docs/guides/gps-dongle.md)"),
            (["gpsd", "--port", "\(refused)"], "gpsd at 127.0.0.1:\(refused): connection refused",
             "hint: is gpsd running at 127.0.0.1:\(refused)? Start it with 'gpsd -N -n /dev/ttyACM0', or add --reconnect to wait for it (docs/guides/gps-dongle.md)"),
        ] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            let lines = try Self.expectErrorLines(result)
            #expect(lines[0].hasPrefix("locsim: error: " + message), "\(lines[0])")
            #expect(lines[1] == hint, "\(lines[1])")
        }
    }

    @Test("--host takes an IPv6 address bare or in brackets, as a URL writes it; brackets round anything else are refused")
    func bracketedHost() async throws {
        let port = try LoopbackSocket.freePort()
        let command = try await LiveCommand(["nmea", "serve", "--port", String(port), "--host", "[::1]", "--from", "35.68,139.76"])
        defer { command.stop() }
        try await command.child.wait(for: "waiting for a client") { command.child.errors.contains("waiting for a client") }
        #expect(command.child.errors.contains("on [::1]:\(port)"), "\(command.child.errors)")
        command.interrupt()
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        for arguments in [["nmea", "serve", "--from", "1,1", "--port", "0"], ["serve", "--port", "0"], ["gpsd"]] {
            let refused = try await CLI.run(arguments + ["--host", "[127.0.0.1]"])
            #expect(refused.status == 2, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("brackets go round an IPv6 address, such as [::1]"), "\(refused.stderr)")
        }
    }

    @Test("nmea serve: Ctrl-C before the first client exits 0; --host localhost listens; --from takes a southern, western start")
    func nmeaServeInterruptedWhileWaiting() async throws {
        for host in ["127.0.0.1", "localhost"] {
            let port = try LoopbackSocket.freePort()
            let command = try await LiveCommand(["nmea", "serve", "--port", String(port), "--host", host, "--from", "-33.85,-70.6"])
            defer { command.stop() }
            try await command.child.wait(for: "waiting for a client") { command.child.errors.contains("waiting for a client") }
            #expect(command.child.errors.contains("on \(host):\(port)"), "\(command.child.errors)")
            command.interrupt()
            #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
            #expect(!command.child.errors.contains("error"), "\(command.child.errors)")
        }
    }

    @Test("nmea serve: every client gets the same sentences; one that hangs up or never reads slows nobody; exit 0 after the last fix")
    func nmeaServeClients() async throws {
        let (command, port) = try await NMEAServe.start(["--from", "35.68,139.76", "--interval", "20ms", "--count", "50"])
        defer { command.stop() }
        // The first client starts the clock: it gets every fix.
        let first = try SocketLines(port: port, request: "")
        defer { first.stop() }
        try await first.wait("the first fix") { !$0.lines.isEmpty }
        let hangsUp = try #require(LoopbackSocket.connectTo(port: port))
        close(hangsUp)
        let neverReads = try #require(LoopbackSocket.connectTo(port: port, receiveBuffer: 1024))
        defer { close(neverReads) }
        let second = try SocketLines(port: port, request: "")
        defer { second.stop() }
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        #expect(command.child.errors.contains("served 50 fixes to 4 client(s)"), "\(command.child.errors)")
        try await first.wait("50 RMC sentences") { $0.lines.filter { $0.contains("RMC,") }.count == 50 }
        try await second.wait("the last RMC sentence") { $0.lines.last { $0.contains("RMC,") } == first.lines.last { $0.contains("RMC,") } }
        #expect(first.lines.suffix(second.lines.count) == second.lines[...], "\(second.lines.count) lines")
    }

    @Test("nmea serve above 100 fixes a second: one fix per NMEA time (a centisecond), never two positions at one time")
    func nmeaServeCrowded() async throws {
        // 1,000 fixes a second of wall time: ten to each centisecond.
        let (command, port) = try await NMEAServe.start(["--from", "35.68,139.76", "--mps", "20", "--interval", "10ms", "--count", "400", "--speed", "10"])
        defer { command.stop() }
        let client = try SocketLines(port: port, request: "")
        defer { client.stop() }
        #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
        try await client.wait("the last RMC sentence") { lines in
            lines.lines.last { $0.contains("RMC,") }.map { last in command.child.errors.contains("served \(lines.lines.filter { $0.contains("RMC,") }.count) fixes") } ?? false
        }
        let times = client.lines.filter { $0.contains("RMC,") }.map { $0.split(separator: ",")[1] }
        #expect(times.count > 10 && times.count < 400, "\(times.count) RMC sentences")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "times strictly increase: \(times)")
        #expect(command.child.errors.contains("fixes left out, each in a centisecond (an NMEA time) already told"), "\(command.child.errors)")
    }

    @Test("nmea serve on an IPv6 address names it as a client writes it, [::1]:PORT")
    func nmeaServeIPv6() async throws {
        let command = try await LiveCommand(["nmea", "serve", "--host", "::1", "--port", "0", "--from", "35.68,139.76", "--count", "1"])
        defer { command.stop() }
        try await command.child.wait(for: "the line saying where it serves") { command.child.errors.contains("(waiting for a client)") }
        #expect(command.child.errors.contains(" as NMEA on [::1]:"), "\(command.child.errors)")
    }

    @Test("replay --loop of a walk that takes no time (one point) is a usage error (status 2), as --start past its end is")
    func loopOfNoTime() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            let one = directory + "/one.gpx"
            try """
                <?xml version="1.0"?>
                <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                <trkpt lat="37.7651" lon="-122.4197"><time>2024-11-07T17:20:00Z</time></trkpt>
                </trkseg></trk></gpx>
                """.write(toFile: one, atomically: true, encoding: .utf8)
            try await Self.expectUsageErrors([
                (["replay", one, "--speed", "2", "--loop", "--geodata", "geodata"],
                 "--loop: \(one): the track spans no time (1 point(s), all at one instant or place); a lap would take no time; "
                    + "give a walk that takes time, or leave out --loop"),
            ])
        }
    }

    @Test("nmea serve --original-times of a track whose years NMEA cannot carry is refused before it serves, naming them; without the flag it serves")
    func nmeaServeOriginalTimesYears() async throws {
        try await withScratchFolder("locsim-hardening") { directory in
            func track(_ name: String, _ first: String, _ last: String) throws -> String {
                let path = directory + "/" + name
                try """
                    <?xml version="1.0"?>
                    <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                    <trkpt lat="35.6812" lon="139.7671"><time>\(first)</time></trkpt>
                    <trkpt lat="35.6822" lon="139.7681"><time>\(last)</time></trkpt>
                    </trkseg></trk></gpx>
                    """.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            let old = try track("old.gpx", "1975-01-01T00:00:00Z", "1975-01-01T00:00:10Z")
            let crossing = try track("crossing.gpx", "2079-12-31T23:59:55Z", "2080-01-01T00:00:05Z")
            try await Self.expectUsageErrors([
                (["nmea", "serve", old, "--port", "0", "--original-times"],
                 "--original-times: \(old)'s times are in 1975; NMEA carries years 1980…2079 (RMC's two-digit year): "
                    + "leave out --original-times to send the time of sending"),
                (["nmea", "serve", crossing, "--port", "0", "--original-times"],
                 "--original-times: \(crossing)'s times are from 2079 to 2080; NMEA carries years 1980…2079 (RMC's two-digit year): "
                    + "leave out --original-times to send the time of sending"),
            ])
            let command = try await LiveCommand(["nmea", "serve", old, "--port", "0"])
            defer { command.stop() }
            try await command.child.wait(for: "the line saying where it serves") { command.child.errors.contains("(waiting for a client)") }
        }
    }

    @Test("nmea serve on a port in use, or an address not on this machine, is a run-time error (exit 1)")
    func nmeaServeCannotListen() async throws {
        let listener = try LoopbackSocket.makeListener()
        defer { close(listener.descriptor) }
        for arguments in [
            ["--port", String(listener.port)],
            ["--port", "0", "--host", "192.0.2.1"],  // TEST-NET-1: never an address of this machine
            ["--port", "0", "--host", "no-such-host.invalid"],
        ] {
            let result = try await CLI.run(["nmea", "serve", "--from", "35.68,139.76"] + arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            let lines = try Self.expectErrorLines(result)
            #expect(lines[0].contains(arguments.contains("--host") ? arguments.last! : String(listener.port)), "\(lines[0])")
        }
    }

    // MARK: Helpers

    /// Each command line is a usage error (status 2, nothing on standard output) whose first line
    /// is `locsim: error: ` and what it says.
    static func expectUsageErrors(_ cases: [(arguments: [String], says: String)], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for (arguments, says) in cases {
            let result = try await CLI.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdout.isEmpty, "\(arguments)", sourceLocation: sourceLocation)
            let lines = try expectErrorLines(result, sourceLocation: sourceLocation)
            #expect(lines[0] == "locsim: error: " + says, "\(arguments)", sourceLocation: sourceLocation)
        }
    }

    /// The error is exactly two lines: `locsim: error: …` and `hint: …`, with nothing from
    /// Foundation or ArgumentParser's usage block, and no library-internal parameter names.
    @discardableResult
    static func expectErrorLines(_ result: CLI.Result, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 3 && lines[2].isEmpty, "two lines and a newline: \(result.stderr)", sourceLocation: sourceLocation)
        try #require(lines.count >= 2, sourceLocation: sourceLocation)
        #expect(lines[0].hasPrefix("locsim: error: "), "\(lines[0])", sourceLocation: sourceLocation)
        #expect(lines[1].hasPrefix("hint: "), "\(lines[1])", sourceLocation: sourceLocation)
        for name in ["NSCocoaErrorDomain", "UserInfo", "Error Domain", "randomWalk.", "noise.", "speedFactor", "startOffset", "Usage:"] {
            #expect(!result.stderr.contains(name), "\(name) in \(result.stderr)", sourceLocation: sourceLocation)
        }
        return Array(lines.prefix(2))
    }
}
