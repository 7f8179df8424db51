import Foundation
import LocationCore
import LocationFeed
@testable import LocationGPSD
import LocationTestSupport
import NMEAFormat
import Testing

/// A real receiver's fix relayed (`--player NAME=gpsd://…`): every member of its `TPV` reaches
/// the feed's clients. The live check against a real gpsd fed 30 receivers' logs is
/// `GPSDReceiverLogTests`; these check each member through libgps's own parser.
@Suite(.timeLimit(.minutes(1)))
struct RelayedReceiverTests {
    /// A receiver's fix with every member libgps 3.22 reads, each a value its decimals keep.
    static func fullReport() throws -> Fix {
        var fix = Fix(
            time: Date(timeIntervalSince1970: 1_700_000_000.25), coordinate: try Coordinate(latitude: 41.5749659, longitude: -93.7505719),
            altitude: 278.16, speed: 0.183, course: 139.06, horizontalAccuracy: 4.275, verticalAccuracy: 9.5,
            mode: .threeDimensional, source: .gpsd)
        fix.geoidSeparation = -31.44
        var report = ReceiverReport()
        let decimals: [ReceiverReport.Member: Int] = [
            .status: 0, .leapseconds: 0, .dgpsSta: 0, .magvar: 1, .dgpsAge: 1, .wanglem: 1, .wangler: 1, .wanglet: 1,
            .wspeedr: 1, .wspeedt: 1, .eps: 2, .epc: 2, .ecefx: 2, .ecefy: 2, .ecefz: 2, .ecefvx: 2, .ecefvy: 2, .ecefvz: 2,
            .ecefpAcc: 2, .ecefvAcc: 2, .magtrack: 4, .epd: 4,
        ]
        for (index, member) in ReceiverReport.Member.allCases.enumerated() {
            // Distinct values, exact at the member's decimals (3 unless listed).
            let places = decimals[member] ?? 3
            let scale = pow(10, Double(places))
            report[member] = ((Double(index + 2) * 1.234_567) * scale).rounded() / scale
        }
        report[.status] = 2
        fix.receiver = report
        return fix
    }

    @Test("Every member of a relayed receiver's TPV is one libgps reads, and reads back as it was")
    func everyMemberThroughLibgps() throws {
        let fix = try Self.fullReport()
        let line = GPSDReport.tpvObject(device: "/dev/locsim/field", fix: fix, climb: 99)
        let messages = try GPSDConnection.decode([line], receivedAt: Date(timeIntervalSince1970: 0))
        guard case .fix(let decoded)? = messages.first else {
            Issue.record("libgps did not read a fix from \(line)")
            return
        }
        for member in ReceiverReport.Member.allCases {
            #expect(decoded.receiver?[member] == fix.receiver?[member], "\(member) in \(line)")
        }
        #expect(decoded.coordinate == fix.coordinate)
        #expect(decoded.geoidSeparation == fix.geoidSeparation)
        // The receiver's own climb, not the one the feed would derive.
        let members = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(members["climb"] as? Double == fix.receiver?[.climb])
        // A simulated fix's TPV has none of them.
        var simulated = fix
        simulated.receiver = nil
        let plain = try #require(
            try JSONSerialization.jsonObject(with: Data(GPSDReport.tpvObject(device: "d", fix: simulated, climb: nil).utf8))
                as? [String: Any])
        #expect(Set(plain.keys).isDisjoint(with: ["status", "magvar", "sep", "ecefx", "velN", "dgpsAge", "wanglem"]))
    }

    /// A multi-constellation sky larger than one GSV group: 40 satellites, 20 used, GPS and
    /// GLONASS, one without an elevation, one below the horizon.
    static func bigSky() -> ReceiverReport.Sky {
        let satellites = (0..<40).map { index in
            let glonass = index >= 25
            return Satellite(
                id: glonass ? 65 + index - 25 : index + 1, elevation: index == 3 ? nil : index == 4 ? -2 : Double(5 + 2 * index),
                azimuth: Double((index * 37) % 360), signal: index == 7 ? nil : Double(20 + index % 25), used: index % 2 == 0,
                signalIdentity: Satellite.SignalIdentity(
                    gnssID: glonass ? 6 : 0, svID: glonass ? index - 24 : index + 1, signalID: glonass ? 2 : 0,
                    frequencyID: glonass ? index % 14 : nil, health: index == 9 ? 2 : 1))
        }
        return ReceiverReport.Sky(dilutions: [.hdop: 0.81, .vdop: 1.27, .pdop: 1.5, .xdop: 0.5], satellites: satellites)
    }

    @Test("A relayed receiver's sky: the SKY the feed writes reads back through libgps as it was; NMEA tells it whole, a GSV group for each constellation")
    func skyThroughLibgps() throws {
        var fix = try Self.fullReport()
        fix.receiver?.sky = Self.bigSky()
        let sky = GPSDReport.skyObject(device: "/dev/locsim/field", time: fix.time, sky: Self.bigSky())
        let tpv = GPSDReport.tpvObject(device: "/dev/locsim/field", fix: fix, climb: nil)
        let messages = try GPSDConnection.decode([sky, tpv], receivedAt: Date(timeIntervalSince1970: 0))
        guard case .fix(let decoded)? = messages.last else {
            Issue.record("libgps did not read a fix from \(tpv)")
            return
        }
        #expect(decoded.receiver?.sky == Self.bigSky(), "\(sky)")

        // 25 GPS satellites (13 used) and 15 GLONASS on L2 OF: every one told, 12 of GPS used.
        let tellable = NMEAWriter.tellable(Self.bigSky().satellites)
        #expect(tellable.count == Self.bigSky().satellites.count)
        #expect(tellable.filter { $0.used && $0.id <= 32 }.count == NMEAWriter.maximumSatellitesInUse)
        #expect(tellable.filter { $0.used && $0.id > 64 }.count == 7)
        #expect(tellable.first { $0.id == 5 }?.elevation == nil, "below the horizon: GSV leaves it empty")
        let sentences = try NMEAWriter(options: .init(sentences: [.gsa, .gsv, .rmc, .gga])).sentences(for: fix, sky: tellable)
        let groups = sentences.compactMap { if case .gsv(let gsv) = $0, gsv.number == 1 { "\(gsv.talker) \(gsv.satellitesInView) \(gsv.signalID ?? 0)" } else { nil } }
        #expect(groups == ["GP 25 1", "GL 15 3"], "GLONASS's L2 OF is NMEA 4.10's signal 3")
    }

    /// What the hub sends for a player whose provider gives `first` at once and `second` a second
    /// later on the clock.
    @Test("A dilution that is not finite never reaches a SKY: the report stays JSON, without it")
    func nonFiniteDilution() throws {
        var sky = Self.bigSky()
        sky.dilutions[.hdop] = .nan
        sky.dilutions[.vdop] = .infinity
        let report = GPSDReport.skyObject(device: "/dev/locsim/field", time: Date(timeIntervalSince1970: 1_750_000_000), sky: sky)
        #expect(!report.contains("hdop") && !report.contains("vdop") && report.contains(#""pdop":1.50"#), "\(report)")
        #expect(try JSONSerialization.jsonObject(with: Data(report.utf8)) is [String: Any])
    }

    static func hubUpdates(player name: String, _ first: Fix, _ second: Fix) async throws -> (PlayerHub.Update, PlayerHub.Update) {
        let clock = VirtualClock()
        let player = try FeedPlayer(name: name, seed: 1, provider: ScriptedProvider(fixes: [first, second], clock: clock))
        let hub = try PlayerHub(players: [player], now: { Date(timeIntervalSince1970: 1_700_000_000) })
        let (updates, continuation) = AsyncStream.makeStream(of: PlayerHub.Update.self)
        _ = hub.subscribe { update in continuation.yield(update) }
        let run = Task { await hub.runPlayers() }
        defer { run.cancel() }
        var received = updates.makeAsyncIterator()
        let one = try #require(await received.next())
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(1))
        return (one, try #require(await received.next()))
    }

    @Test("The hub sends a relayed receiver's own sky and datum, and no SKY at all for a fix of one that told none, as gpsd")
    func hubRelaysTheReceiversSky() async throws {
        var told = try Self.fullReport()
        told.receiver?.sky = Self.bigSky()
        told.receiver?.datum = "WGS72"
        var untold = try Self.fullReport()
        untold.time += 1
        untold.receiver?.sky = nil
        let (first, second) = try await Self.hubUpdates(player: "field", told, untold)
        #expect(first.sky == GPSDReport.skyObject(device: "/dev/locsim/field", time: told.time, sky: Self.bigSky()))
        #expect(first.nmea.contains("$GPGSV,7,1,25,") && first.nmea.contains("$GLGSV,4,1,15,"), "\(first.nmea)")
        #expect(first.nmea.contains(",1.50,0.81,1.27*"), "the receiver's own DOPs: \(first.nmea)")
        let read = try NMEAReader.fixes(in: first.nmea).fixes
        #expect(read.map { $0.receiver?.datum } == ["WGS72"], "the receiver's datum, in a DTM: \(first.nmea)")
        #expect(second.sky.isEmpty, "\(second.sky)")
        #expect(!second.nmea.contains("GSV"), "\(second.nmea)")
        #expect(!second.nmea.contains("DTM"), "\(second.nmea)")
    }

    @Test("The hub sends a replayed NMEA log's own sky; a replayed fix that tells none gets the player's")
    func hubSendsAReplayedLogsSky() async throws {
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        var told = Fix(time: time, coordinate: try Coordinate(latitude: 48.1, longitude: 11.5), mode: .threeDimensional, source: .nmea)
        told.receiver = ReceiverReport()
        told.receiver?.sky = Self.bigSky()
        var untold = told
        untold.time += 1
        untold.receiver = nil
        let (first, second) = try await Self.hubUpdates(player: "log", told, untold)
        #expect(first.sky == GPSDReport.skyObject(device: "/dev/locsim/log", time: told.time, sky: Self.bigSky()))
        #expect(first.nmea.contains("$GPGSV,7,1,25,") && first.nmea.contains("$GLGSV,4,1,15,"), "\(first.nmea)")
        #expect(second.sky.contains(#""class":"SKY""#) && !second.sky.contains(#""PRN":65"#), "the player's own sky: \(second.sky)")
        #expect(second.nmea.contains("GSV"), "\(second.nmea)")
    }

    @Test("A relayed receiver's status, corrections and magnetic variation reach its NMEA: GGA's quality, age and station, RMC's variation and mode")
    func receiverInNMEA() throws {
        var fix = try Self.fullReport()
        let writer = NMEAWriter(options: .init(sentences: [.rmc, .gga]))
        for (status, quality, mode) in [(2.0, 2, "D"), (3, 4, "R"), (4, 5, "F"), (1, 1, "A")] {
            fix.receiver?[.status] = status
            let sentences = try writer.sentences(for: fix)
            guard case .rmc(let rmc) = sentences[0], case .gga(let gga) = sentences[1] else {
                Issue.record("\(sentences)")
                continue
            }
            #expect(gga.quality.rawValue == quality, "status \(status)")
            #expect(rmc.mode.map { String($0.rawValue) } == mode, "status \(status)")
            #expect(rmc.magneticVariation == fix.receiver?[.magvar])
            #expect(gga.differentialAge == fix.receiver?[.dgpsAge])
            #expect(gga.differentialStation == fix.receiver?[.dgpsSta].map { String(Int($0)) })
            #expect(gga.geoidSeparation == fix.geoidSeparation)
            // And they read back from the text.
            let text = try writer.string(for: fix)
            let read = try NMEAReader.fixes(in: text).fixes
            #expect(read.last?.geoidSeparation == fix.geoidSeparation, "\(text)")
            #expect(read.last?.altitude == fix.altitude, "\(text)")
        }
    }

    @Test("A relayed receiver is waiting until its first fix with a position, a status before it included; then playing, and listeners are told")
    func waitingUntilTheFirstPosition() async throws {
        let clock = VirtualClock()
        var status = try Self.fullReport()
        status = .noFix(time: status.time, source: .gpsd)
        var positioned = try Self.fullReport()
        positioned.time += 1
        let player = try FeedPlayer(name: "field", seed: 1, provider: ScriptedProvider(fixes: [status, positioned], clock: clock))
        let hub = try PlayerHub(players: [player], now: { Date(timeIntervalSince1970: 1_700_000_000) })
        #expect(hub.info("field")?.status.state == .waiting)
        let (events, continuation) = AsyncStream.makeStream(of: PlayerHub.Event.self)
        _ = hub.subscribeEvents { event in continuation.yield(event) }
        let run = Task { await hub.runPlayers() }
        defer { run.cancel() }
        var received = events.makeAsyncIterator()
        guard case .fix(let first) = try #require(await received.next()) else { Issue.record("not the status fix"); return }
        #expect(!first.fix.hasPosition && hub.info("field")?.status.state == .waiting)
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(1))
        guard case .fix(let second) = try #require(await received.next()) else { Issue.record("not the positioned fix"); return }
        #expect(second.fix.hasPosition)
        guard case .changed(let info, let reason) = try #require(await received.next()) else { Issue.record("no state change"); return }
        #expect(reason == "playing" && info.status.state == .playing)
    }
}
