#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore

/// One simulated player: a name, a seed, and the ``/LocationCore/LocationProvider`` that moves it.
///
/// The provider carries its own clock and pacing (a `GPXReplay` or `SyntheticMotion` paced
/// `.timed(speedFactor:)` on a `ContinuousClock` in the command, on a `VirtualClock` in tests), so
/// a player runs in real time scaled by its own factor, and in virtual time under test.
///
/// A player made with ``init(name:seed:speedFactor:summary:loops:path:end:clock:origin:)`` is
/// *controlled*: its path is read unpaced and played on the given clock, so it takes
/// ``PlayerCommand``s (pause, speed, seek, teleport, loop). One made from a self-paced provider
/// with ``init(name:seed:speedFactor:summary:provider:)`` plays as its provider paces it and takes
/// no commands.
package struct FeedPlayer: Sendable {
    /// The player's name: 1–32 of `A–Z a–z 0–9 . _ -`, so the device path is short and needs no escaping.
    package let name: String
    /// The seed of this player's sky (satellite positions); its motion has its own seed in the provider.
    package let seed: UInt64
    /// The real-time speed factor the provider was paced with (shown, not applied again).
    package let speedFactor: Double
    /// What the player is (`tracks/walk.gpx`, `line …`), for people.
    package let summary: String
    /// Plays the player: each fix goes to `publish` with its offset into the path (nil for a
    /// self-paced provider, which has no path of its own).
    let drain: @Sendable (_ publish: @Sendable (Fix, _ offset: Double?) -> Void, _ onEnd: @Sendable () -> Void) async throws -> Void
    /// The controls of a controlled player.
    let transport: PlayerTransport?

    /// Whether the player takes ``PlayerCommand``s: true for a path played on a clock, false for
    /// a self-paced provider (a receiver relayed live plays as it reports).
    package var isControllable: Bool { transport != nil }

    /// The length of a controlled player's path in seconds, once known (a file's is at once).
    package var pathDuration: Double? { transport?.status.duration }

    /// The device path gpsd clients see: `/dev/locsim/NAME`.
    package var devicePath: String { Self.devicePrefix + name }

    /// The prefix of every player's device path.
    package static let devicePrefix = "/dev/locsim/"

    /// Creates a player.
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` for a name that is empty, longer than 32
    ///   characters or holds anything but letters, digits, `.`, `_` and `-`.
    package init<Provider: LocationProvider>(
        name: String, seed: UInt64, speedFactor: Double = 1, summary: String = "", provider: Provider
    ) throws(ConfigurationError) {
        try Self.validate(name: name)
        self.name = name
        self.seed = seed
        self.speedFactor = speedFactor
        self.summary = summary
        self.transport = nil
        self.drain = { publish, _ in
            for try await fix in provider { publish(fix, nil) }
        }
    }

    /// Creates a controlled player: `path` is read as fast as asked for (a provider paced
    /// `.virtual`), and its fixes go out in real time on `clock`, `speedFactor` times faster,
    /// each stamped as a receiver would stamp it: with the wall-clock time it is sent at, later
    /// than the one before (the path's own times give only the pacing; a fix's place in the path
    /// is its offset, which the control API and its event stream report).
    ///
    /// - Parameters:
    ///   - name: The player's name (see ``name``).
    ///   - seed: The seed of the player's sky.
    ///   - speedFactor: Times real time, 0.1...1000.
    ///   - summary: What the player is, for people.
    ///   - loops: Whether the path starts again at its end.
    ///   - path: The unpaced fixes; their times give the path's timing.
    ///   - end: What is known of the path's end before it is played: its length in seconds (a
    ///     GPX replay knows it), so a seek by fraction works from the start; that it never ends (a
    ///     circle or a random walk with no duration); or nothing, and the player reads an hour of
    ///     the path ahead to learn it (``PathEnd``).
    ///   - clock: Paces the fixes (a `ContinuousClock` in the command, a virtual clock in tests).
    ///   - origin: The wall-clock time `clock` stands for now: a fix sent a time *t* on `clock`
    ///     from now is stamped `origin + t`.
    /// - Throws: ``/LocationCore/ConfigurationError`` for a bad name (`name`) or a speed factor
    ///   outside 0.1...1000 (`speedFactor`).
    package init<Path: LocationProvider, C: Clock>(
        name: String, seed: UInt64, speedFactor: Double = 1, summary: String = "", loops: Bool = false, path: Path,
        end: PathEnd = .unknown, clock: C, origin: Date
    ) throws(ConfigurationError) where C.Duration == Duration {
        try Self.validate(name: name)
        let transport = PlayerTransport(clock: clock, origin: origin, speed: 1, loops: loops, end: end)
        do throws(PlayerCommandError) {
            try transport.apply(.speed(speedFactor))
        } catch {
            throw error.problem
        }
        self.name = name
        self.seed = seed
        self.speedFactor = speedFactor
        self.summary = summary
        self.transport = transport
        self.drain = { publish, onEnd in
            try await transport.run(path, publish: publish, onEnd: onEnd)
        }
    }

    /// Applies `command` to a controlled player before (or while) it plays: a file player's
    /// `--start` is a seek applied before its first fix.
    ///
    /// - Returns: Whether it changed anything (pausing a paused player does not).
    /// - Throws: ``/LocationCore/ConfigurationError`` naming the field, as the control API's, and
    ///   (`action`) for a player that takes no commands.
    @discardableResult
    package func apply(_ command: PlayerCommand) throws(PlayerCommandError) -> Bool {
        guard let transport else {
            throw .conflict("action", "player '\(name)' plays a self-paced provider and takes no commands")
        }
        return try transport.apply(command)
    }

    /// Checks a player name (the rule of ``init(name:seed:speedFactor:summary:provider:)``).
    package static func validate(name: String) throws(ConfigurationError) {
        // Letters and digits of any script (a team names its players たろう or Łukasz), with the
        // marks that some scripts write letters with; nothing a path, a log word or a terminal
        // reads otherwise (no space, slash, percent sign, control or bidirectional control).
        // At most 32 bytes: the gpsd device path (/dev/locsim/NAME) stays well inside libgps's
        // 128-byte field.
        func isMark(_ scalar: Unicode.Scalar) -> Bool {
            [.nonspacingMark, .spacingMark, .enclosingMark].contains(scalar.properties.generalCategory)
        }
        let scalars = name.unicodeScalars
        let allowed = scalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.generalCategory == .decimalNumber || isMark(scalar)
                || scalar == "." || scalar == "_" || scalar == "-"
        }
        guard let first = scalars.first, !isMark(first), name.utf8.count <= 32, allowed else {
            throw ConfigurationError(
                parameter: "name",
                "a player name is 1 to 32 bytes (UTF-8) of letters and digits (any script) and . _ -, got '\(PeopleText.escaped(name))'")
        }
        // Names its routes could not reach: /players/events is every player's stream, and
        // clients (curl, browsers, urllib3) rewrite the path segments . and .. before sending.
        if PlayerControlAPI.reservedNames.contains(name) {
            throw ConfigurationError(parameter: "name", "'\(name)' is kept for GET /players/\(name)")
        }
        guard name != ".", name != ".." else {
            throw ConfigurationError(parameter: "name", "'\(name)' cannot be a player name: clients rewrite it out of /players/\(name)")
        }
    }
}

/// What a controlled player knows of where its path ends before playing it.
package enum PathEnd: Sendable, Hashable {
    /// It ends this many seconds after its first fix (a GPX replay knows it from its points).
    case after(seconds: Double)
    /// It never ends: a circle, a random walk or standing still, with no duration given.
    case never
    /// It may end, or not: the player reads ahead to learn it (a line at a varying walking pace).
    case unknown
}
