public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
public import LocationCore

/// The game server's nearby-places endpoint, `GET {base}/locations/nearby?lat=&lng=&radius=`,
/// as a ``/LocationCore/LocationRepository``.
///
/// Sends `Authorization: Bearer <token>` when a token is given and `Accept: application/json`,
/// and decodes the snake_case body described in `NearbyLocationsResponse` (package access: this repository and `locsim serve` share it). Every failure is an
/// ``AppError`` that names the endpoint:
///
/// | what happened | code |
/// |---|---|
/// | no connection, refused, DNS, timed out | ``AppError/Code/networkUnavailable`` |
/// | not an HTTP response, or not JSON | ``AppError/Code/invalidResponse`` |
/// | 400 | ``AppError/Code/validation``, ``AppError/parameter`` taken from the server's message |
/// | 401 | ``AppError/Code/unauthorized`` |
/// | 404 | ``AppError/Code/notFound`` |
/// | any other non-2xx | ``AppError/Code/httpError`` with the status and the server's message |
/// | a body that does not decode | ``AppError/Code/decodingFailed`` with the coding path |
///
/// Cancelling the calling task cancels the request and throws `CancellationError`.
///
/// ```swift
/// let repository = HTTPLocationRepository(
///     baseURL: URL(string: "https://api.example.com/v1")!, token: token, timeout: .seconds(10))
/// let places = try await repository.fetchNearby(center: here, radius: 5_000)
/// ```
public struct HTTPLocationRepository: LocationRepository {
    /// The API root; `locations/nearby` is appended to its path.
    public let baseURL: URL
    /// The bearer token, or `nil` to send no `Authorization` header.
    public let token: String?
    /// The longest a request may take, and the longest it may wait for data.
    public let timeout: Duration

    private let session: URLSession

    /// Creates a repository.
    ///
    /// - Parameters:
    ///   - baseURL: The API root, for example `https://api.example.com/v1`.
    ///   - token: The bearer token (without the `Bearer ` prefix), or `nil`.
    ///   - timeout: Applies both to waiting for data and to the whole request; > 0. Default 10 s.
    ///   - session: A session to use instead of the repository's own ephemeral one (whose
    ///     configuration sets both timeouts). A given session keeps its own resource timeout;
    ///     the request's idle timeout is still `timeout`.
    /// - Throws: ``/LocationCore/ConfigurationError`` naming `timeout` for a timeout ≤ 0 (a
    ///   mistake in the caller's set-up, not a fetch failure, so not an ``AppError``).
    public init(baseURL: URL, token: String?, timeout: Duration = .seconds(10), session: URLSession? = nil)
        throws(ConfigurationError)
    {
        guard timeout > .zero else {
            throw ConfigurationError(parameter: "timeout", "must be > 0, got \(timeout)")
        }
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout.fractionalSeconds
            configuration.timeoutIntervalForResource = timeout.fractionalSeconds
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration)
        }
    }

    /// Places within `radius` metres of `center`, in the server's order.
    ///
    /// - Parameters:
    ///   - center: The query point (`lat`, `lng`).
    ///   - radius: Metres, finite and > 0 (`radius`).
    /// - Throws: ``AppError`` (see the type's table), or `CancellationError`.
    public func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        guard radius.isFinite, radius > 0 else {
            throw AppError.validation("radius must be a finite number of metres > 0, got \(radius)", parameter: "radius")
        }
        let request = try makeRequest(center: center, radius: radius)
        let endpoint = Self.endpoint(of: request)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw Self.transportError(error, endpoint: endpoint, timeout: timeout)
        }
        try Task.checkCancellation()
        guard let http = response as? HTTPURLResponse else {
            throw AppError.invalidResponse("not an HTTP response: \(type(of: response))", endpoint: endpoint)
        }
        return try Self.decode(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
                               body: data, endpoint: endpoint)
    }

    /// The request `fetchNearby` sends (exposed for tests and logging).
    ///
    /// - Throws: ``AppError`` (``AppError/Code/validation``, parameter `baseURL`) when the base
    ///   URL cannot carry a query.
    package func makeRequest(center: Coordinate, radius: Double) throws(AppError) -> URLRequest {
        let url = baseURL.appendingPathComponent("locations").appendingPathComponent("nearby")
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .validation("base URL \(baseURL) cannot take a path and a query", parameter: "baseURL")
        }
        components.queryItems = [
            URLQueryItem(name: "lat", value: Self.number(center.latitude)),
            URLQueryItem(name: "lng", value: Self.number(center.longitude)),
            URLQueryItem(name: "radius", value: Self.number(radius)),
        ]
        guard let full = components.url else {
            throw .validation("base URL \(baseURL) cannot take a path and a query", parameter: "baseURL")
        }
        var request = URLRequest(url: full, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout.fractionalSeconds)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    // MARK: Mapping answers

    /// Maps a status, content type and body onto places or an ``AppError``.
    static func decode(status: Int, contentType: String?, body: Data, endpoint: String) throws(AppError) -> [Place] {
        guard (200...299).contains(status) else {
            let message = ServerErrorMessage(body: body)
            switch status {
            case 400:
                throw .validation(message.text.isEmpty ? "bad request" : message.text,
                                  parameter: message.parameter(among: ["lat", "lng", "radius"]),
                                  statusCode: 400, endpoint: endpoint)
            case 401: throw .unauthorized(message.text, endpoint: endpoint)
            case 404: throw .notFound(message.text, endpoint: endpoint)
            default: throw .httpError(statusCode: status, message: message.text, endpoint: endpoint)
            }
        }
        if let contentType, !contentType.lowercased().contains("json") {
            throw .invalidResponse("expected application/json, got \(contentType)", statusCode: status, endpoint: endpoint)
        }
        do {
            return try JSONDecoder().decode(NearbyLocationsResponse.self, from: body).places
        } catch let error as DecodingError {
            throw .decodingFailed(DecodingErrorDescription.describe(error), statusCode: status, endpoint: endpoint)
        } catch {
            throw .decodingFailed("\(error)", statusCode: status, endpoint: endpoint)
        }
    }

    /// A `URLError` as ``AppError/Code/networkUnavailable``, or `nil` for any other error.
    static func urlErrorMapping(_ error: any Error) -> AppError? {
        guard let error = error as? URLError else { return nil }
        return .networkUnavailable("URLError \(error.code.rawValue): \(error.localizedDescription)")
    }

    static func transportError(_ error: any Error, endpoint: String, timeout: Duration) -> AppError {
        if let error = error as? URLError {
            if error.code == .timedOut {
                return .networkUnavailable("timed out after \(timeout)", endpoint: endpoint)
            }
            return .networkUnavailable("URLError \(error.code.rawValue): \(error.localizedDescription)", endpoint: endpoint)
        }
        return .networkUnavailable("\(type(of: error)): \(error)", endpoint: endpoint)
    }

    /// `GET host:port/path`: where a request went, for error messages.
    static func endpoint(of request: URLRequest) -> String {
        guard let url = request.url else { return "GET ?" }
        let host = url.host ?? "?"
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(request.httpMethod ?? "GET") \(host)\(port)\(url.path)"
    }

    /// Shortest round-tripping decimal, without a trailing `.0` for whole numbers.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
