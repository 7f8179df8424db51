import Foundation
import LocSimTestHelpers
import LocationCore
import LocationGPSD
import LocationTestSupport
import Testing

/// How the provider uses its ``LocationCore/Backoff`` (the delays themselves are BackoffTests').
@Suite(.timeLimit(.minutes(1))) struct GPSDBackoffTests {
    @Test("The default waits 250 ms, doubling to 8 s, without jitter, for ever")
    func standard() {
        let backoff = GPSDProvider<VirtualClock>.Configuration.resilient.backoff
        #expect(backoff == GPSDProvider<VirtualClock>.Configuration.standardBackoff)
        #expect((1...7).map { backoff.delay(afterFailures: $0) }
            == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        #expect(backoff.jitter == 0 && backoff.maximumAttempts == nil)
    }

    @Test("Giving up after maximumAttempts throws the last error")
    func givesUp() async throws {
        try await LoopbackSocket.withRefusingPort { port in
            let clock = VirtualClock(autoAdvance: true)
            let provider = try GPSDProvider(
                host: "127.0.0.1", port: port,
                configuration: .init(waitForDaemon: true, backoff: try Backoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(8), maximumAttempts: 3)),
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

    @Test("A gap is one status fix among the fixes, unless marksGaps is off (a relay: gpsd sends no TPV then)", arguments: [true, false])
    func gapMarkers(marksGaps: Bool) async throws {
        try await LoopbackSocket.withRefusingPort { port in
            let backoff = try Backoff(initialDelay: .milliseconds(250), maximumDelay: .seconds(8), maximumAttempts: 3)
            let provider = try GPSDProvider(
                host: "127.0.0.1", port: port, configuration: .init(waitForDaemon: true, backoff: backoff, marksGaps: marksGaps),
                clock: VirtualClock(autoAdvance: true), now: { .init(timeIntervalSince1970: 0) })
            var fixes: [Fix] = []
            let error = await #expect(throws: GPSDError.self) {
                for try await fix in provider { fixes.append(fix) }
            }
            #expect(error?.code == .connectionRefused)
            #expect(fixes == (marksGaps ? [.noFix(time: .init(timeIntervalSince1970: 0), source: .gpsd)] : []))
        }
    }
}
