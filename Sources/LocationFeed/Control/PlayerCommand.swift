package import LocationCore

/// A change to a running player, sent through ``PlayerHub/control(_:_:)`` (the control API's
/// `POST /players/{name}/control`).
package enum PlayerCommand: Sendable, Hashable {
    /// Holds the player where it is; its device stays, silent.
    case pause
    /// Goes on from where it was held.
    case resume
    /// Plays at this many times real time (0.1...1000), from where it is now.
    case speed(Double)
    /// Jumps to this many seconds into its path (path time, not scaled by the speed).
    case seek(offset: Double)
    /// Jumps to this share (0...1) of its path's duration; only for a path with an end.
    case seekFraction(Double)
    /// Moves the player to a point at once; the rest of its path follows from there (each later
    /// fix moved by the same distance and bearing as this jump).
    case teleport(Coordinate)
    /// Whether the path starts again when it ends; turning it on for an ended player restarts it.
    case loop(Bool)

    /// The command's name on the wire (`pause`, `seek`, …).
    package var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        case .speed: "speed"
        case .seek, .seekFraction: "seek"
        case .teleport: "teleport"
        case .loop: "loop"
        }
    }
}

/// Why a ``PlayerCommand`` was refused: a value out of range (the control API's 400), or an
/// action the player's state refuses (its 409): a pause of a player whose path has ended, a
/// seek by fraction on a path with no known end, any command to a self-paced player.
package struct PlayerCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field to blame (`speed`, `offset`, `fraction`, `action`) and what is wrong.
    package var problem: ConfigurationError
    /// Whether the player's state, not the value, refuses it.
    package var isConflict: Bool

    package static func invalid(_ parameter: String, _ message: String) -> PlayerCommandError {
        PlayerCommandError(problem: ConfigurationError(parameter: parameter, message), isConflict: false)
    }

    package static func conflict(_ parameter: String, _ message: String) -> PlayerCommandError {
        PlayerCommandError(problem: ConfigurationError(parameter: parameter, message), isConflict: true)
    }

    package var description: String { problem.description }
}

/// Where a player is and what it is doing, as `GET /players/{name}` shows it.
package struct PlayerStatus: Sendable, Hashable {
    /// What the player is doing.
    package enum State: String, Sendable, Hashable {
        /// A player without controls (a relayed receiver) that has not yet sent a fix with a
        /// position: its gpsd is not up, or its receiver has no fix yet.
        case waiting
        /// Sending fixes as they fall due.
        case playing
        /// Held by ``PlayerCommand/pause``.
        case paused
        /// At the end of its path (a `seek` or `loop` starts it again).
        case ended
        /// Its provider failed; it sends nothing more.
        case failed
    }

    package var state: State
    /// The real-time speed factor.
    package var speedFactor: Double
    /// Whether the path starts again at its end.
    package var loops: Bool
    /// Seconds into the path (path time).
    package var offset: Double
    /// The path's length in path seconds, when known (a path with an end, read to its end).
    package var duration: Double?
    /// Whether ``PlayerCommand``s apply (players built on a self-paced provider take none).
    package var isControllable: Bool
    /// Whether a seek or teleport has been applied and the fix at its new position is not sent
    /// yet (the player's newest fix is then from before it).
    package var isJumping = false

    /// `offset / duration` (0...1), when the duration is known.
    package var fraction: Double? {
        guard let duration else { return nil }
        return duration > 0 ? min(1, max(0, offset / duration)) : 1
    }
}
