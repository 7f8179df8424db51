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
        try await LoopbackSocket.withRefusingPort { port in
            let provider = try GPSDProvider(
                host: "127.0.0.1", port: port, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
            var iterator = provider.makeAsyncIterator()
            let error = await #expect(throws: GPSDError.self) { _ = try await iterator.next() }
            #expect(error?.code == .connectionRefused)
            #expect(error?.description.contains("127.0.0.1:\(port)") == true)
        }
    }

    @Test("A host name that resolves to nothing is 'no such host', not 'connection refused'")
    func noSuchHost() async throws {
        // .invalid never resolves (RFC 6761).
        let provider = try GPSDProvider(host: "nohost.invalid", port: 2947, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) })
        var iterator = provider.makeAsyncIterator()
        let error = await #expect(throws: GPSDError.self) { _ = try await iterator.next() }
        #expect(error?.description.hasPrefix("gpsd at nohost.invalid:2947: no such host") == true, "\(String(describing: error))")
    }

    @Test("Invalid arguments are refused with a typed error")
    func invalidArguments() throws {
        #expect(throws: GPSDError.self) { try GPSDProvider(host: "", port: 2947, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) }) }
        let error = #expect(throws: GPSDError.self) { try GPSDProvider(host: "127.0.0.1", port: 70_000, clock: VirtualClock(), now: { Date(timeIntervalSince1970: 0) }) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.detail.contains("70000") == true)
    }
}
