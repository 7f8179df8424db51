#if os(Linux) || os(macOS)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocSimTestHelpers
import LocationCore
import MapFeature
import Testing

/// `HTTPLocationRepository` against a real HTTP server on loopback (Fixtures/nearby_server.py,
/// started and stopped by each test). Each scenario is one path prefix on that server.
@Suite(.timeLimit(.minutes(1))) struct HTTPLocationRepositoryTests {
    let center = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)

    func repository(_ server: LocalHTTPServer, scenario: String, token: String? = "s3cret",
                    timeout: Duration = .seconds(10)) throws -> HTTPLocationRepository {
        try HTTPLocationRepository(baseURL: server.baseURL.appendingPathComponent(scenario), token: token, timeout: timeout)
    }

    /// Runs `fetch` and returns the `AppError` it throws (recording an issue if it returns).
    func failure(_ fetch: () async throws -> [Place]) async -> AppError? {
        do {
            let places = try await fetch()
            Issue.record("expected an error, got \(places.count) places")
            return nil
        } catch let error as AppError {
            return error
        } catch {
            Issue.record("expected an AppError, got \(type(of: error)): \(error)")
            return nil
        }
    }

    @Test("GET /locations/nearby with lat, lng, radius, a bearer token, JSON in snake_case")
    func success() async throws {
        try await LocalHTTPServer.with { server in
            let places = try await repository(server, scenario: "ok").fetchNearby(center: center, radius: 5_000)
            #expect(places.map(\.id) == ["echo", "42", "accept"])
            let echo = places[0]
            #expect(echo.name == "Bearer s3cret")
            #expect(echo.kind == "lat=35.6812&lng=139.7671&radius=5000")
            #expect(places[1] == Place(id: "42", name: "Fushimi Inari",
                                       coordinate: Coordinate(uncheckedLatitude: 34.9671, longitude: 135.7727),
                                       kind: "shrine", level: 3))
            #expect(places[2].name == "application/json")
            #expect(places[2].kind == "")
        }
    }

    @Test("Without a token no Authorization header is sent")
    func noToken() async throws {
        try await LocalHTTPServer.with { server in
            let places = try await repository(server, scenario: "ok", token: nil).fetchNearby(center: center, radius: 250.5)
            #expect(places[0].name == "")
            #expect(places[0].kind == "lat=35.6812&lng=139.7671&radius=250.5")
        }
    }

    @Test("An empty answer is an empty list")
    func empty() async throws {
        try await LocalHTTPServer.with { server in
            let places = try await repository(server, scenario: "empty").fetchNearby(center: center, radius: 5_000)
            #expect(places.isEmpty)
        }
    }

    @Test("HTTP 400 is a validation error naming the parameter from the server's message", arguments: [
        ("bad-radius", "radius", "radius must be between 1 and 50000"),
        ("bad-lat-text", "lat", "lat is out of range"),
        ("bad-explicit", "lng", "invalid query"),
    ])
    func badRequest(scenario: String, parameter: String, message: String) async throws {
        try await LocalHTTPServer.with { server in
            let error = try #require(await failure { try await repository(server, scenario: scenario).fetchNearby(center: center, radius: 5_000) })
            #expect(error.code == .validation)
            #expect(error.statusCode == 400)
            #expect(error.parameter == parameter)
            #expect(error.message == message)
            #expect(error.endpoint == "GET 127.0.0.1:\(server.port)/\(scenario)/locations/nearby")
        }
    }

    @Test("401, 404 and other statuses map to unauthorized, notFound and httpError with the message", arguments: [
        ("unauthorized", AppError.Code.unauthorized, 401, "token expired"),
        ("missing", AppError.Code.notFound, 404, "no such route"),
        ("server-error", AppError.Code.httpError, 500, "database is down"),
        ("teapot", AppError.Code.httpError, 418, "I'm a teapot"),
    ])
    func statuses(scenario: String, code: AppError.Code, status: Int, message: String) async throws {
        try await LocalHTTPServer.with { server in
            let error = try #require(await failure { try await repository(server, scenario: scenario).fetchNearby(center: center, radius: 5_000) })
            #expect(error.code == code)
            #expect(error.statusCode == status)
            #expect(error.message == message)
        }
    }

    @Test("Bodies that do not decode fail with the coding path", arguments: [
        ("malformed", "(top level)"),
        ("wrong-shape", "locations[1].lat"),
        ("bad-coordinate", "locations[0].lat"),
    ])
    func decoding(scenario: String, path: String) async throws {
        try await LocalHTTPServer.with { server in
            let error = try #require(await failure { try await repository(server, scenario: scenario).fetchNearby(center: center, radius: 5_000) })
            #expect(error.code == .decodingFailed)
            #expect(error.message.hasPrefix(path), "\(error.message)")
        }
    }

    @Test("A body that is not JSON (a captive portal's HTML) is an invalid response")
    func html() async throws {
        try await LocalHTTPServer.with { server in
            let error = try #require(await failure { try await repository(server, scenario: "html").fetchNearby(center: center, radius: 5_000) })
            #expect(error.code == .invalidResponse)
            #expect(error.message.contains("text/html"))
        }
    }

    @Test("A server slower than the timeout: networkUnavailable, saying it timed out")
    func timeout() async throws {
        try await LocalHTTPServer.with { server in
            let slow = try repository(server, scenario: "slow", timeout: .milliseconds(500))
            let error = try #require(await failure { try await slow.fetchNearby(center: center, radius: 5_000) })
            #expect(error.code == .networkUnavailable)
            #expect(error.message.contains("timed out"), "\(error.message)")
            #expect(error.endpoint == "GET 127.0.0.1:\(server.port)/slow/locations/nearby")
        }
    }

    @Test("Nothing listening: networkUnavailable naming host and port")
    func refused() async throws {
        let port = try await LocalHTTPServer.with { $0.port }  // a port that was just freed
        let base = URL(string: "http://127.0.0.1:\(port)/ok")!
        let repository = try HTTPLocationRepository(baseURL: base, token: nil, timeout: .seconds(5))
        let error = try #require(await failure { try await repository.fetchNearby(center: center, radius: 5_000) })
        #expect(error.code == .networkUnavailable)
        #expect(error.endpoint == "GET 127.0.0.1:\(port)/ok/locations/nearby")
    }

    @Test("A wire location is made only with a valid coordinate, and its place carries it unchanged")
    func wireLocationValidates() throws {
        let error = #expect(throws: CoordinateError.self) {
            try NearbyLocationsResponse.Location(id: "x", name: "X", latitude: 91, longitude: 0)
        }
        #expect(error?.component == .latitude)
        #expect(throws: CoordinateError.self) {
            try NearbyLocationsResponse.Location(id: "x", name: "X", latitude: 0, longitude: .nan)
        }
        let location = try NearbyLocationsResponse.Location(id: "x", name: "X", latitude: 35.5, longitude: 139.25, level: 3)
        #expect(location.place == Place(id: "x", name: "X", coordinate: try Coordinate(latitude: 35.5, longitude: 139.25), level: 3))
    }

    @Test("A timeout of zero or less is rejected when the repository is made, naming the parameter", arguments: [
        Duration.zero, .milliseconds(-1),
    ])
    func invalidTimeout(timeout: Duration) {
        let error = #expect(throws: ConfigurationError.self) {
            try HTTPLocationRepository(baseURL: URL(string: "http://127.0.0.1:9/v1")!, token: nil, timeout: timeout)
        }
        #expect(error?.parameter == "timeout")
    }

    @Test("A bad radius is rejected before sending, naming the parameter", arguments: [0.0, -5, .nan, .infinity])
    func invalidRadius(radius: Double) async throws {
        let repository = try HTTPLocationRepository(baseURL: URL(string: "http://127.0.0.1:9/v1")!, token: nil)
        let error = await failure { try await repository.fetchNearby(center: center, radius: radius) }
        #expect(error?.code == .validation)
        #expect(error?.parameter == "radius")
    }

    @Test("Cancelling the caller cancels the request with CancellationError")
    func cancellation() async throws {
        try await LocalHTTPServer.with { server in
            let slow = try repository(server, scenario: "slow", timeout: .seconds(30))
            let fetch = Task { try await slow.fetchNearby(center: center, radius: 5_000) }
            fetch.cancel()
            await #expect(throws: CancellationError.self) { try await fetch.value }
        }
    }

    @Test("AppError.from maps a URLError from elsewhere to networkUnavailable, as the seed did")
    func urlErrorMapping() {
        let error = AppError.from(URLError(.notConnectedToInternet))
        #expect(error.code == .networkUnavailable)
        #expect(error.message.contains("\(URLError.Code.notConnectedToInternet.rawValue)"))
    }

    @Test("The request: path appended to the base, query, headers, timeout")
    func request() throws {
        let repository = try HTTPLocationRepository(baseURL: URL(string: "https://api.example.com/v1/")!, token: "t",
                                                timeout: .milliseconds(2_500))
        let request = try repository.makeRequest(center: Coordinate(uncheckedLatitude: -33.8568, longitude: 151.2153), radius: 1_000)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/locations/nearby?lat=-33.8568&lng=151.2153&radius=1000")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.timeoutInterval == 2.5)
        #expect(request.httpMethod == "GET")
    }
}
#endif
