import HummingbirdCore
import LocationCore

extension QueryParameters {
    /// The pairs of `uri`'s query, in request order, decoded (``pairs(of:)``).
    static func of(_ uri: URI) -> [(name: Substring, value: Substring)] {
        pairs(of: uri.query?[...])
    }

    /// The value of the parameter called `wanted`, or nil when it is absent; a 400 naming it when
    /// it is given more than once (as the nearby route says it: which one was meant is a guess).
    static func only(_ wanted: String, in uri: URI) throws(ServerError) -> Substring? {
        let values = of(uri).filter { $0.name == wanted }.map(\.value)
        guard values.count <= 1 else { throw .badRequest("\(wanted) is given \(values.count) times; give it once", parameter: wanted) }
        return values.first
    }

    /// A 400 for the first parameter of `uri` that is not one of `names` (``refuseOthers(_:taken:route:)``).
    static func refuseOthers(in uri: URI, names: [String], route: String) throws(ServerError) {
        try refuseOthers(of(uri).map(\.name), taken: names, route: route)
    }

    /// A 400 for the first parameter of `uri` that is one of `names` in other letter case
    /// (``refuseMisnamed(_:taken:)``).
    static func refuseMisnamed(in uri: URI, names: [String]) throws(ServerError) {
        try refuseMisnamed(of(uri).map(\.name), taken: names)
    }
}
