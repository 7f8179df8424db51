#if Server
import LocationCore
import NIOCore
import NearbyServer

/// The backend of `locsim serve` started with players and no place data where it looks (no
/// `--db`, `--geodata`, `--postgres` or `$LOCSIM_GEODATA`, no `geodata` folder): the feeds, the
/// control API and the live map run; `GET /locations/nearby` answers 503 saying there are no
/// places, and `GET /healthz` (200, degraded) and the start-up line say where serve looked.
struct NoPlaceData: NearbyServing {
    /// Why there are no places and what gives some, as the start-up line and `/healthz` say it.
    let reason: String

    /// - Parameter looked: The folders looked in for place CSVs.
    init(looked: [String]) {
        reason =
            "no place data (looked in \(looked.joined(separator: ", "))): serving players only; "
            + "start serve with --geodata DIR or --db FILE for GET /locations/nearby"
    }

    /// What a nearby request is answered (no folder names: they are the server's business).
    static let answer = ServerError(
        .unavailable, status: 503, "this server has no place data: it serves players only (started without --geodata or --db)")

    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        throw Self.answer
    }

    func nearbyBody(near center: Coordinate, within radius: Double, limit: Int?) async throws -> (body: ByteBuffer, places: Int) {
        throw Self.answer
    }

    func healthWarnings() async -> [String] { [reason] }
}
#endif  // Server
