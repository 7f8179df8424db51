#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore

/// A recorded path for real-time swarm players to follow instead of a random walk: positions at
/// every whole second from the first timed point, interpolated along great circles between points
/// (LocationCore's `intermediate`). Players start at random offsets and loop it.
package struct SwarmTrack: Sendable, Hashable {
    /// Where it came from (a file name), for messages.
    package let name: String
    /// The position at each whole second since the first point.
    package let positions: [Coordinate]

    /// Resamples timed points at 1 Hz.
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` (parameter `tracks`, naming the track) when
    ///   fewer than two points have times, or a time goes backwards, or it lasts over 7 days.
    package init(name: String, points: [(time: Date, coordinate: Coordinate)]) throws(ConfigurationError) {
        guard points.count >= 2, let first = points.first?.time, let last = points.last?.time, last > first else {
            throw ConfigurationError(parameter: "tracks", "\(name): needs at least two track points with increasing times")
        }
        let seconds = Int(last.timeIntervalSince(first).rounded(.down))
        guard seconds <= 7 * 86_400 else {
            throw ConfigurationError(parameter: "tracks", "\(name): lasts \(seconds) s, more than 7 days")
        }
        var positions: [Coordinate] = []
        positions.reserveCapacity(seconds + 1)
        var segment = 0
        for second in 0...seconds {
            let time = first.addingTimeInterval(Double(second))
            while segment + 2 < points.count, points[segment + 1].time <= time { segment += 1 }
            let a = points[segment], b = points[segment + 1]
            guard b.time >= a.time else {
                throw ConfigurationError(parameter: "tracks", "\(name): point \(segment + 2) is earlier than the one before it")
            }
            let span = b.time.timeIntervalSince(a.time)
            let fraction = span > 0 ? min(1, max(0, time.timeIntervalSince(a.time) / span)) : 1
            positions.append(a.coordinate.intermediate(to: b.coordinate, fraction: fraction))
        }
        self.name = name
        self.positions = positions
    }
}
