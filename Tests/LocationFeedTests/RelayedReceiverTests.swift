import Foundation
import LocationCore
import LocationFeed
@testable import LocationGPSD
import NMEAFormat
import Testing

/// A real receiver's fix relayed (`--player NAME=gpsd://…`): every member of its `TPV` reaches
/// the feed's clients. The live check against a real gpsd fed 30 receivers' logs is
/// `GPSDReceiverLogTests`; these check each member through libgps's own parser.
@Suite
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
}
