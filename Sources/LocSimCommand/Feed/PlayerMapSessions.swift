#if Server
import Foundation
import LocationCore
import LocationFeed
import LocationSimulation
import MapFeature
import ServiceLifecycle

/// What each player's map screen would show: every player's fixes go through a ``MapSession``
/// (the game's fetch rule, `serve`'s --throttle-distance and --throttle-interval), its fetches are
/// answered by the server's own place search, and each fetch and the places that come back are
/// posted to the players' event streams as `map` events, for the live map. The hub keeps each
/// player's newest fetches and its places now (``PlayerHistory``), so a page that opens later
/// draws them too.
///
/// A player that walks a scenario (`--player NAME=SCENARIO.json`) has its phone between its fixes
/// and its session: the scenario's delivery rules, app moves and `game.maximumFixAge`, on the
/// player's own time (its offsets into the route, as its trouble is), so a move at `5m` comes five
/// minutes into the walk at any speed. What the phone did goes to the event stream as `phone`
/// events: the `withheld`, `app` and `batch` records of docs/reference/jsonl.md (their times on
/// the player's own clock, which a `--speed` above 1 runs ahead of the wall clock), with the
/// player and `offset`, seconds into the route. The phone starts again when the player goes back
/// along its route (a loop, a seek back).
struct PlayerMapSessions: Service, CustomStringConvertible {
    /// The most places sent for one fetch (the nearest).
    static let placeLimit = 300
    /// How a fetch is kept: the newest 100 of a player.
    static let fetchKeeping = PlayerHistory.Keeping.recent(kind: "fetch", limit: 100)
    /// How the places are kept: the newest list replaces the one before.
    static let placesKeeping = PlayerHistory.Keeping.latest(kind: "places")
    /// How the phone's notes are kept: the newest 100 of a player.
    static let phoneKeeping = PlayerHistory.Keeping.recent(kind: "phone", limit: 100)

    let hub: PlayerHub
    let repository: any LocationRepository
    let rule: FetchThrottle.Configuration
    /// The scenarios of the players that walk one, by name.
    var scenarios: [String: Scenario] = [:]

    /// How the service group's log names it: never the repository's settings (an upstream
    /// server's token).
    var description: String { "PlayerMapSessions" }

    /// A scenario player's phone, and where its time stands.
    private struct Phone {
        var phone: ScenarioPhone
        /// The instant offset 0 of the route is on the phone's clock.
        let epoch: Date
        var lastOffset: Double
    }

    func run() async throws {
        // Only the player and the fix wait in the buffer, not the update's reports (about 2 KB of
        // TPV, SKY and NMEA text each): a backlog while fetches are answered stays small.
        let (updates, continuation) = AsyncStream.makeStream(
            of: (player: String, fix: Fix, offset: Double?).self, bufferingPolicy: .bufferingNewest(4096))
        let subscription = hub.subscribe { continuation.yield((player: $0.player, fix: $0.fix, offset: $0.offset)) }
        defer { hub.unsubscribe(subscription) }
        // Each scenario player's fetch rule, and its phone as it starts (a value: a copy is a fresh phone).
        let rules = try scenarios.mapValues { try rule.with(maximumFixAge: $0.maximumFixAge) }
        let newPhones = try scenarios.mapValues { try ScenarioPhone(scenario: Self.onPhone($0)) }
        await cancelWhenGracefulShutdown {
            var sessions: [String: MapSession] = [:]
            var phones: [String: Phone] = [:]
            for await update in updates {
                var session = sessions[update.player] ?? MapSession(configuration: rules[update.player] ?? self.rule)
                guard let newPhone = newPhones[update.player], let offset = update.offset else {
                    await self.deliver(update.fix, at: update.fix.time, player: update.player, to: &session)
                    sessions[update.player] = session
                    continue
                }
                // The phone's clock is the route's: its offset 0 is the route's first fix (the
                // app moves count from there, as the trouble does, even for a player started at
                // --start). Going back along the route starts a new phone whose clock goes on
                // from the last fix's, a second later: the session's clock never goes back.
                var current: Phone
                if let running = phones[update.player], offset >= running.lastOffset {
                    current = running
                } else {
                    let resume = phones[update.player].map { $0.epoch.addingTimeInterval($0.lastOffset + 1) } ?? update.fix.time
                    let epoch = resume.addingTimeInterval(-offset)
                    current = Phone(phone: newPhone.starting(at: epoch), epoch: epoch, lastOffset: offset)
                }
                current.lastOffset = offset
                var fix = update.fix
                fix.time = current.epoch.addingTimeInterval(offset)
                for input in current.phone.offer(fix) {
                    switch input {
                    case .fix(let fix, let time):
                        await self.deliver(fix, at: time, player: update.player, to: &session)
                    case .note(let note, let time):
                        self.post(note, at: time, offset: time.timeIntervalSince(current.epoch), player: update.player)
                    }
                }
                phones[update.player] = current
                sessions[update.player] = session
            }
        }
    }

    /// The phone of a feed player's scenario: its trouble is on the player's fixes already.
    static func onPhone(_ scenario: Scenario) -> Scenario {
        var phone = scenario
        phone.trouble = []
        return phone
    }

    /// A phone's note as a `phone` event: the note's JSON-lines record, with the player and
    /// `offset` (seconds into the route).
    private func post(_ note: ScenarioPhone.Note, at time: Date, offset: Double, player: String) {
        let record: any JSONLRecord
        switch note {
        case .withheld(let fix, let reason): record = WithheldRecord(time: time, fix: fix, reason: reason)
        case .app(let state): record = AppRecord(time: time, state: state.rawValue)
        case .batch(let fixes): record = BatchRecord(time: time, fixes: fixes)
        case .trouble: return  // Told by the player itself (``TroubleNotes``).
        }
        hub.post(player: player, event: "phone", json: Self.json(record, player: player, offset: offset), keeping: Self.phoneKeeping)
    }

    /// `record`'s members, then `"player"` and `"offset"`: a scenario player's note.
    static func json(_ record: any JSONLRecord, player: String, offset: Double) -> String {
        var json = JSONWriter(capacity: 256)
        json.object { object in
            record.write(to: &object)
            object.member("player", player)
            object.member("offset", offset, decimals: 3)
        }
        return json.text
    }

    /// Hands `fix` to the player's session at `time` and answers its fetches from the server's
    /// own place search.
    private func deliver(_ fix: Fix, at time: Date, player: String, to session: inout MapSession) async {
        var output = session.receive(fix, deliveredAt: time)
        while let request = output.request {
            // Kept as the request (about 40 bytes), written again when a page asks: not as its
            // text, a hundred of which per player are 15 MB over 1,000 players.
            hub.post(player: player, event: "map", keeping: Self.fetchKeeping) { Self.fetchJSON(player, request) }
            let result: Result<[Place], AppError>
            do {
                result = .success(try await repository.fetchNearby(center: request.center, radius: request.radius, limit: Self.placeLimit))
            } catch {
                result = .failure(AppError(.networkUnavailable, message: "\(error)"))
            }
            output = session.complete(request, with: result, at: time)
            if let places = session.places.value {
                // The history keeps these places, not their text: the same array as the session's.
                hub.post(player: player, event: "map", keeping: Self.placesKeeping) { Self.placesJSON(player, places) }
            }
        }
    }

    static func fetchJSON(_ player: String, _ request: FetchRequest) -> String {
        var json = JSONWriter(capacity: 160)
        json.object { json in
            json.member("player", player)
            json.key("fetch")
            json.object { json in
                json.member("lat", request.center.latitude, fixedDecimals: 7)
                json.member("lng", request.center.longitude, fixedDecimals: 7)
                json.member("radius", request.radius, fixedDecimals: 1)
                json.member("reason", request.reason.rawValue)
            }
        }
        return json.text
    }

    static func placesJSON(_ player: String, _ places: [Place]) -> String {
        var json = JSONWriter(capacity: 64 + 112 * places.count)
        json.object { json in
            json.member("player", player)
            json.key("places")
            json.array(places) { json, place in
                json.object { json in
                    json.member("id", place.id)
                    json.member("name", place.name)
                    json.member("lat", place.coordinate.latitude, fixedDecimals: 7)
                    json.member("lng", place.coordinate.longitude, fixedDecimals: 7)
                }
            }
        }
        return json.text
    }
}
/// A scenario player's GPS trouble on its event stream: a `trouble` event for each fix a window
/// changed or dropped (the `trouble` record of docs/reference/jsonl.md, with the player and
/// `offset`, seconds into the route), told as the player reads the fix: for a file or polyline
/// route just before the fix is due (a tunnel's dropped fixes at its start), for a route of legs
/// as its first hour is read ahead.
final class TroubleNotes: Sendable {
    /// How the notes are kept: the newest 100 of a player.
    static let keeping = PlayerHistory.Keeping.recent(kind: "trouble", limit: 100)

    private let hub = Locked<PlayerHub?>(nil)
    private let now: @Sendable () -> Date

    /// - Parameter now: Stamps each note (`t`): when it was told.
    init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// From now on, notes go to `hub` (none are told before: fixes read to find a `--start`).
    func attach(_ hub: PlayerHub) { self.hub.withLock { $0 = hub } }

    /// What `player`'s ``LocationSimulation/TroubledFixes`` tells.
    func handler(player: String) -> GPSTrouble.EffectsHandler {
        { [self] offset, _, reported, effects in
            guard let hub = hub.withLock({ $0 }) else { return }
            for effect in effects {
                let json = PlayerMapSessions.json(TroubleRecord(time: now(), effect: effect, reported: reported), player: player, offset: offset)
                hub.post(player: player, event: "trouble", json: json, keeping: Self.keeping)
            }
        }
    }
}
#endif  // Server
