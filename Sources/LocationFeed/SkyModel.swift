#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
package import NMEAFormat

/// A player's sky: a seeded set of GPS satellites that drift slowly across the sky, and the
/// dilutions of precision that match a fix's accuracy.
///
/// Plausible, not an orbit model: 11 distinct PRNs of 1…32, elevations 10°…85°, azimuths
/// turning by one degree every four minutes (a GPS satellite's apparent pace), signal 20…45 dB-Hz,
/// each in whole units as NMEA's GSV tells them (so the SKY a gpsd makes of locsim's NMEA is
/// locsim's own); the 8 highest are used in the fix (GSA lists them, GGA counts them).
///
/// Package access: the seeded sky behind the feed's SKY reports.
package struct SkyModel: Sendable, Hashable {
    /// One satellite in view: the NMEA writer's satellite, so SKY and GSV are one sky.
    package typealias Satellite = NMEAWriter.Satellite

    /// Dilutions of precision.
    package struct Dilutions: Sendable, Hashable {
        package var x: Double, y: Double, h: Double, v: Double, p: Double, t: Double, g: Double
    }

    /// Satellites in view, and used.
    package static let inView = 11
    package static let inUse = 8

    private let base: [Satellite]

    /// The sky of the player with `seed`.
    package init(seed: UInt64) {
        var generator = SplitMix64(seed: seed ^ 0x5_C0FF_EE5A_7E11)
        var prns = Array(1...32)
        prns.shuffle(using: &generator)
        var satellites = prns.prefix(Self.inView).map { prn in
            Satellite(
                id: prn, elevation: Double.random(in: 10...85, using: &generator).rounded(),
                azimuth: Double.random(in: 0..<360, using: &generator), signal: Double.random(in: 20...45, using: &generator).rounded(),
                used: false)
        }
        satellites.sort { $0.elevation > $1.elevation }
        for index in satellites.indices.prefix(Self.inUse) { satellites[index].used = true }
        satellites.sort { $0.id < $1.id }
        base = satellites
    }

    /// The satellites at `time`; none is used without a fix.
    package func satellites(at time: Date, hasFix: Bool) -> [Satellite] {
        let turn = (time.timeIntervalSince1970 / 240).truncatingRemainder(dividingBy: 360)
        return base.map { satellite in
            var satellite = satellite
            let azimuth = ((satellite.azimuth + turn).truncatingRemainder(dividingBy: 360)).rounded()
            satellite.azimuth = azimuth < 0 ? azimuth + 360 : azimuth == 360 ? 0 : azimuth
            satellite.used = satellite.used && hasFix
            return satellite
        }
    }

    /// DOPs that give back `fix`'s accuracy by gpsd's error model (HDOP = horizontal accuracy / 19 m,
    /// VDOP = vertical accuracy / 23 m, else 1.5 × HDOP as for a typical sky), or `nil` when the
    /// fix has no horizontal accuracy.
    package func dilutions(for fix: Fix) -> Dilutions? {
        guard fix.hasPosition, let accuracy = GPSDReport.finite(fix.horizontalAccuracy) else { return nil }
        let h = accuracy / GPSDReport.horizontalRangeError
        let v = GPSDReport.finite(fix.verticalAccuracy).map { $0 / GPSDReport.verticalRangeError } ?? 1.5 * h
        let p = (h * h + v * v).squareRoot()
        let t = 0.6 * v
        return Dilutions(x: h / 2.0.squareRoot(), y: h / 2.0.squareRoot(), h: h, v: v, p: p, t: t, g: (p * p + t * t).squareRoot())
    }
}
