import Foundation
@testable import LocSimCommand
import LocationCore
import LocationGPSD
import LocSimTestHelpers
import Testing

/// `locsim gpsd` prints what is news (``GPSDNews``).
@Suite(.ownThread) struct GPSDNewsTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    static func printed(_ events: [GPSDEvent]) -> [GPSDEvent] {
        var news = GPSDNews()
        return events.filter { news.admits($0, line: GPSDRecord(event: $0, endpoint: "127.0.0.1:2947").line(.text)) }
    }

    @Test("A receiver without a fix reporting four statuses a second prints one a second; a fix between them prints, and the status after it")
    func statusesOnceASecond() throws {
        // As a Quectel EG25-G without a fix: one status per sentence, each stamped when it came.
        let statuses = (0..<12).map { GPSDEvent.fix(.noFix(time: Self.start.addingTimeInterval(Double($0) * 0.25), source: .gpsd)) }
        #expect(Self.printed(statuses) == [statuses[0], statuses[4], statuses[8]])
        let fix = GPSDEvent.fix(
            Fix(time: Self.start.addingTimeInterval(0.5), coordinate: try Coordinate(latitude: 51.5, longitude: -0.12), source: .gpsd))
        let mixed = [statuses[0], statuses[1], fix, statuses[2], statuses[3]]
        #expect(Self.printed(mixed) == [statuses[0], fix, statuses[2]])
        // A report repeating the line before is no news either (gpsd sends an epoch per sentence).
        #expect(Self.printed([fix, fix]) == [fix])
        // A second after the last printed, not a new clock second: 0.84 s and 1.00 s are one line.
        let late = [0.84, 1.0, 1.25, 1.84, 2.0].map { GPSDEvent.fix(.noFix(time: Self.start.addingTimeInterval($0), source: .gpsd)) }
        #expect(Self.printed(late) == [late[0], late[3]])
    }
}
