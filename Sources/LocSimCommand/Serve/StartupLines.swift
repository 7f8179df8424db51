#if Server
import LocationCore

/// The start-up lines of the servers `serve` runs (HTTP, gpsd protocol), said together once every
/// one of them listens, followed by the players: a start that fails on its second port never
/// says "listening on" for its first, so a script waiting for that line is not misled.
final class StartupLines: Sendable {
    private let count: Int
    private let state = Locked<(parts: [Int: [String]], trailer: [String], said: Bool)>(([:], [], false))

    /// - Parameter count: How many listeners report (parts 0 to `count - 1`).
    init(parts count: Int) {
        self.count = count
    }

    /// Whether the listening lines have been said: a stop before then (a port in use, a port
    /// this user may not bind) has no drain to announce.
    var said: Bool { state.withLock { $0.said } }

    /// Lines said after every part's (the players).
    func setTrailer(_ lines: [String]) {
        state.withLock { $0.trailer = lines }
    }

    /// Adds part `part`'s lines. Returns every part's lines in part order and the trailer once
    /// the last part is in (once), else nil.
    func add(part: Int, _ lines: [String]) -> [String]? {
        state.withLock { state in
            state.parts[part] = lines
            guard state.parts.count == count, !state.said else { return nil }
            state.said = true
            return (0..<count).flatMap { state.parts[$0] ?? [] } + state.trailer
        }
    }
}
#endif
