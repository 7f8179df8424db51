import Foundation
import LocationCore
import MapFeature

/// The one status line a long replay keeps updating on a terminal: percent of the track,
/// elapsed and remaining time, fetches, places on the map.
///
/// It is drawn on standard error, and only when standard error is a terminal: piped output and
/// `--format jsonl` on standard output never contain it. Timeline lines are printed above it.
@MainActor
final class Progress {
    let enabled: Bool
    /// The fix time the run covers in seconds, from its first fix to its last, when known (a GPX
    /// replay without `--loop`); `nil` for a live source.
    var total: Double?
    /// Replay speed factor, to estimate the remaining wall time.
    var speed = 1.0

    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private var firstTime: Date?
    private var latestTime: Date?
    private var status = ""
    private var visible = false
    private let output: LineOutput

    /// - Parameters:
    ///   - enabled: Whether to draw at all (standard error is a terminal, no `--no-progress`).
    ///   - output: Where timeline lines go.
    init(enabled: Bool, output: LineOutput) {
        self.enabled = enabled
        self.output = output
        started = clock.now
    }

    /// Prints a timeline line on standard output, keeping the status line below it.
    ///
    /// The status line is erased and redrawn around the line only when lines are written at
    /// once (standard output a terminal, or `--flush`); a buffered file or pipe does not share
    /// the terminal with it.
    func printAbove(_ line: String) {
        guard visible, output.flushesEachLine else {
            output.write(line)
            return
        }
        erase()
        output.write(line)
        if enabled && !status.isEmpty { draw() }
    }

    /// Recomputes the status after an event; redraws at most ten times a second.
    ///
    /// Progress is measured in fix time, from the first fix: other events (the provider starting
    /// before any fix has a time) do not move it.
    func update(recorder: ReplayRecorder, event: MapEvent) {
        guard enabled else { return }
        switch event.kind {
        case .fixAccepted(let fix), .fixRejected(let fix, _):
            if firstTime == nil { firstTime = fix.time }
            latestTime = fix.time
        default:
            break
        }
        let now = clock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        let elapsed = Double((now - started).components.seconds)
        var offset = 0.0
        if let firstTime, let latestTime { offset = max(0, latestTime.timeIntervalSince(firstTime)) }
        var parts: [String] = []
        if let total, total > 0 {
            let fraction = min(1, max(0, offset / total))
            parts.append("\(Int((fraction * 100).rounded(.down)))%")
            parts.append("elapsed \(DurationText.clockText(elapsed))")
            parts.append("remaining \(DurationText.clockText(max(0, total - offset) / speed))")
        } else {
            parts.append("elapsed \(DurationText.clockText(elapsed))")
        }
        parts.append("fetches \(recorder.fetchCount)")
        parts.append("places on map \(recorder.placesOnMap)")
        status = parts.joined(separator: " · ")
        draw()
    }

    /// Removes the status line for good (before the summary).
    func clear() {
        if visible { erase() }
        status = ""
    }

    private func draw() {
        Terminal.redraw(status)
        visible = true
    }

    private func erase() {
        Terminal.redraw("")
        visible = false
    }
}
