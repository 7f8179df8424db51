import Foundation
import LocationCore
import LocationTestSupport
import MapFeature

/// A scripted game server for scenario tests, usable by both the seed's logic and ours: each
/// call's latency and result depend on the call's index and centre.
struct ScenarioServer: Sendable {
    var respond: @Sendable (_ callIndex: Int, _ center: Coordinate) -> (latency: Duration, result: Result<[Place], AppError>)

    /// Answers `placesNear(center)` after `latency(callIndex)`.
    static func answering(latency: @escaping @Sendable (Int) -> Duration) -> ScenarioServer {
        ScenarioServer { index, center in (latency(index), .success(placesNear(center))) }
    }

    /// Fails every call after `latency`.
    static func failing(after latency: Duration) -> ScenarioServer {
        ScenarioServer { _, _ in (latency, .failure(.networkUnavailable("server down"))) }
    }

    /// The seed simulation's view of this server.
    var seed: SeedMapLogic.Server { { index, center in respond(index, center) } }

    /// A recording repository that answers the same way, for `MapReplay`.
    func repository(calls: Int = 10_000) -> RecordingRepository {
        let respond = self.respond
        return RecordingRepository(clock: VirtualClock(), script: (0..<calls).map { index in
            RecordingRepository.Response(latency: respond(index, Coordinate(uncheckedLatitude: 0, longitude: 0)).latency) { call in
                respond(call.index, call.center).result
            }
        })
    }
}

/// Three places around `center` whose ids name the centre, so a test can tell which request's
/// answer is on the map.
func placesNear(_ center: Coordinate) -> [Place] {
    (0..<3).map { index in
        Place(id: "\(center)#\(index)", name: "place \(index) near \(center)",
              coordinate: center.destination(distance: 200 * Double(index + 1), bearing: 120 * Double(index)))
    }
}

/// Tokyo Station: the origin of the scripted scenarios.
let tokyo = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
