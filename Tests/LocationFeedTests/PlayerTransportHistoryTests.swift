import Foundation
import LocSimTestHelpers
import LocationCore
@testable import LocationFeed
import LocationSimulation
import LocationTestSupport
import Testing

/// A controlled player keeps at most `historyLimit` fixes it sent, and those it read ahead, so an
/// endless path runs in bounded memory; a seek before what it kept, or a loop, reads the path
/// again from its start. Run with a window of 8 fixes over the 121-fix line, so every rule is
/// crossed many times.
@Suite(.timeLimit(.minutes(1)))
struct PlayerTransportHistoryTests {
    static let historyLimit = 8

    /// One transport playing the 121-fix line on a virtual clock, every fix it sends recorded with
    /// the number of fixes it kept at that moment.
    final class Run: Sendable {
        final class Log: Sendable {
            let sent = Locked<[(fix: Fix, kept: Int)]>([])
            let changes = Changes()
        }
        let clock = VirtualClock()
        let transport: PlayerTransport
        let log = Log()
        let task: Task<Void, any Error>

        init(
            loops: Bool, end: PathEnd = .unknown, lookahead: Int = 4, historyLimit: Int = PlayerTransportHistoryTests.historyLimit,
            path: SyntheticMotion<ContinuousClock>? = nil
        ) throws {
            let transport = PlayerTransport(
                clock: clock, origin: VirtualFeed.start, speed: 1, loops: loops, end: end, lookahead: lookahead,
                historyLimit: historyLimit)
            self.transport = transport
            let path = try path ?? VirtualFeed.motion(seed: ControlledFeed.seed, pacing: .virtual, noise: nil, clock: ContinuousClock())
            let log = log
            task = Task {
                try await transport.run(
                    path,
                    publish: { fix, _ in
                        let kept = transport.state.withLock { $0.kept }
                        log.sent.withLock { $0.append((fix, kept)) }
                        log.changes.signal()
                    },
                    onEnd: {})
            }
        }

        deinit { task.cancel() }

        var sent: [(fix: Fix, kept: Int)] { log.sent.withLock { $0 } }

        var count: Int { log.sent.withLock { $0.count } }

        /// Steps the clock a second at a time until `count` fixes were sent.
        func run(until count: Int) async {
            // A cancelled test (its time limit) ends here: the clock's waits return at once then.
            while self.count < count, !Task.isCancelled {
                await clock.waitForSleepers(1)
                if self.count >= count { break }
                await clock.advance(by: .seconds(1))
            }
        }

        /// Waits, without moving the clock, until `count` fixes were sent (a seek sends one at once).
        func waitFor(_ count: Int) async throws {
            let log = log
            try await log.changes.wait(for: "\(count) fixes sent", account: { "\(log.sent.withLock { $0.count }) sent" }) {
                log.sent.withLock { $0.count } >= count
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
        // The 4 read ahead at the start, then the window (the fix sent last stays in it).
        #expect(sent.map(\.kept).max()! <= Self.historyLimit + 4)
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
        try await run.waitFor(61)
        await run.run(until: 63)
        var sent = run.sent
        #expect(sent[60].fix.coordinate == reference[10].coordinate)
        #expect(sent[61].fix.coordinate == reference[11].coordinate)
        #expect(sent[62].fix.coordinate == reference[12].coordinate)
        // Forward past what was read, then on from there.
        try run.transport.apply(.seek(offset: 100))
        try await run.waitFor(64)
        await run.run(until: 65)
        sent = run.sent
        #expect(sent[63].fix.coordinate == reference[100].coordinate)
        #expect(sent[64].fix.coordinate == reference[101].coordinate)
        #expect(sent.map(\.kept).max()! <= Self.historyLimit + 4)
        let times = sent.map(\.fix.time)
        #expect(times == times.sorted())
    }

    @Test(
        "A path whose end is known (a GPX replay's duration, an endless circle) is read a fix at a time, not an hour ahead",
        arguments: [PathEnd.never, .after(seconds: 120)])
    func knownEndReadsNoFurtherThanNeeded(end: PathEnd) async throws {
        let run = try Run(loops: false, end: end, lookahead: PlayerTransport.lookahead, historyLimit: PlayerTransport.historyLimit)
        await run.run(until: 3)
        // The fixes sent so far and the next one: nothing of the rest of the 121-fix line.
        #expect(run.sent.map(\.kept) == [1, 2, 3])
        if case .after(let seconds) = end { #expect(run.transport.status.duration == seconds) }
    }

    @Test("A path whose end is not known is read ahead to learn it: the whole 121-fix line before its first fix, and its duration")
    func unknownEndReadsAhead() async throws {
        let run = try Run(loops: false, lookahead: PlayerTransport.lookahead, historyLimit: PlayerTransport.historyLimit)
        await run.run(until: 1)
        #expect(run.sent.first?.kept == 121)
        #expect(run.transport.status.duration == 120)
    }

    @Test("An endless circle at the default window keeps no more than the window (plus the fix sent last) over ten of them")
    func endlessCircleStaysInItsWindow() async throws {
        let circle = try SyntheticMotion(
            path: .circle(center: try Coordinate(latitude: 35.68, longitude: 139.76), radius: 200), seed: 3,
            configuration: .init(pacing: .virtual, startTime: VirtualFeed.start), clock: ContinuousClock(), now: { VirtualFeed.start })
        #expect(circle.isEndless)
        let limit = PlayerTransport.historyLimit
        let run = try Run(loops: false, end: .never, lookahead: PlayerTransport.lookahead, historyLimit: limit, path: circle)
        await run.run(until: 10 * limit)
        #expect(run.sent.map(\.kept).max()! <= limit + 1)
        #expect(run.sent.map(\.kept).max()! >= limit)
    }

    @Test("A seek by fraction on a path with no known end is a conflict naming 'fraction'; one out of 0...1 is invalid")
    func fractionNeedsAnEnd() async throws {
        let run = try Run(loops: false, end: .never)
        await run.run(until: 2)
        #expect(throws: PlayerCommandError.conflict("fraction", "this player's path has no known end (give 'offset' in seconds instead)")) {
            try run.transport.apply(.seekFraction(0.5))
        }
        #expect(throws: PlayerCommandError.invalid("fraction", "must be within 0...1, got 2")) {
            try run.transport.apply(.seekFraction(2))
        }
    }

    @Test("A seek far into a path made as it is read gives way to a newer seek while it reads; the newer one is played")
    func longSeekGivesWayToANewerOne() async throws {
        let (gate, run) = try await GatedRun.seekingFar()
        defer { run.task.cancel() }
        try run.transport.apply(.seek(offset: 10))
        gate.open()
        try await run.waitFor(2)
        #expect(run.sent[1].coordinate == Gate.fix(10).coordinate, "the newer seek's fix went out second")
        #expect(run.transport.status.offset == 10)
        // Stopped where it was (fix 501), read again from the start up to fix 11, not a million.
        #expect(gate.read < 1_000, "\(gate.read) fixes read")
    }

    @Test("A seek far into a path made as it is read gives way to a teleport: it moves the fix the read got to")
    func longSeekGivesWayToATeleport() async throws {
        let (gate, run) = try await GatedRun.seekingFar()
        defer { run.task.cancel() }
        let target = Coordinate(uncheckedLatitude: 10, longitude: 10)
        try run.transport.apply(.teleport(target))
        gate.open()
        try await run.waitFor(2)
        #expect(run.sent[1].coordinate == target)
        #expect(run.transport.status.offset == 500, "the player's time is the fix the read got to")
        #expect(gate.read < 1_000, "\(gate.read) fixes read")
    }

    @Test("A seek far into a path made as it is read ends with the player, not a million fixes later")
    func longSeekEndsWithThePlayer() async throws {
        let (gate, run) = try await GatedRun.seekingFar()
        run.task.cancel()
        gate.open()  // the path itself does not look at cancellation: the transport must
        _ = await run.task.result
        #expect(gate.read <= 502, "\(gate.read) fixes read")
    }

    /// An endless path, a fix a second, each 0.0001° further east, whose reading stops before
    /// fix `index` until ``open()`` (a wait that cancellation does not end, as a path being
    /// computed would not); it counts the fixes read, over every reading of the path.
    final class Gate: Sendable {
        private struct State {
            var reached = false, isOpen = false, read = 0
            var waiter: CheckedContinuation<Void, Never>?
        }
        let index: Int
        let changes = Changes()
        private let state = Locked(State())

        init(at index: Int) { self.index = index }

        var reached: Bool { state.withLock { $0.reached } }
        var read: Int { state.withLock { $0.read } }

        func open() {
            let waiter = state.withLock { state in
                state.isOpen = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        func pass(_ position: Int) async {
            if position == index {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let isOpen = state.withLock { state in
                        state.reached = true
                        if !state.isOpen { state.waiter = continuation }
                        return state.isOpen
                    }
                    changes.signal()
                    if isOpen { continuation.resume() }
                }
            }
            state.withLock { $0.read += 1 }
        }

        static func fix(_ position: Int) -> Fix {
            Fix(
                time: VirtualFeed.start.addingTimeInterval(Double(position)),
                coordinate: Coordinate(uncheckedLatitude: 0, longitude: Double(position) * 1e-4), source: .gpx)
        }

        struct Path: LocationProvider {
            let gate: Gate
            struct AsyncIterator: AsyncIteratorProtocol {
                let gate: Gate
                var position = 0
                mutating func next() async -> Fix? {
                    await gate.pass(position)
                    defer { position += 1 }
                    return Gate.fix(position)
                }
            }
            func makeAsyncIterator() -> AsyncIterator { AsyncIterator(gate: gate) }
        }
    }

    /// A transport playing a ``Gate``'s path (no known end, so read a fix at a time) on a clock
    /// that never moves, every fix it sends recorded.
    final class GatedRun: Sendable {
        let transport = PlayerTransport(
            clock: VirtualClock(), origin: VirtualFeed.start, speed: 1, loops: false, end: .never, historyLimit: 8)
        private let log = Locked<[Fix]>([])
        private let changes = Changes()
        let task: Task<Void, any Error>

        init(_ gate: Gate) {
            let transport = transport, log = log, changes = changes
            task = Task {
                try await transport.run(
                    Gate.Path(gate: gate),
                    publish: { fix, _ in
                        log.withLock { $0.append(fix) }
                        changes.signal()
                    }, onEnd: {})
            }
        }

        deinit { task.cancel() }

        /// A run whose first fix went out, then asked to seek a million seconds in, its read
        /// stopped at fix 500 of a ``Gate`` closed there.
        static func seekingFar() async throws -> (Gate, GatedRun) {
            let gate = Gate(at: 500)
            let run = GatedRun(gate)
            try await run.waitFor(1)
            try run.transport.apply(.seek(offset: 1_000_000))
            try await gate.changes.wait(for: "the seek's read to reach fix 500") { gate.reached }
            return (gate, run)
        }

        var sent: [Fix] { log.withLock { $0 } }

        func waitFor(_ count: Int) async throws {
            let log = log
            try await changes.wait(for: "\(count) fixes sent", account: { "\(log.withLock { $0.count }) sent" }) {
                log.withLock { $0.count } >= count
            }
        }
    }
}
