package import LocationCore
package import LocationIndex
package import NIOCore

/// Something that answers the game's nearby query: places within a radius, nearest first, ties
/// by id, at most `limit`.
///
/// ``NearbyServer`` serves any `NearbySearching`. ``IndexSearch`` answers from the SQLite
/// ``LocationIndex/NearbyIndex`` (with the limit applied inside the query); ``RepositorySearch``
/// wraps any ``LocationCore/LocationRepository`` (a PostGIS backend, the HTTP client as a proxy,
/// an in-memory test set) and keeps the first `limit` of its answer.
package protocol NearbySearching: Sendable {
    /// Places within `radius` metres of `center`, nearest first, ties by id.
    ///
    /// - Parameters:
    ///   - center: The query point.
    ///   - radius: Metres, finite and > 0 (the server has already checked its cap).
    ///   - limit: The nearest `limit` places only (> 0), or `nil` for all.
    /// - Throws: Whatever the backend throws; the server answers 503 and logs the reason.
    func places(near center: Coordinate, within radius: Double, limit: Int?) async throws -> [Place]

    /// Nil when the backend can answer; otherwise which backend is down and why, for
    /// `GET /healthz` (answered 503 with that text). The default says nil: a local index is up
    /// whenever the process is.
    func healthProblem() async -> String?

    /// Backends that are down while the server still answers (a read replica down, the
    /// primary answering instead), one line each; `GET /healthz` answers 200 with `ok` and
    /// these lines. Asked only when ``healthProblem()`` is nil. The default says none.
    func healthWarnings() async -> [String]

    /// The nearby answer's JSON body, `{"locations":[…]}`, for ``places(near:within:limit:)``,
    /// and how many places it holds. The default writes those places with
    /// ``NearbyJSONWriter``; ``IndexSearch`` writes the same bytes straight from the index's rows.
    func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int)
}

extension NearbySearching {
    package func healthProblem() async -> String? { nil }
    package func healthWarnings() async -> [String] { [] }

    package func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        let places = try await places(near: center, within: radius, limit: limit)
        var writer = NearbyJSONWriter(capacity: 32 + places.count * 120)
        writer.appendLocations(places)
        return (writer.buffer, places.count)
    }
}

/// The SQLite index as a ``NearbySearching``.
package struct IndexSearch: NearbySearching {
    /// The index queried.
    package let index: NearbyIndex

    /// - Parameter index: The index to answer from (read-only access is enough).
    package init(index: NearbyIndex) { self.index = index }

    package func places(near center: Coordinate, within radius: Double, limit: Int?) async throws -> [Place] {
        try index.places(near: center, within: radius, limit: limit).map(\.place)
    }

    package func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        try nearbyBodyNow(near: center, within: radius, limit: limit)
    }

    /// ``nearbyBody(near:within:limit:)`` on the calling thread, without suspending: how the
    /// server answers the nearby route on the connection's event loop.
    package func nearbyBodyNow(near center: Coordinate, within radius: Double, limit: Int?) throws -> (body: ByteBuffer, places: Int) {
        try index.withNearbyRows(near: center, within: radius, limit: limit) { rows in
            var writer = NearbyJSONWriter(capacity: 0)
            writer.appendLocations(rows)
            return (writer.buffer, rows.count)
        }
    }
}

/// Any ``LocationCore/LocationRepository`` as a ``NearbySearching``; the repository's order is
/// kept (it is expected to be nearest first) and the answer cut to `limit`.
package struct RepositorySearch: NearbySearching {
    /// The repository asked.
    package let repository: any LocationRepository

    /// - Parameter repository: The repository to answer from.
    package init(repository: any LocationRepository) { self.repository = repository }

    package func places(near center: Coordinate, within radius: Double, limit: Int?) async throws -> [Place] {
        let all = try await repository.fetchNearby(center: center, radius: radius)
        guard let limit, all.count > limit else { return all }
        return Array(all.prefix(limit))
    }
}
