import Foundation
import LocationCore
import LocationSimulation
import MapFeature
import Swarm
import Testing

@Suite("VirtualSwarm", .timeLimit(.minutes(1)))
struct VirtualSwarmTests {
    static let tokyo = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)

    static func configuration(
        players: Int = 200, seconds: Int = 1200, seed: UInt64 = 7, mix: String = "walk=0.5,cycle=0.3,drive=0.2",
        failureRate: Double = 0, everyFix: Bool = false, ramp: Int = 60
    ) throws -> VirtualSwarm.Configuration {
        try VirtualSwarm.Configuration(
            players: players, durationSeconds: seconds, seed: seed, mix: SwarmMix(parsing: mix),
            area: SwarmArea(center: tokyo, radius: 2000), rampSeconds: ramp, failureRate: failureRate,
            evaluatesEveryFix: everyFix)
    }

    @Test("the same seed gives the same load, whatever the number of shards")
    func deterministic() async throws {
        let swarm = VirtualSwarm(configuration: try Self.configuration(failureRate: 0.05))
        let one = await swarm.run(shards: 1)
        let again = await swarm.run(shards: 1)
        let three = await swarm.run(shards: 3)
        #expect(one == again)
        #expect(one == three)
        #expect(one.rates(nil).total > 0)
        let other = await VirtualSwarm(configuration: try Self.configuration(seed: 8, failureRate: 0.05)).run()
        #expect(other != one)
    }

    @Test("a cancelled run stops between stretches with the load of the seconds done", arguments: [1, 3])
    func cancelledRunIsAPrefix(shards: Int) async throws {
        // 2,000 players: stretches of 1,000 game seconds; cancelled once the first is done.
        let configuration = try Self.configuration(players: 2000, seconds: 3600, failureRate: 0.05)
        let heard = Locked<[Int]>([])
        let stopped = try await Task {
            try await VirtualSwarm(configuration: configuration).run(shards: shards, answers: nil) { done in
                heard.withLock { $0.append(done) }
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }.value
        #expect(heard.withLock { $0 } == [1000])
        #expect(stopped.durationSeconds == 1000)
        #expect(!stopped.isComplete(configuration))
        // Every number is the one a run asked for those seconds alone gives.
        let whole = await VirtualSwarm(configuration: try Self.configuration(players: 2000, seconds: 1000, failureRate: 0.05)).run()
        #expect(stopped == whole)
        #expect(stopped.failures > 0 && stopped.evaluations > 0)
        let text = stopped.text(configuration: configuration)
        #expect(text.hasPrefix("virtual swarm: 2000 players, stopped after 0:16:40 of the 1:00:00 of game time asked"))
        let json = stopped.json(configuration: configuration)
        #expect(json.contains(#""duration_s":1000,"asked_duration_s":3600"#))
    }

    @Test("skipping fixes where the rule cannot hold changes nothing", arguments: [0.0, 0.1])
    func shortcutIsExact(failureRate: Double) async throws {
        let fast = await VirtualSwarm(configuration: try Self.configuration(failureRate: failureRate)).run()
        let every = await VirtualSwarm(configuration: try Self.configuration(failureRate: failureRate, everyFix: true)).run()
        #expect(fast.perSecond == every.perSecond)
        #expect(fast.fixes == every.fixes)
        #expect(every.evaluations == every.fixes)
        #expect(fast.evaluations < every.evaluations / 3)
        // Every reason the rule can give shows up in this mix.
        for reason in FetchThrottle.Reason.allCases where failureRate > 0 || reason != .retry {
            #expect(fast.rates(reason).total > 0, "no \(reason) fetches")
        }
    }

    @Test("each player fetches exactly when MapSession, fed its fixes, does", arguments: [0, 1, 2, 3, 4, 5, 6, 7])
    func agreesWithMapSession(player: Int) async throws {
        let swarm = VirtualSwarm(configuration: try Self.configuration(players: 8, seconds: 900))
        let load = swarm.run(players: player..<(player + 1))
        var session = MapSession()
        var expected = SwarmLoad(durationSeconds: 900)
        let epoch = Date(timeIntervalSinceReferenceDate: 800_000_000)
        for (second, coordinate) in swarm.track(ofPlayer: player) {
            let time = epoch.addingTimeInterval(Double(second))
            let output = session.receive(Fix(time: time, coordinate: coordinate, source: .synthetic))
            if let request = output.request {
                expected.record(request.reason, at: second)
                _ = session.complete(request, with: .success([]), at: time)
            }
        }
        #expect(load.perSecond == expected.perSecond)
        #expect(expected.rates(nil).total > 0)
    }

    /// A mover going straight at a constant speed: the fetch interval follows from the geometry,
    /// computed here with LocationCore's own great-circle functions.
    @Test("a steady mover's fetch count follows from geometry", arguments: [1.2, 4.7, 13.9])
    func steadyMover(speed: Double) async throws {
        let seconds = 3600
        let mover = try SwarmMix.Mover(name: "steady", profile: .constant(speed), turnSigma: 0)
        let configuration = try VirtualSwarm.Configuration(
            players: 1, durationSeconds: seconds, seed: 3, mix: SwarmMix([(mover, 1)]),
            area: SwarmArea(center: Self.tokyo, radius: 2_000_000), rampSeconds: 0)
        let swarm = VirtualSwarm(configuration: configuration)
        let load = await swarm.run()
        // The first whole second at which the player is more than 100 m from where it fetched,
        // or more than 30 s has passed, whichever comes first.
        let track = swarm.track(ofPlayer: 0)
        let start = track[0].coordinate
        let bearing = start.bearing(to: track[1].coordinate)
        let rule = FetchThrottle.Configuration.game
        var interval = 1
        while true {
            let away = start.destination(distance: speed * Double(interval), bearing: bearing).distance(to: start)
            if away > rule.minimumDistance || Double(interval) > rule.minimumInterval.fractionalSeconds { break }
            interval += 1
        }
        let byDistance = speed * Double(interval) > rule.minimumDistance
        let fetches = (seconds - 1) / interval + 1
        #expect(load.rates(.first).total == 1)
        #expect(load.rates(byDistance ? .moved : .elapsed).total == fetches - 1)
        #expect(load.rates(byDistance ? .elapsed : .moved).total == 0)
        #expect(load.rates(nil).total == fetches)
    }

    @Test("a player's state stays within 200 bytes")
    func compact() {
        #expect(VirtualSwarm.bytesPerPlayer <= 200)
    }

    @Test("configuration values out of range name their parameter")
    func validation() throws {
        let area = try SwarmArea(center: Self.tokyo, radius: 1000)
        func parameter(_ make: () throws -> Void) -> String? {
            do {
                try make()
                return nil
            } catch let error as ConfigurationError {
                return error.parameter
            } catch {
                return "\(error)"
            }
        }
        #expect(parameter { _ = try VirtualSwarm.Configuration(players: 0, durationSeconds: 10, area: area) } == "players")
        #expect(parameter { _ = try VirtualSwarm.Configuration(players: 1, durationSeconds: 0, area: area) } == "duration")
        #expect(parameter { _ = try VirtualSwarm.Configuration(players: 1, durationSeconds: 10, area: area, rampSeconds: 11) } == "ramp")
        #expect(parameter { _ = try VirtualSwarm.Configuration(players: 1, durationSeconds: 100, area: area, failureRate: 2) } == "failureRate")
        #expect(parameter { _ = try SwarmArea(center: Self.tokyo, radius: 0) } == "area.radius")
    }
}
