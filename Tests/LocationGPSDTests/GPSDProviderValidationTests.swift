import Foundation
import LocSimTestHelpers
import LocationGPSD
import LocationTestSupport
import Testing

/// What the provider refuses or reports before any gpsd is involved: argument checks, and a port
/// where no daemon listens. These need libgps but no gpsd daemon, so they run everywhere.
@Suite(.timeLimit(.minutes(1)))
struct GPSDProviderValidationTests {
    @Test("No gpsd at host:port: the error names host and port")
    func noDaemon() async throws {
        let port = try LoopbackSocket.freePort()
        let provider = try GPSDProvider(
            host: "127.0.0.1", port: port, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
        var iterator = provider.makeAsyncIterator()
        let error = await #expect(throws: GPSDError.self) { _ = try await iterator.next() }
        #expect(error?.code == .connectionRefused)
        #expect(error?.description.contains("127.0.0.1:\(port)") == true)
    }

    @Test("Invalid arguments are refused with a typed error")
    func invalidArguments() throws {
        #expect(throws: GPSDError.self) { try GPSDProvider(host: "", port: 2947) }
        let error = #expect(throws: GPSDError.self) { try GPSDProvider(host: "127.0.0.1", port: 70_000) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.detail.contains("70000") == true)
    }

    @Test("A back-off that would never wait, or cannot be computed, is refused naming the field", arguments: [
        ("initialDelay", GPSDProvider<ContinuousClock>.Backoff(initialDelay: .zero)),
        ("initialDelay", GPSDProvider<ContinuousClock>.Backoff(initialDelay: .milliseconds(-5))),
        ("multiplier", GPSDProvider<ContinuousClock>.Backoff(multiplier: .nan)),
        ("maximumDelay", GPSDProvider<ContinuousClock>.Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(1))),
        ("maximumAttempts", GPSDProvider<ContinuousClock>.Backoff(maximumAttempts: -1)),
    ])
    func invalidBackoff(field: String, backoff: GPSDProvider<ContinuousClock>.Backoff) throws {
        let error = #expect(throws: GPSDError.self) {
            try GPSDProvider(host: "127.0.0.1", port: 2947, configuration: .init(waitForDaemon: true, backoff: backoff))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.detail.contains("backoff.\(field)") == true, "\(String(describing: error))")
        #expect(error?.description.contains("127.0.0.1:2947") == true)
    }
}
