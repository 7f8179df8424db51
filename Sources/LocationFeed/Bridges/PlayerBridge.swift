package import LocationCore
import ServiceLifecycle

/// One player's fixes sent on to a ``FixSink`` (an Android emulator's console, an iOS Simulator)
/// for as long as the service group runs: a `Service` beside the ``PlayerHub``.
package struct PlayerBridge<C: Clock>: Service where C.Duration == Duration {
    /// The player whose fixes are sent.
    package let player: String
    private let hub: PlayerHub
    private let forwarder: FixForwarder<C>

    /// - Throws: ``/LocationCore/ConfigurationError`` (`player`) when the hub has no such player.
    package init(player: String, hub: PlayerHub, forwarder: FixForwarder<C>) throws(ConfigurationError) {
        guard hub.devices.contains(where: { $0.name == player }) else {
            throw ConfigurationError(
                parameter: "player", "no player is named '\(player)' (players: \(hub.devices.map(\.name).joined(separator: ", ")))")
        }
        self.player = player
        self.hub = hub
        self.forwarder = forwarder
    }

    package func run() async throws {
        let mailbox = FixMailbox()
        let player = player
        let subscription = hub.subscribe { update in
            if update.player == player { mailbox.post(update.fix) }
        }
        defer { hub.unsubscribe(subscription) }
        // A player that moved before the bridge started: its newest fix first (a newer one replaces it).
        if let latest = hub.latest(player) { mailbox.post(latest.fix) }
        try await cancelWhenGracefulShutdown { try await forwarder.run(mailbox) }
    }
}

extension PlayerBridge: CustomStringConvertible {
    /// How the service group's log names the bridge: its player, never the sink's settings (an
    /// emulator console's auth token).
    package var description: String { "PlayerBridge(\(player))" }
}
