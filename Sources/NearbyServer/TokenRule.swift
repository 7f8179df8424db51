import LocationCore

/// Who may call: one rule for every route but `/healthz` (which load balancers and scripts probe
/// without credentials).
///
/// With a token, a request must carry `Authorization: Bearer <token>`; the comparison takes the
/// same time whatever the first differing byte is, so the token cannot be guessed byte by byte
/// from response times. The token is never logged, echoed or written anywhere by the server.
package struct TokenRule: Sendable {
    private let token: [UInt8]?

    /// - Parameter token: The bearer token required, or `nil` for anyone.
    package init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    /// Whether a token is required.
    package var requiresToken: Bool { token != nil }

    /// Whether an `Authorization` header value admits the caller.
    package func admits(authorization: String?) -> Bool {
        guard let token else { return true }
        guard let presented = Self.bearer(authorization) else { return false }
        return Self.constantTimeEqual(Array(presented.utf8), token)
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

    /// A short, stable name for a client known only by its token: `token#` and eight hex digits
    /// of an FNV-1a hash, so logs can tell clients apart without showing the token.
    static func clientName(forToken token: Substring) -> String {
        let hex = String(FNV1a64.hash(token.utf8) >> 32, radix: 16)
        return "token#" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
