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
}
