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
        guard let gpsdPort = options.gpsdPort else { return [] }
        let players = try options.makePlayers()
        let hub = try PlayerHub(players: players, now: { Date() }) { name, error in
            if let error {
                Terminal.err("locsim serve: player \(name) failed: \(error)")
            } else {
                Terminal.err("locsim serve: player \(name) reached the end of its path (its device stays, silent)")
            }
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
        return [hub, gpsd]
    }
}
#endif  // Server
