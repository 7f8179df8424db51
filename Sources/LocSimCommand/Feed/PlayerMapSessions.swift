#if Server
import Foundation
import LocationCore
import LocationFeed
import MapFeature
import ServiceLifecycle

/// What each player's map screen would show: every player's fixes go through a ``MapSession``
/// (the game's fetch rule, `serve`'s --throttle-distance and --throttle-interval), its fetches are
/// answered by the server's own place search, and each fetch and the places that come back are
/// posted to the players' event streams as `map` events, for the live map. The hub keeps each
/// player's newest fetches and its places now (``PlayerHistory``), so a page that opens later
/// draws them too.
struct PlayerMapSessions: Service {
    /// The most places sent for one fetch (the nearest).
    static let placeLimit = 300
    /// How a fetch is kept: the newest 100 of a player.
    static let fetchKeeping = PlayerHistory.Keeping.recent(kind: "fetch", limit: 100)
    /// How the places are kept: the newest list replaces the one before.
    static let placesKeeping = PlayerHistory.Keeping.latest(kind: "places")

    let hub: PlayerHub
    let repository: any LocationRepository
    let rule: FetchThrottle.Configuration

    func run() async throws {
        // Only the player and the fix wait in the buffer, not the update's reports (about 2 KB of
        // TPV, SKY and NMEA text each): a backlog while fetches are answered stays small.
        let (updates, continuation) = AsyncStream.makeStream(of: (player: String, fix: Fix).self, bufferingPolicy: .bufferingNewest(4096))
        let subscription = hub.subscribe { continuation.yield((player: $0.player, fix: $0.fix)) }
        defer { hub.unsubscribe(subscription) }
        await cancelWhenGracefulShutdown {
            var sessions: [String: MapSession] = [:]
            for await update in updates {
                var session = sessions[update.player] ?? MapSession(configuration: self.rule)
                var output = session.receive(update.fix)
                while let request = output.request {
                    self.hub.post(player: update.player, event: "map", json: Self.fetchJSON(update.player, request), keeping: Self.fetchKeeping)
                    let result: Result<[Place], AppError>
                    do {
                        result = .success(try await self.repository.fetchNearby(
                            center: request.center, radius: request.radius, limit: Self.placeLimit))
                    } catch {
                        result = .failure(AppError(.networkUnavailable, message: "\(error)"))
                    }
                    output = session.complete(request, with: result, at: update.fix.time)
                    if let places = session.places.value {
                        // The history keeps these places, not their text: the same array as the session's.
                        let player = update.player
                        self.hub.post(player: player, event: "map", keeping: Self.placesKeeping) { Self.placesJSON(player, places) }
                    }
                }
                sessions[update.player] = session
            }
        }
    }

    static func fetchJSON(_ player: String, _ request: FetchRequest) -> String {
        "{\"player\":\(JSONWriter.quoted(player)),\"fetch\":{\"lat\":\(DecimalText.fixed(request.center.latitude, decimals: 7))"
            + ",\"lng\":\(DecimalText.fixed(request.center.longitude, decimals: 7)),\"radius\":\(DecimalText.fixed(request.radius, decimals: 1))"
            + ",\"reason\":\"\(request.reason.rawValue)\"}}"
    }

    static func placesJSON(_ player: String, _ places: [Place]) -> String {
        let list = places.map { place in
            "{\"id\":\(JSONWriter.quoted(place.id)),\"name\":\(JSONWriter.quoted(place.name))"
                + ",\"lat\":\(DecimalText.fixed(place.coordinate.latitude, decimals: 7)),\"lng\":\(DecimalText.fixed(place.coordinate.longitude, decimals: 7))}"
        }
        return "{\"player\":\(JSONWriter.quoted(player)),\"places\":[\(list.joined(separator: ","))]}"
    }
}
#endif  // Server
