import Foundation
import LocationCore
import LocationSimulation
import LocationTestSupport
import MapFeature
import Swarm
import Testing

/// The real-time swarm's scheduling, driven in game time by plain numbers (no clock, no network)
/// and by the runner on a virtual clock. The reference is the virtual mode and MapSession itself.
@Suite("LiveSwarm", .timeLimit(.minutes(1)))
struct LiveSwarmTests {
    static func motion(players: Int = 120, seconds: Int = 600, seed: UInt64 = 7, ramp: Int = 60) throws -> VirtualSwarm.Configuration {
        try VirtualSwarm.Configuration(
            players: players, durationSeconds: seconds, seed: seed, mix: SwarmMix(parsing: "walk=0.5,cycle=0.3,drive=0.2"),
            area: SwarmArea(center: Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671), radius: 2000), rampSeconds: ramp)
    }

    /// Runs `swarm` to its end with every request answered `latency` game-microseconds after it
    /// was sent (0: at once), in time order. Returns every send.
    static func drive(
        _ swarm: inout LiveSwarm, latency: Int64 = 0, step: Int64 = 100_000,
        answer: (LiveSwarm.Send) -> Result<Int, AppError> = { _ in .success(3) }
    ) -> [LiveSwarm.Send] {
        var all: [LiveSwarm.Send] = []
        var pending: [(due: Int64, send: LiveSwarm.Send)] = []
        var now: Int64 = 0
        func settle(upTo time: Int64) {
            while let next = pending.indices.min(by: { pending[$0].due < pending[$1].due }), pending[next].due <= time {
                let (due, send) = pending.remove(at: next)
                if let followUp = swarm.complete(send, with: answer(send), at: due) {
                    all.append(followUp)
                    pending.append((due + latency, followUp))
                }
            }
        }
        while now <= swarm.endMicros + latency {
            settle(upTo: now)
            if now - step < swarm.endMicros {
                for send in swarm.advance(to: min(now, swarm.endMicros - 1)) {
                    all.append(send)
                    pending.append((send.micros + latency, send))
                    settle(upTo: send.micros)
                }
            }
            now += step
        }
        settle(upTo: .max)
        return all
    }

    @Test("answered at once, the swarm sends exactly the virtual mode's load, second by second and by reason")
    func matchesVirtualMode() async throws {
        let motion = try Self.motion()
        var swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion))
        let sends = Self.drive(&swarm)
        var load = SwarmLoad(durationSeconds: motion.durationSeconds, movers: motion.mix.shares.count)
        for send in sends { load.record(try #require(send.reason), at: Int(send.micros / 1_000_000)) }
        let virtual = await VirtualSwarm(configuration: motion).run()
        #expect(load.perSecond == virtual.perSecond)
        #expect(sends.count > motion.players * 5)
        #expect(swarm.activePlayers == motion.players)
        #expect(swarm.inFlight == 0)
        #expect(swarm.playersByKind == virtual.playersByKind)
    }

    @Test("each player's requests are those of a MapSession fed its fixes: same seconds, same reasons", arguments: [0, 5, 17])
    func matchesMapSession(player: Int) throws {
        let motion = try Self.motion(players: 20)
        var swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion))
        let mine = Self.drive(&swarm).filter { $0.player == player }.map { ($0.micros / 1_000_000, $0.reason) }
        var session = MapSession()
        var expected: [(Int64, FetchThrottle.Reason?)] = []
        for (second, coordinate) in VirtualSwarm(configuration: motion).track(ofPlayer: player) {
            let fix = Fix(time: Date(timeIntervalSinceReferenceDate: Double(second)), coordinate: coordinate, source: .synthetic)
            if let request = session.receive(fix).request {
                expected.append((Int64(second), request.reason))
                _ = session.complete(request, with: .success([]), at: fix.time)
            }
        }
        #expect(mine.count == expected.count)
        #expect(mine.elementsEqual(expected) { $0.0 == $1.0 && $0.1 == $1.1 })
        #expect(swarm.startSecond(of: player) == Int(mine.first?.0 ?? -1))
    }

    @Test("slow answers: never two requests of a player in flight, and the follow-up leaves when the answer arrives")
    func singleFlight() throws {
        var swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: try Self.motion(players: 60, seconds: 300)))
        let latency: Int64 = 40_000_000  // 40 s of game time: longer than the rule's interval
        let sends = Self.drive(&swarm, latency: latency)
        for player in 0..<60 {
            let times = sends.filter { $0.player == player }.map(\.micros)
            for (earlier, later) in zip(times, times.dropFirst()) {
                #expect(later - earlier >= latency, "player \(player) sent at \(earlier) and \(later)")
            }
            // Follow-ups go out exactly when the previous answer arrives.
            #expect(zip(times, times.dropFirst()).contains { $1 - $0 == latency })
        }
    }

    @Test("failed answers: the next request is a retry, no earlier than the game's shortest back-off")
    func backOff() throws {
        var swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: try Self.motion(players: 40, seconds: 300)))
        let sends = Self.drive(&swarm) { _ in .failure(.networkUnavailable("down")) }
        let retry = FetchThrottle.Configuration.standardRetry
        for player in 0..<40 {
            let mine = sends.filter { $0.player == player }
            #expect(mine.first?.reason == .first)
            #expect(mine.dropFirst().allSatisfy { $0.reason == .retry })
            for (failures, (earlier, later)) in zip(mine, mine.dropFirst()).enumerated() {
                let shortest = Double(retry.delayMicroseconds(afterFailures: failures + 1, randomUnit: 1))
                #expect(Double(later.micros - earlier.micros) >= shortest - 1)
            }
        }
    }

    @Test("--misbehave: the chosen players send at every fix they can, the others keep the rule; player k is the same whatever N")
    func misbehaviour() throws {
        let configuration = try LiveSwarm.Configuration(motion: try Self.motion(players: 200, seconds: 120), misbehaviour: 0.05)
        var swarm = LiveSwarm(configuration: configuration)
        let bad = swarm.misbehavingPlayers
        #expect(!bad.isEmpty && bad.count < 30)
        let sends = Self.drive(&swarm)
        for player in bad {
            let mine = sends.filter { $0.player == player }
            #expect(mine.allSatisfy { $0.reason == nil })
            #expect(mine.count == 120 - swarm.startSecond(of: player))
        }
        #expect(sends.filter { $0.reason == nil }.allSatisfy { bad.contains($0.player) })
        let bigger = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: try Self.motion(players: 400, seconds: 120), misbehaviour: 0.05))
        #expect(Array(bigger.misbehavingPlayers.prefix { $0 < 200 }) == bad)
    }

    /// Answers every request at once, in-process, and counts them.
    final class InstantTransport: SwarmTransport {
        let sent = Locked(0)
        func send(_ send: LiveSwarm.Send, playerID: String, completion: @escaping @Sendable (SwarmAnswer) -> Void) {
            sent.withLock { $0 += 1 }
            completion(SwarmAnswer(send: send, status: 200, outcome: .success(playerID.count), latencyNanos: 1_500_000))
        }
    }

    @Test("the runner on a virtual clock: the virtual mode's load, and one record per wall second")
    func runnerInVirtualTime() async throws {
        let motion = try Self.motion(players: 50, seconds: 240)
        let swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion))
        let clock = VirtualClock(autoAdvance: true)
        let transport = InstantTransport()
        let runner = try LiveSwarmRunner(clock: clock, speed: 4)
        let closed = Locked<[Int]>([])
        let stats = await runner.run(swarm, transport: transport) { second, _ in closed.withLock { $0.append(second.second) } }
        let virtual = await VirtualSwarm(configuration: motion).run()
        for reason in FetchThrottle.Reason.allCases {
            #expect(stats.requests[LiveSwarmStats.kinds.firstIndex(of: reason.rawValue)!] == virtual.rates(reason).total, "\(reason)")
        }
        #expect(transport.sent.withLock { $0 } == stats.totalRequests)
        #expect(stats.answered == stats.totalRequests && stats.failed == 0 && stats.unanswered == 0)
        #expect(stats.statusCodes == [200: stats.totalRequests])
        #expect(stats.latency.percentile(0.5) == 1_500)
        // 240 s of game time at speed 4: 60 wall seconds, each closed once, in order.
        #expect(closed.withLock { $0 } == Array(0...60))
        #expect(stats.seconds.map(\.total).reduce(0, +) == stats.totalRequests)
        #expect(stats.wallMicros == 60_000_000)
    }

    @Test("the runner says how late requests went out: a few ms of game time at speed 4, about a second of game time at speed 1000 (its 1 ms wake-ups)")
    func lateness() async throws {
        let motion = try Self.motion(players: 50, seconds: 240)
        func run(speed: Double) async throws -> LiveSwarmStats {
            let runner = try LiveSwarmRunner(clock: VirtualClock(autoAdvance: true), speed: speed)
            return await runner.run(LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion)), transport: InstantTransport())
        }
        let slow = try await run(speed: 4)
        #expect(slow.lateness.count > 0)
        // The loop sleeps at least 1 ms: at speed 4, fixes due within 4 ms of game time go together.
        #expect(slow.lateness.maximum <= 4, "\(slow.lateness.maximum) ms")
        // 50 players' fixes fall due every 20 ms of game time, but the loop sleeps at least 1 ms,
        // which at speed 1000 is 1,000 ms of game time: the fixes just after a wake-up wait it out.
        let fast = try await run(speed: 1_000)
        #expect((900...1_000).contains(fast.lateness.maximum), "\(fast.lateness.maximum) ms")
        #expect(fast.lateness.percentile(0.5) > 100)
    }

    @Test("a share of players on a scenario's phone: none of them sends while its app is in the background; the others send as without a scenario")
    func scenarioShare() throws {
        let motion = try Self.motion(players: 60)
        let scenario = try Scenario.parse(
            Array(#"{"app": [{"at": "120s", "state": "background"}, {"at": "300s", "state": "foreground"}], "device": {"platform": "ios", "distanceFilter": 20}}"#.utf8),
            source: "test.json", directory: "")
        var plain = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion))
        var mixed = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion, scenario: scenario, scenarioShare: 0.5))
        let without = Self.drive(&plain)
        let with = Self.drive(&mixed)
        let onPhone = Set(mixed.scenarioPlayers)
        #expect((15...45).contains(onPhone.count), "\(onPhone.count) of 60 on the phone")
        #expect(mixed.withheldFixes > 0)
        for player in 0..<motion.players {
            let sent = with.filter { $0.player == player }.map(\.micros)
            guard onPhone.contains(player) else {
                #expect(sent == without.filter { $0.player == player }.map(\.micros), "player \(player), not on the phone")
                continue
            }
            // Its first fix is in its opening second; the background runs from 120 s to 300 s after it.
            let first = Int64(mixed.startSecond(of: player)) * 1_000_000
            let background = sent.filter { $0 > first + 121_000_000 && $0 < first + 300_000_000 }
            #expect(background.isEmpty, "player \(player) sent in the background: \(background)")
            #expect(sent.contains { $0 >= first + 300_000_000 && $0 < first + 302_000_000 }, "player \(player) fetches on returning")
        }
        #expect(throws: ConfigurationError.self) { try LiveSwarm.Configuration(motion: motion, scenarioShare: 0.5) }
        #expect(throws: ConfigurationError.self) { try LiveSwarm.Configuration(motion: motion, scenario: scenario, scenarioShare: 1.5) }
    }
}

@Suite("SwarmTrack", .timeLimit(.minutes(1)))
struct SwarmTrackTests {
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    @Test("1 Hz resampling lands on the points at their times and on the great circle between them")
    func resampling() throws {
        let a = Coordinate(uncheckedLatitude: 35.68, longitude: 139.76), b = Coordinate(uncheckedLatitude: 35.69, longitude: 139.77)
        let c = Coordinate(uncheckedLatitude: 35.70, longitude: 139.77)
        let track = try SwarmTrack(name: "t", points: [(Self.start, a), (Self.start + 10, b), (Self.start + 14.5, c)])
        #expect(track.positions.count == 15)
        #expect(track.positions[0] == a && track.positions[10] == b)
        #expect(track.positions[4] == a.intermediate(to: b, fraction: 0.4))
        #expect(track.positions[12] == b.intermediate(to: c, fraction: 2 / 4.5))
        #expect(throws: ConfigurationError.self) { try SwarmTrack(name: "one point", points: [(Self.start, a)]) }
        #expect(throws: ConfigurationError.self) { try SwarmTrack(name: "backwards", points: [(Self.start, a), (Self.start - 5, b)]) }
    }

    @Test("players on tracks: every request is made from a position of a track, and keeps the rule")
    func playersFollowTracks() throws {
        var positions: [(Date, Coordinate)] = []
        var here = Coordinate(uncheckedLatitude: 35.68, longitude: 139.76)
        for second in 0..<200 {
            positions.append((Self.start + Double(second), here))
            here = here.destination(distance: 4, bearing: 45)
        }
        let track = try SwarmTrack(name: "walk", points: positions)
        let motion = try LiveSwarmTests.motion(players: 30, seconds: 400)
        var swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion, tracks: [track]))
        let paths = (0..<30).map { swarm.path(ofPlayer: $0) }
        let sends = LiveSwarmTests.drive(&swarm)
        let onTrack = Set(track.positions.map { "\($0)" })
        #expect(sends.allSatisfy { onTrack.contains("\($0.request.center)") })
        for player in 0..<30 {
            let mine = sends.filter { $0.player == player }
            #expect(mine.first?.request.center == paths[player].first)
            // 4 m/s: the distance rule (> 100 m) fires every 26 s, before the time rule.
            #expect(mine.dropFirst().allSatisfy { $0.reason == .moved }, "player \(player)")
            // Starting offsets differ between players.
        }
        #expect(Set(paths.map { "\($0[0])" }).count > 20)
    }
}
