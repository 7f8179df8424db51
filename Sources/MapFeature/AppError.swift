/// Why loading nearby places (or reading the location) failed: the game's `AppError`, kept
/// `Equatable` so view state holding it can be compared in tests.
///
/// The seed's seven cases are the seven ``Code`` values ``Code/networkUnavailable``,
/// ``Code/invalidResponse``, ``Code/httpError``, ``Code/decodingFailed``, ``Code/unauthorized``,
/// ``Code/notFound`` and ``Code/validation``, built with the static functions of the same names
/// (`AppError.httpError(statusCode: 500, message: "down")`). ``Code`` is a struct rather than an
/// enum so later codes (``Code/locationUnavailable`` already) do not break anyone's `switch`.
/// Besides the code, an error carries context that says where: the HTTP status, the server's
/// message, the offending request parameter, and the endpoint (`GET 127.0.0.1:8080/locations/nearby`).
///
/// ```swift
/// do { places = try await repository.fetchNearby(center: here, radius: 5_000) }
/// catch AppError.Code.unauthorized { showLogin() }
/// catch let error as AppError where error.code == .validation { print(error.parameter ?? "?") }
/// ```
public struct AppError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The request never got an HTTP answer: no connection, refused, reset, DNS, or timed out.
        public static let networkUnavailable = Code("networkUnavailable")
        /// The answer was not an HTTP response, or not what the endpoint promises (content type).
        public static let invalidResponse = Code("invalidResponse")
        /// The server answered with a non-2xx status not covered by a more specific code.
        public static let httpError = Code("httpError")
        /// The body was not the JSON the endpoint promises; ``AppError/message`` names the coding path.
        public static let decodingFailed = Code("decodingFailed")
        /// HTTP 401: the bearer token is missing, expired or wrong.
        public static let unauthorized = Code("unauthorized")
        /// HTTP 404.
        public static let notFound = Code("notFound")
        /// A request parameter was rejected (HTTP 400, or checked before sending);
        /// ``AppError/parameter`` names it when known.
        public static let validation = Code("validation")
        /// The location provider failed (a dead receiver, an unreadable track).
        public static let locationUnavailable = Code("locationUnavailable")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// The HTTP status code when the server answered, otherwise `nil`.
    public let statusCode: Int?
    /// Detail: the server's message, the decoding path, or the underlying error's description.
    public let message: String
    /// The request parameter the failure is about (`"lat"`, `"lng"`, `"radius"`), when known.
    public let parameter: String?
    /// Where the request went (`GET 127.0.0.1:8080/locations/nearby`), when there was one.
    public let endpoint: String?

    /// Creates an error from its parts; prefer the static functions named after the codes.
    public init(_ code: Code, statusCode: Int? = nil, message: String = "", parameter: String? = nil, endpoint: String? = nil) {
        self.code = code
        self.statusCode = statusCode
        self.message = message
        self.parameter = parameter
        self.endpoint = endpoint
    }

    /// No HTTP answer at all (``Code/networkUnavailable``).
    public static func networkUnavailable(_ message: String = "", endpoint: String? = nil) -> AppError {
        AppError(.networkUnavailable, message: message, endpoint: endpoint)
    }

    /// An answer that is not a usable HTTP response (``Code/invalidResponse``).
    public static func invalidResponse(_ message: String = "", statusCode: Int? = nil, endpoint: String? = nil) -> AppError {
        AppError(.invalidResponse, statusCode: statusCode, message: message, endpoint: endpoint)
    }

    /// A non-2xx status with the server's message (``Code/httpError``).
    public static func httpError(statusCode: Int, message: String, endpoint: String? = nil) -> AppError {
        AppError(.httpError, statusCode: statusCode, message: message, endpoint: endpoint)
    }

    /// A body that did not decode (``Code/decodingFailed``); `message` should name the coding path.
    public static func decodingFailed(_ message: String, statusCode: Int? = nil, endpoint: String? = nil) -> AppError {
        AppError(.decodingFailed, statusCode: statusCode, message: message, endpoint: endpoint)
    }

    /// HTTP 401 (``Code/unauthorized``).
    public static func unauthorized(_ message: String = "", endpoint: String? = nil) -> AppError {
        AppError(.unauthorized, statusCode: 401, message: message, endpoint: endpoint)
    }

    /// HTTP 404 (``Code/notFound``).
    public static func notFound(_ message: String = "", endpoint: String? = nil) -> AppError {
        AppError(.notFound, statusCode: 404, message: message, endpoint: endpoint)
    }

    /// A rejected parameter (``Code/validation``), the seed's `validationError(String)`.
    ///
    /// - Parameters:
    ///   - message: What is wrong, for the user.
    ///   - parameter: The query parameter at fault (`"radius"`), when known.
    ///   - statusCode: 400 when the server said so, `nil` when checked before sending.
    ///   - endpoint: The request that was refused, when there was one.
    public static func validation(_ message: String, parameter: String? = nil, statusCode: Int? = nil, endpoint: String? = nil) -> AppError {
        AppError(.validation, statusCode: statusCode, message: message, parameter: parameter, endpoint: endpoint)
    }

    /// The location provider failed (``Code/locationUnavailable``).
    public static func locationUnavailable(_ message: String) -> AppError {
        AppError(.locationUnavailable, message: message)
    }

    /// Maps any error onto an ``AppError``, keeping its description as the message.
    ///
    /// An ``AppError`` is returned unchanged, a `URLError` becomes ``Code/networkUnavailable``
    /// (as in the seed) with its code, and a `DecodingError` becomes ``Code/decodingFailed`` with
    /// its coding path. Anything else becomes ``Code/invalidResponse`` (the seed's fallback) with
    /// the error's type and description, so nothing is lost from logs.
    /// ``HTTPLocationRepository`` maps its own transport errors with the endpoint added.
    public static func from(_ error: any Error) -> AppError {
        if let error = error as? AppError { return error }
        if let mapped = HTTPLocationRepository.urlErrorMapping(error) { return mapped }
        if let error = error as? DecodingError { return .decodingFailed(DecodingErrorDescription.describe(error)) }
        return .invalidResponse("\(type(of: error)): \(error)")
    }

    /// The short, user-facing text the game shows (the seed's `errorDescription`).
    public var userMessage: String {
        switch code {
        case .networkUnavailable: "No internet connection"
        case .invalidResponse: "Invalid server response"
        case .httpError: "Error \(statusCode.map(String.init) ?? "?"): \(message)"
        case .decodingFailed: "Failed to parse server response"
        case .unauthorized: "Please log in again"
        case .notFound: "Resource not found"
        case .validation: message
        case .locationUnavailable: "Location unavailable"
        default: message
        }
    }

    /// Everything known: code, status, parameter, endpoint and message.
    public var description: String {
        var parts = ["\(code)"]
        if let statusCode { parts.append("HTTP \(statusCode)") }
        if let parameter { parts.append("parameter \(parameter)") }
        if let endpoint { parts.append(endpoint) }
        let head = parts.joined(separator: ", ")
        return message.isEmpty ? head : "\(head): \(message)"
    }
}

extension AppError.Code {
    /// Lets `catch AppError.Code.unauthorized` match a thrown ``AppError``.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? AppError)?.code == code
    }
}

/// Renders a `DecodingError` as `path: problem`, the "says where" form used in messages.
enum DecodingErrorDescription {
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
            return text.isEmpty ? "(top level)" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): missing \(type) value: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing key: \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
