import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LocationCore
import LocationIndex
@testable import NearbyServer
import Testing

@Suite(.timeLimit(.minutes(1))) struct AuthTests {
    static let token = "s3cret-Token_value"

    @Test("With --token every route but /healthz needs the bearer token; 401 is JSON; tokens never reach the log")
    func bearerToken() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let log = LogLines()
        let server = makeServer(try NearbyServer.Configuration(token: Self.token), repository: OfflineLocationRepository(index: places.index), log: log)
        let wrong = "wrong-token-value"
        try await server.application().test(.router) { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer \(wrong)"], [.authorization: "Basic \(Self.token)"],
                                        [.authorization: "Bearer \(Self.token)x"], [.authorization: "Bearer"],
                                        [.authorization: Self.token]]
            {
                for path in [nearbyURI(TestIndex.tokyo), "/metrics", "/audit"] {
                    try await client.execute(uri: path, method: .get, headers: headers) { response in
                        #expect(response.status == .unauthorized, "\(path) \(headers)")
                        #expect(response.headers[.wwwAuthenticate] == "Bearer")
                        let error = try response.decodeError()
                        #expect(error.code == "unauthorized")
                        #expect(!error.message.contains(Self.token))
                    }
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            for scheme in ["Bearer", "bearer", "BEARER"] {
                try await client.execute(
                    uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get, headers: [.authorization: "\(scheme) \(Self.token)"]
                ) { #expect($0.status == .ok) }
            }
        }
        #expect(log.all.count > 10)
        #expect(log.all.allSatisfy { !$0.contains(Self.token) && !$0.contains(wrong) })
        // A caller known only by its token is named by a hash of it.
        #expect(server.state.audit.records.map(\.client) == [TokenRule.clientName(forToken: Self.token[...])])
    }

    @Test("A token client's name is the top half of the token's FNV-1a 64 (LocationCore's), the same in every release")
    func tokenClientName() {
        #expect(TokenRule.clientName(forToken: "abc") == "token#e71fa219")
        #expect(TokenRule.clientName(forToken: "t0k3n") == "token#c1ee69a0")
    }

    @Test("The token comparison is exact: every single-byte change, prefix and extension is refused")
    func constantTimeCompare() {
        let token = Array(Self.token.utf8)
        #expect(TokenRule.constantTimeEqual(token, token))
        for i in token.indices {
            var changed = token
            changed[i] ^= 0x01
            #expect(!TokenRule.constantTimeEqual(changed, token))
            #expect(!TokenRule.constantTimeEqual(Array(token[..<i]), token))
        }
        #expect(!TokenRule.constantTimeEqual(token + [0], token))
        #expect(!TokenRule.constantTimeEqual([], token))
    }

    @Test("A non-loopback host is refused without a token unless anonymous access is asked for")
    func bindingRule() throws {
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(host: "0.0.0.0") }
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(host: "192.168.1.20") }
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(host: "::") }
        do {
            _ = try NearbyServer.Configuration(host: "0.0.0.0")
        } catch {
            #expect(error.option == "host")
            #expect(error.message.contains("--token"))
        }
        _ = try NearbyServer.Configuration(host: "0.0.0.0", token: "t")
        _ = try NearbyServer.Configuration(host: "0.0.0.0", allowAnonymous: true)
        _ = try NearbyServer.Configuration(host: "127.0.0.1")
        _ = try NearbyServer.Configuration(host: "localhost")
        _ = try NearbyServer.Configuration(host: "::1")
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(token: "has space") }
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(token: "") }
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(maximumRadius: .nan) }
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(port: 70_000) }
    }
}
