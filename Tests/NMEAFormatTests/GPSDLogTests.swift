import Foundation
import LocSimTestHelpers
import LocationCore
import NMEAFormat
import Testing

/// Every receiver log in ../shared/data/gpsd is read in lenient mode and its positions are
/// compared with the TPV reports gpsd itself produces from the same log (NAME.tpv.jsonl).
@Suite("gpsd regression logs", .enabled(if: SharedData.isPresent, SharedData.absentReason), .ownThread)
struct GPSDLogTests {
    struct TPV {
        let milliseconds: Int64
        let latitude: Double
        let longitude: Double
    }

    /// gpsd's TPVs that have a time and a position, keyed by time in whole milliseconds.
    static func expectedPositions(_ name: String) throws -> [Int64: [TPV]] {
        let url = GPSDLogs.folder.appendingPathComponent(name + ".tpv.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        var byTime: [Int64: [TPV]] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.isEmpty {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let tpv = object as? [String: Any], tpv["class"] as? String == "TPV",
                let time = tpv["time"] as? String, let lat = tpv["lat"] as? Double, let lon = tpv["lon"] as? Double,
                let mode = tpv["mode"] as? Int, mode >= 2
            else { continue }
            let date = try #require(UTCTimestamp.parse(time), "unparseable TPV time \(time) in \(name)")
            let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
            byTime[ms, default: []].append(TPV(milliseconds: ms, latitude: lat, longitude: lon))
        }
        return byTime
    }

    /// Logs whose positions legitimately differ from gpsd's, why, and the largest distance (m)
    /// allowed between our fix and gpsd's position at the same time.
    static let knownDifferences: [String: (reason: String, metres: Double)] = [
        "bundg_zeus_9": (
            """
            This B&G Zeus chartplotter stamps GGA, GLL and RMC with the same time of day but gives each \
            a different position (its RMC repeats the previous GLL's position). gpsd reports the GLL \
            position, a sentence this module does not decode; we report GGA's, up to 3.2 m away.
            """,
            5
        )
    ]

    @Test("Positions match gpsd's TPVs to 1e-6°", arguments: GPSDLogs.names)
    func positionsMatchGPSD(name: String) throws {
        let path = GPSDLogs.folder.appendingPathComponent(name + ".log").path
        let result = try NMEAReader.fixes(contentsOfFile: path, options: .lenient)
        let expected = try Self.expectedPositions(name)
        let exception = Self.knownDifferences[name]

        var compared = 0
        var exact = 0
        for fix in result.fixes {
            guard let coordinate = fix.coordinate else { continue }
            let ms = Int64((fix.time.timeIntervalSince1970 * 1000).rounded())
            guard let candidates = expected[ms] else { continue }  // gpsd reported no position then
            compared += 1
            let matches = candidates.contains {
                abs($0.latitude - coordinate.latitude) <= 1e-6
                    && longitudeDifference($0.longitude, coordinate.longitude) <= 1e-6
            }
            if matches {
                exact += 1
                continue
            }
            let nearest = candidates.map {
                coordinate.distance(to: Coordinate(uncheckedLatitude: $0.latitude, longitude: $0.longitude))
            }.min() ?? .infinity
            if let exception {
                #expect(
                    nearest <= exception.metres,
                    "\(name): fix at \(UTCTimestamp.format(fix.time)) is \(nearest) m from gpsd's; \(exception.reason)")
            } else {
                Issue.record(
                    "\(name): fix at \(UTCTimestamp.format(fix.time)) \(coordinate) matches none of gpsd's \(candidates.map { "\($0.latitude),\($0.longitude)" })"
                )
            }
        }
        #expect(compared > 0 || expected.isEmpty, "\(name): no fix shares a time with gpsd's TPVs")
        if exception == nil { #expect(exact == compared) }
        // Lenient mode skipped only what it should: nothing from well-formed RMC/GGA/VTG/GSA.
        #expect(result.statistics.sentences > 0)
    }
}
