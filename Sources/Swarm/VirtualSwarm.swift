package import LocationCore
import LocationSimulation
package import LocationIndex
import MapFeature

/// Capacity planning in virtual time: many players, each moving at 1 Hz and running the game's
/// fetch rule, with nothing sent anywhere. The result is the load the backend would see.
///
/// Each player is a compact `VirtualPlayer` (about 100 bytes) rather than a provider and a
/// ``/MapFeature/MapSession``; a shared loop visits players in buckets of whole seconds. The decision
/// at a fix is MapFeature's own `FetchThrottle.rule(configuration:timeMicros:retryNotBeforeMicros:lastFetchMicros:distance:)` (package access),
/// the function `FetchThrottle` itself decides with.
///
/// A player's fixes come every second, but the rule can only hold at some of them: the time rule
/// at the first whole second more than ``/MapFeature/FetchThrottle/Configuration/minimumInterval``
/// after the last fetch, and the distance rule only once the path travelled since the last fetch
/// (an upper bound of the great-circle distance from it) can exceed
/// ``/MapFeature/FetchThrottle/Configuration/minimumDistance``. The loop evaluates the rule at
/// those fixes and skips the others, which provably do not fetch; with
/// ``Configuration/evaluatesEveryFix`` it evaluates every one, and the numbers are the same.
///
/// Answers come at once (the index answers in-process); with ``Configuration/failureRate`` a
/// seeded share of them fail, so back-off and retries appear. The same configuration gives the
/// same ``SwarmLoad``, whatever the number of threads.
package struct VirtualSwarm: Sendable {
    /// What to simulate.
    package let configuration: Configuration

    /// Creates a swarm.
    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Runs the swarm in `shards` parts at once (players split evenly; the result does not depend
    /// on it).
    package func run(shards: Int = 1) async -> SwarmLoad {
        do {
            return try await run(shards: shards, answers: nil)
        } catch {
            preconditionFailure("no index, no index error: \(error)")
        }
    }

    /// Runs the swarm, and asks `answers.index` for the places of every fetch of the first
    /// `answers.players` players, so ``SwarmLoad/answerSizes`` shows how big the answers are.
    ///
    /// The shards run a stretch of game time at a time, all the same stretch, and `progress` hears
    /// the seconds done after each (a stretch is a few tenths of a second of work whatever the
    /// number of players). When the task is cancelled, the run stops at the end of the stretch
    /// under way and returns the load of the seconds done: its ``SwarmLoad/durationSeconds`` is
    /// then less than the configuration's, and every number in it is what the whole run has for
    /// those seconds (the players' fixes, requests and failures up to there).
    ///
    /// - Throws: ``/Places/IndexError`` when a query fails.
    package func run(
        shards: Int = 1, answers: AnswerSample?, progress: @Sendable (_ secondsDone: Int) -> Void = { _ in }
    ) async throws(IndexError) -> SwarmLoad {
        let count = max(1, min(shards, configuration.players))
        let configuration = self.configuration
        // The players are made in their shards' own tasks, side by side (10 million of them take
        // seconds), as the loop then runs them.
        let parts = await withTaskGroup(of: Locked<Shard>.self) { group in
            for shard in 0..<count {
                let lower = configuration.players * shard / count
                let upper = configuration.players * (shard + 1) / count
                group.addTask { Locked(Shard(players: lower..<upper, configuration: configuration, answers: answers)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let duration = Int32(configuration.durationSeconds)
        let stretch = Self.stretchSeconds(players: configuration.players)
        var done: Int32 = 0
        while done < duration, !Task.isCancelled {
            let end = done + min(stretch, duration - done)
            let failure = await withTaskGroup(of: IndexError?.self) { group -> IndexError? in
                for part in parts {
                    group.addTask {
                        do throws(IndexError) {
                            try part.withLock { shard throws(IndexError) in try shard.run(until: end) }
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                for await case let error? in group { return error }
                return nil
            }
            if let failure { throw failure }
            done = end
            progress(Int(done))
        }
        var total = SwarmLoad(durationSeconds: Int(done), movers: configuration.mix.shares.count)
        for part in parts { total.add(part.withLock { $0.load(seconds: done) }) }
        return total
    }

    /// Game seconds the shards run between two looks at cancellation: about two million player
    /// seconds (some tenths of a second of work), at least one second, at most an hour.
    private static func stretchSeconds(players: Int) -> Int32 {
        Int32(max(1, min(3_600, 2_000_000 / max(1, players))))
    }

    /// Which fetches are answered by a real index query.
    package struct AnswerSample: Sendable {
        /// The index that answers.
        package let index: NearbyIndex
        /// Players 0 ..< `players` have every fetch answered.
        package let players: Int
        /// Creates a sample.
        package init(index: NearbyIndex, players: Int) {
            self.index = index
            self.players = max(0, players)
        }
    }

    /// Runs the players in `range` on the calling thread.
    package func run(players range: Range<Int>) -> SwarmLoad {
        var shard = Shard(players: range, configuration: configuration, answers: nil)
        do {
            try shard.run(until: Int32(configuration.durationSeconds))
        } catch {
            preconditionFailure("no index, no index error: \(error)")
        }
        return shard.load(seconds: Int32(configuration.durationSeconds))
    }

    /// The bytes one player's state takes in the loop (the due lists are threaded through it).
    package static var bytesPerPlayer: Int { MemoryLayout<VirtualPlayer>.stride }

    /// Some of the players and where the loop is with them: runs on from the first second not
    /// yet run to any later one, so a run can be stopped between stretches with every number
    /// exact for the seconds done.
    private struct Shard {
        private let range: Range<Int>
        private let configuration: Configuration
        private let answers: AnswerSample?
        private let parameters: [MoverParameters]
        private var load: SwarmLoad
        private var players: [VirtualPlayer] = []
        /// Players due in each second, as singly linked lists threaded through the players
        /// (``VirtualPlayer/nextDue``): no allocation while the loop runs.
        private var buckets: [UInt32]
        /// The first second not yet run.
        private var second: Int32 = 0

        init(players range: Range<Int>, configuration: Configuration, answers: AnswerSample?) {
            self.range = range
            self.configuration = configuration
            self.answers = answers
            parameters = configuration.mix.shares.map { MoverParameters($0.mover) }
            load = SwarmLoad(durationSeconds: configuration.durationSeconds, movers: parameters.count)
            if let answers { load.sampledPlayers = max(0, min(range.upperBound, answers.players) - range.lowerBound) }
            players.reserveCapacity(range.count)
            buckets = [UInt32](repeating: VirtualPlayer.none, count: configuration.durationSeconds)
            for index in range {
                var player = VirtualPlayer(index: index, configuration: configuration, parameters: parameters)
                player.nextDue = buckets[Int(player.startSecond)]
                buckets[Int(player.startSecond)] = UInt32(players.count)
                load.playersByKind[Int(player.kind)] += 1
                players.append(player)
            }
        }

        /// The load of seconds `0 ..< seconds` (all run).
        func load(seconds: Int32) -> SwarmLoad {
            precondition(seconds <= second, "seconds not run yet")
            var result = load.prefix(seconds: Int(seconds))
            result.fixes = players.reduce(0) { $0 + Int(max(0, seconds - $1.startSecond)) }
            return result
        }

        /// Runs the seconds from the first not yet run up to `end` (excluded).
        mutating func run(until end: Int32) throws(IndexError) {
            let duration = Int32(configuration.durationSeconds)
            let area = configuration.area
            let throttle = configuration.throttle
            let retry = throttle.retry
            let failureRate = configuration.failureRate
            let everyFix = configuration.evaluatesEveryFix
            // Whole seconds after a fetch at which the time rule first holds; "more than" the interval.
            let intervalMicros = throttle.minimumInterval.wholeMicroseconds
            let elapsedStep = intervalMicros / 1_000_000 + 1
            // A margin far above the rounding of positions and haversine, so a skipped fix is certain
            // not to be more than the minimum distance away.
            let pathTarget = throttle.minimumDistance - 0.001

            while second < min(end, duration) {
                defer { second += 1 }
                var slot = buckets[Int(second)]
                buckets[Int(second)] = VirtualPlayer.none
                let micros = Int64(second) * 1_000_000
                while slot != VirtualPlayer.none {
                    let i = Int(slot)
                    let following = players[i].nextDue
                    let kindParameters = parameters[Int(players[i].kind)]
                    players[i].advance(to: second, parameters: kindParameters, area: area)
                    let here = players[i].position(at: second)
                    let anchor = players[i].anchor
                    load.evaluations += 1
                    let outcome = FetchThrottle.rule(
                        configuration: throttle, timeMicros: micros,
                        retryNotBeforeMicros: players[i].failures > 0 ? players[i].retryNotBeforeMicros : nil,
                        lastFetchMicros: players[i].anchorSecond >= 0 ? Int64(players[i].anchorSecond) * 1_000_000 : nil,
                        distance: { here.distance(to: anchor) })
                    if case .fetch(let reason) = outcome {
                        load.record(reason, at: Int(second))
                        if let answers, range.lowerBound + i < answers.players {
                            load.recordAnswer(places: try answers.index.places(near: here, within: throttle.radius).count)
                        }
                        players[i].anchor = here
                        players[i].anchorSecond = second
                        players[i].pathAtLegStart = -players[i].speed * Double(second - players[i].legStartSecond)
                        if failureRate > 0, players[i].answerRandom.nextUnit() < failureRate {
                            load.failures += 1
                            players[i].failures &+= players[i].failures == .max ? 0 : 1
                            let delay = retry.delayMicroseconds(
                                afterFailures: Int(players[i].failures), randomUnit: players[i].answerRandom.nextUnit())
                            players[i].retryNotBeforeMicros = micros + delay
                        } else {
                            players[i].failures = 0
                        }
                    }
                    let next =
                        everyFix
                        ? Int64(second) + 1
                        : VirtualSwarm.nextCandidate(
                            for: players[i], after: second, elapsedStep: elapsedStep, pathTarget: pathTarget,
                            maximumSpeed: kindParameters.maximumSpeed)
                    if next < Int64(duration) {
                        players[i].nextDue = buckets[Int(next)]
                        buckets[Int(next)] = slot
                    }
                    slot = following
                }
            }
        }
    }

    /// The first whole second after `second` at which the rule can hold for `player`.
    @inline(__always)
    fileprivate static func nextCandidate(
        for player: VirtualPlayer, after second: Int32, elapsedStep: Int64, pathTarget: Double, maximumSpeed: Double
    ) -> Int64 {
        let soonest = Int64(second) + 1
        if player.failures > 0 {
            // Backing off: only the back-off decides; the first whole second at or after it.
            let notBefore = player.retryNotBeforeMicros
            let whole = notBefore / 1_000_000 + (notBefore % 1_000_000 > 0 ? 1 : 0)
            return max(soonest, whole)
        }
        guard player.anchorSecond >= 0 else { return soonest }
        let byTime = Int64(player.anchorSecond) + elapsedStep
        let now = player.path(at: second)
        if now >= pathTarget { return soonest }
        let atLegEnd = player.path(at: player.legEndSecond)
        let byDistance: Int64
        if player.speed > 0, atLegEnd >= pathTarget {
            // Within this leg: floor, so rounding can only make the candidate early, never late.
            let seconds = ((pathTarget - player.pathAtLegStart) / player.speed).rounded(.down)
            byDistance = Int64(player.legStartSecond) + Int64(seconds)
        } else {
            let seconds = ((pathTarget - atLegEnd) / maximumSpeed).rounded(.down)
            byDistance = seconds < 1e15 ? Int64(player.legEndSecond) + Int64(seconds) : .max
        }
        return max(soonest, min(byTime, byDistance))
    }
}

extension VirtualSwarm {
    /// Player `index`'s position at each of its fixes, from the second it opens the app to the
    /// end of the run: the fixes the rule is applied to (for checking the loop against
    /// ``/MapFeature/MapSession``, and for drawing).
    package func track(ofPlayer index: Int) -> [(second: Int, coordinate: Coordinate)] {
        let parameters = configuration.mix.shares.map { MoverParameters($0.mover) }
        var player = VirtualPlayer(index: index, configuration: configuration, parameters: parameters)
        var track: [(second: Int, coordinate: Coordinate)] = []
        for second in player.startSecond..<Int32(configuration.durationSeconds) {
            player.advance(to: second, parameters: parameters[Int(player.kind)], area: configuration.area)
            track.append((Int(second), player.position(at: second)))
        }
        return track
    }
}
