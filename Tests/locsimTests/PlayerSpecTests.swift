#if Server
import ArgumentParser
import Foundation
import LocationCore
import LocationFeed
import LocSimTestHelpers
@testable import LocSimCommand
import Testing

/// `serve --player NAME=SPEC`, parsed in-process (FeedCommandTests runs the players).
@Suite(.timeLimit(.minutes(1))) struct PlayerSpecTests {
    @Test("A player without --seed moves by the FNV-1a 64 of its name (LocationCore's), the same in every release")
    func seedFromName() throws {
        #expect(PlayerSpec.seed(of: "alice") == 0x508b_2abb_65a0_3907)
        #expect(PlayerSpec.seed(of: "") == 0xcbf2_9ce4_8422_2325)
        #expect(try PlayerSpec("bob=line:35.68,139.76:35.69,139.75", defaultSpeed: 1).seed == 0x004d_4419_134a_0a54)
        #expect(try PlayerSpec("bob=line:35.68,139.76:35.69,139.75 --seed 7", defaultSpeed: 1).seed == 7)
        #expect(try PlayerSpec("alice=tracks/sf-mission-walk.gpx", defaultSpeed: 1).seed == 0x508b_2abb_65a0_3907)
    }

    @Test("A scenario player's seed is the scenario's, the one its trouble draws from (1 when the file gives none)")
    func scenarioSeed() async throws {
        try withScratchFolder { directory in
            let route = PackagePaths.path("tracks/sf-mission-walk.gpx")
            try #"{"seed": 42, "route": {"file": "\#(route)"}}"#.write(toFile: directory + "/s.json", atomically: true, encoding: .utf8)
            try #"{"route": {"file": "\#(route)"}}"#.write(toFile: directory + "/none.json", atomically: true, encoding: .utf8)
            #expect(try PlayerSpec("alice=\(directory)/s.json", defaultSpeed: 1).seed == 42)
            #expect(try PlayerSpec("alice=\(directory)/none.json", defaultSpeed: 1).seed == 1)
        }
    }

    @Test("A file player takes --speed, --loop and --start after its path (a path may hold spaces); anything else is refused")
    func fileOptions() throws {
        let plain = try PlayerSpec("walk=tracks/sf mission.gpx", defaultSpeed: 2)
        guard case .track(let path) = plain.source else { Issue.record("\(plain.source)"); return }
        #expect(path == "tracks/sf mission.gpx" && plain.speed == 2 && plain.ownSpeed == nil && !plain.loops)
        let fast = try PlayerSpec("walk=tracks/sf mission.gpx --speed 3 --loop", defaultSpeed: 2)
        guard case .track(let fastPath) = fast.source else { Issue.record("\(fast.source)"); return }
        #expect(fastPath == "tracks/sf mission.gpx" && fast.speed == 3 && fast.ownSpeed == 3 && fast.loops)
        #expect(fast.start == 0)
        #expect(try PlayerSpec("walk=w.gpx --start 1:30", defaultSpeed: 1).start == 90)
        #expect(try PlayerSpec("walk=w.gpx --loop --start 5m --speed 2", defaultSpeed: 1).start == 300)
        for (spec, message) in [
            ("walk=w.nmea --speed", "--speed takes a number"), ("walk=w.nmea --speed 0", "within 0.1...1000"),
            ("walk=w.gpx --profile run", "takes --speed X, --loop and --start DURATION, got '--profile'"),
            ("walk=w.gpx --start", "--start takes a duration"), ("walk=w.gpx --start -5s", "--start must not be negative, got '-5s'"),
            ("walk=w.gpx --start soon", "--start must be a duration such as"),
        ] {
            #expect { try PlayerSpec(spec, defaultSpeed: 1) } throws: { error in
                "\(error)".contains("--player walk: ") && "\(error)".contains(message)
            }
        }
    }

    @Test("--start beyond the file's path is refused naming --start and the path's length; within it, the first fix is the path's at that offset")
    func startWithinPath() async throws {
        let path = "tracks/sf-mission-walk.gpx"
        guard FileManager.default.fileExists(atPath: path) else { Issue.record("run from the package root: \(path) is missing"); return }
        #expect { try PlayerSpec("walk=\(path) --start 100h", defaultSpeed: 1).makePlayer() } throws: { error in
            "\(error)".contains("--player walk: --start 100:00:00 is past the end of the path, which lasts ")
        }
        let player = try PlayerSpec("walk=\(path) --start 10m", defaultSpeed: 1).makePlayer()
        let hub = try PlayerHub(players: [player], now: { Date(timeIntervalSince1970: 0) })
        let (offsets, continuation) = AsyncStream.makeStream(of: Double.self)
        _ = hub.subscribe { update in continuation.yield(update.offset ?? -1) }
        let run = Task { await hub.runPlayers() }
        defer { run.cancel() }
        var first: Double?
        for await offset in offsets {
            first = offset
            break
        }
        // The fix at or just before 600 s into the walk (its points are a few seconds apart).
        let offset = try #require(first)
        #expect(offset <= 600 && offset > 590, "\(offset)")
    }

    @Test("simulate options a player has no use for are refused naming the flag, --loop is taken; a last option naming a file is no file spec")
    func simulateOnlyOptions() throws {
        let line = "line:35.68,139.76:35.69,139.75"
        for flag in ["--out /tmp/x.gpx", "--db /etc/passwd", "--online http://127.0.0.1:1", "--format jsonl", "--report r.html",
            "--scenario tracks/scenarios/legs-walk.json", "--radius 100", "--token=t"]
        {
            let name = String(flag.split(whereSeparator: { $0 == " " || $0 == "=" })[0])
            #expect { try PlayerSpec("a=\(line) \(flag)", defaultSpeed: 1) } throws: { error in
                "\(error)".contains("--player a: \(name) does not apply to a player")
            }
        }
        // A file player's options, and --help (whose text would fill the error), are refused too.
        for (flag, says) in [("--start 5m", "--start applies to a file player"),
            ("--help", "'locsim simulate --help' lists them"),
            // It was taken and ignored: a player's fixes carry the wall clock.
            ("--start-time 2020-01-01T00:00:00Z", "--start-time does not apply to a player: its fixes carry the wall-clock time")]
        {
            #expect { try PlayerSpec("a=\(line) \(flag)", defaultSpeed: 1) } throws: { error in "\(error)".contains(says) && "\(error)".count < 200 }
        }
        // A mistyped option is not pointed at one a player refuses; other suggestions stay.
        #expect { try PlayerSpec("a=\(line) --start-tim 5", defaultSpeed: 1) } throws: { error in
            "\(error)" == "--player a: Unknown option '--start-tim'. ('locsim simulate --help' lists a player's options)"
        }
        #expect { try PlayerSpec("a=\(line) --sed 5", defaultSpeed: 1) } throws: { error in
            "\(error)".contains("Did you mean '--seed'?")
        }
        // A file a player cannot play says what it can, not simulate's list of path kinds alone.
        for path in ["/tmp/walk.txt", "walk.csv --speed 2", "tracks/a.b"] {
            #expect { try PlayerSpec("a=\(path)", defaultSpeed: 1) } throws: { error in
                "\(error)".contains("is not a file a player plays: a walk is a .gpx, .nmea or .log file") && "\(error)".contains("random-walk")
            }
        }
        // --loop is taken, as the control API's "loop": true is: the motion starts again at its end.
        let looping = try PlayerSpec("a=\(line) --profile run --loop", defaultSpeed: 1)
        #expect(looping.loops)
        let once = try PlayerSpec("a=\(line) --profile run", defaultSpeed: 1)
        #expect(!once.loops)
        #expect(PlayerSpec.fileSpec("\(line) --out /tmp/x.gpx") == nil)
        #expect(PlayerSpec.fileSpec("my walk.gpx --speed 2")?.path == "my walk.gpx")
    }

    @Test("Over HTTP a spec naming a file is refused before anything is read: a caller learns nothing of the server's files")
    func httpSpecReadsNoFile() throws {
        try withScratchFolder("locsim-spec") { directory in
            let secret = directory + "/s.json"
            try #"{"seed":"SECRET-TOKEN-123","route":{"polyline":"abc"}}"#.write(toFile: secret, atomically: true, encoding: .utf8)
            for spec in [secret, directory + "/missing.json", directory + "/bad.json --speed 2", directory + "/w.gpx"] {
                let creation = PlayerControlAPI.Creation(name: "o", source: .spec(spec), speed: nil, loops: false)
                #expect { try FeedRuntime.makePlayer(creation, defaultSpeed: 1) } throws: { error in
                    let text = "\(error)"
                    return text.contains("a file on the server is not read over HTTP") && !text.contains("SECRET") && !text.contains("No such file")
                }
            }
        }
    }

    @Test("A relayed receiver's address is read as replay --gpsd's is (LocationCore's HostPort), the device after it")
    func receiverAddress() throws {
        let spec = try PlayerSpec("field=gpsd://[::1]:2948/dev/ttyUSB0", defaultSpeed: 1)
        guard case .receiver(let address, let device) = spec.source else { Issue.record("\(spec.source)"); return }
        #expect(address == HostPort(host: "::1", port: 2948) && device == "/dev/ttyUSB0")
        let bare = try PlayerSpec.receiver("gpsd://", player: "f")
        #expect(bare.0 == HostPort(host: "127.0.0.1", port: 2947) && bare.device == nil)
        #expect(try PlayerSpec.receiver("gpsd://:2950", player: "f").0 == Replay.gpsdAddress(":2950"))
        #expect {
            try Replay.gpsdAddress("127.0.0.1:99999")
        } throws: { error in
            "\(error)" == "--gpsd: the port must be a number within 1...65535, got '99999' (expected HOST[:PORT], e.g. 127.0.0.1:2947 or [::1]:2947)"
        }
    }

    @Test("A relayed receiver at the feed's own --gpsd-port is refused: it would publish its own fixes again without end", arguments: [
        // (serve --host, --gpsd-port, the relay, refused)
        ("127.0.0.1", 12950, "gpsd://127.0.0.1:12950", true), ("127.0.0.1", 12950, "gpsd://localhost:12950", true),
        ("127.0.0.1", 12950, "gpsd://[::1]:12950/dev/x", true), ("0.0.0.0", 12950, "gpsd://127.0.0.1:12950", true),
        ("192.168.1.5", 12950, "gpsd://192.168.1.5:12950", true),
        ("127.0.0.1", 12950, "gpsd://", false), ("127.0.0.1", 12950, "gpsd://10.0.0.2:12950", false),
        ("192.168.1.5", 12950, "gpsd://127.0.0.1:12950", false), ("127.0.0.1", 0, "gpsd://127.0.0.1:12950", false),
    ])
    func selfRelay(host: String, gpsdPort: Int, relay: String, refused: Bool) throws {
        let specs = [try PlayerSpec("walk=line:35.68,139.76:35.69,139.75", defaultSpeed: 1), try PlayerSpec("me=" + relay, defaultSpeed: 1)]
        do {
            try FeedOptions.refuseSelfRelay(specs, gpsdPort: gpsdPort, host: host)
            #expect(!refused)
        } catch {
            #expect(refused && error.message.hasPrefix("--player me: gpsd://") && error.message.contains("this server's own --gpsd-port"), "\(error)")
        }
        try FeedOptions.refuseSelfRelay(specs, gpsdPort: nil, host: host)
    }
}
#endif
