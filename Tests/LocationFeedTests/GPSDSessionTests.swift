import Foundation
import LocationCore
import LocationFeed
import LocationSimulation
import NMEAFormat
import LocSimTestHelpers
import Testing

/// The protocol rules of one gpsd client, driven in virtual time without a socket.
@Suite(.timeLimit(.minutes(1)))
struct GPSDSessionTests {
    @Test("A client is greeted with VERSION, protocol 3.14, one CR LF-terminated line")
    func greeting() throws {
        let feed = try VirtualFeed()
        let session = GPSDSession(hub: feed.hub, release: "locsim-test", now: { VirtualFeed.start })
        #expect(session.greeting.hasSuffix("}\r\n"))
        #expect(lines(session.greeting).count == 1)
        let version = try object(lines(session.greeting)[0])
        #expect(version["class"] as? String == "VERSION")
        #expect(version["release"] as? String == "locsim-test")
        #expect(version["proto_major"] as? Int == 3)
        #expect(version["proto_minor"] as? Int == GPSDReport.protocolMinor)
    }

    @Test("?WATCH={\"enable\":true,\"json\":true}; answers DEVICES (every player a device), then WATCH")
    func watch() throws {
        let feed = try VirtualFeed()
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        let reply = lines(session.handle(line: #"?WATCH={"enable":true,"json":true};"#))
        try #require(reply.count == 2)
        let devices = try object(reply[0])
        #expect(devices["class"] as? String == "DEVICES")
        let paths = (devices["devices"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == ["/dev/locsim/alice", "/dev/locsim/bob"])
        let watch = try object(reply[1])
        #expect(watch["class"] as? String == "WATCH")
        #expect(watch["enable"] as? Bool == true)
        #expect(watch["json"] as? Bool == true)
        #expect(watch["nmea"] as? Bool == false)
        #expect(session.watch.enable && session.watch.json)
        // As gpsd 3.22: disabling answers DEVICES, then WATCH, and keeps the forms asked for;
        // a WATCH that does not say `enable` enables.
        let off = lines(session.handle(line: #"?WATCH={"enable":false};"#))
        #expect(off.count == 2)
        #expect(try object(off[0])["class"] as? String == "DEVICES")
        #expect(try object(off[1])["enable"] as? Bool == false)
        #expect(try object(off[1])["json"] as? Bool == true)
        var fresh = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        let on = lines(fresh.handle(line: #"?WATCH={"json":true};"#))
        #expect(try object(on.last!)["enable"] as? Bool == true)
        #expect(fresh.watch.enable && fresh.watch.json)
    }

    @Test("A request read with nothing after it is whole once its JSON argument closes; 'enable' alone turns on no form")
    func bareRequests() throws {
        for (text, complete) in [
            (#"?WATCH={"enable":true,"json":true}"#, true), (#"?WATCH={"enable":true,"device":"a}b"}"#, true),
            (#"?WATCH={"enable":true,"#, false), (#"?WATCH={"device":"a}"#, false), ("?POLL", false), ("?WATCH=", false),
        ] {
            #expect(GPSDSession.isComplete(Array(text.utf8)) == complete, "\(text)")
        }
        let feed = try VirtualFeed()
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        let watch = lines(session.handle(line: #"?WATCH={"enable":true}"#))
        #expect(try object(watch.last!)["json"] as? Bool == false)
        #expect(session.watch.enable && !session.watch.json && !session.watch.nmea)
    }

    @Test("Of a player added or removed hear JSON watchers of every device or of that one, as gpsd tells them; not NMEA-only or idle clients")
    func hotplugListeners() throws {
        let feed = try VirtualFeed()
        var session = GPSDSession(hub: feed.hub, release: "locsim-test", now: { VirtualFeed.start })
        let bob = "/dev/locsim/bob"
        #expect(!GPSDSession.hearsOf(device: bob, watch: session.watch))
        _ = session.handle(line: #"?WATCH={"enable":true,"nmea":true};"#)
        #expect(!GPSDSession.hearsOf(device: bob, watch: session.watch))
        _ = session.handle(line: #"?WATCH={"json":true};"#)
        #expect(GPSDSession.hearsOf(device: bob, watch: session.watch))
        _ = session.handle(line: #"?WATCH={"device":"/dev/locsim/alice"};"#)
        #expect(!GPSDSession.hearsOf(device: bob, watch: session.watch))
        #expect(GPSDSession.hearsOf(device: "/dev/locsim/alice", watch: session.watch))
        #expect(GPSDReport.deviceRemoved(path: bob) == #"{"class":"DEVICE","path":"/dev/locsim/bob","activated":0}"# + "\r\n")
    }

    @Test("Unknown or malformed requests get ERROR; several requests on one line each get an answer")
    func errors() throws {
        let feed = try VirtualFeed()
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        for request in ["?FOO;", "hello", #"?WATCH={"enable":tru};"#, #"?WATCH={"enable":1};"#, #"?WATCH={"colour":true};"#,
            #"?WATCH={"device":"/dev/ttyUSB0"};"#]
        {
            let reply = lines(session.handle(line: request))
            #expect(reply.count == 1, "\(request)")
            #expect(try object(reply[0])["class"] as? String == "ERROR", "\(request)")
        }
        #expect(!session.watch.enable)
        let both = lines(session.handle(line: "?VERSION;?DEVICES;"))
        #expect(try both.map { try object($0)["class"] as? String } == ["VERSION", "DEVICES"])
    }

    @Test("TPV and SKY carry each fix: position, time, motion, accuracy, and DOPs that give the accuracy back")
    func reports() async throws {
        let feed = try VirtualFeed(names: ["alice"])
        defer { feed.stop() }
        await feed.run(until: 8)
        let reference = try await VirtualFeed.reference(seed: feed.specs[0].seed, count: 8)
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        _ = session.handle(line: #"?WATCH={"enable":true,"json":true};"#)
        let updates = Array(feed.received.prefix(8))
        for (index, (update, expected)) in zip(updates, reference).enumerated() {
            #expect(update.fix == expected, "the player's fix \(index) is the motion's own")
            let text = session.report(update)
            #expect(!text.contains("null"))
            let reply = lines(text)
            try #require(reply.count == 2)
            #expect(reply.allSatisfy { $0.utf8.count + 2 <= GPSDReport.maximumLineLength })
            let tpv = try object(reply[0])
            let sky = try object(reply[1])
            #expect(tpv["class"] as? String == "TPV")
            #expect(tpv["device"] as? String == "/dev/locsim/alice")
            #expect(tpv["mode"] as? Int == 3)
            #expect(tpv["time"] as? String == UTCTimestamp.format(expected.time, fractionDigits: 3))
            let coordinate = try #require(expected.coordinate)
            #expect(abs((tpv["lat"] as? Double ?? .nan) - coordinate.latitude) <= 5e-10 + 1e-12)
            #expect(abs((tpv["lon"] as? Double ?? .nan) - coordinate.longitude) <= 5e-10 + 1e-12)
            let altitudes: [Double] = [tpv["altHAE"] as? Double ?? .nan, tpv["altMSL"] as? Double ?? .nan]
            let altitudeTolerance: Double = 5e-5 + 1e-9
            #expect(altitudes.allSatisfy { abs($0 - 40) <= altitudeTolerance }, "altHAE, altMSL: \(altitudes)")
            if let speed = expected.speed { #expect(abs((tpv["speed"] as? Double ?? .nan) - speed) <= 5e-4 + 1e-9) }
            if let course = expected.course { #expect(abs((tpv["track"] as? Double ?? .nan) - course) <= 5e-5 + 1e-9) }
            let accuracy = try #require(expected.horizontalAccuracy)
            let eph = try #require(tpv["eph"] as? Double)
            #expect(abs(eph - accuracy) <= 5e-4 + 1e-9)
            #expect(tpv["climb"] as? Double == (index == 0 ? nil : 0))
            #expect(sky["class"] as? String == "SKY")
            let hdop = try #require(sky["hdop"] as? Double)
            #expect(abs(hdop * GPSDReport.horizontalRangeError - accuracy) <= 0.005 * GPSDReport.horizontalRangeError + 1e-9)
            let pdop = try #require(sky["pdop"] as? Double)
            let vdop = try #require(sky["vdop"] as? Double)
            #expect(abs(pdop - (hdop * hdop + vdop * vdop).squareRoot()) <= 0.01)
            let satellites = try #require(sky["satellites"] as? [[String: Any]])
            #expect(satellites.count == SkyModel.inView)
            #expect(satellites.filter { $0["used"] as? Bool == true }.count == SkyModel.inUse)
            #expect(Set(satellites.compactMap { $0["PRN"] as? Int }).count == SkyModel.inView)
        }
    }

    @Test("epv is the fix's vertical accuracy when a 3D fix has one; a 2D fix or one without has none")
    func verticalAccuracy() throws {
        let at = try Coordinate(latitude: 35.68, longitude: 139.76)
        let cases: [(Fix, Double?)] = [
            (Fix(time: VirtualFeed.start, coordinate: at, altitude: 40, horizontalAccuracy: 5, verticalAccuracy: 9.25, source: .gpx), 9.25),
            (Fix(time: VirtualFeed.start, coordinate: at, altitude: 40, horizontalAccuracy: 5, source: .gpx), nil),
            (Fix(time: VirtualFeed.start, coordinate: at, horizontalAccuracy: 5, verticalAccuracy: 9.25, source: .gpx), nil),
        ]
        for (fix, epv) in cases {
            let tpv = try object(GPSDReport.tpvObject(device: "/dev/locsim/alice", fix: fix, climb: nil))
            #expect(tpv["epv"] as? Double == epv, "\(fix.mode): \(tpv)")
        }
    }

    @Test("Each update carries when its player published it, by the hub's clock")
    func published() async throws {
        let feed = try VirtualFeed(names: ["alice", "bob"], wallClock: true)
        defer { feed.stop() }
        await feed.run(until: 10)
        let updates = feed.received
        try #require(updates.count >= 10)
        // The players run on the virtual clock from its zero, a fix a second from the motion's
        // start: each is published at the wall-clock time of its own fix.
        for update in updates {
            #expect(update.published == update.fix.time, "\(update.player) at \(update.fix.time)")
        }
    }

    @Test("\"nmea\":true yields the NMEA sentences, which read back as the same fixes")
    func nmea() async throws {
        let feed = try VirtualFeed(names: ["alice"])
        defer { feed.stop() }
        await feed.run(until: 5)
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        let watch = lines(session.handle(line: #"?WATCH={"enable":true,"nmea":true}"#))
        #expect(try object(watch.last!)["nmea"] as? Bool == true)
        #expect(try object(watch.last!)["json"] as? Bool == false)
        var text = ""
        for update in feed.received { text += session.report(update) }
        #expect(!text.contains("{"))
        var options = NMEAReader.Options.strict
        options.accuracyModel = .gpsd
        var reader = NMEAReader(options: options)
        let fixes = try reader.read(Array(text.utf8)) + reader.finish()
        let sent = feed.received.map(\.fix)
        try #require(fixes.count == sent.count)
        for (read, original) in zip(fixes, sent) {
            #expect(abs(read.time.timeIntervalSince(original.time)) <= 0.005)
            #expect(abs(read.coordinate!.latitude - original.coordinate!.latitude) <= 1e-7)
            #expect(abs(read.coordinate!.longitude - original.coordinate!.longitude) <= 1e-7)
            #expect(abs(read.horizontalAccuracy! - original.horizontalAccuracy!) <= 0.005 * 19 + 1e-9)
        }
    }

    @Test("\"device\" in WATCH selects one player; POLL reports the newest fix of each device watched")
    func deviceAndPoll() async throws {
        let feed = try VirtualFeed()
        defer { feed.stop() }
        await feed.run(until: 6)
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        let all = lines(session.handle(line: "?POLL;"))
        let poll = try object(try #require(all.first))
        #expect(poll["class"] as? String == "POLL")
        #expect(poll["active"] as? Int == 2)
        let tpvs = try #require(poll["tpv"] as? [[String: Any]])
        #expect(tpvs.compactMap { $0["device"] as? String } == ["/dev/locsim/alice", "/dev/locsim/bob"])
        let newestAlice = try #require(feed.hub.latest("alice"))
        #expect(tpvs[0]["time"] as? String == UTCTimestamp.format(newestAlice.fix.time, fractionDigits: 3))

        let reply = lines(session.handle(line: #"?WATCH={"enable":true,"json":true,"device":"/dev/locsim/bob"};"#))
        let devices = try object(reply[0])
        #expect((devices["devices"] as? [[String: Any]])?.count == 1)
        #expect(try object(reply[1])["device"] as? String == "/dev/locsim/bob")
        for update in feed.received {
            #expect(session.report(update).isEmpty == (update.player != "bob"))
        }
        #expect(try object(lines(session.handle(line: "?POLL;"))[0])["active"] as? Int == 1)
    }

    @Test("Beyond four players, DEVICES names four (libgps keeps no more); a JSON watcher gets a DEVICE line for each other, a client that reads a fixed exchange none")
    func manyDevices() throws {
        let names = (1...7).map { "p\($0)" }
        let feed = try VirtualFeed(names: names)
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        // gpsd-py3 sends ?WATCH={"enable":true} and reads exactly DEVICES, then WATCH.
        let plain = lines(session.handle(line: #"?WATCH={"enable":true};"#))
        #expect(plain.count == 2)
        #expect(try object(plain[0])["class"] as? String == "DEVICES" && object(plain[1])["class"] as? String == "WATCH")
        let reply = lines(session.handle(line: #"?WATCH={"enable":true,"json":true};"#))
        try #require(reply.count == 5)
        let listed = try #require(try object(reply[0])["devices"] as? [[String: Any]])
        #expect(listed.count == GPSDReport.maximumDevicesPerReport)
        let rest = try reply.dropFirst().dropLast().map { try object($0) }
        #expect(rest.allSatisfy { $0["class"] as? String == "DEVICE" })
        #expect(
            listed.compactMap { $0["path"] as? String } + rest.compactMap { $0["path"] as? String }
                == names.map { "/dev/locsim/\($0)" })
    }

    @Test("A player's GSA carries its SKY's PDOP, HDOP and VDOP (a gpsd fed the NMEA reports those, not its own)")
    func nmeaDOPsAreTheSky() async throws {
        let feed = try VirtualFeed()
        defer { feed.stop() }
        await feed.run(until: 4)
        #expect(feed.received.contains { $0.fix.hasPosition })
        for update in feed.received where update.fix.hasPosition {
            let sky = try object(Substring(update.sky))
            let gsa = try #require(update.nmea.split(separator: "\r\n").first { $0.hasPrefix("$GPGSA") })
            // $GPGSA,A,3,<12 satellites>,PDOP,HDOP,VDOP*CS
            let fields = gsa.split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false)
            let dops = fields.suffix(3).map { Double($0) }
            for (value, name) in zip(dops, ["pdop", "hdop", "vdop"]) {
                let said = try #require(sky[name] as? Double, "\(name) in \(update.sky)")
                #expect(value.map { abs($0 - said) <= 0.005 + 1e-9 } == true, "\(name): GSA \(String(describing: value)), SKY \(said)")
            }
        }
    }

    @Test("POLL fits gpsd_json(5)'s 4,096-byte line whatever the number of players, counts every active one, with gpsd 3.22's members in order")
    func pollFits() async throws {
        let feed = try VirtualFeed(names: (1...7).map { "p\($0)" })
        defer { feed.stop() }
        await feed.run(until: 14)
        var session = GPSDSession(hub: feed.hub, release: "t", now: { VirtualFeed.start })
        let reply = session.handle(line: "?POLL;")
        #expect(reply.utf8.count <= GPSDReport.maximumLineLength, "\(reply.utf8.count) bytes")
        let poll = try object(try #require(lines(reply).first))
        let tpvs = try #require(poll["tpv"] as? [[String: Any]])
        #expect(!tpvs.isEmpty && tpvs.count <= GPSDReport.maximumDevicesPerReport)
        // gpsd 3.22 counts every active device, whether its reports fit the line or not.
        #expect(poll["active"] as? Int == 7)
        #expect((poll["gst"] as? [Any])?.isEmpty == true)
        let order = ["class", "time", "active", "tpv", "gst", "sky"].map { #""\#($0)":"# }
        let positions = order.compactMap { reply.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted(), "members in gpsd's order")
    }

    @Test("Player names are checked, and two players may not share one")
    func names() throws {
        let motion = try VirtualFeed.motion(seed: 1, pacing: .virtual, noise: nil, clock: ContinuousClock())
        for bad in ["", "a b", "a/b", "a%b", String(repeating: "x", count: 33), String(repeating: "é", count: 17), "\u{301}e", "a\u{202E}b"] {
            #expect(throws: ConfigurationError.self) { try FeedPlayer(name: bad, seed: 1, provider: motion) }
        }
        // Letters and digits of any script, up to 32 bytes.
        for good in ["é", "たろう", "Łukasz-2", "e\u{301}", String(repeating: "é", count: 16)] {
            #expect(throws: Never.self) { try FeedPlayer(name: good, seed: 1, provider: motion) }
        }
        let one = try FeedPlayer(name: "same", seed: 1, provider: motion)
        #expect(throws: ConfigurationError.self) { try PlayerHub(players: [one, one], now: { Date() }) }
    }
}
