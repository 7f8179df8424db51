#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import LocationCore

/// A point whose `<time>` is earlier than the latest time before it, with where it is.
///
/// ``GPXReader`` returns such points as they are (they are data) and lists them in
/// ``GPXReader/timeReversals``; a replay drops them (it never reorders), so this is how a user
/// finds them in the file. `description` reads like a compiler diagnostic:
/// `walk.gpx:40:1: warning: <trkpt> time 2024-05-01T12:00:03.000Z is 2 s before 2024-05-01T12:00:05.000Z, the latest time before it`.
public struct GPXTimeReversal: Sendable, Hashable, CustomStringConvertible {
    /// Which list the point is in: track points are compared across the whole file, route
    /// points within their route, waypoints across the file.
    public var kind: GPXPointKind
    /// The file path, or `nil` for in-memory input.
    public var file: String?
    /// 1-based line of the point's start tag.
    public var line: Int
    /// 1-based column, in characters, of the point's start tag.
    public var column: Int
    /// The point's time.
    public var time: Date
    /// The latest time before it.
    public var latestTime: Date

    init(kind: GPXPointKind, file: String?, line: Int, column: Int, time: Date, latestTime: Date) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.time = time
        self.latestTime = latestTime
    }

    /// Seconds the time goes back (positive).
    public var step: TimeInterval { latestTime.timeIntervalSince(time) }

    public var description: String {
        let seconds = step == step.rounded() && abs(step) < 1e15 ? String(Int64(step)) : String(step)
        return "\(file ?? "<input>"):\(line):\(column): warning: <\(kind.rawValue)> time "
            + "\(UTCTimestamp.format(time, fractionDigits: 3)) is \(seconds) s before "
            + "\(UTCTimestamp.format(latestTime, fractionDigits: 3)), the latest time before it"
    }
}
