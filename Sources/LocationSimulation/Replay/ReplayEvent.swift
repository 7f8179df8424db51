#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Something a replay tells its observer besides fixes: gaps, timestamp anomalies, laps, pauses.
///
/// Events reach ``GPXReplay/Configuration/onEvent`` from inside the iterator's `next()`, just
/// before the fix they precede is returned. The same gaps and anomalies are listed up front in
/// ``GPXReplay/analysis``.
package enum ReplayEvent: Sendable, Hashable {
    /// The next fix follows a gap: a segment break, or recorded times further apart than
    /// ``GPXReplay/Configuration/gapThreshold``. Unless
    /// ``GPXReplay/Configuration/interpolatesAcrossGaps`` is set, resampling emits nothing inside it.
    case gap(ReplayGap)
    /// A point has the same time as the point before it. Both are delivered, in file order, at
    /// the same instant (a zero wait); when resampling, the later one wins.
    case repeatedTimestamp(ReplayAnomaly)
    /// A point is older than a point before it. It was dropped: never delivered, never reordered.
    case droppedBackwardsPoint(ReplayAnomaly)
    /// The replay began lap `lap` (1 for the second pass) of a looping replay.
    case lapStarted(lap: Int)
    /// The replay is holding a fix because ``ReplayControl/pause()`` was called.
    case paused
    /// ``ReplayControl/resume()`` released the held fix after `heldFor` on the clock; the rest of
    /// the schedule moves later by that much.
    case resumed(heldFor: Duration)
}

/// A stretch of a recording without points.
package struct ReplayGap: Sendable, Hashable, CustomStringConvertible {
    /// Why the stretch counts as a gap.
    package enum Reason: String, Sendable, Hashable {
        /// The recorded times of two neighbouring points are further apart than the threshold.
        case timeGap
        /// A new track segment starts (the recorder stopped and started again).
        case segmentBreak
    }

    /// The first point after the gap.
    package var position: ReplayPointPosition
    /// Time of the last point before the gap (as recorded; for untimed paths, as derived).
    package var start: Date
    /// Time of the first point after the gap.
    package var end: Date
    /// Why it is a gap.
    package var reason: Reason

    init(position: ReplayPointPosition, start: Date, end: Date, reason: Reason) {
        self.position = position
        self.start = start
        self.end = end
        self.reason = reason
    }

    /// Length of the gap in seconds (recorded time, unscaled).
    package var duration: TimeInterval { end.timeIntervalSince(start) }

    package var description: String {
        "\(reason == .timeGap ? "gap" : "segment break") of \(duration) s before \(position)"
    }
}

/// A point whose recorded time is not after the time of the point before it.
package struct ReplayAnomaly: Sendable, Hashable, CustomStringConvertible {
    /// The offending point.
    package var position: ReplayPointPosition
    /// Its recorded time.
    package var time: Date
    /// The latest time delivered before it.
    package var latestTime: Date

    init(position: ReplayPointPosition, time: Date, latestTime: Date) {
        self.position = position
        self.time = time
        self.latestTime = latestTime
    }

    package var description: String {
        "\(position) at \(time.timeIntervalSince(latestTime)) s relative to the latest point"
    }
}

/// What ``GPXReplay`` found in its path before playing it.
package struct ReplayAnalysis: Sendable, Hashable {
    /// Points that will be delivered (every point minus the dropped backwards ones).
    package var pointCount: Int
    /// Whether the replay follows recorded `<time>`s (`false`: constant speed along the path).
    package var isTimed: Bool
    /// Time from the first to the last delivered point, in seconds (recorded or derived; unscaled).
    package var duration: TimeInterval
    /// Gaps and segment breaks, in order.
    package var gaps: [ReplayGap]
    /// Points sharing their predecessor's time.
    package var repeatedTimestamps: [ReplayAnomaly]
    /// Points dropped because their time went backwards.
    package var droppedBackwardsPoints: [ReplayAnomaly]
    /// The recorded times of the first and the last delivered point, for a timed replay: what
    /// ``GPXReplay/TimestampPolicy/recorded`` stamps its fixes with, to check before playing
    /// that an output can write them (`nil` for an untimed one).
    package var recordedSpan: ClosedRange<Date>? = nil
}
