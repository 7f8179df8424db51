/// What a bearer token may be: the one rule the server, the clients and the command apply.
///
/// A token travels in `Authorization: Bearer <token>`, a header value that cannot carry spaces or
/// control characters; RFC 6750 §2.1 allows visible ASCII only. The rule here is that (U+0021 to
/// U+007E), at least one character.
package enum BearerToken {
    /// Why `token` cannot be a bearer token, or nil when it can: `the token is empty`, or
    /// `character 5 is U+0020` (1-based, counting Unicode scalars). Never quotes the token.
    package static func problem(with token: String) -> String? {
        guard !token.isEmpty else { return "the token is empty" }
        var position = 0
        for scalar in token.unicodeScalars {
            position += 1
            if scalar.value < 0x21 || scalar.value > 0x7E {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                return "a bearer token is visible ASCII (RFC 6750); character \(position) is U+"
                    + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
        }
        return nil
    }
}
