@testable import LocationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct VirtualClockTests {
    @Test("A sleeper wakes exactly when time reaches its deadline")
    func wakesAtDeadline() async throws {
        let clock = VirtualClock()
        async let woke: VirtualClock.Instant = {
            try await clock.sleep(for: .seconds(30))
            return clock.now
        }()
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .seconds(1))
        #expect(try await woke == VirtualClock.Instant(offset: .seconds(30)))
    }

    @Test("Sleepers wake in deadline order")
    func ordered() async throws {
        let clock = VirtualClock()
        let order = Recorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seconds in [5, 1, 3] {
                group.addTask {
                    try await clock.sleep(for: .seconds(seconds))
                    await order.append(seconds)
                }
            }
            await clock.waitForSleepers(3)
            await clock.advance(by: .seconds(1))
            #expect(clock.sleeperCount == 2)
            await clock.advance(by: .seconds(10))
            try await group.waitForAll()
        }
        #expect(await order.values.first == 1)
        #expect(Set(await order.values) == [1, 3, 5])
    }

    @Test("Automatic mode completes sleeps at once and keeps exact time")
    func automatic() async throws {
        let clock = VirtualClock(autoAdvance: true)
        for _ in 0..<2400 { try await clock.sleep(for: .seconds(1)) }
        #expect(clock.now.offset == .seconds(2400))
    }

    @Test("A sleep whose deadline has passed returns at once, registers no sleeper and moves no time")
    func alreadyDue() async throws {
        for autoAdvance in [false, true] {
            let clock = VirtualClock(autoAdvance: autoAdvance)
            await clock.advance(by: .seconds(10))
            try await clock.sleep(until: VirtualClock.Instant(offset: .seconds(4)))
            try await clock.sleep(until: VirtualClock.Instant(offset: .seconds(10)))
            #expect(clock.now.offset == .seconds(10))
            #expect(clock.sleeperCount == 0)
        }
    }

    @Test("A cancelled task's sleep throws even when already due")
    func cancelledWhenDue() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: VirtualClock.Instant(offset: .zero))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("Cancelling a sleeper wakes it with CancellationError")
    func cancellation() async throws {
        let clock = VirtualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("waitForSleepers(dueBy:) counts only sleepers due by then: an old, later sleep does not meet it")
    func waitForSleepersDueBy() async throws {
        let clock = VirtualClock()
        let late = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(1)
        let waiting = Task { await clock.waitForSleepers(1, dueBy: clock.now.advanced(by: .milliseconds(200))) }
        let soon = Task { try await clock.sleep(for: .milliseconds(200)) }
        // The waiter returns only after the sleep due in 0.2 s has begun: both are asleep then.
        await waiting.value
        #expect(clock.sleeperCount == 2)
        #expect(clock.nextDeadline == clock.now.advanced(by: .milliseconds(200)))
        await clock.advance(by: .seconds(1))
        try await soon.value
        try await late.value
    }

    @Test("A cancelled waitForSleepers returns with no sleeper, and leaves later waits working")
    func waitForSleepersCancelled() async throws {
        let clock = VirtualClock()
        // Cancelled before it starts waiting, or (likely, after yields) while it waits: it returns.
        let early = Task { await clock.waitForSleepers(1) }
        early.cancel()
        await early.value
        let waiting = Task { await clock.waitForSleepers(2) }
        for _ in 0..<10 { await Task.yield() }
        waiting.cancel()
        await waiting.value
        #expect(clock.sleeperCount == 0)
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(1))
        try await sleeper.value
    }

    @Test("sleepers and waiters cancelled before, while or after they wait leave no id behind")
    func cancellationLeavesNoIDs() async throws {
        let clock = VirtualClock()
        for round in 0..<50 {
            let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
            let waiter = Task { await clock.waitForSleepers(2) }
            if round.isMultiple(of: 2) { waiter.cancel() }
            await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(1))
            // Cancelled after it was resumed: possibly still inside its cancellation handler.
            sleeper.cancel()
            _ = await sleeper.result
            waiter.cancel()
            await waiter.value
        }
        #expect(clock.sleeperCount == 0)
        #expect(clock.unfinishedIDCount == 0)
    }
}

actor Recorder {
    var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}
