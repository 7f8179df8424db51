#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import LocationCore

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
        satellites.sort { ($0.elevation ?? 0) > ($1.elevation ?? 0) }
        for index in satellites.indices.prefix(Self.inUse) { satellites[index].used = true }
        satellites.sort { $0.id < $1.id }
        base = satellites
    }

    /// The sky at `fix`: the satellites at its time (none used without a position) and DOPs
    /// that give back its accuracy by gpsd's error model (HDOP = horizontal accuracy / 19 m,
    /// VDOP = vertical accuracy / 23 m, else 1.5 × HDOP as for a typical sky; none when the fix
    /// has no horizontal accuracy).
    package func sky(for fix: Fix) -> ReceiverReport.Sky {
        let turn = (fix.time.timeIntervalSince1970 / 240).truncatingRemainder(dividingBy: 360)
        let satellites = base.map { satellite in
            var satellite = satellite
            let azimuth = (((satellite.azimuth ?? 0) + turn).truncatingRemainder(dividingBy: 360)).rounded()
            satellite.azimuth = azimuth < 0 ? azimuth + 360 : azimuth == 360 ? 0 : azimuth
            satellite.used = satellite.used && fix.hasPosition
            return satellite
        }
        guard fix.hasPosition, let accuracy = GPSDReport.finite(fix.horizontalAccuracy) else {
            return ReceiverReport.Sky(satellites: satellites)
        }
        let h = accuracy / GPSDReport.horizontalRangeError
        let v = GPSDReport.finite(fix.verticalAccuracy).map { $0 / GPSDReport.verticalRangeError } ?? 1.5 * h
        let p = (h * h + v * v).squareRoot()
        let t = 0.6 * v
        let dilutions: [ReceiverReport.Sky.Dilution: Double] = [
            .xdop: h / 2.0.squareRoot(), .ydop: h / 2.0.squareRoot(), .hdop: h, .vdop: v, .pdop: p, .tdop: t,
            .gdop: (p * p + t * t).squareRoot(),
        ]
        return ReceiverReport.Sky(dilutions: dilutions, satellites: satellites)
    }
}
