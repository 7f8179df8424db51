/// The async shell shared by the providers: turns "this fix is due `elapsed` seconds after the
/// start" into a sleep on the injected clock against an absolute deadline, and holds fixes while
/// a ``ReplayControl`` is paused.
struct PacedSchedule<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let pacing: Pacing
    let control: ReplayControl?
    let onEvent: (@Sendable (ReplayEvent) -> Void)?
    /// The clock instant the first wait began.
    private var start: C.Instant?
    /// Time spent held by pauses; every later deadline moves by it.
    private var held: Duration = .zero

    init(clock: C, pacing: Pacing, control: ReplayControl?, onEvent: (@Sendable (ReplayEvent) -> Void)?) {
        self.clock = clock
        self.pacing = pacing
        self.control = control
        self.onEvent = onEvent
    }

    /// Waits until a fix `elapsed` seconds (unscaled) after the start is due.
    ///
    /// - Returns: When the fix is delivered, as clock time since the start (scaled, pauses
    ///   included); `.zero`-based unscaled seconds with ``Pacing/virtual``. `nil` when the task
    ///   was cancelled while waiting.
    /// - Throws: Whatever the clock's sleep throws besides `CancellationError`.
    mutating func wait(untilElapsed elapsed: Double) async throws -> Double? {
        let start = self.start ?? clock.now
        self.start = start
        var due = Duration.zero
        if case .timed(let factor) = pacing {
            due = .seconds(elapsed / factor) + held
            do {
                try await clock.sleep(until: start.advanced(by: due), tolerance: nil)
            } catch is CancellationError {
                return nil
            }
        }
        if let control, control.isPaused {
            let holdStart = clock.now
            onEvent?(.paused)
            do {
                try await control.waitWhilePaused()
            } catch is CancellationError {
                return nil
            }
            let heldFor = holdStart.duration(to: clock.now)
            held += heldFor
            due += heldFor
            onEvent?(.resumed(heldFor: heldFor))
        }
        switch pacing {
        case .timed: return due.inSeconds
        case .virtual: return elapsed
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
