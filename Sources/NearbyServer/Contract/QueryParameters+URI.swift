import HummingbirdCore
import LocationCore

extension QueryParameters {
    /// The pairs of `uri`'s query, in request order, the names decoded.
    static func of(_ uri: URI) -> [(name: Substring, value: Substring)] {
        uri.queryParameters.map { (name: name($0.key), value: $0.value) }
    }

    /// The first value of the parameter called `wanted`, or nil.
    static func first(_ wanted: String, in uri: URI) -> Substring? {
        uri.queryParameters.first { name($0.key) == wanted }?.value
    }

    /// The value of the parameter called `wanted`, or nil when it is absent; a 400 naming it when
    /// it is given more than once (as the nearby route says it: which one was meant is a guess).
    static func only(_ wanted: String, in uri: URI) throws(ServerError) -> Substring? {
        let values = uri.queryParameters.filter { name($0.key) == wanted }.map(\.value)
        guard values.count <= 1 else { throw .badRequest("\(wanted) is given \(values.count) times; give it once", parameter: wanted) }
        return values.first
    }

    /// A 400 for the first parameter of `uri` that is not one of `names`: for a route that
    /// changes something, where a misspelt parameter ignored (`?clinet=p1`) would do more than asked.
    static func refuseOthers(in uri: URI, names: [String], route: String) throws(ServerError) {
        try refuseMisnamed(in: uri, names: names)
        for parameter in uri.queryParameters where !names.contains(String(name(parameter.key))) {
            let given = TextExcerpt.render(name(parameter.key), limit: 64)
            throw .badRequest(
                "\(given) is no parameter of \(route) (it takes \(names.joined(separator: ", "))); nothing was done", parameter: given)
        }
    }

    /// A 400 for the first parameter of `uri` that is one of `names` in other letter case
    /// (`/audit?LIMIT=5`), naming the one meant, as the nearby route does.
    static func refuseMisnamed(in uri: URI, names: [String]) throws(ServerError) {
        for parameter in uri.queryParameters {
            let given = name(parameter.key)
            if let meant = meant(by: given, among: names) {
                throw .badRequest(
                    "\(TextExcerpt.render(given, limit: 64)) is no parameter of this route: give it as \(meant) (\(names.joined(separator: ", ")))",
                    parameter: meant)
            }
        }
    }
}
