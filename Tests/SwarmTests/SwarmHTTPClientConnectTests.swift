import Foundation
import LocationCore
import MapFeature
@testable import Swarm
import SwarmHTTP
import Testing
import LocSimTestHelpers

/// The swarm client's real connect path, against a loopback port where nothing listens.
@Suite(.timeLimit(.minutes(1))) struct SwarmHTTPClientConnectTests {
    @Test("A refused connection is reported with the address in the system's words, not NIO's error values")
    func refused() async throws {
        try await LoopbackSocket.withRefusingPort { port in
            let client = SwarmHTTPClient(
                configuration: try SwarmHTTPClient.Configuration(endpoint: try SwarmHTTPClient.Endpoint(url: "http://127.0.0.1:\(port)")),
                now: { 0 })
            let request = FetchRequest(
                id: 1, center: try Coordinate(latitude: 35.6812, longitude: 139.7671), radius: 5000,
                time: Date(timeIntervalSince1970: 0), reason: .first)
            let send = LiveSwarm.Send(player: 1, request: request, reason: .first, micros: 0, sincePrevious: nil)
            let answer = await withCheckedContinuation { (continuation: CheckedContinuation<SwarmAnswer, Never>) in
                client.send(send, playerID: "swarm-1") { continuation.resume(returning: $0) }
            }
            try await client.shutdown()
            #expect(answer.status == nil)
            guard case .failure(let failure) = answer.outcome else {
                Issue.record("a refused connection was answered: \(answer.outcome)")
                return
            }
            #expect(failure == .connect("127.0.0.1:\(port): Connection refused"))
            #expect(failure.description == "cannot connect: 127.0.0.1:\(port): Connection refused")
        }
    }
}
