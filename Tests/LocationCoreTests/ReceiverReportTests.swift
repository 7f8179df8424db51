import Foundation
@testable import LocationCore
import Testing
import LocSimTestHelpers

/// A receiver's report is one word in every fix, and still a value: copies change apart, equal
/// contents are equal, and it round-trips through Codable.
@Suite(.ownThread) struct ReceiverReportTests {
    static func report() -> ReceiverReport {
        var report = ReceiverReport()
        report[.status] = 2
        report[.magvar] = -7.5
        report.datum = "WGS72"
        report.sky = ReceiverReport.Sky(
            dilutions: [.hdop: 0.9, .vdop: .nan],
            satellites: [
                Satellite(id: 7, elevation: 61, azimuth: 212, signal: 44, used: true),
                Satellite(
                    id: 72, elevation: nil, azimuth: 31, signal: nil, used: false,
                    signalIdentity: .init(gnssID: 6, svID: 8, signalID: 1, frequencyID: 3, health: 1)),
            ])
        return report
    }

    @Test("A copy changes apart from the original; equal contents are equal and hash alike")
    func valueSemantics() {
        let original = Self.report()
        var copy = original
        #expect(copy == original)
        copy[.status] = 3
        copy.sky?.satellites.removeLast()
        #expect(original[.status] == 2)
        #expect(original.sky?.satellites.count == 2)
        #expect(copy != original)
        let rebuilt = Self.report()
        #expect(rebuilt == original)
        #expect(rebuilt.hashValue == original.hashValue)
        // A value that is not finite is no value; so is a dilution that is not.
        copy[.magvar] = .infinity
        #expect(copy[.magvar] == nil)
        #expect(original.sky?.dilutions[.vdop] == nil)
        // Set after the sky was made, too: the sky keeps only finite dilutions.
        copy.sky?.dilutions[.pdop] = .nan
        copy.sky?.dilutions = [.gdop: -.infinity, .tdop: 1.1]
        #expect(copy.sky?.dilutions == [.tdop: 1.1])
        copy.sky?.dilutions[.xdop] = .infinity
        #expect(copy.sky?.dilutions == [.tdop: 1.1])
        #expect(MemoryLayout<ReceiverReport?>.size == MemoryLayout<Int>.size)
    }

    /// Skies of every kind the report may be given: whole numbers as NMEA's GSV has them, gpsd's
    /// fractions, values left out, numbers too large for the packed form, a NaN measurement.
    static func skies() -> [ReceiverReport.Sky] {
        var random = SplitMix64(seed: 17)
        func satellite(_ index: Int, wholeNumbers: Bool) -> Satellite {
            func measure(_ range: ClosedRange<Double>) -> Double? {
                if random.next() % 7 == 0 { return nil }
                let value = random.uniform(range)
                return wholeNumbers ? value.rounded() : value
            }
            // In steps: as one expression the type checker took ten seconds over it.
            var identity: Satellite.SignalIdentity?
            if random.next() % 4 != 0 {
                let gnssID = Int(random.next() % 8)
                let svID = Int(random.next() % 64) + 1
                let signalID = Int(random.next() % 8)
                let frequencyID: Int? = random.next() % 2 == 0 ? nil : Int(random.next() % 14)
                let health = Int(random.next() % 3)
                identity = Satellite.SignalIdentity(
                    gnssID: gnssID, svID: svID, signalID: signalID, frequencyID: frequencyID, health: health)
            }
            return Satellite(
                id: index + 1, elevation: measure(-10...90), azimuth: measure(0...359), signal: measure(0...55),
                used: random.next() % 2 == 0, signalIdentity: identity)
        }
        var skies: [ReceiverReport.Sky] = []
        for round in 0..<40 {
            let wholeNumbers = round % 2 == 0
            let count = Int(random.next() % 40)
            var dilutions: [ReceiverReport.Sky.Dilution: Double] = [:]
            for dilution in ReceiverReport.Sky.Dilution.allCases where random.next() % 3 != 0 {
                dilutions[dilution] = (random.uniform(0.5...20) * 100).rounded() / 100
            }
            skies.append(ReceiverReport.Sky(dilutions: dilutions, satellites: (0..<count).map { satellite($0, wholeNumbers: wholeNumbers) }))
        }
        let odd: [Satellite] = [
            Satellite(id: 1 << 40, elevation: 10, azimuth: 20, signal: 30, used: true),
            Satellite(id: 3, elevation: .nan, azimuth: nil, signal: 1e300, used: false),
            Satellite(id: 4, elevation: 1, azimuth: 2, signal: 3, used: true, signalIdentity: .init(gnssID: 300, svID: 70_000, health: -1)),
        ]
        for satellite in odd { skies.append(ReceiverReport.Sky(dilutions: [.pdop: 1.5], satellites: [satellite])) }
        skies.append(ReceiverReport.Sky())
        return skies
    }

    @Test("A sky comes back from a report as it was given, value for value, whether it is kept packed or not")
    func skyKeptExactly() {
        for (round, sky) in Self.skies().enumerated() {
            // NMEA's skies (whole numbers, small integers) are kept packed; the odd ones at the end are not.
            if case .packed = ReceiverReport.StoredSky(sky) {
                #expect(round % 2 == 0 || round >= 40 && sky.satellites.isEmpty, "round \(round) packed")
            } else {
                #expect(round % 2 == 1 || round >= 40, "round \(round) not packed")
            }
            var report = ReceiverReport()
            report.sky = sky
            let back = report.sky
            // Satellite by satellite, for a readable failure; a NaN is never equal to itself.
            #expect(back?.dilutions == sky.dilutions)
            #expect(report.skyDilutions == sky.dilutions)
            #expect(back?.satellites.count == sky.satellites.count)
            for (given, kept) in zip(sky.satellites, back?.satellites ?? []) {
                #expect(kept.id == given.id && kept.used == given.used && kept.signalIdentity == given.signalIdentity)
                for (a, b) in [(kept.elevation, given.elevation), (kept.azimuth, given.azimuth), (kept.signal, given.signal)] {
                    #expect(a == b || (a?.isNaN == true && b?.isNaN == true), "\(String(describing: a)) for \(String(describing: b))")
                }
            }
            var copy = report
            copy[.status] = 1
            #expect(copy.sky == report.sky || sky.satellites.contains { $0.elevation?.isNaN == true })
            #expect(!report.isEmpty)
        }
    }

    @Test("Codable: members, sky and datum come back as they were")
    func codable() throws {
        let data = try JSONEncoder().encode(Self.report())
        #expect(try JSONDecoder().decode(ReceiverReport.self, from: data) == Self.report())
        let empty = try JSONEncoder().encode(ReceiverReport())
        #expect(try JSONDecoder().decode(ReceiverReport.self, from: empty).isEmpty)
    }

    @Test("A datum is a report of its own: it tells reports apart, and an empty name is none")
    func datum() {
        var named = ReceiverReport()
        #expect(named.isEmpty)
        named.datum = "WGS72"
        #expect(!named.isEmpty)
        #expect(named != ReceiverReport())
        var other = named
        other.datum = "User Defined"
        #expect(other != named)
        #expect(named.datum == "WGS72")
        other.datum = ""
        #expect(other.datum == nil)
        #expect(other.isEmpty)
        #expect(other == ReceiverReport())
    }
}
