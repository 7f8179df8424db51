import Foundation
import LocSimTestHelpers
import LocationCore
@testable import LocationGPSD
import Testing

/// What waits for a consumer of gpsd's session that is behind: live data's newest fix, or a
/// recorder's every fix up to its backlog; never a status message dropped, never a reordering.
@Suite(.ownThread)
struct GPSDPendingTests {
    static func fix(_ second: Int) -> GPSDSessionEvent {
        .message(.fix(.noFix(time: Date(timeIntervalSince1970: 1_700_000_000 + Double(second)), source: .gpsd)))
    }

    /// The seconds of the fixes, and a name for each other event, in the order taken.
    static func drain(_ pending: inout GPSDPending) -> [String] {
        var taken: [String] = []
        while let event = pending.removeFirst() {
            switch event {
            case .message(.fix(let fix)): taken.append(String(Int(fix.time.timeIntervalSince1970 - 1_700_000_000)))
            case .message(.device(let path, _)): taken.append(path)
            default: taken.append("other")
            }
        }
        return taken
    }

    @Test("one kept: a run of fixes is its newest; a device message between two runs keeps both sides")
    func newestOnly() {
        var pending = GPSDPending(keptFixes: 1)
        for second in 0..<5 { pending.append(Self.fix(second)) }
        pending.append(.message(.device(path: "/dev/a", isActive: true)))
        for second in 5..<8 { pending.append(Self.fix(second)) }
        #expect(Self.drain(&pending) == ["4", "/dev/a", "7"])
        #expect(Self.drain(&pending).isEmpty)
    }

    @Test("a recorder's backlog: every fix while it lasts, then the newest replaces the last kept; taking one makes room")
    func backlog() {
        var pending = GPSDPending(keptFixes: 4)
        for second in 0..<10 { pending.append(Self.fix(second)) }
        #expect(Self.drain(&pending) == ["0", "1", "2", "9"])
        for second in 10..<14 { pending.append(Self.fix(second)) }
        let tenth = pending.removeFirst()  // 10
        #expect(tenth != nil)
        pending.append(Self.fix(14))
        pending.append(Self.fix(15))
        #expect(Self.drain(&pending) == ["11", "12", "13", "15"])
    }

    @Test("a long backlog taken as it grows: nothing lost, in order, whatever the storage does underneath")
    func longBacklog() {
        var pending = GPSDPending(keptFixes: GPSDProvider<ContinuousClock>.Configuration.recordingBacklog)
        var taken: [String] = []
        var next = 0
        // Three arrive for every two taken, across several compactions of the storage.
        for _ in 0..<2_000 {
            for _ in 0..<3 {
                pending.append(Self.fix(next))
                next += 1
            }
            for _ in 0..<2 {
                if case .message(.fix(let fix))? = pending.removeFirst() {
                    taken.append(String(Int(fix.time.timeIntervalSince1970 - 1_700_000_000)))
                }
            }
        }
        taken += Self.drain(&pending)
        #expect(taken == (0..<next).map(String.init))
    }
}
