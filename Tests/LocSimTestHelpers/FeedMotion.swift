package import Foundation
import LocationCore
package import LocationSimulation
import Testing

/// The walk the feed tests' players take: north-east from Tokyo Station, 3D at 40 m, with noise
/// so fixes carry an accuracy; the same for a seed whatever the pacing.
package enum FeedMotion {
    /// 2026-01-01, after gpsd 3.22's release (so gpsd does not move the week).
    package static let start = Date(timeIntervalSince1970: 1_767_225_600)

    package static func walk<C: Clock>(
        seed: UInt64, pacing: Pacing, noise: Double?, clock: C, start: Date = FeedMotion.start, duration: Double = 120
    ) throws -> SyntheticMotion<C>
    where C.Duration == Duration {
        try SyntheticMotion(
            path: .line(
                from: try Coordinate(latitude: 35.681236, longitude: 139.767125),
                to: try Coordinate(latitude: 35.690236, longitude: 139.777125)),
            speed: .walk, seed: seed,
            configuration: .init(
                rate: 1, pacing: pacing, duration: duration, startTime: start, altitude: 40,
                noise: noise.map { NoiseModel(seed: seed, sigma: $0) }),
            clock: clock, now: { start })
    }
}

/// A JSON report line (a trailing CR allowed) as a dictionary.
public func object(_ line: some StringProtocol) throws -> [String: Any] {
    var bytes = Array(line.utf8)
    if bytes.last == 13 { bytes.removeLast() }
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}
