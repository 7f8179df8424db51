package import MapFeature

/// Sends a swarm's requests somewhere and reports each answer once. ``LiveSwarmRunner`` calls
/// ``send(_:playerID:completion:)`` from one task; completions may come on any thread.
///
/// The network implementation is `SwarmHTTP`'s `SwarmHTTPClient` (SwiftNIO, keep-alive
/// connections); tests may answer in-process.
package protocol SwarmTransport: Sendable {
    /// Sends `send`'s request as player `playerID`, then calls `completion` exactly once.
    func send(_ send: LiveSwarm.Send, playerID: String, completion: @escaping @Sendable (SwarmAnswer) -> Void)
}

/// Why a request got no usable answer.
package enum SwarmFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection could not be made (the message says why: refused, unreachable …).
    case connect(String)
    /// No complete answer within the timeout.
    case timeout
    /// The server closed the connection before the answer was complete.
    case closed
    /// Another network or protocol error.
    case network(String)
    /// An answer with a status other than 200.
    case status(Int)
    /// A 200 answer whose body is not the contract's JSON.
    case malformed

    /// The kind, as reports count them: `connect`, `timeout`, `closed`, `network`, `http`, `malformed`.
    package var kind: String {
        switch self {
        case .connect: "connect"
        case .timeout: "timeout"
        case .closed: "closed"
        case .network: "network"
        case .status: "http"
        case .malformed: "malformed"
        }
    }

    package var description: String {
        switch self {
        case .connect(let message): "cannot connect: \(message)"
        case .timeout: "timed out"
        case .closed: "connection closed before the answer"
        case .network(let message): "network error: \(message)"
        case .status(let status): "HTTP \(status)"
        case .malformed: "the answer is not {\"locations\":[…]}"
        }
    }

    /// The error the app's session sees (as `HTTPLocationRepository` would map it).
    package var appError: AppError {
        switch self {
        case .connect(let message), .network(let message): .networkUnavailable(message)
        case .timeout: .networkUnavailable("timed out")
        case .closed: .networkUnavailable("connection closed")
        case .status(let status):
            switch status {
            case 401: .unauthorized()
            case 404: .notFound()
            default: .httpError(statusCode: status, message: "HTTP \(status)")
            }
        case .malformed: .decodingFailed("not a nearby answer")
        }
    }
}

/// What came back for one request.
package struct SwarmAnswer: Sendable {
    /// The request.
    package var send: LiveSwarm.Send
    /// The HTTP status, when an answer head arrived.
    package var status: Int?
    /// Places in the answer, or why there is none.
    package var outcome: Result<Int, SwarmFailure>
    /// From handing the request to the transport to its answer (or failure), in nanoseconds.
    package var latencyNanos: UInt64

    package init(send: LiveSwarm.Send, status: Int?, outcome: Result<Int, SwarmFailure>, latencyNanos: UInt64) {
        self.send = send
        self.status = status
        self.outcome = outcome
        self.latencyNanos = latencyNanos
    }
}
