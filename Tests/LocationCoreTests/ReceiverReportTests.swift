import Foundation
import LocationCore
import Testing

/// A receiver's report is one word in every fix, and still a value: copies change apart, equal
/// contents are equal, and it round-trips through Codable.
@Suite struct ReceiverReportTests {
    static func report() -> ReceiverReport {
        var report = ReceiverReport()
        report[.status] = 2
        report[.magvar] = -7.5
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

    @Test("Codable: members and sky come back as they were")
    func codable() throws {
        let data = try JSONEncoder().encode(Self.report())
        #expect(try JSONDecoder().decode(ReceiverReport.self, from: data) == Self.report())
        let empty = try JSONEncoder().encode(ReceiverReport())
        #expect(try JSONDecoder().decode(ReceiverReport.self, from: empty).isEmpty)
    }
}
