#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPXFormat
import LocationCore

/// A ``ReplayPath`` turned into what a replay plays: one flat list of fixes with non-decreasing
/// offsets (seconds from the first fix), gap marks, and the events to report on the way.
///
/// All the rules for imperfect recordings live here, as pure code:
/// - a point older than the latest kept point is dropped and reported (never reordered);
/// - a point at the same time as its predecessor is kept and reported;
/// - a segment break, or a step longer than the gap threshold, is a gap.
struct ReplayTimeline: Sendable {
    /// Offset of each fix from the first, in seconds; non-decreasing.
    var times: [Double]
    /// The fixes, with their recorded times (or, for untimed paths, times derived from
    /// ``untimedEpoch`` plus the offset).
    var fixes: [Fix]
    /// `true` at `i` when a gap (time gap or segment break) lies between fixes `i - 1` and `i`.
    var breakBefore: [Bool]
    /// Events to report just before fix `i` is delivered (sparse).
    var events: [Int: [ReplayEvent]]
    /// What the recording lacked at `i` and ``completeVelocities()`` derived: a fix between two
    /// points then moves at the pair's velocity rather than a blend of the points' values.
    var derived: [Derived]
    /// What was found.
    var analysis: ReplayAnalysis

    /// The values of a fix the timeline derived from its neighbours.
    struct Derived: OptionSet, Sendable {
        let rawValue: UInt8
        static let speed = Derived(rawValue: 1)
        static let course = Derived(rawValue: 2)
    }

    /// Offset of the last fix.
    var duration: Double { times.last ?? 0 }
    var count: Int { fixes.count }

    /// The date untimed paths count from before a replay rebases them.
    static let untimedEpoch = Date(timeIntervalSinceReferenceDate: 0)

    /// Metres of horizontal accuracy per unit of HDOP, or `nil`: accuracies stay unknown.
    private let accuracyPerHDOP: Double?

    init(
        path: ReplayPath, ignoresTimestamps: Bool, untimedSpeed: Double, gapThreshold: Double, accuracyPerHDOP: Double? = nil
    ) throws(SimulationError) {
        self.accuracyPerHDOP = accuracyPerHDOP
        let total = path.pointCount
        guard total > 0 else {
            throw SimulationError(.emptyPath, parameter: "path", message: "the \(path.kind.rawValue) has no points")
        }
        var withTime = 0
        var firstUntimed: ReplayPointPosition?
        for (s, segment) in path.segments.enumerated() {
            for (i, point) in segment.enumerated() {
                if point.time != nil {
                    withTime += 1
                } else if firstUntimed == nil {
                    firstUntimed = ReplayPointPosition(kind: path.kind, segment: s, index: i)
                }
            }
        }
        times = []
        fixes = []
        breakBefore = []
        events = [:]
        derived = []
        times.reserveCapacity(total)
        fixes.reserveCapacity(total)
        breakBefore.reserveCapacity(total)
        analysis = ReplayAnalysis(
            pointCount: 0, isTimed: false, duration: 0, gaps: [], repeatedTimestamps: [], droppedBackwardsPoints: [])

        if ignoresTimestamps || withTime == 0 {
            buildUntimed(path: path, speed: untimedSpeed)
        } else if withTime == total {
            buildTimed(path: path, gapThreshold: gapThreshold)
        } else {
            let position = firstUntimed.map { "\($0)" } ?? "path"
            throw SimulationError(
                .missingTimestamp, parameter: position,
                message:
                    "\(withTime) of \(total) points have a <time> but this one has none")
        }
        analysis.pointCount = fixes.count
        analysis.duration = duration
        completeVelocities()
    }

    /// The move from fix `a` to fix `b` (a < b, same segment): the WGS-84 geodesic's length over
    /// the time between them, and its azimuth at `a` (or, `atEnd`, at `b`); no course when both
    /// are at one place, nothing when they share a time or lack a position.
    func velocity(from a: Int, to b: Int, atEnd: Bool = false) -> (speed: Double, course: Double?)? {
        let seconds = times[b] - times[a]
        guard seconds > 0, let start = fixes[a].coordinate, let end = fixes[b].coordinate else { return nil }
        let line = Geodesic.wgs84.inverse(from: start, to: end)
        guard line.distance > 0 else { return (0, nil) }
        return (line.distance / seconds, normalizedCourse(atEnd ? line.finalAzimuth : line.initialAzimuth))
    }

    /// Gives every fix with a position the speed and course it lacks (GPX without `<speed>` or
    /// `<course>`, NMEA without RMC), from the move it is part of: the one to the next fix, or
    /// for the last fix of a segment the one from the previous fix (its course at arrival). A
    /// player standing still has speed 0 and no course; so has a fix whose recorded speed is 0.
    private mutating func completeVelocities() {
        derived = Array(repeating: [], count: fixes.count)
        for i in fixes.indices where fixes[i].hasPosition && (fixes[i].speed == nil || fixes[i].course == nil) {
            let move: (speed: Double, course: Double?)?
            if i + 1 < fixes.count && !breakBefore[i + 1] {
                move = velocity(from: i, to: i + 1)
            } else if i > 0 && !breakBefore[i] {
                move = velocity(from: i - 1, to: i, atEnd: true)
            } else {
                move = nil
            }
            guard let move else { continue }
            if fixes[i].speed == nil {
                fixes[i].speed = move.speed
                derived[i].insert(.speed)
            }
            if fixes[i].course == nil, fixes[i].speed != 0, let course = move.course {
                fixes[i].course = course
                derived[i].insert(.course)
            }
        }
    }

    /// The point's fix, with its accuracies from HDOP and VDOP when a scale is given.
    private func fix(of point: GPXPoint) -> Fix? {
        guard var fix = point.fix(source: .gpx) else { return nil }
        if let accuracyPerHDOP, fix.hasPosition {
            fix.horizontalAccuracy = point.horizontalDilution.map { $0 * accuracyPerHDOP }
            fix.verticalAccuracy = point.verticalDilution.map { $0 * accuracyPerHDOP }
        }
        return fix
    }

    private mutating func addEvent(_ event: ReplayEvent, before index: Int) {
        events[index, default: []].append(event)
    }

    private mutating func buildTimed(path: ReplayPath, gapThreshold: Double) {
        analysis.isTimed = true
        var origin: Date?
        var latest: Date?
        var lastKeptSegment = -1
        for (s, segment) in path.segments.enumerated() {
            for (i, point) in segment.enumerated() {
                guard let time = point.time, var fix = fix(of: point) else { continue }
                fix.receiver = path.receivers?[s][i]
                let position = ReplayPointPosition(kind: path.kind, segment: s, index: i)
                var isBreak = false
                if let latestTime = latest {
                    if time < latestTime {
                        let anomaly = ReplayAnomaly(position: position, time: time, latestTime: latestTime)
                        analysis.droppedBackwardsPoints.append(anomaly)
                        addEvent(.droppedBackwardsPoint(anomaly), before: fixes.count)
                        continue
                    }
                    if time == latestTime {
                        let anomaly = ReplayAnomaly(position: position, time: time, latestTime: latestTime)
                        analysis.repeatedTimestamps.append(anomaly)
                        addEvent(.repeatedTimestamp(anomaly), before: fixes.count)
                    }
                    let reason: ReplayGap.Reason? =
                        s != lastKeptSegment ? .segmentBreak
                        : time.timeIntervalSince(latestTime) > gapThreshold ? .timeGap : nil
                    if let reason {
                        let gap = ReplayGap(position: position, start: latestTime, end: time, reason: reason)
                        analysis.gaps.append(gap)
                        addEvent(.gap(gap), before: fixes.count)
                        isBreak = true
                    }
                }
                let start = origin ?? time
                origin = start
                latest = time
                lastKeptSegment = s
                times.append(time.timeIntervalSince(start))
                fixes.append(fix)
                breakBefore.append(isBreak)
            }
        }
        if let origin, let latest { analysis.recordedSpan = origin...latest }
    }

    private mutating func buildUntimed(path: ReplayPath, speed: Double) {
        analysis.isTimed = false
        let points = path.segments.flatMap { $0 }
        // Course towards the next point that is somewhere else (a backward pass finds it in O(n));
        // points with nowhere left to go keep the course they arrived on.
        var courses = [Double?](repeating: nil, count: points.count)
        for k in points.indices.reversed().dropFirst() {
            let here = points[k].coordinate, next = points[k + 1].coordinate
            courses[k] = next != here ? here.bearing(to: next) : courses[k + 1]
        }
        var distance = 0.0
        var course: Double?
        for (k, point) in points.enumerated() {
            if k > 0 { distance += points[k - 1].coordinate.geodesicDistance(to: point.coordinate) }
            course = courses[k] ?? course
            let offset = distance / speed
            var timed = point
            timed.time = Self.untimedEpoch.addingTimeInterval(offset)
            guard var fix = fix(of: timed) else { continue }
            if fix.hasPosition {
                fix.speed = fix.speed ?? speed
                fix.course = fix.course ?? course
            }
            times.append(offset)
            fixes.append(fix)
            breakBefore.append(false)
        }
    }
}
