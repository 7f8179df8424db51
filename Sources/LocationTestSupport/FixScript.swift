#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// Builds fixes for tests in local terms: seconds after an epoch and metres north and east of an
/// origin.
///
/// ```swift
/// let script = FixScript(origin: try Coordinate(latitude: 35.6812, longitude: 139.7671))
/// let fixes = [
///     script.fix(at: 0),                  // at the origin
///     script.fix(at: 1, north: 100.1),    // just over 100 m north
///     script.noFix(at: 2),                // receiver lost the sky
///     script.fix(at: 3, accuracy: 250),   // a poor fix
/// ]
/// ```
public struct FixScript: Sendable, Hashable {
    /// The point at 0 m north, 0 m east.
    public var origin: Coordinate
    /// The time of `at: 0`.
    public var epoch: Date
    /// The source stamped on every fix.
    public var source: FixSource

    /// 2023-11-14T22:13:20Z: a fixed, round default epoch so logs are stable.
    public static let defaultEpoch = Date(timeIntervalSince1970: 1_700_000_000)

    /// Creates a script around `origin`, starting at `epoch`.
    public init(origin: Coordinate, epoch: Date = FixScript.defaultEpoch, source: FixSource = .scripted) {
        self.origin = origin
        self.epoch = epoch
        self.source = source
    }

    /// The time `seconds` after the epoch, at microsecond resolution (saturating at about
    /// ±127,000 years, like ``ScriptedProvider``'s conversions; not-a-number is the epoch).
    public func time(_ seconds: Double) -> Date {
        let micros = (seconds * 1_000_000).rounded()
        let saturated = micros.isNaN ? 0 : Int64(max(-4e18, min(4e18, micros)))
        return VirtualTime.date(epoch, plus: .microseconds(saturated))
    }

    /// The point `north` metres then `east` metres from the origin along great circles.
    public func position(north: Double = 0, east: Double = 0) -> Coordinate {
        var point = origin
        if north != 0 { point = point.destination(distance: north, bearing: 0) }
        if east != 0 { point = point.destination(distance: east, bearing: 90) }
        return point
    }

    /// A 2D fix `seconds` after the epoch at the given offset, with a horizontal accuracy in metres
    /// (`nil` for none, as in GPX).
    public func fix(at seconds: Double, north: Double = 0, east: Double = 0, accuracy: Double? = 5) -> Fix {
        Fix(time: time(seconds), coordinate: position(north: north, east: east), horizontalAccuracy: accuracy, source: source)
    }

    /// A fix at an explicit coordinate.
    public func fix(at seconds: Double, coordinate: Coordinate, accuracy: Double? = 5) -> Fix {
        Fix(time: time(seconds), coordinate: coordinate, horizontalAccuracy: accuracy, source: source)
    }

    /// A report without a position.
    public func noFix(at seconds: Double) -> Fix {
        .noFix(time: time(seconds), source: source)
    }

    /// A straight walk: one fix every `interval` seconds for `count` fixes, starting at the origin
    /// at `start` seconds and moving `speed` metres per second along `bearing` degrees.
    public func walk(count: Int, every interval: Double = 1, start: Double = 0, speed: Double, bearing: Double = 0,
                     accuracy: Double? = 5) -> [Fix] {
        (0..<max(0, count)).map { step in
            let elapsed = Double(step) * interval
            let point = speed == 0 ? origin : origin.destination(distance: speed * elapsed, bearing: bearing)
            return fix(at: start + elapsed, coordinate: point, accuracy: accuracy)
        }
    }
}
