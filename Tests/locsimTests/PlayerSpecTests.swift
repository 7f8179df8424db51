#if Server
import ArgumentParser
import LocationCore
@testable import LocSimCommand
import Testing

/// `serve --player NAME=SPEC`, parsed in-process (FeedCommandTests runs the players).
@Suite struct PlayerSpecTests {
    @Test("A player without --seed moves by the FNV-1a 64 of its name (LocationCore's), the same in every release")
    func seedFromName() throws {
        #expect(PlayerSpec.seed(of: "alice") == 0x508b_2abb_65a0_3907)
        #expect(PlayerSpec.seed(of: "") == 0xcbf2_9ce4_8422_2325)
        #expect(try PlayerSpec("bob=line:35.68,139.76:35.69,139.75", defaultSpeed: 1).seed == 0x004d_4419_134a_0a54)
        #expect(try PlayerSpec("bob=line:35.68,139.76:35.69,139.75 --seed 7", defaultSpeed: 1).seed == 7)
    }

    @Test("A file player takes --speed and --loop after its path (a path may hold spaces); anything else is refused")
    func fileOptions() throws {
        let plain = try PlayerSpec("walk=tracks/sf mission.gpx", defaultSpeed: 2)
        guard case .track(let path) = plain.source else { Issue.record("\(plain.source)"); return }
        #expect(path == "tracks/sf mission.gpx" && plain.speed == 2 && plain.ownSpeed == nil && !plain.loops)
        let fast = try PlayerSpec("walk=tracks/sf mission.gpx --speed 3 --loop", defaultSpeed: 2)
        guard case .track(let fastPath) = fast.source else { Issue.record("\(fast.source)"); return }
        #expect(fastPath == "tracks/sf mission.gpx" && fast.speed == 3 && fast.ownSpeed == 3 && fast.loops)
        for (spec, message) in [
            ("walk=w.nmea --speed", "--speed takes a number"), ("walk=w.nmea --speed 0", "within 0.1...1000"),
            ("walk=w.gpx --profile run", "takes --speed X and --loop, got '--profile'"),
        ] {
            #expect { try PlayerSpec(spec, defaultSpeed: 1) } throws: { error in
                "\(error)".contains("--player walk: ") && "\(error)".contains(message)
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
}
#endif
