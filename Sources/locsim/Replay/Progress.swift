import Foundation
import LocationCore

/// The one status line a long replay keeps updating on a terminal: percent of the track,
/// elapsed and remaining time, fetches, places on the map.
///
/// It is drawn on standard error, and only when standard error is a terminal: piped output and
/// `--format jsonl` on standard output never contain it. Timeline lines are printed above it.
@MainActor
final class Progress {
    let enabled: Bool
    /// The track's duration in seconds, when known (a GPX replay); `nil` for a live source.
    var total: Double?
    /// Replay speed factor, to estimate the remaining wall time.
    var speed = 1.0

    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private var firstTime: Date?
    private var status = ""
    private var visible = false

    init(enabled: Bool) {
        self.enabled = enabled
        started = clock.now
    }

    /// Prints a timeline line on standard output, keeping the status line below it.
    func printAbove(_ line: String) {
        if visible { erase() }
        Terminal.out(line)
        if enabled && !status.isEmpty { draw() }
    }

    /// Recomputes the status after an event; redraws at most ten times a second.
    func update(recorder: ReplayRecorder, latest: Date) {
        guard enabled else { return }
        if firstTime == nil { firstTime = latest }
        let now = clock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        let elapsed = Double((now - started).components.seconds)
        let offset = firstTime.map { latest.timeIntervalSince($0) } ?? 0
        var parts: [String] = []
        if let total, total > 0 {
            let fraction = min(1, max(0, offset / total))
            parts.append("\(Int((fraction * 100).rounded(.down)))%")
            parts.append("elapsed \(formatDuration(elapsed))")
            parts.append("remaining \(formatDuration(max(0, total - offset) / speed))")
        } else {
            parts.append("elapsed \(formatDuration(elapsed))")
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
        Terminal.errRaw("\r\u{1B}[K" + status)
        visible = true
    }

    private func erase() {
        Terminal.errRaw("\r\u{1B}[K")
        visible = false
    }
}
