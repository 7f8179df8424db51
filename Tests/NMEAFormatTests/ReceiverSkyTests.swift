import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// The receiver's sky ``NMEAReader`` reads from GSV and GSA beside each fix. That it is the sky
/// a real gpsd reports of 30 real receivers' logs is GPSDReceiverLogTests (IntegrationTests);
/// these pin the rules one at a time.
@Suite("A receiver's sky read from its GSV and GSA", .ownThread)
struct ReceiverSkyTests {
    /// One epoch at `second` past 12:00:00 on 2024-03-01: RMC and GGA, then `more` sentences.
    static func epoch(_ second: Int, _ more: [String] = [], hdop: String = "0.9") -> [String] {
        let time = String(format: "1200%02d.00", second)
        return [
            TestNMEA.checksummed("GPRMC,\(time),A,4807.038,N,01131.000,E,0.0,0.0,010324,,,A"),
            TestNMEA.checksummed("GPGGA,\(time),4807.038,N,01131.000,E,1,08,\(hdop),545.4,M,46.9,M,,"),
        ] + more.map(TestNMEA.checksummed)
    }

    static func skies(_ lines: [String]) throws -> [ReceiverReport.Sky?] {
        try NMEAReader.fixes(in: lines.joined(separator: "\r\n") + "\r\n").fixes.map { $0.receiver?.sky }
    }

    @Test("One epoch's groups make one sky, numbered as gpsd numbers it; used means listed by a GSA and heard; DOPs from the GSA")
    func epochSky() throws {
        let lines = Self.epoch(
            0,
            [
                "GNGSA,A,3,05,12,,,,,,,,,,,1.8,1.0,1.5,1",
                "GNGSA,A,3,05,,,,,,,,,,,,1.8,1.0,1.5,3",
                "GPGSV,2,1,05,05,40,083,46,12,17,308,41,20,07,344,,36,22,228,45",
                "GPGSV,2,2,05,33,10,100,30",
                "GLGSV,1,1,01,70,52,187,27",
                "GAGSV,1,1,01,05,47,142,50",
                "BDGSV,1,1,01,38,11,027,31",
            ])
        let sky = try #require(try Self.skies(lines).first ?? nil)
        let numbering = sky.satellites.map { [$0.id, $0.signalIdentity?.gnssID ?? -1, $0.signalIdentity?.svID ?? -1] }
        #expect(numbering == [[5, 0, 5], [12, 0, 12], [20, 0, 20], [36, 1, 123], [33, 1, 120], [70, 6, 6], [305, 2, 5], [438, 3, 38]])
        // GPS 5 and 12 by the GPS GSA, Galileo 5 by the Galileo one; GPS 20 is listed nowhere.
        #expect(sky.satellites.filter(\.used).map(\.id) == [5, 12, 305])
        #expect(sky.satellites[2].signal == nil && sky.satellites[2].elevation == 7)
        // GGA's HDOP came before the GSA: the GSA's is newer.
        #expect(sky.dilutions == [.pdop: 1.8, .hdop: 1.0, .vdop: 1.5])
    }

    @Test("A sky holds until the next whole group; the next epoch's first group starts a new one; a group missing a sentence says nothing")
    func skyOverEpochs() throws {
        let lines =
            Self.epoch(0, ["GPGSA,A,3,05,,,,,,,,,,,,1.8,1.0,1.5", "GPGSV,1,1,01,05,40,083,46", "GLGSV,1,1,01,70,52,187,27"])
            + Self.epoch(1, ["GPGSA,A,3,05,,,,,,,,,,,,1.7,1.1,1.4"])  // no GSV: the sky stays, the GSA waits for one
            + Self.epoch(2, ["GPGSV,1,1,01,07,10,010,40"])  // a new epoch's group starts anew
            + Self.epoch(3, ["GPGSV,2,1,05,09,40,083,46,12,17,308,41,20,07,344,,36,22,228,45"])  // part 2 never comes
            + Self.epoch(4)
        let skies = try Self.skies(lines)
        #expect(skies.count == 5)
        #expect(skies[0]?.satellites.map(\.id) == [5, 70])
        #expect(skies[1] == skies[0])
        #expect(skies[2]?.satellites.map(\.id) == [7])
        #expect(skies[2]?.dilutions[.pdop] == 1.7, "the newer GSA reaches the sky with the group")
        #expect(skies[3] == skies[2] && skies[4] == skies[2])
    }

    @Test("Before the first whole group a fix has no sky; a group with no satellite, or none with an azimuth, is an empty sky")
    func emptySky() throws {
        let lines =
            Self.epoch(0) + Self.epoch(1, ["GPGSV,1,1,00"]) + Self.epoch(2, ["GPGSV,1,1,02,05,10,000,,07,20,,"])
            + Self.epoch(3, ["GPGSV,1,1,01,05,10,090,30"])
        let skies = try Self.skies(lines)
        #expect(skies[0] == nil)
        #expect(skies[1]?.satellites == [] && skies[2]?.satellites == [])
        #expect(skies[3]?.satellites.count == 1)
    }

    @Test("NMEA 4.10: each sentence's signal ID, one entry a signal; a repeated talker and signal starts anew")
    func signals() throws {
        let lines = Self.epoch(
            0,
            [
                "GPGSV,1,1,01,05,40,083,46,1",
                "GPGSV,1,1,01,05,40,083,38,6",
                "GAGSV,2,1,02,05,47,142,50",
                "GAGSV,2,2,02,09,20,100,40,2",  // a signal ID in the last sentence alone, as some receivers send
            ])
        let sky = try #require(try Self.skies(lines).first ?? nil)
        #expect(sky.satellites.map { $0.signalIdentity?.signalID } == [0, 3, 0, 5], "gpsd's sigid: L1, L2 CL; E1, E5")
        let repeated = Self.epoch(0, ["GPGSV,1,1,01,05,40,083,46", "GPGSV,1,1,01,07,10,010,40"])
        #expect(try Self.skies(repeated).first??.satellites.map(\.id) == [7])
    }
}
