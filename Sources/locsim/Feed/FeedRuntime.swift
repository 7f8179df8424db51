#if Server
import ArgumentParser
import Foundation
import LocationCore
import LocationFeed
import NearbyServer
import ServiceLifecycle

/// The feed side of `locsim serve`: the players and the gpsd protocol server, as services of the
/// same group as the HTTP server (one runtime, one shutdown).
enum FeedRuntime {
    /// The release named in `VERSION`.
    static let release = "locsim-\(LocSim.configuration.version)"

    /// The services to add for `options` (none without --gpsd-port).
    static func services(_ options: FeedOptions, host: String) throws -> [any Service] {
        let bridges = try options.bridges()
        guard options.gpsdPort != nil || !bridges.isEmpty else { return [] }
        let players = try options.makePlayers()
        let hub = try PlayerHub(players: players, now: { Date() }) { name, error in
            if let error {
                Terminal.err("locsim serve: player \(name) failed: \(error)")
            } else {
                Terminal.err("locsim serve: player \(name) reached the end of its path (its device stays, silent)")
            }
        }
        var services: [any Service] = [hub]
        services += try bridgeServices(bridges, hub: hub, tokenFile: options.androidTokenFile)
        guard let gpsdPort = options.gpsdPort else {
            Terminal.out("locsim serve: players (no --gpsd-port; their fixes go to the bridges only)")
            for player in players {
                Terminal.out("  \(player.name): \(player.summary) at \(player.speedFactor)×, seed \(player.seed)")
            }
            return services
        }
        let gpsd = GPSDFeedServer(
            configuration: .init(host: host, port: gpsdPort, release: release), hub: hub, now: { Date() },
            onListening: { host, port in
                let shown = NearbyServer.Configuration.isLoopback(host) ? host : "127.0.0.1"
                Terminal.out("locsim serve: gpsd protocol on \(shown):\(port) (gpspipe -w \(shown):\(port))")
                for player in players {
                    Terminal.out("  \(player.devicePath): \(player.summary) at \(player.speedFactor)×, seed \(player.seed)")
                }
            })
        return services + [gpsd]
    }

    /// The Android console and iOS Simulator bridges: each retries for as long as the server runs
    /// (back-off up to 30 s), saying on standard error when it connects and when it fails.
    static func bridgeServices(_ bridges: FeedOptions.Bridges, hub: PlayerHub, tokenFile: String?) throws -> [any Service] {
        let backoff = try Backoff(initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(30))
        let tokenFile =
            tokenFile ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.emulator_console_auth_token")
        var sinks: [(player: String, sink: any FixSink, interval: Duration)] = []
        for (player, port) in bridges.android {
            sinks.append((player, EmulatorConsole(configuration: try .init(port: port, tokenFile: tokenFile)), .milliseconds(200)))
        }
        for (player, device) in bridges.simulators {
            sinks.append((player, SimulatorLocation(configuration: try .init(device: device)), .seconds(1)))
        }
        return try sinks.map { player, sink, interval in
            let forwarder = try FixForwarder(
                sink: sink, minimumInterval: interval, backoff: backoff, clock: ContinuousClock(),
                onEvent: { event in
                    switch event {
                    case .opened(let destination):
                        Terminal.err("locsim serve: player \(player) → \(destination): connected")
                    case .failed(let destination, let error, let retry):
                        let next = retry.map { "; trying again in \(DecimalText.fixed($0.fractionalSeconds, decimals: 1)) s" } ?? ""
                        Terminal.err("locsim serve: player \(player) → \(destination): \(error)\(next)")
                    case .sent:
                        break
                    }
                })
            return try PlayerBridge(player: player, hub: hub, forwarder: forwarder)
        }
    }
}
#endif  // Server
