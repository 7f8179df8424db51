import Foundation
@testable import LocSimCommand
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// `--record FILE.nmea` (``FixRecording``) keeps each epoch's own accuracy, whatever sky gpsd
/// sent with its report.
@Suite(.ownThread) struct FixRecordingTests {
    /// The reports gpsd 3.22 sends for a receiver's log whose epochs send GGA and RMC before GSA
    /// (the Quectel EG25-G): each epoch's `TPV`, its accuracy gpsd's 19 m × that epoch's HDOP, goes
    /// with the newest `SKY` before it, which is the previous epoch's (gpsd sends an epoch's `SKY`
    /// after its GSA, so after its `TPV`); every epoch reported twice, as a first and a last report.
    static func gpsdReports(_ log: String) throws -> [Fix] {
        var options = NMEAReader.Options.lenient
        options.accuracyModel = .gpsd
        let epochs = try NMEAReader.fixes(contentsOfFile: GPSDLogs.url(log + ".log").path, options: options).fixes
        var reports: [Fix] = []
        for (index, epoch) in epochs.enumerated() {
            var report = epoch
            var receiver = report.receiver ?? ReceiverReport()
            receiver.sky = index == 0 ? nil : epochs[index - 1].receiver?.sky
            report.receiver = receiver
            var first = report
            first.speed = nil
            reports += [first, report]
        }
        return reports
    }

    @Test(
        "An .nmea recording of gpsd's reports for a real receiver's log reads back with each epoch's own accuracy, not the sky's before it",
        .enabled(if: GPSDLogs.isPresent, SharedData.absentReason))
    func nmeaKeepsEachEpochsAccuracy() throws {
        let reports = try Self.gpsdReports("quectel-eg25-g")
        let live = reports.filter(\.hasPosition)
        // The defect needs a sky whose HDOP is not the fix's: the log has them.
        let mismatched = live.filter { fix in
            guard let hdop = fix.receiver?.sky?.dilutions[.hdop], let accuracy = fix.horizontalAccuracy else { return false }
            return abs(hdop * NMEAAccuracyModel.gpsd.userEquivalentRangeError - accuracy) > 0.01
        }
        try #require(mismatched.count >= 5, "the log's epochs change their HDOP")

        try withScratchFolder("locsim-fix-recording") { folder in
            let path = folder + "/q.nmea"
            let recording = try FixRecording(path: path)
            for report in reports { try recording.record(report) }
            let written = try recording.finish()

            var options = NMEAReader.Options.strict
            options.accuracyModel = .gpsd
            let read = try NMEAReader.fixes(contentsOfFile: path, options: options).fixes
            // One fix per epoch: the last report with each time.
            var epochs: [Fix] = []
            for fix in live {
                if epochs.last?.time == fix.time { epochs[epochs.count - 1] = fix } else { epochs.append(fix) }
            }
            #expect(written == epochs.count)
            #expect(read.map(\.time) == epochs.map(\.time))
            // HDOP carries two decimals: 19 m × 0.005 at most.
            let differences = zip(read, epochs).compactMap { back, live -> String? in
                guard let a = back.horizontalAccuracy, let b = live.horizontalAccuracy, abs(a - b) <= 19 * 0.005 + 1e-9 else {
                    return "\(live.time): read back \(back.horizontalAccuracy.map { "\($0)" } ?? "none"), live \(live.horizontalAccuracy.map { "\($0)" } ?? "none")"
                }
                return nil
            }
            #expect(differences.isEmpty, "\(differences.count) of \(epochs.count) epochs, the first: \(differences.prefix(5))")
        }
    }
}
