#if Server
import LocationCore
import NIOCore
import NearbyServer

/// The backend of `locsim serve` started with players and no place data where it looks (no
/// `--db`, `--geodata`, `--postgres` or `$LOCSIM_GEODATA`, no `geodata` folder): the feeds, the
/// control API and the live map run; `GET /locations/nearby` answers 503, its log line and
/// `GET /healthz` (200, degraded) saying why.
struct NoPlaceData: NearbyServing {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// Why there are no places and what gives some, as the start-up line, the log and `/healthz` say it.
    let reason: String

    /// - Parameter looked: The folders looked in for place CSVs.
    init(looked: [String]) {
        reason =
            "no place data (looked in \(looked.joined(separator: ", "))): serving players only; "
            + "start serve with --geodata DIR or --db FILE for GET /locations/nearby"
    }

    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        throw Missing(description: reason)
    }

    func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        throw Missing(description: reason)
    }

    func healthWarnings() async -> [String] { [reason] }
}
#endif  // Server
