import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// GSV (satellites in view) read and written, and a fix's sky in its GSA, GGA and GSV.
/// That a real gpsd reads the sky locsim writes as locsim's own SKY is
/// GPSDFeedLiveTests.parityWithRealGPSD (IntegrationTests).
@Suite("Satellites: GSV, and a fix's sky in GSA, GGA and GSV", .ownThread)
struct SatelliteSentenceTests {
    typealias GSV = NMEASentence.GSV

    /// Sentences of each shape: several parts, empty fields, a signal ID, no satellites.
    static let shapes: [GSV] = [
        GSV(
            count: 3, number: 1, satellitesInView: 11,
            satellites: [
                .init(id: 2, elevation: 74, azimuth: 42, signal: 41), .init(id: 5, elevation: 7, azimuth: 359, signal: nil),
                .init(id: 12, elevation: nil, azimuth: nil, signal: 28), .init(id: 29, elevation: 90, azimuth: 0, signal: 0),
            ]),
        GSV(talker: .glonass, count: 3, number: 3, satellitesInView: 11, satellites: [.init(id: 71, elevation: 33, azimuth: 180, signal: 99)]),
        GSV(count: 1, number: 1, satellitesInView: 0, satellites: []),
        GSV(talker: .combined, count: 2, number: 2, satellitesInView: 5, satellites: [.init(id: 194, elevation: 12, azimuth: 7, signal: 30)], signalID: 1),
    ]

    @Test("A GSV of every shape reads back as itself; its text has 3 fields and 4 for each satellite")
    func roundTrip() throws {
        for gsv in Self.shapes {
            let text = try NMEASentence.gsv(gsv).encoded()
            #expect(try NMEASentence(parsing: text) == .gsv(gsv), "\(text)")
            let fields = text.split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false).count - 1
            #expect(fields == 3 + 4 * gsv.satellites.count + (gsv.signalID == nil ? 0 : 1), "\(text)")
        }
    }

    @Test("A GSV read from a receiver: empty slots dropped, more than four satellites read, 360° is 0°")
    func reading() throws {
        let padded = try NMEASentence(parsing: TestNMEA.checksummed("GPGSV,3,3,09,32,21,287,,,,,"))
        #expect(padded == .gsv(GSV(count: 3, number: 3, satellitesInView: 9, satellites: [.init(id: 32, elevation: 21, azimuth: 287, signal: nil)])))
        let long = try NMEASentence(parsing: TestNMEA.checksummed("GPGSV,1,1,05,01,10,360,20,02,20,020,21,03,30,030,22,04,40,040,23,05,50,050,24"))
        guard case .gsv(let gsv) = long else {
            Issue.record("not GSV: \(long)")
            return
        }
        #expect(gsv.satellites.map(\.id) == [1, 2, 3, 4, 5])
        #expect(gsv.satellites.first?.azimuth == 0)
    }

    @Test("A malformed GSV names the field", arguments: [
        ("GPGSV,0,1,00", 1), ("GPGSV,2,3,08", 2), ("GPGSV,1,1,", 3), ("GPGSV,1,1,01,07,91,100,30", 5),
        ("GPGSV,1,1,01,07,45,361,30", 6), ("GPGSV,1,1,01,07,45,100,100", 7), ("GPGSV,1,1,01,07,45,100", nil),
    ] as [(String, Int?)])
    func malformed(body: String, field: Int?) throws {
        let error = #expect(throws: NMEAError.self) { try NMEASentence(parsing: TestNMEA.checksummed(body)) }
        #expect(error?.code == (field == nil ? .wrongFieldCount : .malformedField), "\(body): \(String(describing: error))")
        #expect(error?.field == field, "\(body): \(String(describing: error))")
    }

    @Test("Values GSV cannot say are refused when written, naming them")
    func unwritable() {
        let bad: [(GSV, String)] = [
            (GSV(count: 10, number: 1, satellitesInView: 1, satellites: []), "sentence count"),
            (GSV(count: 2, number: 3, satellitesInView: 1, satellites: []), "sentence number"),
            (GSV(count: 1, number: 1, satellitesInView: 5, satellites: Array(repeating: .init(id: 1, elevation: 1, azimuth: 1, signal: 1), count: 5)), "at most 4"),
            (GSV(count: 1, number: 1, satellitesInView: 1, satellites: [.init(id: 1, elevation: -1, azimuth: 1, signal: 1)]), "elevation"),
            (GSV(count: 1, number: 1, satellitesInView: 1, satellites: [.init(id: 1, elevation: 1, azimuth: 360, signal: 1)]), "azimuth"),
            (GSV(count: 1, number: 1, satellitesInView: 1, satellites: [.init(id: 0, elevation: 1, azimuth: 1, signal: 1)]), "satellite ID"),
        ]
        for (gsv, name) in bad {
            let error = #expect(throws: NMEAError.self) { try NMEASentence.gsv(gsv).encoded() }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains(name) == true, "\(String(describing: error))")
        }
    }

    /// Eleven satellites, the eight highest used; one with no signal.
    static let sky: [Satellite] = {
        let ids = [3, 6, 9, 11, 14, 17, 19, 22, 25, 28, 31]
        return ids.indices.map { (index: Int) -> Satellite in
            let step = Double(index)
            let azimuth: Double = index == 10 ? 359.6 : 33 * step + 0.5
            let signal: Double? = index == 4 ? nil : 20 + 2 * step
            return Satellite(id: ids[index], elevation: 10 + 7 * step + 0.4, azimuth: azimuth, signal: signal, used: index >= 3)
        }
    }()

    @Test("A fix with its sky: GSA lists the satellites used, GGA counts them, GSV tells all in view four a sentence")
    func fixWithSky() throws {
        let fix = Fix(
            time: try #require(UTCTimestamp.parse("2024-05-01T12:00:00Z")), coordinate: try Coordinate(latitude: 35.68, longitude: 139.76),
            altitude: 40, speed: 1.4, course: 90, horizontalAccuracy: 5, mode: .threeDimensional, source: .synthetic)
        let writer = NMEAWriter(options: .init(sentences: [.gsa, .gsv, .rmc, .gga, .vtg], accuracyModel: .gpsd))
        let sentences = try writer.sentences(for: fix, sky: Self.sky)
        #expect(sentences.map(\.type) == [.gsa, .gsv, .gsv, .gsv, .rmc, .gga, .vtg])
        let used = Self.sky.filter(\.used).map(\.id)
        for sentence in sentences {
            switch sentence {
            case .gsa(let gsa): #expect(gsa.satellites == used)
            case .gga(let gga): #expect(gga.satellitesInUse == used.count)
            case .gsv(let gsv):
                #expect(gsv.count == 3 && gsv.satellitesInView == 11)
                let part = Array(Self.sky.dropFirst(4 * (gsv.number - 1)).prefix(4))
                #expect(gsv.satellites.map(\.id) == part.map(\.id))
                // Whole degrees and dB-Hz, rounded; an azimuth that rounds to 360 is 0.
                #expect(gsv.satellites.map(\.elevation) == part.map { $0.elevation.map { Int($0.rounded()) } })
                #expect(gsv.satellites.map(\.azimuth) == part.map { $0.azimuth.map { Int($0.rounded()) % 360 } })
                #expect(gsv.satellites.map(\.signal) == part.map { $0.signal.map { Int($0.rounded()) } })
            default: break
            }
        }
        // The sky changes nothing a reader makes of the fix, but for the sky it reads beside it.
        let text = try writer.string(for: fix, sky: Self.sky)
        let plain = try writer.string(for: fix)
        let read = try NMEAReader.fixes(in: text).fixes
        #expect(try read.map { fix in var fix = fix; fix.receiver = nil; return fix } == NMEAReader.fixes(in: plain).fixes)
        #expect(read.first?.receiver?.sky?.satellites.map(\.id) == Self.sky.map(\.id))
        #expect(!plain.contains("GSV"))
        // With no satellites in view, one GSV says so; without a position nothing is used.
        let empty = try writer.sentences(for: fix, sky: [])
        #expect(empty.contains(.gsv(GSV(count: 1, number: 1, satellitesInView: 0, satellites: []))))
        let lost = try writer.sentences(for: .noFix(time: fix.time, source: .synthetic), sky: Self.sky)
        #expect(lost.allSatisfy { if case .gsa(let gsa) = $0 { gsa.satellites.isEmpty } else { true } })
    }

    @Test("A sky GSV cannot tell is refused, naming what is wrong")
    func unwritableSky() throws {
        let fix = Fix(time: Date(timeIntervalSince1970: 1_700_000_000), coordinate: try Coordinate(latitude: 1, longitude: 2), mode: .twoDimensional, source: .synthetic)
        let writer = NMEAWriter(options: .init(sentences: [.gsa, .gsv]))
        let one = Satellite(id: 1, elevation: 10, azimuth: 10, signal: 30, used: false)
        var high = one
        high.elevation = 90.6
        var noisy = one
        noisy.signal = .nan
        let cases: [([Satellite], String)] = [
            (Array(repeating: one, count: NMEAWriter.maximumSatellitesInView + 1), "at most 36"),
            ([high], "elevation"), ([noisy], "signal-to-noise"),
            ((1...13).map { Satellite(id: $0, elevation: 10, azimuth: 10, signal: 30, used: true) }, "at most 12"),
        ]
        for (sky, name) in cases {
            let error = #expect(throws: NMEAError.self) { try writer.sentences(for: fix, sky: sky) }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains(name) == true, "\(String(describing: error))")
        }
    }
}
