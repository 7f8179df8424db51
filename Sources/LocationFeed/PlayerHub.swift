#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore
public import NMEAFormat
public import ServiceLifecycle
import Synchronization

/// Runs every player at once and hands each new fix to whoever listens (the gpsd protocol's
/// clients), keeping the newest per player for `?POLL;`.
///
/// Each fix is turned into its gpsd reports once (`TPV`, `SKY`, NMEA), however many clients
/// watch. Players finish on their own (a track's end); a player that fails stops alone and is
/// reported through `onEnd`, the others go on.
public final class PlayerHub: Service, Sendable {
    /// One new fix of one player, with its reports ready to send.
    public struct Update: Sendable {
        public let player: String
        public let device: String
        public let fix: Fix
        /// Vertical speed from the previous 3D fix, m/s.
        public let climb: Double?
        /// The `TPV` and `SKY` objects (no line end).
        public let tpv: String
        public let sky: String
        /// The NMEA sentences (GSA, RMC, GGA, VTG; CR LF), empty when the fix cannot be written.
        public let nmea: String
    }

    /// A player as listed by `DEVICES`.
    public struct Device: Sendable, Hashable {
        public let name: String
        public let path: String
        public let activated: Date
    }

    /// How NMEA is written: GSA first, then RMC, GGA, VTG, HDOP by gpsd's 19 m model, 8 satellites
    /// (the order a real gpsd 3.22 reports each epoch with its own DOPs, see docs/nmea.md).
    public static let nmeaOptions = NMEAWriter.Options(
        sentences: [.gsa, .rmc, .gga, .vtg], accuracyModel: .gpsd, satellitesInUse: SkyModel.inUse)

    /// Every player, in the order given.
    public let devices: [Device]
    private let players: [FeedPlayer]
    private let skies: [SkyModel]
    private let onEnd: @Sendable (_ player: String, _ error: (any Error)?) -> Void
    private let writer = NMEAWriter(options: PlayerHub.nmeaOptions)

    private struct State {
        var latest: [String: Update] = [:]
        var subscribers: [Int: @Sendable (Update) -> Void] = [:]
        var nextID = 0
        var fixes = 0
    }
    private let state = Mutex(State())

    /// - Parameters:
    ///   - players: The players; names must differ.
    ///   - now: Wall-clock time (the devices' activation time).
    ///   - onEnd: Called when a player's provider ends (`nil`) or fails.
    /// - Throws: ``LocationCore/ConfigurationError`` for two players of one name.
    public init(
        players: [FeedPlayer], now: @Sendable () -> Date,
        onEnd: @escaping @Sendable (_ player: String, _ error: (any Error)?) -> Void = { _, _ in }
    ) throws(ConfigurationError) {
        var seen = Set<String>()
        for player in players where !seen.insert(player.name).inserted {
            throw ConfigurationError(parameter: "players", "two players are named '\(player.name)'")
        }
        let start = now()
        self.players = players
        self.skies = players.map { SkyModel(seed: $0.seed) }
        self.devices = players.map { Device(name: $0.name, path: $0.devicePath, activated: start) }
        self.onEnd = onEnd
    }

    /// Calls `handler` with every fix from now on until ``unsubscribe(_:)``; returns its id.
    /// The handler runs on the player's task: it must hand the update on, not wait.
    public func subscribe(_ handler: @escaping @Sendable (Update) -> Void) -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = handler
            return state.nextID
        }
    }

    /// Stops calling the handler `id`.
    public func unsubscribe(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    /// The newest update of `player`, if it has had a fix.
    public func latest(_ player: String) -> Update? { state.withLock { $0.latest[player] } }

    /// How many fixes all players have produced so far.
    public var fixCount: Int { state.withLock { $0.fixes } }

    /// Runs every player until it ends; returns when all have (cancellation stops them).
    public func runPlayers() async {
        await withDiscardingTaskGroup { group in
            for (index, player) in players.enumerated() {
                group.addTask { [self] in
                    do {
                        try await player.drain { fix in self.publish(fix, of: index) }
                        // A provider ends quietly when cancelled: only an end of its own is reported.
                        if !Task.isCancelled { onEnd(player.name, nil) }
                    } catch is CancellationError {
                        // Stopped from outside: not an end of the player's own.
                    } catch {
                        onEnd(player.name, error)
                    }
                }
            }
        }
    }

    /// The `Service`: the players, then (once all have ended) waiting for the group's shutdown,
    /// so a finished walk does not stop the server.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.runPlayers() }
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            // Cancelled while waiting: the group is stopping, which is this service's normal end.
        }
    }

    private func publish(_ fix: Fix, of index: Int) {
        let player = players[index]
        let device = player.devicePath
        let previous = state.withLock { $0.latest[player.name]?.fix }
        var climb: Double?
        if let previous, let before = previous.altitude, let now = fix.altitude, fix.mode == .threeDimensional,
            previous.mode == .threeDimensional
        {
            let elapsed = fix.time.timeIntervalSince(previous.time)
            if elapsed > 0 { climb = (now - before) / elapsed }
        }
        let nmea: String
        do {
            nmea = fix.hasPosition ? try writer.string(for: fix) : ""
        } catch {
            // A fix NMEA cannot carry (a date outside 1980…2079) still goes out as JSON.
            nmea = ""
        }
        let update = Update(
            player: player.name, device: device, fix: fix, climb: climb,
            tpv: GPSDReport.tpvObject(device: device, fix: fix, climb: climb),
            sky: GPSDReport.skyObject(device: device, fix: fix, sky: skies[index]), nmea: nmea)
        let subscribers = state.withLock { state in
            state.latest[player.name] = update
            state.fixes += 1
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber(update) }
    }
}
