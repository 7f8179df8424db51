/// The clock side shared by the providers: turns "this fix is due `elapsed` seconds after the
/// start" into an absolute deadline on the injected clock, and holds fixes while a
/// ``ReplayControl`` is paused.
///
/// The methods are synchronous where they can be, so an iterator's `next()` awaits the clock's
/// `sleep` directly: one async frame per fix, not two.
struct PacedSchedule<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let speedFactor: Double
    let control: ReplayControl?
    let onEvent: (@Sendable (ReplayEvent) -> Void)?
    /// The clock instant of the first deadline asked for.
    private var start: C.Instant?
    /// Time spent held by pauses; every later deadline moves by it.
    private var held: Duration = .zero

    init(clock: C, pacing: Pacing, control: ReplayControl?, onEvent: (@Sendable (ReplayEvent) -> Void)?) {
        self.clock = clock
        if case .timed(let factor) = pacing { speedFactor = factor } else { speedFactor = 1 }
        self.control = control
        self.onEvent = onEvent
    }

    /// The deadline of a fix `elapsed` seconds (unscaled) after the start, and the same as clock
    /// time since the start (scaled, pauses included). The first call fixes the start.
    mutating func deadline(forElapsed elapsed: Double) -> (instant: C.Instant, sinceStart: Duration) {
        let start = self.start ?? clock.now
        self.start = start
        let due = Duration.seconds(elapsed / speedFactor) + held
        return (start.advanced(by: due), due)
    }

    /// Waits while the control is paused, reporting `.paused` and `.resumed(heldFor:)`.
    ///
    /// - Returns: How long the hold lasted on the clock (zero when not paused), or `nil` when the
    ///   task was cancelled while held. Later deadlines move by the hold.
    mutating func holdWhilePaused() async -> Duration? {
        guard let control, control.isPaused else { return .zero }
        let holdStart = clock.now
        onEvent?(.paused)
        do {
            try await control.waitWhilePaused()
        } catch {
            return nil  // waitWhilePaused throws only CancellationError
        }
        let heldFor = holdStart.duration(to: clock.now)
        held += heldFor
        onEvent?(.resumed(heldFor: heldFor))
        return heldFor
    }
}
