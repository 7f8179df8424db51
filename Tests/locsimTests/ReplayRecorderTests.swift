import Foundation
@testable import LocSimCommand
import LocationCore
import MapFeature
import Testing
import LocSimTestHelpers

/// The summary's figures from the map logic's events (what `replay` prints last).
@Suite(.ownThread) struct ReplayRecorderTests {
    @Test("The duration spans the fixes with a position: gpsd's first reports, stamped when read, do not make it negative")
    @MainActor func durationOfPositionsOnly() throws {
        let recorder = try ReplayRecorder(format: .jsonl, reach: 40) { _ in }
        // gpsd after start-up: no position yet, stamped with the machine's clock (2026) …
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        recorder.record(MapEvent(time: now, kind: .fixRejected(.noFix(time: now, source: .gpsd), .noPosition)))
        // … then the receiver's own fixes, from a log of 2017, 14 s apart.
        let start = Date(timeIntervalSince1970: 1_500_000_000)
        for second in [0.0, 14] {
            let fix = Fix(time: start.addingTimeInterval(second), coordinate: try Coordinate(latitude: 35.68, longitude: 139.76), source: .gpsd)
            recorder.record(MapEvent(time: fix.time, kind: .fixAccepted(fix)))
        }
        #expect(recorder.summary.duration == 14)
        #expect(recorder.summary.fixes == 3)
    }

    @Test("The report's path keeps at most its limit of evenly spaced fixes, the first and the newest always", arguments: [1, 9, 10, 11, 99, 1_000, 4_097])
    @MainActor func drawnPath(count: Int) throws {
        var path = ReplayRecorder.DrawnPath(limit: 10)
        let start = Date(timeIntervalSince1970: 1_500_000_000)
        for second in 0..<count {
            path.append((start.addingTimeInterval(Double(second)), try Coordinate(latitude: 35, longitude: 139 + Double(second) * 1e-5)))
        }
        let seconds = path.points.map { Int($0.time.timeIntervalSince(start)) }
        #expect(seconds.count <= 11 && seconds.count >= min(count, 5), "\(seconds)")
        #expect(seconds.first == 0 && seconds.last == count - 1, "\(seconds)")
        // Before the newest, every stride-th fix from the first.
        #expect(seconds.dropLast().enumerated().allSatisfy { $0.element == $0.offset * path.stride }, "\(seconds), stride \(path.stride)")
        #expect(path.last?.time == start.addingTimeInterval(Double(count - 1)))
    }

    @Test("An interrupted run's report says so in its title, at the top of the page, not only in the summary at its foot")
    @MainActor func interruptedReportTitle() throws {
        let recorder = try ReplayRecorder(format: .jsonl, reach: 40) { _ in }
        let fix = Fix(time: Date(timeIntervalSince1970: 1_500_000_000), coordinate: try Coordinate(latitude: 35.68, longitude: 139.76), source: .gpx)
        recorder.record(MapEvent(time: fix.time, kind: .fixAccepted(fix)))
        #expect(HTMLReport(title: "walk.gpx", recorder: recorder).render().contains(#""title":"walk.gpx","#))
        recorder.interrupted = true
        #expect(HTMLReport(title: "walk.gpx", recorder: recorder).render().contains(#""title":"walk.gpx (interrupted: stopped early by a signal)","#))
    }

    @Test("Every fix rejected: a warning naming how many and why (the best accuracy, the flag to change); none once one is accepted")
    @MainActor func everyFixRejected() throws {
        let recorder = try ReplayRecorder(format: .jsonl, reach: 40) { _ in }
        let start = Date(timeIntervalSince1970: 1_500_000_000)
        #expect(recorder.rejectionWarning(limit: 100) == nil, "no fix came: nothing to warn of")
        for (second, accuracy) in [(0.0, 150.0), (1, 101.5), (2, 480)] {
            var fix = Fix(time: start.addingTimeInterval(second), coordinate: try Coordinate(latitude: 35.68, longitude: 139.76), source: .gpx)
            fix.horizontalAccuracy = accuracy
            recorder.record(MapEvent(time: fix.time, kind: .fixRejected(fix, .inaccurate(horizontalAccuracy: accuracy))))
        }
        let none = Fix.noFix(time: start.addingTimeInterval(3), source: .gpx)
        recorder.record(MapEvent(time: none.time, kind: .fixRejected(none, .noPosition)))
        #expect(
            recorder.rejectionWarning(limit: 100)
                == "locsim: warning: all 4 fixes were rejected, so the map never fetched: 3 less accurate than --min-accuracy 100.0 m, "
                + "the best 101.5 m; --min-accuracy inf keeps every fix; 1 without a position")
        let good = Fix(time: start.addingTimeInterval(4), coordinate: try Coordinate(latitude: 35.68, longitude: 139.76), source: .gpx)
        recorder.record(MapEvent(time: good.time, kind: .fixAccepted(good)))
        #expect(recorder.rejectionWarning(limit: 100) == nil, "one fix was used")
    }
}
