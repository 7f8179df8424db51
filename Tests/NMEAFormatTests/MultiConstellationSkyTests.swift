import Foundation
import LocSimTestHelpers
import LocationCore
import NMEAFormat
import Testing

/// A sky of several constellations and signals written as NMEA and read back: what a relayed
/// multi-GNSS receiver's or a replayed log's sky becomes on locsim's NMEA feeds. That a real gpsd
/// reads it as it was is NMEALogCommandTests.servesTheLogsSky (IntegrationTests).
@Suite("Satellites: a sky of several constellations and signals in GSA and GSV", .ownThread)
struct MultiConstellationSkyTests {
    typealias Identity = Satellite.SignalIdentity

    /// Numbered as gpsd numbers them (`PRN`, `gnssid`, `svid`, `sigid`).
    static let sky: [Satellite] = [
        Satellite(id: 5, elevation: 40, azimuth: 100, signal: 40, used: true, signalIdentity: Identity(gnssID: 0, svID: 5)),
        Satellite(id: 7, elevation: 30, azimuth: 200, signal: 35, used: true, signalIdentity: Identity(gnssID: 0, svID: 7)),
        Satellite(id: 33, elevation: 20, azimuth: 150, signal: 30, used: true, signalIdentity: Identity(gnssID: 1, svID: 120)),
        Satellite(id: 194, elevation: 70, azimuth: 10, signal: 45, used: true, signalIdentity: Identity(gnssID: 5, svID: 2)),
        // GPS 7's L2 CL signal, and Galileo 34's E5b alone.
        Satellite(id: 7, elevation: 30, azimuth: 200, signal: 33, used: true, signalIdentity: Identity(gnssID: 0, svID: 7, signalID: 3)),
        Satellite(id: 69, elevation: 50, azimuth: 50, signal: 38, used: true, signalIdentity: Identity(gnssID: 6, svID: 5)),
        Satellite(id: 70, elevation: 12, azimuth: 300, signal: nil, used: false, signalIdentity: Identity(gnssID: 6, svID: 6)),
        Satellite(id: 312, elevation: 45, azimuth: 300, signal: 41, used: true, signalIdentity: Identity(gnssID: 2, svID: 12)),
        Satellite(id: 334, elevation: 20, azimuth: 20, signal: 28, used: false, signalIdentity: Identity(gnssID: 2, svID: 34, signalID: 5)),
        Satellite(id: 430, elevation: 60, azimuth: 90, signal: 44, used: true, signalIdentity: Identity(gnssID: 3, svID: 30)),
    ]

    static let fix = Fix(
        time: Date(timeIntervalSince1970: 1_700_000_000), coordinate: try! Coordinate(latitude: 51.5, longitude: -0.12),
        altitude: 10, mode: .threeDimensional, source: .synthetic)

    @Test("Each constellation's GSA and GSV groups from its own talker, GPS first, signals named; read back as written")
    func roundTrip() throws {
        let writer = NMEAWriter(options: .init(talker: .combined, sentences: [.rmc, .gga, .gsa, .gsv]))
        let sentences = try writer.sentences(for: Self.fix, sky: Self.sky)
        let gsas = sentences.compactMap { if case .gsa(let gsa) = $0 { gsa } else { nil } }
        #expect(gsas.map(\.talker) == [.gps, .glonass, .galileo, .beidou])
        #expect(gsas.map(\.satellites) == [[5, 7, 33, 194], [69], [12], [30]])
        #expect(gsas.allSatisfy { $0.systemID == nil }, "gpsd 3.22 marks nothing used from a GSA with a system ID")
        let gsvs = sentences.compactMap { if case .gsv(let gsv) = $0 { gsv } else { nil } }
        #expect(gsvs.map { "\($0.talker)/\($0.signalID ?? 0)" } == ["GP/1", "GP/6", "GL/1", "GA/1", "GA/2", "GB/1"])
        #expect(gsvs.map { $0.satellites.map(\.id) } == [[5, 7, 33, 194], [7], [69, 70], [12], [34], [30]])
        let gga = sentences.compactMap { if case .gga(let gga) = $0 { gga } else { nil } }.first
        #expect(gga?.satellitesInUse == 7, "each satellite used counted once, whatever its signals")

        let text = try writer.string(for: Self.fix, sky: Self.sky)
        let read = try #require(try NMEAReader.fixes(in: text).fixes.first?.receiver?.sky?.satellites)
        #expect(read.count == Self.sky.count)
        #expect(Set(read) == Set(Self.sky), "only written: \(Set(Self.sky).subtracting(read)), only read: \(Set(read).subtracting(Self.sky))")
    }

    @Test("A sky of GPS alone is written as before: one GSA and one GSV group from the writer's talker, no signal IDs")
    func gpsAlone() throws {
        let gps = Self.sky.filter { $0.signalIdentity?.gnssID == 0 && $0.signalIdentity?.signalID == 0 }
        let sentences = try NMEAWriter(options: .init(talker: .combined, sentences: [.gsa, .gsv])).sentences(for: Self.fix, sky: gps)
        #expect(
            sentences == [
                .gsa(.init(talker: .combined, fixMode: .threeDimensional, satellites: [5, 7])),
                .gsv(
                    .init(
                        talker: .combined, count: 1, number: 1, satellitesInView: 2,
                        satellites: [
                            .init(id: 5, elevation: 40, azimuth: 100, signal: 40), .init(id: 7, elevation: 30, azimuth: 200, signal: 35),
                        ])),
            ])
    }

    @Test("What gpsd's NMEA cannot name is left out by tellable and refused by the writer, naming the satellite")
    func unnameable() throws {
        let navic = Satellite(id: 801, elevation: 10, azimuth: 10, signal: 30, used: false, signalIdentity: Identity(gnssID: 7, svID: 1))
        let qzss9 = Satellite(id: 201, elevation: 10, azimuth: 10, signal: 30, used: false, signalIdentity: Identity(gnssID: 5, svID: 9))
        let l1p = Satellite(id: 9, elevation: 10, azimuth: 10, signal: 30, used: false, signalIdentity: Identity(gnssID: 0, svID: 9, signalID: 1))
        let beyond = Satellite(id: 500, elevation: 10, azimuth: 10, signal: 30, used: false)
        #expect(NMEAWriter.tellable(Self.sky + [navic, qzss9, l1p, beyond]) == Self.sky)
        for satellite in [navic, qzss9, l1p, beyond] {
            let error = #expect(throws: NMEAError.self) { try NMEAWriter().sentences(for: Self.fix, sky: [satellite]) }
            #expect(error?.message.contains("satellite \(satellite.id)") == true, "\(String(describing: error))")
        }
    }

    @Test("tellable keeps 36 in view of each talker and signal (the used first, then the strongest) and 12 used of each")
    func perConstellationLimits() throws {
        func satellite(_ gnss: Int, _ sv: Int, used: Bool) -> Satellite {
            let prn = gnss == 6 ? 64 + sv : gnss == 1 ? sv - 87 : sv
            return Satellite(
                id: prn, elevation: 10, azimuth: Double(sv % 360), signal: Double(sv % 50), used: used,
                signalIdentity: Identity(gnssID: gnss, svID: sv))
        }
        // `GP`: 32 GPS (14 used) and 10 SBAS (33…42, one used); `GL`: 24 GLONASS (14 used).
        let gp = (1...32).map { satellite(0, $0, used: $0 <= 14) } + (120...129).map { satellite(1, $0, used: $0 == 129) }
        let big = gp + (1...24).map { satellite(6, $0, used: $0 <= 14) }
        let told = NMEAWriter.tellable(big)
        let dropped = gp.filter { satellite in !told.contains { $0.id == satellite.id } }
        #expect(dropped.count == gp.count - NMEAWriter.maximumSatellitesInView)
        // The used ones kept before the unused, then the strongest.
        #expect(dropped.allSatisfy { !$0.used })
        let usedBefore = Set(gp.filter(\.used).map(\.id))
        let weakestKept = told.filter { !usedBefore.contains($0.id) && $0.id < 64 }.compactMap(\.signal).min() ?? 0
        #expect(dropped.allSatisfy { ($0.signal ?? -1) <= weakestKept })
        #expect(told.filter { $0.used && $0.id < 64 }.count == NMEAWriter.maximumSatellitesInUse)
        #expect(told.filter { $0.used && $0.id > 64 }.count == NMEAWriter.maximumSatellitesInUse)
        let sentences = try NMEAWriter(options: .init(sentences: [.gga, .gsa, .gsv])).sentences(for: Self.fix, sky: told)
        let inView = sentences.compactMap { if case .gsv(let gsv) = $0, gsv.number == 1 { "\(gsv.talker) \(gsv.satellitesInView)" } else { nil } }
        #expect(inView == ["GP 36", "GL 24"])
        let error = #expect(throws: NMEAError.self) { try NMEAWriter().sentences(for: Self.fix, sky: big) }
        #expect(error?.message.contains("at most") == true, "\(String(describing: error))")
    }

    @Test("A receiver's own DOPs are written over the accuracy model's; one no DOP can be is left out, the fix still written")
    func receiversDOPs() throws {
        var fix = Self.fix
        fix.horizontalAccuracy = 19
        fix.receiver = ReceiverReport()
        fix.receiver?.sky = ReceiverReport.Sky(dilutions: [.pdop: 1.9, .hdop: 1.1, .vdop: 1.55], satellites: Self.sky)
        let writer = NMEAWriter(options: .init(sentences: [.gga, .gsa], accuracyModel: .gpsd))
        func dops(_ fix: Fix) throws -> [Double?] {
            let sentences = try writer.sentences(for: fix, sky: Self.sky)
            let gsa = sentences.compactMap { if case .gsa(let gsa) = $0 { gsa } else { nil } }.first
            let gga = sentences.compactMap { if case .gga(let gga) = $0 { gga } else { nil } }.first
            return [gsa?.pdop, gsa?.hdop, gsa?.vdop, gga?.hdop]
        }
        #expect(try dops(fix) == [1.9, 1.1, 1.55, 1.1])
        fix.receiver?.sky?.dilutions = [.pdop: .infinity, .hdop: -1, .vdop: .nan]
        #expect(try dops(fix) == [nil, 1, nil, 1], "none of the receiver's: the model's HDOP (19 m / 19 m)")
        fix.receiver?.sky?.dilutions = [.hdop: .infinity, .vdop: 2]
        #expect(try dops(fix) == [nil, nil, 2, nil])
    }

    @Test("A recording's DOPs are the fix's own accuracy through the model, never its sky's (which may be the epoch before's)")
    func recordingsDOPs() throws {
        var fix = Self.fix
        fix.horizontalAccuracy = 19 * 1.3
        fix.verticalAccuracy = 19 * 2.6
        fix.receiver = ReceiverReport()
        fix.receiver?.sky = ReceiverReport.Sky(dilutions: [.pdop: 2.7, .hdop: 1.1, .vdop: 2.4], satellites: Self.sky)
        let options = NMEAWriter.Options.gpsdRecording()
        #expect(!options.usesReceiverDilutions && NMEAWriter.Options.gpsd().usesReceiverDilutions)
        let model = NMEAWriter(options: .init(sentences: [.gga, .gsa], accuracyModel: .gpsd))
        var withoutSky = fix
        withoutSky.receiver = nil
        let text = try NMEAWriter(options: options).string(for: fix)
        #expect(text == (try NMEAWriter(options: .gpsd()).string(for: withoutSky)), "the model's DOPs, as for a fix without a sky")
        let sentences = try NMEAWriter(options: .init(sentences: [.gga, .gsa], accuracyModel: .gpsd, usesReceiverDilutions: false))
            .sentences(for: fix)
        #expect(sentences == (try model.sentences(for: withoutSky)))
        let gga = sentences.compactMap { if case .gga(let gga) = $0 { gga } else { nil } }.first
        let hdop = try #require(gga?.hdop)
        #expect(abs(hdop * 19 - 19 * 1.3) < 1e-9, "HDOP \(hdop), not the sky's 1.1")
        // Without an accuracy nothing is made up from the sky.
        fix.horizontalAccuracy = nil
        fix.verticalAccuracy = nil
        let none = try NMEAWriter(options: options).sentences(for: fix)
        #expect(none.allSatisfy { sentence in
            switch sentence {
            case .gga(let gga): gga.hdop == nil
            case .gsa(let gsa): gsa.hdop == nil && gsa.pdop == nil && gsa.vdop == nil
            default: true
            }
        })
    }

    @Test(
        "Every real receiver's sky (../shared/data), written as NMEA and read back, is the sky as GSA and GSV can tell it, DOPs too",
        .enabled(if: GPSDLogs.isPresent, SharedData.absentReason))
    func realReceivers() throws {
        let writer = NMEAWriter(options: .init(sentences: [.rmc, .gga, .gsa, .gsv]))
        var multi = 0
        for name in GPSDLogs.names {
            let fixes = try NMEAReader.fixes(contentsOfFile: GPSDLogs.url(name + ".log").path, options: .lenient).fixes
                .filter { $0.hasPosition && $0.receiver?.sky != nil }
            var text = ""
            for fix in fixes { try writer.write(fix, sky: NMEAWriter.tellable(fix.receiver?.sky?.satellites ?? []), to: &text) }
            let read = try NMEAReader.fixes(in: text).fixes
            try #require(read.count == fixes.count, "\(name)")
            if fixes.contains(where: { Set($0.receiver?.sky?.satellites.compactMap(\.signalIdentity?.gnssID) ?? []).count > 1 }) { multi += 1 }
            var differences: [String] = []
            for (written, back) in zip(fixes, read) {
                let sky = try #require(written.receiver?.sky)
                let told = NMEAWriter.tellable(sky.satellites)
                let backSky = back.receiver?.sky
                // An empty sky, or one with no azimuth, reads as an empty sky (gpsd's rule).
                let expected = told.contains { ($0.azimuth ?? 0) != 0 } ? told : []
                if Set(backSky?.satellites ?? []) != Set(expected) || backSky?.satellites.count != expected.count {
                    differences.append(
                        "\(written.time): only written \(Set(expected).subtracting(backSky?.satellites ?? []).prefix(3)), "
                            + "only read \(Set(backSky?.satellites ?? []).subtracting(expected).prefix(3))")
                }
                let dops: [ReceiverReport.Sky.Dilution] = [.pdop, .hdop, .vdop]
                if dops.map({ backSky?.dilutions[$0] }) != dops.map({ sky.dilutions[$0] }) {
                    differences.append("\(written.time): DOPs \(sky.dilutions) read back \(backSky?.dilutions ?? [:])")
                }
            }
            #expect(differences.isEmpty, "\(name): \(differences.count) fixes differ, first \(differences.prefix(3))")
        }
        #expect(multi >= 5, "logs of several constellations")
    }
}
