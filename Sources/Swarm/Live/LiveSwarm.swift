#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import LocationCore
package import LocationSimulation
package import MapFeature

/// The players of a real-time swarm as one state machine: fixes in game time and answers in,
/// requests out. No clock, no network: ``LiveSwarmRunner`` drives it with a clock and a
/// ``SwarmTransport``; tests drive it with plain numbers.
///
/// Each player is the virtual mode's player (the same kind, start, opening second and random walk
/// for the same seed, see ``VirtualSwarm``) with a real ``/MapFeature/MapSession``: the app's fetch
/// rule, single-flight with coalesced follow-ups, and the back-off after a failure, exactly as
/// `MapViewModel` runs them. Fixes come at 1 Hz of game time, each player at its own seeded
/// offset within the second (phones are not synchronised), so the requests of players that open
/// the app in the same second are spread over it rather than sent at once.
///
/// The schedule is one list for all players: the players sorted by offset, walked once per game
/// second. A player whose app is not open yet is passed over; nothing is allocated per fix
/// except what ``/MapFeature/MapSession`` itself returns.
///
/// Players chosen by ``Configuration/misbehaviour`` ignore the rule: they send a request at every
/// fix (still one at a time), so a server's audit has something to catch.
///
/// Players chosen by ``Configuration/scenarioShare`` (among those following the rule) have a
/// scenario's phone between their motion and their session: its GPS trouble, its delivery rules
/// and app moves (offsets from the player's first fix) and its `game.maximumFixAge`, as
/// `simulate --map --scenario` runs them; the motion replaces the scenario's route.
package struct LiveSwarm: Sendable {
    /// What to run.
    package struct Configuration: Sendable {
        /// The players and their motion: the virtual mode's configuration (its failure rate and
        /// every-fix switch are not used: answers come from the server).
        package let motion: VirtualSwarm.Configuration
        /// The share of players (0…1, each drawn from its own seeded stream) that ignore the rule.
        package let misbehaviour: Double
        /// Recorded paths: when given, each player follows one (drawn from its own stream) from a
        /// random offset, looping it, instead of the random walk; the kinds of ``motion``'s mix
        /// are then not used.
        package let tracks: [SwarmTrack]
        /// The share of players (0…1, each drawn from its own seeded stream) whose fixes go
        /// through ``phone`` (players ignoring the rule are never among them).
        package let scenarioShare: Double
        /// The scenario's phone as it starts (a value: each player gets a copy), or `nil`.
        let phone: ScenarioPhone?
        /// The fetch rule of the scenario's players: ``VirtualSwarm/Configuration/throttle`` with
        /// the scenario's `game.maximumFixAge`.
        let scenarioThrottle: FetchThrottle.Configuration

        /// - Throws: ``/LocationCore/ConfigurationError`` (parameter `misbehave` or
        ///   `scenario-share`) when a share is out of 0…1, or (`scenario`) a share without a
        ///   scenario.
        package init(
            motion: VirtualSwarm.Configuration, misbehaviour: Double = 0, tracks: [SwarmTrack] = [], scenario: Scenario? = nil,
            scenarioShare: Double = 0
        ) throws(ConfigurationError) {
            guard misbehaviour.isFinite, (0...1).contains(misbehaviour) else {
                throw ConfigurationError(parameter: "misbehave", "must be between 0 and 1, got \(misbehaviour)")
            }
            guard scenarioShare.isFinite, (0...1).contains(scenarioShare) else {
                throw ConfigurationError(parameter: "scenario-share", "must be between 0 and 1, got \(scenarioShare)")
            }
            if scenarioShare > 0, scenario == nil {
                throw ConfigurationError(parameter: "scenario", "a share of players on a scenario needs the scenario")
            }
            self.motion = motion
            self.misbehaviour = misbehaviour
            self.tracks = tracks
            self.scenarioShare = scenario == nil ? 0 : scenarioShare
            do {
                phone = try scenario.map { scenario throws(SimulationError) in try ScenarioPhone(scenario: scenario) }
                scenarioThrottle = try motion.throttle.with(maximumFixAge: scenario?.maximumFixAge)
            } catch {
                throw ConfigurationError(parameter: "scenario", "\(error)")
            }
        }
    }

    /// A request to send now.
    package struct Send: Sendable, Hashable {
        /// The player's index (its `X-Player-ID` is `swarm-<index>`).
        package var player: Int
        /// What the player's session asked for; for a player ignoring the rule, a request of its
        /// own (``reason`` is `nil`).
        package var request: FetchRequest
        /// Why, or `nil` when the player ignores the rule.
        package var reason: FetchThrottle.Reason?
        /// Game time of the send, in microseconds from the start.
        package var micros: Int64
        /// Game microseconds since the player's previous send, `nil` for its first.
        package var sincePrevious: Int64?
    }

    /// The configuration.
    package let configuration: Configuration
    /// The game time the run ends, in microseconds.
    package let endMicros: Int64

    private var players: [LivePlayer]
    /// The phones of the players on the scenario (``LivePlayer/phone`` indexes it): kept apart,
    /// so a player without one costs four bytes for it, not a whole phone.
    private var phones: [ScenarioPhone]
    private let parameters: [MoverParameters]
    /// Player indices by their offset within the second: the order fixes come in each second.
    private let order: [Int32]
    private var second: Int32 = 0
    private var cursor = 0
    /// Players whose app is open.
    package private(set) var activePlayers = 0
    /// Players of each mover, in the mix's order.
    package let playersByKind: [Int]
    /// Fixes fed to sessions so far (a scenario player's: offered to its phone).
    package private(set) var fixes = 0
    /// Fixes the scenario players' phones kept from their apps so far.
    package private(set) var withheldFixes = 0
    /// Requests sent and not answered yet.
    package private(set) var inFlight = 0

    /// Creates the players (all state is allocated here, once).
    package init(configuration: Configuration) {
        self.configuration = configuration
        let motion = configuration.motion
        let parameters = motion.mix.shares.map { MoverParameters($0.mover) }
        self.parameters = parameters
        endMicros = Int64(motion.durationSeconds) * 1_000_000
        var players: [LivePlayer] = []
        players.reserveCapacity(motion.players)
        var phones: [ScenarioPhone] = []
        for index in 0..<motion.players {
            var player = LivePlayer(index: index, configuration: configuration, parameters: parameters)
            if player.phone >= 0, let phone = configuration.phone {
                player.phone = Int32(phones.count)
                phones.append(phone)
            }
            players.append(player)
        }
        self.phones = phones
        var byKind = [Int](repeating: 0, count: parameters.count)
        for player in players { byKind[Int(player.motion.kind)] += 1 }
        playersByKind = byKind
        order = players.indices.sorted { (players[$0].offsetMicros, $0) < (players[$1].offsetMicros, $1) }.map(Int32.init)
        self.players = players
    }

    /// The `X-Player-ID` of player `index`.
    package static func playerID(_ index: Int) -> String { "swarm-\(index)" }

    /// Whether player `index` ignores the rule.
    func misbehaves(_ index: Int) -> Bool { players[index].misbehaves }

    /// The indices of the players that ignore the rule, ascending.
    package var misbehavingPlayers: [Int] { players.indices.filter { players[$0].misbehaves } }

    /// The indices of the players on the scenario's phone, ascending.
    package var scenarioPlayers: [Int] { players.indices.filter { players[$0].phone >= 0 } }

    /// The second player `index` opens the app.
    package func startSecond(of index: Int) -> Int { Int(players[index].motion.startSecond) }

    /// The game time of the next fix, or `nil` when the run is over. Never later than the next
    /// fix (a player whose app is not open yet may be counted).
    var nextFixMicros: Int64? {
        guard Int(second) < configuration.motion.durationSeconds, !order.isEmpty else { return nil }
        return Int64(second) * 1_000_000 + Int64(players[Int(order[cursor])].offsetMicros)
    }

    /// Feeds every fix due at or before `micros` (game time) to its player's session, in time order.
    ///
    /// - Returns: The requests to send now, in order.
    package mutating func advance(to micros: Int64) -> [Send] {
        var sends: [Send] = []
        let duration = Int32(configuration.motion.durationSeconds)
        while second < duration {
            let index = Int(order[cursor])
            let time = Int64(second) * 1_000_000 + Int64(players[index].offsetMicros)
            if time > micros { break }
            let current = second
            cursor += 1
            if cursor == order.count {
                cursor = 0
                second += 1
            }
            fix(player: index, second: current, micros: time, into: &sends)
        }
        return sends
    }

    /// Feeds the answer to `send` to its player, received at `micros` (game time).
    ///
    /// - Parameters:
    ///   - send: The request being answered.
    ///   - result: the number of places, or the error. Places themselves are not kept:
    ///     the session is given an empty list (the rule does not depend on what was found).
    ///   - micros: When the answer arrived, in game-time microseconds.
    /// - Returns: A follow-up request to send now (one coalesced while `send` was in flight).
    package mutating func complete(_ send: Send, with result: Result<Int, AppError>, at micros: Int64) -> Send? {
        inFlight -= 1
        let index = send.player
        guard send.reason != nil else {
            players[index].rogueInFlight = false
            return nil
        }
        let output = players[index].session.complete(
            send.request, with: result.map { _ in [] }, at: Self.date(micros: micros))
        // A follow-up is not sent once the run is over.
        guard let request = output.request, micros < endMicros else { return nil }
        return started(request, reason: request.reason, player: index, micros: micros)
    }

    private mutating func fix(player index: Int, second: Int32, micros: Int64, into sends: inout [Send]) {
        guard players[index].motion.startSecond <= second else { return }
        if players[index].motion.startSecond == second { activePlayers += 1 }
        let here = position(of: index, at: second)
        fixes += 1
        if players[index].misbehaves {
            guard !players[index].rogueInFlight else { return }
            players[index].rogueInFlight = true
            players[index].rogueRequests += 1
            let request = FetchRequest(
                id: players[index].rogueRequests, center: here, radius: configuration.motion.throttle.radius,
                time: Self.date(micros: micros), reason: .elapsed)
            sends.append(started(request, reason: nil, player: index, micros: micros))
            return
        }
        let fix = Fix(time: Self.date(micros: micros), coordinate: here, source: .synthetic)
        let phone = Int(players[index].phone)
        guard phone >= 0 else {
            if let request = players[index].session.receive(fix).request {
                sends.append(started(request, reason: request.reason, player: index, micros: micros))
            }
            return
        }
        let inputs = phones[phone].offer(fix)
        // The phone delivers at or before the fix it was offered (a cached fix on returning to
        // the foreground, a batch's last): each at its delivery time, sent now.
        for input in inputs {
            switch input {
            case .fix(let delivered, let time):
                if let request = players[index].session.receive(delivered, deliveredAt: time).request {
                    sends.append(started(request, reason: request.reason, player: index, micros: micros))
                }
            case .note(.withheld, _):
                withheldFixes += 1
            case .note:
                break
            }
        }
    }

    /// Where player `index` is at `second` (its app open): on its track, or on its random walk.
    private mutating func position(of index: Int, at second: Int32) -> Coordinate {
        let tracks = configuration.tracks
        if !tracks.isEmpty {
            let positions = tracks[Int(players[index].track) % tracks.count].positions
            let step = Int(players[index].trackOffset) + Int(second - players[index].motion.startSecond)
            return positions[step % positions.count]
        }
        let kind = parameters[Int(players[index].motion.kind)]
        players[index].motion.advance(to: second, parameters: kind, area: configuration.motion.area)
        return players[index].motion.position(at: second)
    }

    /// The positions player `index` is at from the second it opens the app to the end.
    package func path(ofPlayer index: Int) -> [Coordinate] {
        var copy = self
        return (players[index].motion.startSecond..<Int32(configuration.motion.durationSeconds)).map { copy.position(of: index, at: $0) }
    }

    private mutating func started(_ request: FetchRequest, reason: FetchThrottle.Reason?, player index: Int, micros: Int64) -> Send {
        let previous = players[index].lastSendMicros
        players[index].lastSendMicros = micros
        inFlight += 1
        return Send(
            player: index, request: request, reason: reason, micros: micros, sincePrevious: previous < 0 ? nil : micros - previous)
    }

    /// Game time as a fix time: microseconds after the reference date (any fixed base would do;
    /// the rule only compares differences).
    static func date(micros: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(micros) / 1_000_000)
    }
}

/// One player of a real-time swarm: the virtual player's motion and a real session.
struct LivePlayer: Sendable {
    var motion: VirtualPlayer
    var session: MapSession
    /// Where in each game second its fixes come.
    let offsetMicros: Int32
    let misbehaves: Bool
    /// With tracks: which one, and the second of it the player starts at.
    let track: UInt32
    let trackOffset: UInt32
    /// Its phone in ``LiveSwarm``'s list, for a player on the scenario; -1 otherwise.
    var phone: Int32 = -1
    var rogueInFlight = false
    var rogueRequests = 0
    var lastSendMicros: Int64 = -1

    init(index: Int, configuration: LiveSwarm.Configuration, parameters: [MoverParameters]) {
        let motion = configuration.motion
        self.motion = VirtualPlayer(index: index, configuration: motion, parameters: parameters)
        session = MapSession(configuration: motion.throttle)
        // A stream of its own, so the virtual player's draws (kind, start, motion) are untouched.
        var random = SplitMix64(seed: motion.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15) ^ 0x5157_4152_4D4C_4956)
        _ = random.next()
        offsetMicros = Int32(random.next() % 1_000_000)
        misbehaves = random.nextUnit() < configuration.misbehaviour
        let tracks = configuration.tracks
        track = tracks.isEmpty ? 0 : UInt32(random.next() % UInt64(tracks.count))
        trackOffset = tracks.isEmpty ? 0 : UInt32(random.next() % UInt64(tracks[Int(track)].positions.count))
        // Drawn last, so every draw above is what it was without a scenario.
        if random.nextUnit() < configuration.scenarioShare, !misbehaves, configuration.phone != nil {
            phone = 0  // Its own, given by LiveSwarm.
            session = MapSession(configuration: configuration.scenarioThrottle)
        }
    }
}
