import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LocationCore
import LocationIndex
import LocSimTestHelpers
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
        try await server.test(.router) { client in
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
        // A caller known only by its token is named by a keyed hash of it.
        #expect(server.state.audit.records.map(\.client) == [server.tokenRule.clientName(forToken: Self.token[...])])
    }

    @Test("A token sent in the query (access_token, token, api_key, any case, percent-encoded name) never reaches the log")
    func queryTokenRedacted() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let log = LogLines()
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index), log: log)
        let queries = ["access_token=\(Self.token)", "ACCESS_TOKEN=\(Self.token)&x=1", "token=\(Self.token)",
                       "api_key=\(Self.token)", "access%5Ftoken=\(Self.token)"]
        try await server.test(.router) { client in
            for query in queries {
                try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100) + "&" + query, method: .get) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/nope?access_token=\(Self.token)", method: .get) { #expect($0.status == .notFound) }
        }
        #expect(log.all.count == queries.count + 1)
        #expect(log.all.allSatisfy { !$0.contains(Self.token) && $0.contains("=REDACTED") }, "\(log.all)")
        // The rest of the target is as sent.
        #expect(log.all[1].contains("radius=100.0&ACCESS_TOKEN=REDACTED&x=1 200"), "\(log.all[1])")
        #expect(AccessLog.redactingCredentials("/a?tokenish=1&b") == "/a?tokenish=1&b")
        #expect(AccessLog.redactingCredentials("/a?token") == "/a?token")
        // A 60 KB query is a short line, its length said.
        let long = AccessLog.Record(
            time: Date(timeIntervalSince1970: 0), method: "GET", target: "/a?x=" + String(repeating: "y", count: 60_000), status: 400,
            duration: .milliseconds(1), client: "c")
        #expect(long.target.utf8.count < AccessLog.targetLimit + 40)
        #expect(long.target.hasSuffix("…(60005_characters)"), "\(long.target.suffix(40))")
    }

    @Test("A token client's name is HMAC-SHA256 under the process's own random key: stable within it, unrelated across keys")
    func tokenClientName() {
        // RFC 4231, test case 2: HMAC-SHA256 with key "Jefe" of "what do ya want for nothing?"
        // begins 5bdcc146.
        let known = TokenRule(token: nil, nameKey: SymmetricKey(data: Array("Jefe".utf8)))
        #expect(known.clientName(forToken: "what do ya want for nothing?") == "token#5bdcc146")
        // Two servers (two random keys) give one token different names; one server, the same name.
        let a = TokenRule(token: nil), b = TokenRule(token: nil)
        let tokens: [Substring] = ["abc", "t0k3n", "abcd", "live-token"]
        #expect(tokens.map { a.clientName(forToken: $0) } == tokens.map { a.clientName(forToken: $0) })
        #expect(zip(tokens.map { a.clientName(forToken: $0) }, tokens.map { b.clientName(forToken: $0) }).allSatisfy { $0 != $1 })
        #expect(Set(tokens.map { a.clientName(forToken: $0) }).count == tokens.count)
        for token in tokens {
            let name = a.clientName(forToken: token)
            #expect(name.count == 14 && name.hasPrefix("token#"), "\(name)")
            #expect(name.dropFirst(6).allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(name)")
        }
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
        let port = #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(port: 70_000) }
        // The option leads (the command writes it as its flag, `--port: …`): the message does not say it again.
        #expect(port.map(String.init(describing:)) == "port: must be within 0...65535, got 70000")
    }

    /// A backend that reports itself down (or degraded) by host and port, as PostGIS does.
    struct DownBackend: NearbyServing {
        var problem: String?
        var warnings: [String]
        func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place] { [] }
        func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] { [] }
        func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
            (ByteBuffer(string: #"{"locations":[]}"#), 0)
        }
        func healthProblem() async -> String? { problem }
        func healthWarnings() async -> [String] { warnings }
    }

    @Test("/healthz of a damaged SQLite index: ok until a query meets the damage, then 503 saying so")
    func healthOfADamagedIndex() async throws {
        try await withScratchFolder("locsim-damaged-health") { folder in
            let path = folder + "/i.sqlite"
            let marker = "Marker Place Zq"
            let coordinate = try Coordinate(latitude: 35, longitude: 139)
            do {
                try NearbyIndex(path: path).importPlaces([
                    Place(id: "m", name: marker, coordinate: coordinate),
                    Place(id: "far", name: "Far", coordinate: try Coordinate(latitude: -33, longitude: 151)),
                ])
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let range = try #require(bytes.range(of: Data(marker.utf8)))
            bytes.replaceSubrange(range, with: Data(repeating: 0xFF, count: range.count))
            try bytes.write(to: URL(fileURLWithPath: path))
            let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
            let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: index))
            try await server.test(.router) { client in
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                // Away from the damage, answers go on; where it is, 503.
                #expect(try await client.execute(uri: nearbyURI(try Coordinate(latitude: -33, longitude: 151), radius: 100), method: .get).status == .ok)
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                #expect(try await client.execute(uri: nearbyURI(coordinate, radius: 100), method: .get).status == .serviceUnavailable)
                let health = try await client.execute(uri: "/healthz", method: .get)
                #expect(health.status == .serviceUnavailable)
                let message = try health.decodeError().message
                #expect(message.hasPrefix("the place index is damaged: \(path): corrupt"), "\(message)")
                #expect(message.contains("not UTF-8"), "\(message)")
            }
        }
    }

    @Test("/healthz once the index file was replaced under the server (moved over): 503 saying to restart; a query needing a new connection says the same")
    func healthOfAReplacedIndex() async throws {
        try await withScratchFolder("locsim-replaced-health") { folder in
            let path = folder + "/i.sqlite"
            let rebuilt = folder + "/rebuilt.sqlite"
            let coordinate = try Coordinate(latitude: 35, longitude: 139)
            try NearbyIndex(path: path).importPlaces([Place(id: "m", name: "Marker", coordinate: coordinate)])
            try NearbyIndex(path: rebuilt).importPlaces([Place(id: "n", name: "New", coordinate: coordinate)])
            let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly, maximumIdleReaders: 0))
            let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: index))
            try await server.test(.router) { client in
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                #expect(try await client.execute(uri: nearbyURI(coordinate, radius: 100), method: .get).status == .ok)
                #expect(rename(rebuilt, path) == 0)
                #expect(try await client.execute(uri: nearbyURI(coordinate, radius: 100), method: .get).status == .serviceUnavailable)
                let health = try await client.execute(uri: "/healthz", method: .get)
                #expect(health.status == .serviceUnavailable)
                let message = try health.decodeError().message
                #expect(message.hasPrefix("\(path) was replaced or removed after it was opened"), "\(message)")
                #expect(message.contains("restart"), "\(message)")
            }
        }
    }

    @Test("/healthz says which backend is down, and why, only to a caller the token admits")
    func healthDetailsNeedTheToken() async throws {
        let down = "backend postgres 10.1.2.3:5432 (primary) is down: password authentication failed"
        let degraded = "backend postgres 10.1.2.4:5432 (replica 1) is down: no answer"
        let withToken: HTTPFields = [.authorization: "Bearer \(Self.token)"]
        for (configuration, anonymousSeesDetails) in [
            (try NearbyServer.Configuration(token: Self.token), false), (try NearbyServer.Configuration(), true),
        ] {
            let log = LogLines()
            let failing = makeServer(configuration, repository: DownBackend(problem: down, warnings: []), log: log)
            try await failing.test(.router) { client in
                let anonymous = try await client.execute(uri: "/healthz", method: .get)
                #expect(anonymous.status == .serviceUnavailable)
                #expect(try anonymous.decodeError().message.contains("10.1.2.3") == anonymousSeesDetails)
                let admitted = try await client.execute(uri: "/healthz", method: .get, headers: withToken)
                #expect(try admitted.decodeError().message == down)
            }
            #expect(log.all.contains { $0.contains("10.1.2.3") }, "the log keeps the reason")
            let half = makeServer(configuration, repository: DownBackend(problem: nil, warnings: [degraded]))
            try await half.test(.router) { client in
                let anonymous = try await client.execute(uri: "/healthz", method: .get)
                let text = String(buffer: anonymous.body)
                #expect(anonymous.status == .ok)
                #expect(text.hasPrefix("ok\ndegraded: "))
                #expect(text.contains("10.1.2.4") == anonymousSeesDetails, "\(text)")
                let admitted = try await client.execute(uri: "/healthz", method: .get, headers: withToken)
                #expect(String(buffer: admitted.body) == "ok\ndegraded: \(degraded)\n")
            }
        }
    }
}
