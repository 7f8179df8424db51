/// A request's query parameters as every route reads them: Hummingbird's pairs, whose values it
/// percent-decodes, with the names decoded too (Hummingbird leaves a name as sent, so `l%61t=35`
/// was no `lat` and `access%5Ftoken` no credential), `+` in a name a space as in a form.
///
/// Here the name's decoding (and a path segment's), for every module with routes (NearbyServer's contract, LocationFeed's
/// control API); NearbyServer adds the readers of a Hummingbird `URI`.
package enum QueryParameters {
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

    /// A 400 for the first of a request's parameter `names` (as sent) that is not one of `taken`:
    /// for a route that changes something, where a misspelt parameter ignored (`?clinet=p1`)
    /// would do more than asked. A name in other letter case is named as the one meant.
    package static func refuseOthers(
        _ names: some Sequence<Substring>, taken: [String], route: String
    ) throws(ServerError) {
        let decoded = names.map(name)
        try refuseMisnamed(decoded, taken: taken)
        for given in decoded where !taken.contains(String(given)) {
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
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            // Two hex digits exactly: `UInt8("+f", radix: 16)` is 15, so `%+f` would decode.
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let high = hexDigit(utf8[utf8.startIndex]), let low = hexDigit(utf8[utf8.index(after: utf8.startIndex)])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)[...]
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
