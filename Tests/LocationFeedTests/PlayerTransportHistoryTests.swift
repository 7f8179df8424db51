import Foundation
import LocationCore
@testable import LocationFeed
import LocationSimulation
import LocationTestSupport
import Testing

/// A controlled player keeps at most `historyLimit` fixes of its path, so an endless path runs
/// in bounded memory; a seek before what it kept, or a loop, reads the path again from its start.
/// Run with a window of 8 fixes over the 121-fix line, so every rule is crossed many times.
@Suite(.timeLimit(.minutes(1)))
struct PlayerTransportHistoryTests {
    static let historyLimit = 8

    /// One transport playing the 121-fix line on a virtual clock, every fix it sends recorded with
    /// the number of fixes it kept at that moment.
    final class Run: Sendable {
        final class Log: Sendable {
            let sent = Locked<[(fix: Fix, kept: Int)]>([])
        }
        let clock = VirtualClock()
        let transport: PlayerTransport
        let log = Log()
        let task: Task<Void, any Error>

        init(loops: Bool) throws {
            let transport = PlayerTransport(
                clock: clock, origin: VirtualFeed.start, speed: 1, loops: loops, lookahead: 4, historyLimit: PlayerTransportHistoryTests.historyLimit)
            self.transport = transport
            let path = try VirtualFeed.motion(seed: ControlledFeed.seed, pacing: .virtual, noise: nil, clock: ContinuousClock())
            let log = log
            task = Task {
                try await transport.run(
                    path,
                    publish: { fix, _ in
                        let kept = transport.state.withLock { $0.kept }
                        log.sent.withLock { $0.append((fix, kept)) }
                    },
                    onEnd: {})
            }
        }

        deinit { task.cancel() }

        var sent: [(fix: Fix, kept: Int)] { log.sent.withLock { $0 } }

        var count: Int { log.sent.withLock { $0.count } }

        /// Steps the clock a second at a time until `count` fixes were sent.
        func run(until count: Int) async {
            while self.count < count {
                await clock.waitForSleepers(1)
                if self.count >= count { break }
                await clock.advance(by: .seconds(1))
            }
        }

        /// Waits, without moving the clock, until `count` fixes were sent (a seek sends one at once).
        func waitFor(_ count: Int) async {
            for _ in 0..<500 where self.count < count {
                for _ in 0..<50 { await Task.yield() }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test("A looping path goes round three times with never more than the limit kept, each round the path's own fixes")
    func loopsInBoundedMemory() async throws {
        let reference = try await ControlledFeed.reference()
        let run = try Run(loops: true)
        let total = 3 * reference.count + 5
        await run.run(until: total)
        let sent = run.sent
        #expect(sent.count >= total)
        #expect(sent.map(\.kept).max()! <= Self.historyLimit)
        // The window was in use (not everything kept, not one fix at a time).
        #expect(sent.map(\.kept).max()! > Self.historyLimit / 2)
        for (index, entry) in sent.prefix(total).enumerated() {
            #expect(entry.fix.coordinate == reference[index % reference.count].coordinate, "fix \(index)")
        }
        let times = sent.map(\.fix.time)
        #expect(times == times.sorted())
    }

    @Test("A seek back before the kept window reads the path again and sends the fix at that time; a seek forward reads ahead")
    func seekBeforeTheWindow() async throws {
        let reference = try await ControlledFeed.reference()
        let run = try Run(loops: false)
        await run.run(until: 60)
        // Fix 10 was forgotten long ago: the path is read again from its start.
        try run.transport.apply(.seek(offset: 10))
        await run.waitFor(61)
        await run.run(until: 63)
        var sent = run.sent
        #expect(sent[60].fix.coordinate == reference[10].coordinate)
        #expect(sent[61].fix.coordinate == reference[11].coordinate)
        #expect(sent[62].fix.coordinate == reference[12].coordinate)
        // Forward past what was read, then on from there.
        try run.transport.apply(.seek(offset: 100))
        await run.waitFor(64)
        await run.run(until: 65)
        sent = run.sent
        #expect(sent[63].fix.coordinate == reference[100].coordinate)
        #expect(sent[64].fix.coordinate == reference[101].coordinate)
        #expect(sent.map(\.kept).max()! <= Self.historyLimit)
        let times = sent.map(\.fix.time)
        #expect(times == times.sorted())
    }
}
