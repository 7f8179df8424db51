#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension Fix {
    /// The fix between `start` and `end` at `time`, interpolated as a receiver moving steadily
    /// between them would report it.
    ///
    /// - Position moves along the great circle in proportion to time.
    /// - Altitude, geoid separation, speed and accuracies are interpolated linearly when both
    ///   ends have them;
    ///   course turns the short way round.
    /// - The mode is the weaker of the two; the source is `start`'s.
    ///
    /// - Returns: `nil` when either fix has no position, or when `time` lies outside
    ///   `start.time...end.time`. When both fixes share a time, `end` wins at that time.
    public static func interpolated(from start: Fix, to end: Fix, at time: Date) -> Fix? {
        guard let a = start.coordinate, let b = end.coordinate else { return nil }
        let t0 = start.time.timeIntervalSinceReferenceDate
        let t1 = end.time.timeIntervalSinceReferenceDate
        let t = time.timeIntervalSinceReferenceDate
        guard t0 <= t1, t >= t0, t <= t1 else { return nil }
        if t == t1 { return end.with(time: time) }
        let fraction = t1 == t0 ? 1 : (t - t0) / (t1 - t0)
        func lerp(_ x: Double?, _ y: Double?) -> Double? {
            guard let x, let y else { return nil }
            return x + (y - x) * fraction
        }
        var course: Double?
        if let c0 = start.course, let c1 = end.course {
            var delta = (c1 - c0).truncatingRemainder(dividingBy: 360)
            if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
            course = normalizedCourse(c0 + delta * fraction)
        }
        var fix = Fix(
            time: time,
            coordinate: a.intermediate(to: b, fraction: fraction),
            altitude: lerp(start.altitude, end.altitude),
            speed: lerp(start.speed, end.speed),
            course: course,
            horizontalAccuracy: lerp(start.horizontalAccuracy, end.horizontalAccuracy),
            verticalAccuracy: lerp(start.verticalAccuracy, end.verticalAccuracy),
            mode: min(start.mode, end.mode),
            source: start.source)
        fix.geoidSeparation = lerp(start.geoidSeparation, end.geoidSeparation)
        return fix
    }

    /// A copy with another time.
    public func with(time: Date) -> Fix {
        var copy = self
        copy.time = time
        return copy
    }
}
