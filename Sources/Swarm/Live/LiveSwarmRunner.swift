package import LocationCore
import MapFeature

/// Runs a ``LiveSwarm`` against a ``SwarmTransport`` on a clock: game time is the clock's time
/// since the start times ``speed``. One task runs every player (no task per player): it sleeps
/// until the next fix is due, or for ``tick`` while answers are awaited, feeds the answers that
/// arrived and the fixes that fell due, and hands the resulting requests to the transport.
///
/// The clock is injected: with LocationTestSupport's `VirtualClock` (automatic advance) and an
/// in-process transport a run is deterministic and takes no wall time.
package struct LiveSwarmRunner<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    /// The clock.
    package let clock: C
    /// Game seconds per clock second (> 0).
    package let speed: Double
    /// How often answers are looked at while some are awaited.
    package let tick: Duration
    /// The shortest sleep: fixes due within it are sent together.
    package let minimumStep: Duration
    /// How long to wait for answers still in flight after the end, in clock time.
    package let drainTimeout: Duration

    /// - Throws: ``/LocationCore/ConfigurationError`` (parameter `speed`) when `speed` is not a finite number > 0.
    package init(
        clock: C, speed: Double = 1, tick: Duration = .milliseconds(5), minimumStep: Duration = .milliseconds(1),
        drainTimeout: Duration = .seconds(15)
    ) throws(ConfigurationError) {
        guard speed.isFinite, speed > 0 else {
            throw ConfigurationError(parameter: "speed", "must be a finite number > 0, got \(speed)")
        }
        self.clock = clock
        self.speed = speed
        self.tick = max(.microseconds(1), tick)
        self.minimumStep = max(.zero, min(minimumStep, self.tick))
        self.drainTimeout = max(.zero, drainTimeout)
    }

    /// Runs the swarm to its end (or until the task is cancelled: the statistics so far, marked
    /// ``LiveSwarmStats/interrupted``).
    ///
    /// - Parameters:
    ///   - swarm: The players.
    ///   - transport: Where their requests go.
    ///   - second: Called with each wall-clock second as it closes (progress lines).
    package func run(
        _ swarm: LiveSwarm, transport: some SwarmTransport, second: (LiveSwarmStats.Second, LiveSwarmStats) -> Void = { _, _ in }
    ) async -> LiveSwarmStats {
        var swarm = swarm
        var stats = LiveSwarmStats()
        let inbox = Inbox()
        let start = clock.now
        var endedAt: C.Instant?
        func dispatch(_ send: LiveSwarm.Send, late: Int64? = nil) {
            stats.recordSend(send, late: late)
            transport.send(send, playerID: LiveSwarm.playerID(send.player)) { answer in inbox.append(answer) }
        }
        while true {
            let now = clock.now
            let wallMicros = start.duration(to: now).wholeMicroseconds
            let game = Int64((Double(wallMicros) * speed).rounded(.down))
            let snapshot = stats
            stats.roll(to: Int(wallMicros / 1_000_000), activePlayers: swarm.activePlayers) { second($0, snapshot) }
            // Fixes first: an answer is known to have arrived by now, not when, so the fixes due
            // until now come before it (a fix is never fed after an answer stamped later than it).
            if game < swarm.endMicros {
                for send in swarm.advance(to: game) { dispatch(send, late: game - send.micros) }
            }
            for answer in inbox.take() {
                stats.recordAnswer(answer)
                let result = answer.outcome.mapError(\.appError)
                if let followUp = swarm.complete(answer.send, with: result, at: min(game, swarm.endMicros)) { dispatch(followUp) }
            }
            if game >= swarm.endMicros {
                if endedAt == nil { endedAt = now }
                if swarm.inFlight == 0 { break }
                if let endedAt, endedAt.duration(to: now) >= drainTimeout { break }
            }
            var wake = now.advanced(by: tick)
            if game < swarm.endMicros {
                let nextGame = swarm.nextFixMicros ?? swarm.endMicros
                let nextFix = start.advanced(by: .microseconds(Int64((Double(nextGame) / speed).rounded(.up))))
                wake = swarm.inFlight > 0 ? min(wake, nextFix) : nextFix
                wake = max(wake, now.advanced(by: minimumStep))
            }
            do {
                try await clock.sleep(until: wake, tolerance: nil)
            } catch {
                stats.interrupted = true
                break
            }
        }
        let wallMicros = start.duration(to: clock.now).wholeMicroseconds
        let snapshot = stats
        stats.close(activePlayers: swarm.activePlayers) { second($0, snapshot) }
        stats.players = swarm.configuration.motion.players
        stats.fixes = swarm.fixes
        stats.misbehavingPlayers = swarm.misbehavingPlayers
        stats.scenarioPlayers = swarm.scenarioPlayers.count
        stats.withheldFixes = swarm.withheldFixes
        stats.wallMicros = wallMicros
        stats.gameMicros = min(swarm.endMicros, Int64((Double(wallMicros) * speed).rounded(.down)))
        stats.unanswered = swarm.inFlight
        return stats
    }
}

/// Answers handed over from the transport's threads.
private final class Inbox: Sendable {
    private let answers = Locked<[SwarmAnswer]>([])

    func append(_ answer: SwarmAnswer) {
        answers.withLock { $0.append(answer) }
    }

    func take() -> [SwarmAnswer] {
        answers.withLock { answers in
            let taken = answers
            answers = []
            return taken
        }
    }
}
