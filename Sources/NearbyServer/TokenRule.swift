import Crypto
import LocationCore

/// Who may call: one rule for every route but `/healthz` (which load balancers and scripts probe
/// without credentials).
///
/// With a token, a request must carry `Authorization: Bearer <token>`; the comparison takes the
/// same time whatever the first differing byte is, so the token cannot be guessed byte by byte
/// from response times. The token is never logged, echoed or written anywhere by the server.
package struct TokenRule: Sendable {
    private let token: [UInt8]?
    /// `--accept-any-token`: any well-formed bearer token is admitted.
    private let acceptAnyToken: Bool
    /// The key of ``clientName(forToken:)``: random for each process unless a test gives one.
    private let nameKey: SymmetricKey

    /// - Parameter token: The bearer token required, or `nil` for anyone. The names of token
    ///   clients are made with a fresh random 256-bit key, so a name in a log says nothing about
    ///   the token to anyone without it.
    ///   With `acceptAnyToken` (and no token), any request with a well-formed bearer token
    ///   (LocationCore's `BearerToken`) is admitted: the app's own token passes unchanged, and a
    ///   request without one is refused as the real server would.
    package init(token: String?, acceptAnyToken: Bool = false) {
        self.init(token: token, acceptAnyToken: acceptAnyToken, nameKey: SymmetricKey(size: .bits256))
    }

    /// A rule whose token names are made with `nameKey` (tests).
    init(token: String?, acceptAnyToken: Bool = false, nameKey: SymmetricKey) {
        self.token = token.map { Array($0.utf8) }
        self.acceptAnyToken = token == nil && acceptAnyToken
        self.nameKey = nameKey
    }

    /// Whether an `Authorization` header value admits the caller.
    package func admits(authorization: String?) -> Bool {
        refusal(authorization: authorization) == nil
    }

    /// Why an `Authorization` header value does not admit the caller (never showing the token),
    /// or nil when it does.
    package func refusal(authorization: String?) -> String? {
        guard token != nil || acceptAnyToken else { return nil }
        guard let authorization else { return "this server needs 'Authorization: Bearer <token>'" }
        guard let presented = Self.bearer(authorization), !presented.isEmpty else {
            return "the Authorization header is not 'Bearer <token>'"
        }
        guard let token else {
            return BearerToken.problem(with: String(presented)).map { "the bearer token is malformed: \($0)" }
        }
        return Self.constantTimeEqual(Array(presented.utf8), token) ? nil : "the bearer token is not this server's"
    }

    /// The token of a `Bearer` header value (the scheme is case-insensitive), or nil.
    static func bearer(_ authorization: String?) -> Substring? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].drop(while: { $0 == " " })
    }

    /// Equal length and bytes, in time that depends only on the lengths.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        difference |= UInt8(a.count == b.count ? 0 : 1)
        let count = max(a.count, b.count)
        for i in 0..<count {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// A short name for a client known only by its token: `token#` and the first eight hex digits
    /// of HMAC-SHA256 of the token under this process's ``nameKey``. The same token has the same
    /// name for the life of the process, so logs and the audit tell clients apart; without the
    /// key (never written anywhere) a name cannot be checked against guesses, so even a short
    /// token cannot be recovered from a log.
    func clientName(forToken token: Substring) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(token.utf8), using: nameKey)
        return "token#" + code.prefix(4).map { $0.hexDigits(uppercase: false) }.joined()
    }
}
