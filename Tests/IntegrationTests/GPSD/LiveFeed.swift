import Foundation
import LocSimTestHelpers
import LocationCore
import LocationFeed
import LocationSimulation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real ``GPSDFeedServer`` on a free loopback port with players on the continuous clock,
/// sped up so a test sees a fix every quarter second. `defer { feed.stop() }` stops it all.
final class LiveFeed: Sendable {
    static let speed = 4.0
    let port: Int
    let hub: PlayerHub
    let server: GPSDFeedServer
    let specs: [(name: String, seed: UInt64)]
    private let tasks: [Task<Void, Never>]

    private init(port: Int, hub: PlayerHub, server: GPSDFeedServer, specs: [(name: String, seed: UInt64)], tasks: [Task<Void, Never>]) {
        self.port = port
        self.hub = hub
        self.server = server
        self.specs = specs
        self.tasks = tasks
    }

    static func start(names: [String] = ["alice"], noise: Double? = 4, speed: Double = LiveFeed.speed) async throws -> LiveFeed {
        let specs = names.enumerated().map { ($0.element, UInt64($0.offset + 11)) }
        let players = try specs.map { spec in
            try FeedPlayer(
                name: spec.0, seed: spec.1,
                provider: try FeedMotion.walk(
                    seed: spec.1, pacing: .timed(speedFactor: speed), noise: noise, clock: ContinuousClock(), duration: 600))
        }
        return try await start(players: players, specs: specs)
    }

    /// A feed of the given players (`specs`: their names and seeds, for ``reference(_:count:)``).
    static func start(players: [FeedPlayer], specs: [(name: String, seed: UInt64)] = []) async throws -> LiveFeed {
        let hub = try PlayerHub(players: players, now: { Date() })
        let (listening, listened) = AsyncStream.makeStream(of: Result<Int, HarnessError>.self)
        let server = GPSDFeedServer(
            configuration: .init(host: "127.0.0.1", port: 0, release: "locsim-test"), hub: hub, now: { Date() },
            onListening: { _, port in listened.yield(.success(port)) })
        let serverTask = Task {
            do { try await server.run() } catch { listened.yield(.failure(HarnessError("the feed server did not start: \(error)"))) }
            listened.finish()
        }
        let port: Int
        do {
            port = try await withDeadline(.seconds(30), { "the feed server to listen" }) {
                for await event in listening { return try event.get() }
                throw HarnessError("the feed server ended before it listened")
            }
        } catch {
            serverTask.cancel()
            throw error
        }
        let playersTask = Task { await hub.runPlayers() }
        return LiveFeed(port: port, hub: hub, server: server, specs: specs, tasks: [serverTask, playersTask])
    }

    func stop() { for task in tasks { task.cancel() } }

    /// The fixes of the player `name` in virtual time: what every client must see, by time.
    func reference(_ name: String, count: Int = 600) async throws -> [Date: Fix] {
        guard let seed = specs.first(where: { $0.name == name })?.seed else { throw HarnessError("no player \(name)") }
        var fixes: [Date: Fix] = [:]
        for try await fix in try FeedMotion.walk(
            seed: seed, pacing: .virtual, noise: 4, clock: ContinuousClock(), duration: 600)
        {
            fixes[fix.time] = fix
            if fixes.count == count { break }
        }
        return fixes
    }
}
