/// A request's query parameters as every route reads them, decoded here, names and values alike:
/// `+` in a name is a space as in a form (`l%61t=35` is `lat`, `access%5Ftoken` a credential), in
/// a value a `+` (`lat=+35.6`). Whatever does not decode to UTF-8 text stays as sent, so an error
/// echoes `lat=%ff` as `%ff`, not as a replacement character.
///
/// For every module with routes (NearbyServer's contract, LocationFeed's control API);
/// NearbyServer adds the readers of a Hummingbird `URI`.
package enum QueryParameters {
    /// The pairs of a URL's `query` (the text after `?`, as sent), in request order, each
    /// decoded; a part without `=` is a name with an empty value, an empty part is skipped.
    package static func pairs(of query: Substring?) -> [(name: Substring, value: Substring)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { part in
            guard let equals = part.firstIndex(of: "=") else { return (name: name(part), value: "") }
            return (name: name(part[..<equals]), value: percentDecoded(part[part.index(after: equals)...], plusIsSpace: false))
        }
    }

    /// `name` percent-decoded (`%5F` is `_`, `+` a space); returned as it is when it has
    /// neither, which is every name a client normally sends (no copy on the nearby path).
    package static func name(_ name: Substring) -> Substring {
        percentDecoded(name, plusIsSpace: true)
    }

    /// The one of a route's parameter `names` that `given` surely means in other letter case
    /// (`LIMIT`, `Lat`), or nil (an exact name, or another parameter: a cache buster is no concern
    /// of a route, but a misspelt one of its own must not be dropped in silence).
    package static func meant(by given: Substring, among names: [String]) -> String? {
        guard !names.contains(where: { $0 == given }) else { return nil }
        let lowered = given.lowercased()
        return names.first { $0 == lowered }
    }

    /// A 400 for the first of a request's decoded parameter `names` that is not one of `taken`:
    /// for a route that changes something, where a misspelt parameter ignored (`?clinet=p1`)
    /// would do more than asked. A name in other letter case is named as the one meant.
    package static func refuseOthers(
        _ names: some Collection<Substring>, taken: [String], route: String
    ) throws(ServerError) {
        try refuseMisnamed(names, taken: taken)
        for given in names where !taken.contains(String(given)) {
            let shown = TextExcerpt.render(given, limit: 64)
            let takes = taken.isEmpty ? "it takes none" : "it takes \(taken.joined(separator: ", "))"
            throw .badRequest("\(shown) is no parameter of \(route) (\(takes)); nothing was done", parameter: shown)
        }
    }

    /// A 400 for the first of the decoded parameter `names` that is one of `taken` in other
    /// letter case (`/audit?LIMIT=5`), naming the one meant, as the nearby route does.
    package static func refuseMisnamed(_ names: some Sequence<Substring>, taken: [String]) throws(ServerError) {
        for given in names {
            if let meant = meant(by: given, among: taken) {
                throw .badRequest(
                    "\(TextExcerpt.render(given, limit: 64)) is no parameter of this route: give it as \(meant) (\(taken.joined(separator: ", ")))",
                    parameter: meant)
            }
        }
    }

    /// A path segment percent-decoded (`al%69ce` is `alice`; `+` stays a `+`), as RFC 3986
    /// makes them one: Hummingbird hands a route's `{name}` as sent.
    package static func pathSegment(_ segment: Substring) -> Substring {
        percentDecoded(segment, plusIsSpace: false)
    }

    private static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> Substring {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else { return text }
        // Lenient: a `%` without two hex digits after it stays as sent. Bytes that are no UTF-8
        // (`%ff`) would come out repaired, as U+FFFD: what was sent says more.
        let bytes = PercentEncoding.decoded(text.utf8, plusIsSpace: plusIsSpace).bytes
        guard bytes.withUnsafeBytes(\.isValidUTF8) else { return text }
        return String(decoding: bytes, as: UTF8.self)[...]
    }
}

/// Percent-decoding (RFC 3986 §2.1), the package's one: a query's names and values, a path
/// segment, a PostgreSQL URL's parts.
package enum PercentEncoding {
    /// The bytes `text` stands for: `%` and two hex digits of either case is that byte, and a
    /// `+` a space when `plusIsSpace` (a form's query). A `%` without two hex digits after it is
    /// kept as sent and makes `malformed` true, for a reader that refuses it. (Two hex digits
    /// exactly: `UInt8("+f", radix: 16)` is 15, so `%+f` is no escape.)
    package static func decoded(_ text: some Collection<UInt8>, plusIsSpace: Bool) -> (bytes: [UInt8], malformed: Bool) {
        var malformed = false
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var rest = text[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%") {
                if let high = rest.first?.hexDigitValue, let low = rest.dropFirst().first?.hexDigitValue {
                    bytes.append(high << 4 | low)
                    rest = rest.dropFirst(2)
                    continue
                }
                malformed = true
            }
            bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
        }
        return (bytes, malformed)
    }
}
