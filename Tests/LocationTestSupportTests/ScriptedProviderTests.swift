import Foundation
import LocationCore
import LocationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct ScriptedProviderTests {
    let script = FixScript(origin: Coordinate(uncheckedLatitude: 51.5007, longitude: -0.1246))

    @Test("Fixes arrive when the clock reaches their offset from the first fix")
    func timing() async throws {
        let clock = VirtualClock()
        let fixes = [script.fix(at: 0), script.fix(at: 2), script.fix(at: 2), script.fix(at: 5.5)]
        let provider = ScriptedProvider(fixes: fixes, clock: clock)
        let received = Task {
            var arrivals: [(Fix, Duration)] = []
            for try await fix in provider { arrivals.append((fix, clock.now.offset)) }
            return arrivals
        }
        for deadline in [2.0, 5.5] {
            await clock.waitForSleepers(1)
            await clock.advance(to: VirtualClock.Instant(offset: .milliseconds(Int64(deadline * 1_000))))
        }
        let arrivals = try await received.value
        #expect(arrivals.map(\.0) == fixes)
        #expect(arrivals.map(\.1) == [.zero, .seconds(2), .seconds(2), .milliseconds(5_500)])
    }

    @Test("An explicit epoch delays the first fix")
    func epoch() async throws {
        let clock = VirtualClock(autoAdvance: true)
        let provider = ScriptedProvider(fixes: [script.fix(at: 10)], clock: clock, epoch: script.time(0))
        for try await _ in provider {}
        #expect(clock.now.offset == .seconds(10))
    }

    @Test("Ending .fail throws the error after the last fix")
    func fail() async throws {
        struct Unplugged: Error, Equatable {}
        let provider = ScriptedProvider(fixes: [script.fix(at: 0)], clock: VirtualClock(autoAdvance: true), then: .fail(Unplugged()))
        var count = 0
        await #expect(throws: Unplugged.self) {
            for try await _ in provider { count += 1 }
        }
        #expect(count == 1)
    }

    @Test("Ending .waitForCancellation stays open until the consumer is cancelled")
    func waitsForCancellation() async throws {
        let clock = VirtualClock()
        let provider = ScriptedProvider(fixes: [script.fix(at: 0)], clock: clock, then: .waitForCancellation)
        let delivered = Signal()
        let consumer = Task {
            for try await _ in provider { await delivered.mark() }
        }
        await delivered.waitUntilMarked()
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
    }

    @Test("Cancelling while waiting for the next fix ends with CancellationError")
    func cancelWhileSleeping() async throws {
        let clock = VirtualClock()
        let provider = ScriptedProvider(fixes: [script.fix(at: 0), script.fix(at: 60)], clock: clock)
        let consumer = Task { for try await _ in provider {} }
        await clock.waitForSleepers(1)
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
    }

    @Test("FixScript builds positions in metres and times in seconds")
    func fixScript() {
        let fix = script.fix(at: 1.5, north: 100, east: 50, accuracy: 8)
        #expect(VirtualTime.duration(from: script.epoch, to: fix.time) == .milliseconds(1_500))
        let north = script.origin.destination(distance: 100, bearing: 0)
        #expect(fix.coordinate == north.destination(distance: 50, bearing: 90))
        #expect(fix.horizontalAccuracy == 8)
        #expect(script.noFix(at: 2).hasPosition == false)
        let walk = script.walk(count: 3, every: 2, speed: 1.5, bearing: 90)
        #expect(walk.map { VirtualTime.duration(from: script.epoch, to: $0.time) } == [.zero, .seconds(2), .seconds(4)])
        #expect(abs(script.origin.distance(to: walk[2].coordinate!) - 6) < 1e-6)
    }
}

/// Marks that something happened; lets a test wait for it without polling.
actor Signal {
    private var marked = false
    private var waiter: CheckedContinuation<Void, Never>?
    func mark() {
        marked = true
        waiter?.resume()
        waiter = nil
    }
    func waitUntilMarked() async {
        if marked { return }
        await withCheckedContinuation { waiter = $0 }
    }
}
