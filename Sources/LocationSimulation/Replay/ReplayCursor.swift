#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// The pure part of a replay: walks a ``ReplayTimeline`` lap after lap and says which fix comes
/// next, at which offset, with which events. No clock, no sleeping: ``GPXReplay``'s iterator
/// turns offsets into deadlines.
struct ReplayCursor: Sendable {
    struct Item {
        /// Seconds since the start of lap 0 (lap periods included), unscaled.
        var offset: Double
        /// The fix, with its recorded time moved forward by whole lap periods.
        var fix: Fix
        /// Events to report before the fix.
        var events: [ReplayEvent]
    }

    private let timeline: ReplayTimeline
    private let rate: Double?
    private let loops: Bool
    /// Time from the start of one lap to the start of the next.
    let period: Double
    private let interpolatesAcrossGaps: Bool

    private var lap = 0
    /// Recorded mode: the next fix to deliver. Resampling: the last fix at or before the grid time.
    private var index = 0
    /// Resampling: the next grid step within the lap (grid time = step / rate).
    private var step = 0
    /// Resampling: events of fixes below this index have been delivered or skipped.
    private var reported = 0
    /// Recorded mode: whether the next item's own events are to be skipped (a seek landed on it).
    private var skipEventsOfNext = false
    private var pending: [ReplayEvent] = []

    /// - Parameters:
    ///   - startOffset: Seconds into lap 0 to start at, 0…duration.
    ///   - loopInterval: Seconds between the last fix of a lap and the first of the next.
    init(
        timeline: ReplayTimeline, rate: Double?, loops: Bool, loopInterval: Double, interpolatesAcrossGaps: Bool,
        startOffset: Double
    ) {
        self.timeline = timeline
        self.rate = rate
        self.loops = loops
        self.period = timeline.duration + loopInterval
        self.interpolatesAcrossGaps = interpolatesAcrossGaps
        guard startOffset > 0 else { return }
        let times = timeline.times
        if let rate {
            step = Self.firstStep(atOrAfter: startOffset, rate: rate)
            reported = upperBound(times, startOffset)
        } else {
            index = lowerBound(times, startOffset)
            skipEventsOfNext = index < times.count && times[index] == startOffset
        }
    }

    mutating func next() -> Item? {
        rate == nil ? nextRecorded() : nextResampled()
    }

    private mutating func startNextLap() -> Bool {
        guard loops else { return false }
        lap += 1
        index = 0
        step = 0
        reported = 0
        pending.append(.lapStarted(lap: lap))
        return true
    }

    private func lapTime(_ date: Date) -> Date {
        lap == 0 ? date : date.addingTimeInterval(Double(lap) * period)
    }

    private mutating func nextRecorded() -> Item? {
        if index >= timeline.count {
            guard startNextLap() else { return nil }
        }
        let i = index
        index += 1
        var events = pending
        pending = []
        if skipEventsOfNext {
            skipEventsOfNext = false
        } else if let own = timeline.events[i] {
            events += own
        }
        var fix = timeline.fixes[i]
        fix.time = lapTime(fix.time)
        return Item(offset: Double(lap) * period + timeline.times[i], fix: fix, events: events)
    }

    private mutating func nextResampled() -> Item? {
        guard let rate else { return nil }
        let times = timeline.times
        let n = timeline.count
        while true {
            let g = Double(step) / rate
            if g > timeline.duration {
                guard startNextLap() else { return nil }
                continue
            }
            step += 1
            while index + 1 < n && times[index + 1] <= g { index += 1 }
            while reported <= index {
                if let own = timeline.events[reported] { pending += own }
                reported += 1
            }
            let date = lapTime(timeline.fixes[0].time.addingTimeInterval(g))
            let fix: Fix
            if times[index] == g || index + 1 >= n {
                fix = timeline.fixes[index].with(time: date)
            } else {
                if timeline.breakBefore[index + 1] && !interpolatesAcrossGaps {
                    // Nothing to deliver until the gap's far side: go there in one step (a gap of
                    // a year is 315 million steps at 10 Hz, walked one by one before).
                    step = max(step, Self.firstStep(atOrAfter: times[index + 1], rate: rate))
                    continue
                }
                fix = interpolate(between: index, and: index + 1, at: g, date: date)
            }
            let events = pending
            pending = []
            return Item(offset: Double(lap) * period + g, fix: fix, events: events)
        }
    }

    /// The first grid step whose time (step / rate) is at or after `offset` seconds.
    private static func firstStep(atOrAfter offset: Double, rate: Double) -> Int {
        var k = Int((offset * rate).rounded(.down))
        while Double(k) / rate < offset { k += 1 }
        return k
    }

    /// Interpolates between fixes `i` and `j` at lap-local offset `g`. Speed and course the
    /// recording lacked at either end are the pair's own (the geodesic's length over the time
    /// between them, its azimuth at `i`), not a blend of the values derived for each point.
    private func interpolate(between i: Int, and j: Int, at g: Double, date: Date) -> Fix {
        let a = timeline.fixes[i]
        // Interpolate on the lap-0 dates (where `a` and `b` live), then move to the lap's date.
        let lapZeroDate = a.time.addingTimeInterval(g - timeline.times[i])
        guard var fix = Fix.interpolated(from: a, to: timeline.fixes[j], at: lapZeroDate.clamped(a.time, timeline.fixes[j].time))
        else { return .noFix(time: date, source: a.source) }
        fix.time = date
        // The receiver's sky holds until its next report; what it said of a position does not.
        if let receiver = a.receiver, let sky = receiver.sky {
            if receiver.values.isEmpty {
                fix.receiver = receiver
            } else {
                fix.receiver = ReceiverReport()
                fix.receiver?.sky = sky
            }
        }
        let derived = timeline.derived[i].union(timeline.derived[j])
        if !derived.isEmpty {
            let move = timeline.velocity(from: i, to: j)
            if derived.contains(.speed) { fix.speed = move?.speed }
            if derived.contains(.course) { fix.course = fix.speed == 0 ? nil : move?.course }
        }
        return fix
    }
}

extension Date {
    fileprivate func clamped(_ low: Date, _ high: Date) -> Date { Swift.min(Swift.max(self, low), high) }
}

/// First index whose value is ≥ `value` (values sorted ascending).
func lowerBound(_ values: [Double], _ value: Double) -> Int { values.partitioningIndex { $0 >= value } }

/// First index whose value is > `value` (values sorted ascending).
func upperBound(_ values: [Double], _ value: Double) -> Int { values.partitioningIndex { $0 > value } }
