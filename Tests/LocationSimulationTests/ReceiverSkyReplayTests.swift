import Foundation
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import LocationTestSupport
import NMEAFormat
import Testing

/// A replayed NMEA log's fixes carry the receiver's sky the log told (GSV, GSA): the feeds and
/// `nmea serve` write it, rather than a made-up one or none.
@Suite(.timeLimit(.minutes(1))) struct ReceiverSkyReplayTests {
    /// Three epochs 2 s apart; the first two tell a sky (different signals), the third none.
    static let log = [
        "GPRMC,120000.00,A,4807.038,N,01131.000,E,1.0,90.0,010324,,,A", "GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGSA,A,3,05,12,,,,,,,,,,,1.8,1.0,1.5", "GPGSV,1,1,02,05,40,083,46,12,17,308,41",
        "GPRMC,120002.00,A,4807.038,N,01131.100,E,1.0,90.0,010324,,,A", "GPGGA,120002.00,4807.038,N,01131.100,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGSV,1,1,02,05,40,083,40,12,17,308,30",
        "GPRMC,120004.00,A,4807.038,N,01131.200,E,1.0,90.0,010324,,,A", "GPGGA,120004.00,4807.038,N,01131.200,E,1,08,0.9,545.4,M,46.9,M,,",
    ]

    @Test("Each fix of a replayed NMEA log, resampled between its points too, carries the sky of the point before it")
    func resampledReplayCarriesTheSky() async throws {
        try await withScratchFolder("locsim-sky") { folder in
            let path = folder + "/walk.nmea"
            try (Self.log.map(TestNMEA.checksummed).joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)

            let read = try NMEAReader.fixes(contentsOfFile: path).fixes.map { $0.receiver?.sky }
            #expect(read.count == 3 && read[0] != read[1] && read[2] == read[1])
            let clock = VirtualClock()
            let (replay, warnings) = try GPXReplay.reading(
                routeFile: path, configuration: .init(pacing: .virtual, rate: 1), clock: clock, now: fixedNow)
            #expect(warnings.isEmpty)
            let fixes = try await collect(replay, on: clock).map(\.fix)
            #expect(fixes.map { $0.receiver?.sky } == [read[0], read[0], read[1], read[1], read[2]])
        }
    }

    @Test("A replayed NMEA log's fixes keep GGA's geoid separation, between its points too: the height above the ellipsoid is the log's")
    func replayKeepsTheGeoidSeparation() async throws {
        try await withScratchFolder("locsim-geoid") { folder in
            let path = folder + "/walk.nmea"
            try (Self.log.map(TestNMEA.checksummed).joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
            let clock = VirtualClock()
            let (replay, _) = try GPXReplay.reading(
                routeFile: path, configuration: .init(pacing: .virtual, rate: 1), clock: clock, now: fixedNow)
            let fixes = try await collect(replay, on: clock).map(\.fix)
            #expect(fixes.count == 5)
            #expect(fixes.allSatisfy { $0.altitude == 545.4 && $0.geoidSeparation == 46.9 }, "\(fixes.map { ($0.altitude, $0.geoidSeparation) })")
        }
    }
}
