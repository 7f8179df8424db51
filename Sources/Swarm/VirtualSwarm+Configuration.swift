package import LocationCore
package import MapFeature

extension VirtualSwarm {
    /// What to simulate. Every value is checked when made.
    package struct Configuration: Sendable {
        /// The largest swarm: ten million players (about a gigabyte of state).
        package static let maximumPlayers = 10_000_000
        /// The longest run: seven days of game time.
        package static let maximumDurationSeconds = 7 * 86_400

        /// How many players.
        package let players: Int
        /// Game time simulated, in whole seconds; every player's fixes come at 1 Hz on whole seconds.
        package let durationSeconds: Int
        /// The seed of everything random (each player's kind, start, start time, motion and failures).
        package let seed: UInt64
        /// The kinds of movers.
        package let mix: SwarmMix
        /// Where they move.
        package let area: SwarmArea
        /// Places players start at (each at a random one), or empty to start anywhere in ``area``.
        package let starts: [Coordinate]
        /// Players open the app at a uniformly random whole second in `0 ..< rampSeconds` (0: all at once).
        package let rampSeconds: Int

        /// How the players open the app, as a swarm's summary says it.
        package var rampText: String {
            rampSeconds == 0 ? "all opening the app at once" : "opening the app over the first \(rampSeconds) s"
        }
        /// The game's fetch rule.
        package let throttle: FetchThrottle.Configuration
        /// The fraction of fetches that fail (seeded per player), so the back-off and
        /// ``/MapFeature/FetchThrottle/Reason/retry`` show in the load; 0 by default (the index always answers).
        package let failureRate: Double
        /// Evaluate the rule at every fix rather than only at the fixes where it can hold: the
        /// same numbers, much slower (for checking the shortcut).
        package let evaluatesEveryFix: Bool

        /// Creates a configuration.
        ///
        /// - Throws: ``/LocationCore/ConfigurationError`` naming the parameter that is out of range.
        package init(
            players: Int, durationSeconds: Int, seed: UInt64 = 1, mix: SwarmMix = .walk, area: SwarmArea,
            starts: [Coordinate] = [], rampSeconds: Int = 60, throttle: FetchThrottle.Configuration = .game,
            failureRate: Double = 0, evaluatesEveryFix: Bool = false
        ) throws(ConfigurationError) {
            guard (1...Self.maximumPlayers).contains(players) else {
                throw ConfigurationError(parameter: "players", "must be between 1 and \(Self.maximumPlayers), got \(players)")
            }
            guard (1...Self.maximumDurationSeconds).contains(durationSeconds) else {
                throw ConfigurationError(
                    parameter: "duration", "must be between 1 and \(Self.maximumDurationSeconds) seconds, got \(durationSeconds)")
            }
            guard (0...durationSeconds).contains(rampSeconds) else {
                throw ConfigurationError(parameter: "ramp", "must be between 0 and the duration (\(durationSeconds) s), got \(rampSeconds)")
            }
            guard failureRate.isFinite, (0...1).contains(failureRate) else {
                throw ConfigurationError(parameter: "failureRate", "must be between 0 and 1, got \(failureRate)")
            }
            self.players = players
            self.durationSeconds = durationSeconds
            self.seed = seed
            self.mix = mix
            self.area = area
            self.starts = starts
            self.rampSeconds = rampSeconds
            self.throttle = throttle
            self.failureRate = failureRate
            self.evaluatesEveryFix = evaluatesEveryFix
        }
    }
}
