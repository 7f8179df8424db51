import Foundation
import GPXFormat
import LocationCore
import LocationGPSD
import LocationTestSupport
import LocSimTestHelpers
import NMEAFormat
import Testing

/// GPX → NMEA (`NMEAWriter`) → a real gpsd → libgps → `Fix`: what comes out equals what went in,
/// to the precision NMEA carries.
@Suite(.enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"), .timeLimit(.minutes(1)))
struct GPSDRoundTripTests {
    /// NMEA's resolution: ddmm.mmmmm is 1e-5 minute ≈ 1.7e-7°, rounded to half that; altitude
    /// 2 decimals; speed 3 decimals of a knot, and gpsd's JSON then carries m/s with 3 decimals;
    /// course 2 decimals.
    static let degrees = 1e-7
    static let metres = 0.005 + 1e-9
    static let metresPerSecond = 0.0005 * 1852 / 3600 + 0.0005 + 1e-9
    static let courseDegrees = 0.005 + 1e-9

    @Test("A GPX walk comes back from gpsd as the same fixes")
    func inlineTrack() async throws {
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="locsim tests"><trk><trkseg>"#
        for index in 0..<20 {
            // A 2025 walk in Tokyo, heading north-east and climbing; times after gpsd 3.22's release.
            let time = UTCTimestamp.format(Date(timeIntervalSince1970: 1_750_000_000 + Double(index) * 2), fractionDigits: 0)
            gpx += #"<trkpt lat="\#(35.681236 + Double(index) * 0.0000273)" lon="\#(139.767125 + Double(index) * 0.0000311)">"#
            gpx += "<ele>\(12.5 + Double(index) * 0.37)</ele><time>\(time)</time></trkpt>"
        }
        gpx += "</trkseg></trk></gpx>"
        let document = try GPXDocument(string: gpx)
        try await roundTrip(Self.fixes(from: document, shiftedTo: nil))
    }

    @Test(
        "A phone-recorded walk (../shared/data) comes back from gpsd as the same fixes",
        .enabled(if: SharedData.isPresent, SharedData.absentReason))
    func sharedTrack() async throws {
        let document = try GPXDocument(contentsOfFile: SharedData.path("tracks/orinda-walk-2018.gpx"))
        // Recorded in 2018: gpsd 3.22 moves dates before its release forward by 1024 weeks, so the
        // walk is replayed from 2025 with its own spacing, as `locsim nmea serve` does by default.
        let fixes = Self.fixes(from: document, shiftedTo: Date(timeIntervalSince1970: 1_750_000_000))
        try await roundTrip(Array(fixes.prefix(120)))
    }

    /// Track points as fixes, with speed and course from neighbours (as a receiver reports them).
    static func fixes(from document: GPXDocument, shiftedTo start: Date?) -> [Fix] {
        var fixes = document.tracks.flatMap { $0.segments.flatMap { $0 } }.compactMap { $0.fix() }
        if let start, let first = fixes.first?.time {
            let shift = start.timeIntervalSince(first)
            for index in fixes.indices { fixes[index].time.addTimeInterval(shift) }
        }
        for index in fixes.indices.dropFirst() {
            let (from, to) = (fixes[index - 1].coordinate!, fixes[index].coordinate!)
            let elapsed = fixes[index].time.timeIntervalSince(fixes[index - 1].time)
            guard elapsed > 0 else { continue }
            fixes[index].speed = from.distance(to: to) / elapsed
            fixes[index].course = from == to ? nil : from.bearing(to: to)
        }
        return fixes
    }

    private func roundTrip(_ originals: [Fix]) async throws {
        try #require(originals.count >= 2)
        let writer = NMEAWriter(options: .init(satellitesInUse: 8))
        let lines = try originals.flatMap { fix in try writer.sentences(for: fix).map { try $0.encoded() } }
        // In lock-step: the provider keeps only the newest fix while its consumer is behind, and
        // a loaded machine must not make this test miss an epoch.
        let received = try await LiveGPSD.lockStepRun(lines, activate: true).fixes
        for original in originals {
            // gpsd reports an epoch once per sentence; its last report has everything.
            let fix = try #require(received.last { $0.time == original.time }, "no fix at \(original.time)")
            let (sent, got) = (original.coordinate!, fix.coordinate!)
            #expect(abs(got.latitude - sent.latitude) <= Self.degrees, "latitude at \(original.time)")
            #expect(abs(got.longitude - sent.longitude) <= Self.degrees, "longitude at \(original.time)")
            #expect(fix.mode == .threeDimensional)
            if let altitude = original.altitude {
                #expect(abs((fix.altitude ?? .nan) - altitude) <= Self.metres, "altitude at \(original.time)")
            }
            if let speed = original.speed {
                #expect(abs((fix.speed ?? .nan) - speed) <= Self.metresPerSecond, "speed at \(original.time)")
            }
            if let course = original.course {
                #expect(abs((fix.course ?? .nan) - course) <= Self.courseDegrees, "course at \(original.time)")
            }
        }
        // Nothing else came back.
        let sentTimes = Set(originals.map(\.time))
        #expect(received.allSatisfy { sentTimes.contains($0.time) })
    }
}
