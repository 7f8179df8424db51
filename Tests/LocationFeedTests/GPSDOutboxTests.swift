import Foundation
import LocSimTestHelpers
import LocationCore
import LocationFeed
import LocationSimulation
import Testing

/// What a gpsd client that stops reading costs the server and the other clients, on a real
/// `GPSDFeedServer`.
@Suite(.timeLimit(.minutes(1)))
struct GPSDOutboxTests {
    /// Fixes the player sends: 6,000 seconds of walking, played 1,000 times faster than real
    /// time. About 6 MB of reports: more than loopback TCP buffers for a client (up to 4 MB on
    /// the sending side, `net.ipv4.tcp_wmem`) and NIO's 64 KB together.
    static let fixes = 6000
    static let speed = 1000.0

    @Test("A client that stops reading loses its oldest reports, each one counted, and holds up no other client")
    func stalledClient() async throws {
        let player = try FeedPlayer(
            name: "alice", seed: 11, provider: try Self.walk(pacing: .timed(speedFactor: Self.speed)))
        let hub = try PlayerHub(players: [player], now: { Date() })
        let (listening, listened) = AsyncStream.makeStream(of: Int.self)
        let server = GPSDFeedServer(
            configuration: .init(host: "127.0.0.1", port: 0, release: "locsim-test", clientBuffer: 32), hub: hub,
            now: { Date() },
            onListening: { _, port in
                listened.yield(port)
                listened.finish()
            })
        let serverTask = Task { try await server.run() }
        defer { serverTask.cancel() }
        let port = try await withDeadline(.seconds(30), { "the feed server to listen" }) {
            for await port in listening { return port }
            throw HarnessError("the feed server stopped before it listened")
        }

        // The stalled client: a small receive buffer, and nothing read after the WATCH reply until
        // the player is done. Both clients watch before the first fix.
        let stalled = try RawGPSDClient(port: port, receiveBuffer: 4096, pauseAfterWatch: true)
        defer { stalled.stop() }
        let reader = try RawGPSDClient(port: port)
        defer { reader.stop() }
        try await stalled.waitUntilWatching()
        try await reader.waitUntilWatching()
        let players = Task { await hub.runPlayers() }
        defer { players.cancel() }

        var reference: [Fix] = []
        for try await fix in try Self.walk(pacing: .virtual) {
            reference.append(fix)
        }
        try #require(reference.count == Self.fixes)
        let all = Set(reference.map(\.time))
        let last = try #require(reference.last?.time)
        // The reader is not held up by the stalled client: it reaches the last fix while the
        // other still reads nothing.
        try await reader.wait(for: "the reader's last fix", timeout: .seconds(40)) { $0.lastTPV.last?.time == last }
        stalled.resume()
        try await stalled.wait(for: "the stalled client's last fix", timeout: .seconds(15)) { $0.lastTPV.last?.time == last }
        let opening = stalled.received.prefix(3).map(\.text)
        #expect(
            zip(opening, ["VERSION", "DEVICES", "WATCH"]).allSatisfy { $0.hasPrefix(#"{"class":"\#($1)""#) } && opening.count == 3,
            "\(opening)")
        let stalledTimes = stalled.tpvs.compactMap(\.time)
        let readerTimes = reader.tpvs.compactMap(\.time)
        // What each client got is in order and ends with the newest fix; the stalled client lost
        // some.
        for times in [stalledTimes, readerTimes] {
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
            #expect(Set(times).isSubset(of: all))
        }
        #expect(stalledTimes.count < Self.fixes)
        // Every fix reached every client or was counted as dropped: nothing lost unsaid. (A
        // reader starved of CPU on a loaded machine may lose some too; they are counted alike.)
        let dropped = server.droppedReports
        #expect(dropped > 0, "the stalled client's queue (32 reports beyond its socket's buffers) must have overflowed")
        #expect(
            stalledTimes.count + readerTimes.count + dropped == 2 * Self.fixes,
            "\(stalledTimes.count) + \(readerTimes.count) delivered, \(dropped) dropped")
    }

    @Test("A client buffer under 8 reports is refused before the server listens, naming clientBuffer")
    func bufferTooSmall() async throws {
        let hub = try PlayerHub(players: [], now: { Date() })
        let listened = Locked(false)
        for size in [-1, 0, 7] {
            let server = GPSDFeedServer(
                configuration: .init(host: "127.0.0.1", port: 0, release: "locsim-test", clientBuffer: size), hub: hub,
                now: { Date() }, onListening: { _, _ in listened.withLock { $0 = true } })
            let error = await #expect(throws: ConfigurationError.self) { try await server.run() }
            #expect(error?.parameter == "clientBuffer")
            #expect(error?.message.contains("\(size)") == true)
        }
        #expect(!listened.withLock { $0 })
    }

    /// Round a 300 m circle about Tokyo station, 1 Hz, with noise, for ``fixes`` fixes.
    static func walk(pacing: Pacing) throws -> SyntheticMotion<ContinuousClock> {
        try SyntheticMotion(
            path: .circle(center: try Coordinate(latitude: 35.681236, longitude: 139.767125), radius: 300),
            speed: .walk, seed: 11,
            configuration: .init(
                rate: 1, pacing: pacing, duration: Double(fixes - 1), startTime: VirtualFeed.start, altitude: 40,
                noise: NoiseModel(seed: 11, sigma: 4)),
            clock: ContinuousClock(), now: { VirtualFeed.start })
    }
}
