/// How a provider spends time between fixes.
package enum Pacing: Sendable, Hashable {
    /// Each fix is delivered when it falls due on the injected clock: the fix's offset from the
    /// start, divided by `speedFactor`, after the instant iteration started. Scheduling is against
    /// absolute deadlines, so lateness never accumulates.
    ///
    /// `speedFactor` is 0.1…1000 (1 is real time, 10 is ten times faster).
    case timed(speedFactor: Double)
    /// Fixes are delivered as fast as the consumer asks for them, never sleeping; fix times are
    /// unchanged (not scaled). This is back-pressure only: the consumer's pace is the replay's pace.
    case virtual

    /// Real time: `.timed(speedFactor: 1)`.
    package static let realTime = Pacing.timed(speedFactor: 1)

    /// The accepted speed factors.
    package static let speedFactorRange: ClosedRange<Double> = 0.1...1000

    func validate() throws(SimulationError) {
        if case .timed(let factor) = self {
            try SimulationError.check(
                factor, in: Self.speedFactorRange, parameter: "speedFactor", unit: "(times real time)",
                code: .invalidSpeedFactor)
        }
    }
}
