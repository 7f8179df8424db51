import Foundation
import LocSimTestHelpers
import LocationCore
@testable import LocationGPSD
import Testing

/// One fix per epoch from gpsd's reports: checked on the reports gpsd itself produces from real
/// receivers' logs (`../shared/data/gpsd/NAME.tpv.jsonl`, decoded by libgps as a live session's
/// are), and on the status and ending cases those logs do not have.
struct GPSDEpochsTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func fix(_ second: Double, latitude: Double = 35.68, verticalAccuracy: Double? = nil) -> Fix {
        Fix(
            time: start.addingTimeInterval(second), coordinate: Coordinate(uncheckedLatitude: latitude, longitude: 139.76),
            verticalAccuracy: verticalAccuracy, source: .gpsd)
    }

    static func status(_ second: Double) -> Fix { .noFix(time: start.addingTimeInterval(second), source: .gpsd) }

    /// gpsd's reports of one log, as the provider decodes a live session's.
    static func reports(_ name: String) throws -> [Fix] {
        let text = try String(contentsOf: GPSDLogs.url(name + ".tpv.jsonl"), encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        return try GPSDConnection.decode(lines, receivedAt: start).compactMap { message in
            if case .fix(let fix) = message { fix } else { nil }
        }
    }

    static func taken(_ reports: [Fix]) -> [Fix] {
        var epochs = GPSDEpochs()
        var out = reports.flatMap { epochs.take($0) }
        if let last = epochs.finish() { out.append(last) }
        return out
    }

    @Test(
        "Each run of same-time positioned reports is one fix: the run's last report",
        .enabled(if: GPSDLogs.isPresent, SharedData.absentReason), arguments: GPSDLogs.names)
    func realReceivers(name: String) throws {
        let reports = try Self.reports(name)
        // The reference, from gpsd's own output: the last report of each run of equal times
        // (a status report ends a run).
        var expected: [Fix] = []
        for (index, report) in reports.enumerated() where report.hasPosition {
            let next = reports.indices.contains(index + 1) ? reports[index + 1] : nil
            if next == nil || !next!.hasPosition || next!.time != report.time { expected.append(report) }
        }
        let positioned = Self.taken(reports).filter(\.hasPosition)
        #expect(positioned == expected, "\(name)")
    }

    @Test(
        "A Quectel EG25-G reported 2 to 4 times per second is one fix per second, each complete",
        .enabled(if: GPSDLogs.isPresent, SharedData.absentReason))
    func quectel() throws {
        let reports = try Self.reports("quectel-eg25-g").filter(\.hasPosition)
        let fixes = Self.taken(reports)
        #expect(Set(reports.map(\.time)).count == fixes.count)
        #expect(reports.count > 2 * fixes.count, "the log's point: several reports per epoch")
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.time < $1.time })
        // The first report of an epoch has no vertical accuracy; the kept one does.
        #expect(reports.contains { $0.verticalAccuracy == nil })
        #expect(fixes.allSatisfy { $0.verticalAccuracy != nil })
    }

    @Test("A run of status reports is passed on once; the epoch before it first")
    func statuses() {
        let reports = [
            Self.status(0), Self.status(0.25), Self.status(0.5),
            Self.fix(1), Self.fix(1, verticalAccuracy: 4),
            Self.status(1.5), Self.status(1.75),
            Self.fix(2), Self.fix(3),
        ]
        #expect(
            Self.taken(reports) == [
                Self.status(0), Self.fix(1, verticalAccuracy: 4), Self.status(1.5), Self.fix(2), Self.fix(3),
            ])
    }

    @Test("A position that changes within one time is the same epoch: the last wins")
    func sameTimeNewPosition() {
        #expect(Self.taken([Self.fix(1, latitude: 35), Self.fix(1, latitude: 36)]) == [Self.fix(1, latitude: 36)])
    }

    struct Broken: Error, Equatable {}

    @Test("The provider hands over the epoch in progress when its base ends or fails")
    func providerEnds() async throws {
        let ending = GPSDEpochProvider(FixList(reports: [Self.fix(1), Self.fix(1, verticalAccuracy: 2)], failure: nil))
        var fixes: [Fix] = []
        for try await fix in ending { fixes.append(fix) }
        #expect(fixes == [Self.fix(1, verticalAccuracy: 2)])

        var failing = GPSDEpochProvider(FixList(reports: [Self.fix(1), Self.fix(2)], failure: Broken())).makeAsyncIterator()
        #expect(try await failing.next() == Self.fix(1))
        #expect(try await failing.next() == Self.fix(2))
        await #expect(throws: Broken.self) { try await failing.next() }
        #expect(try await failing.next() == nil)
    }

    /// Reports from memory, then the end or a failure.
    struct FixList: LocationProvider {
        let reports: [Fix]
        let failure: Broken?

        func makeAsyncIterator() -> Iterator { Iterator(list: self) }

        struct Iterator: AsyncIteratorProtocol {
            let list: FixList
            var index = 0
            var failed = false

            mutating func next() async throws -> Fix? {
                if index < list.reports.count {
                    index += 1
                    return list.reports[index - 1]
                }
                if let failure = list.failure, !failed {
                    failed = true
                    throw failure
                }
                return nil
            }
        }
    }
}
