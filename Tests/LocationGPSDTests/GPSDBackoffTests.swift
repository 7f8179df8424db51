import Foundation
import LocSimTestHelpers
import LocationGPSD
import LocationTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct GPSDBackoffTests {
    typealias Backoff = GPSDProvider<VirtualClock>.Backoff

    @Test("Delays grow by the multiplier from the initial delay until the cap, then stay there",
          arguments: [Backoff(), Backoff(initialDelay: .milliseconds(100), multiplier: 3, maximumDelay: .seconds(5))])
    func growsThenCaps(backoff: Backoff) {
        let delays = (1...20).map { backoff.delay(forAttempt: $0) }
        #expect(delays[0] == backoff.initialDelay)
        for (earlier, later) in zip(delays, delays.dropFirst()) {
            #expect(later <= backoff.maximumDelay)
            if later < backoff.maximumDelay {
                #expect(later == earlier * backoff.multiplier)
            } else {
                #expect(later >= earlier)
            }
        }
        #expect(delays.last == backoff.maximumDelay)
    }

    @Test("Attempts below 1 count as the first; a multiplier below 1 never shrinks the delay")
    func edges() {
        let backoff = Backoff(initialDelay: .seconds(1), multiplier: 0.5, maximumDelay: .seconds(4))
        #expect(backoff.delay(forAttempt: 0) == .seconds(1))
        #expect(backoff.delay(forAttempt: -3) == .seconds(1))
        #expect(backoff.delay(forAttempt: 10) == .seconds(1))
    }

    @Test("An infinite multiplier reaches the cap at the second retry; a NaN one never grows")
    func nonFiniteMultipliers() {
        let infinite = Backoff(initialDelay: .seconds(1), multiplier: .infinity, maximumDelay: .seconds(4))
        #expect((1...4).map { infinite.delay(forAttempt: $0) } == [.seconds(1), .seconds(4), .seconds(4), .seconds(4)])
        let nan = Backoff(initialDelay: .seconds(1), multiplier: .nan, maximumDelay: .seconds(4))
        #expect(nan.delay(forAttempt: 5) == .seconds(1))
    }

    @Test("Values the provider refuses still give a delay, never a trap")
    func refusedValues() {
        for initial in [Duration.zero, .seconds(-1)] {
            for multiplier in [2, .infinity, .nan] {
                let backoff = Backoff(initialDelay: initial, multiplier: multiplier, maximumDelay: .seconds(4))
                #expect((1...40).map { backoff.delay(forAttempt: $0) }.allSatisfy { $0 == initial })
            }
        }
        // A cap beyond what whole nanoseconds in an Int64 can say (about 292 years).
        let huge = Backoff(initialDelay: .seconds(1), multiplier: 10, maximumDelay: .seconds(1e15))
        #expect(huge.delay(forAttempt: 12) == .seconds(1e11))
        #expect(huge.delay(forAttempt: 40) == .seconds(1e15))
    }

    @Test("Giving up after maximumAttempts throws the last error")
    func givesUp() async throws {
        let port = try LoopbackSocket.freePort()
        let clock = VirtualClock(autoAdvance: true)
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: port,
            configuration: .init(waitForDaemon: true, backoff: Backoff(maximumAttempts: 3)),
            clock: clock, now: { .init(timeIntervalSince1970: 0) })
        var events: [GPSDEvent] = []
        let error = await #expect(throws: GPSDError.self) {
            for try await event in provider.events { events.append(event) }
        }
        #expect(error?.code == .connectionRefused)
        let retries = events.compactMap { if case .retrying(let attempt, _) = $0 { attempt } else { nil } }
        #expect(retries == [1, 2, 3])
    }
}
