/// An error answer of the server: an HTTP status and the JSON body
/// `{"error":{"code":"…","message":"…","parameter":"lat"}}` (`parameter` only when one is to blame).
///
/// Every answer that is not a list of places is one of these, so the app's error handling sees
/// one shape: bad parameters (400), a missing or wrong token (401), an unknown path (404), a
/// wrong method (405), a database failure (503, the reason logged, not sent), injected faults, and
/// what the connection's guard answers itself (a request that is not HTTP, 400 or 431; a head
/// not complete in time, 408; too many connections, 503), the players' control API included.
///
/// A route throws one; the server's outermost middleware (NearbyServer's `ExchangeMiddleware`)
/// writes it, logs and counts it.
package struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as the `code` string on the wire.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: String, Sendable {
            case badRequest = "bad_request"
            case unauthorized
            case forbidden
            case notFound = "not_found"
            case methodNotAllowed = "method_not_allowed"
            case unavailable
            case injectedFailure = "injected_failure"
            case requestTimeout = "request_timeout"
            case headersTooLarge = "headers_too_large"
            case payloadTooLarge = "payload_too_large"
            case conflict
            case `internal`
        }
        fileprivate let value: Value

        /// A parameter is missing or bad (400).
        package static let badRequest = Code(value: .badRequest)
        /// No bearer token, or the wrong one (401).
        package static let unauthorized = Code(value: .unauthorized)
        /// A request the server refuses whoever sends it (403): one that would change its state,
        /// sent by a page of another origin.
        package static let forbidden = Code(value: .forbidden)
        /// No such path (404).
        package static let notFound = Code(value: .notFound)
        /// The path exists, the method does not (405).
        package static let methodNotAllowed = Code(value: .methodNotAllowed)
        /// The place database failed, or the server is shutting down (503).
        package static let unavailable = Code(value: .unavailable)
        /// A fault injected on purpose (`--fail-rate`, `--script`): 500 or 503.
        package static let injectedFailure = Code(value: .injectedFailure)
        /// The request head did not arrive whole within the header timeout (408).
        package static let requestTimeout = Code(value: .requestTimeout)
        /// The request's headers are over the decoder's limit (431).
        package static let headersTooLarge = Code(value: .headersTooLarge)
        /// A request body over the routes' limit (413).
        package static let payloadTooLarge = Code(value: .payloadTooLarge)

        /// The name asked for is taken (409): a player of that name is playing.
        package static let conflict = Code(value: .conflict)
        /// The server failed in a way that is its own fault (500).
        package static let `internal` = Code(value: .internal)

        /// The wire string, e.g. `bad_request`.
        package var description: String { value.rawValue }
    }

    /// The code.
    package var code: Code
    /// The HTTP status.
    package var statusCode: Int
    /// The human message (never contains a token).
    package var message: String
    /// The query parameter to blame, if any.
    package var parameter: String?
    /// Seconds for a `Retry-After` header, if any.
    package var retryAfter: Int?
    /// For 405: the methods the path accepts (the `Allow` header).
    package var allowedMethods: [String]

    /// The longest ``message`` an answer carries, in characters; a longer one is cut
    /// (``TextExcerpt/cut(_:limit:)``).
    package static let messageLimit = 1_024
    /// The longest ``parameter`` an answer carries, in characters (a parameter's name comes
    /// from the client: an unknown 60 KB field name is echoed cut).
    package static let parameterLimit = 64

    /// Creates an error answer. A message or parameter over its limit (``messageLimit``,
    /// ``parameterLimit``) is cut, whatever the client sent: an error answer stays short.
    package init(
        _ code: Code, status: Int, _ message: String, parameter: String? = nil, retryAfter: Int? = nil,
        allowedMethods: [String] = []
    ) {
        self.code = code
        self.statusCode = status
        self.message = TextExcerpt.cut(message, limit: Self.messageLimit)
        self.parameter = parameter.map { TextExcerpt.cut($0, limit: Self.parameterLimit) }
        self.retryAfter = retryAfter
        self.allowedMethods = allowedMethods
    }

    /// A 400 naming `parameter`.
    package static func badRequest(_ message: String, parameter: String) -> ServerError {
        ServerError(.badRequest, status: 400, message, parameter: parameter)
    }

    /// A 404 saying what is not there.
    package static func notFound(_ message: String, parameter: String? = nil) -> ServerError {
        ServerError(.notFound, status: 404, message, parameter: parameter)
    }

    package var description: String {
        "HTTP \(statusCode) \(code): \(message)" + (parameter.map { " (parameter \($0))" } ?? "")
    }

    /// The JSON body: `{"error":{"code":…,"message":…,"parameter":…}}`.
    package var body: [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.key("error")
            json.object { json in
                json.member("code", code.description)
                json.member("message", message)
                json.member("parameter", ifPresent: parameter)
            }
        }
        return json.bytes
    }
}
