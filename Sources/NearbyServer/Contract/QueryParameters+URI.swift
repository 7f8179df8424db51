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
}
