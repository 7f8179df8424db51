#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CGPS
import LocationCore

extension Fix {
    /// Maps libgps's decoded `TPV` report to a ``Fix``: the one place where gpsd's fields meet ours.
    ///
    /// | gpsd `TPV` (`gps_fix_t`)       | `Fix`                  | rule |
    /// |--------------------------------|------------------------|------|
    /// | `mode`                         | `mode`                 | 0 (not seen) and 1 → `.noFix`, 2 → `.twoDimensional`, 3 → `.threeDimensional` |
    /// | `time` (`timespec`)            | `time`                 | seconds + nanoseconds since 1970 UTC; none before 1980-01-06 (GPS time's start: libgps reads an unreadable time as 1899-12-31, no time as 0) |
    /// | `lat`, `lon`                   | `coordinate`           | WGS-84 degrees; must be finite and in range |
    /// | `altMSL`, else `altHAE`        | `altitude`             | metres; 3D fixes only (gpsd: "valid if mode == 3") |
    /// | `geoidSep`                     | `geoidSeparation`      | metres; with `altMSL` (altHAE = altMSL + geoidSep) or without an altitude |
    /// | `speed`                        | `speed`                | metres per second |
    /// | `track`                        | `course`               | degrees from true north, normalised into 0..<360 |
    /// | `eph`, else √(`epx`² + `epy`²) | `horizontalAccuracy`   | metres; a negative `eph` is none |
    /// | `epv`                          | `verticalAccuracy`     | metres; 3D fixes only; negative is none |
    /// | every other member libgps reads (`status`, `ept`, `epx`, `epy`, `epd`, `eps`, `climb`, `epc`, `magtrack`, `magvar`, ECEF, `sep`, `depth`, `dgpsAge`, `dgpsSta`, wind, `leapseconds`, `datum`) | `receiver` | as gpsd gives it, so a relay passes it on |
    ///
    /// Any field gpsd leaves out arrives as NaN and becomes `nil`. The result has a position only
    /// when `mode` ≥ 2, the report has a time and latitude/longitude are valid. Every other report
    /// (gpsd's first reports after start-up usually have no time; a receiver without a fix sends
    /// mode 1) becomes ``Fix/noFix(time:source:)``: a status, never a position, stamped with the
    /// report's own time when it has one and with `receivedAt` otherwise.
    ///
    /// Pure: reads `data` and nothing else.
    init(gpsd data: UnsafePointer<gps_data_t>, receivedAt: Date) {
        let fix = data.pointee.fix
        // libgps reads a `time` it cannot parse ("garbage", "") as 1899-12-31: a time before
        // GPS time began is none.
        let time: Date? =
            fix.time.tv_sec < Self.gpsEpoch
            ? nil
            : Date(timeIntervalSince1970: Double(fix.time.tv_sec) + Double(fix.time.tv_nsec) / 1e9)
        let mode: FixMode =
            switch fix.mode {
            case 3: .threeDimensional
            case 2: .twoDimensional
            default: .noFix
            }
        // Out-of-range or missing degrees are a receiver without a position, not an error.
        guard mode >= .twoDimensional, let time,
            fix.latitude.isFinite, fix.longitude.isFinite,
            (-90.0...90.0).contains(fix.latitude), (-180.0...180.0).contains(fix.longitude)
        else {
            self = .noFix(time: time ?? receivedAt, source: .gpsd)
            return
        }
        let coordinate = Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude)
        let altitude = mode == .threeDimensional ? (finite(fix.altMSL) ?? finite(fix.altHAE)) : nil
        // A negative error estimate is no estimate.
        var horizontal = finite(fix.eph).flatMap { $0 >= 0 ? $0 : nil }
        if horizontal == nil, let x = finite(fix.epx), let y = finite(fix.epy) {
            horizontal = (x * x + y * y).squareRoot()
        }
        let course = finite(fix.track).map(normalizedCourse)
        self.init(
            time: time,
            coordinate: coordinate,
            altitude: altitude,
            speed: finite(fix.speed),
            course: course,
            horizontalAccuracy: horizontal,
            verticalAccuracy: mode == .threeDimensional ? finite(fix.epv).flatMap { $0 >= 0 ? $0 : nil } : nil,
            mode: mode,
            source: .gpsd)
        // The geoid's height here, with an altitude above sea level or with none (never beside an
        // altitude above the ellipsoid, which it would mislabel).
        if altitude == nil || finite(fix.altMSL) != nil { geoidSeparation = finite(fix.geoid_sep) }
        let report = Self.receiverReport(data)
        if !report.isEmpty { receiver = report }
    }

    /// 1980-01-06T00:00:00Z, when GPS time began, in seconds since 1970: no receiver reports a
    /// time before it.
    static let gpsEpoch = 315_964_800

    /// The members of the `TPV` that ``Fix`` has no field for; libgps leaves each one it did not
    /// read NaN (a status of 0, a station of -1, no leap seconds 0). Not the north-east-down
    /// members, which libgps 3.22 mixes up (``ReceiverReport``).
    private static func receiverReport(_ data: UnsafePointer<gps_data_t>) -> ReceiverReport {
        let fix = data.pointee.fix
        var report = ReceiverReport()
        if fix.status > 0 { report[.status] = Double(fix.status) }
        if data.pointee.leap_seconds != 0 { report[.leapseconds] = Double(data.pointee.leap_seconds) }
        let numbers: [(ReceiverReport.Member, Double)] = [
            (.ept, fix.ept), (.epx, fix.epx), (.epy, fix.epy), (.epd, fix.epd), (.eps, fix.eps), (.climb, fix.climb),
            (.epc, fix.epc), (.magtrack, fix.magnetic_track), (.magvar, fix.magnetic_var),
            (.ecefx, fix.ecef.x), (.ecefy, fix.ecef.y), (.ecefz, fix.ecef.z),
            (.ecefvx, fix.ecef.vx), (.ecefvy, fix.ecef.vy), (.ecefvz, fix.ecef.vz),
            // libgps 3.22 reads `ecefpAcc` into `ecef.vAcc` and `ecefvAcc` into `ecef.pAcc`.
            (.ecefpAcc, fix.ecef.vAcc), (.ecefvAcc, fix.ecef.pAcc),
            (.sep, fix.sep), (.depth, fix.depth), (.dgpsAge, fix.dgps_age),
            (.wanglem, fix.wanglem), (.wangler, fix.wangler), (.wanglet, fix.wanglet),
            (.wspeedr, fix.wspeedr), (.wspeedt, fix.wspeedt),
        ]
        for (member, value) in numbers { report[member] = value }
        if fix.dgps_station >= 0, report[.dgpsAge] != nil { report[.dgpsSta] = Double(fix.dgps_station) }
        // A C string of up to 40 bytes, empty when the receiver named no datum.
        report.datum = withUnsafeBytes(of: fix.datum) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return report
    }
}

extension ReceiverReport.Sky {
    /// Maps libgps's decoded `SKY` report: its dilutions (each that is finite) and its
    /// satellites, as gpsd gives them (NaN elevation, azimuth or signal → `nil`; an `svid` of 0
    /// → no ``/LocationCore/Satellite/SignalIdentity``).
    ///
    /// Pure: reads `data` and nothing else.
    init(gpsd data: UnsafePointer<gps_data_t>) {
        let dop = data.pointee.dop
        let dilutions: [Dilution: Double] = [
            .xdop: dop.xdop, .ydop: dop.ydop, .vdop: dop.vdop, .tdop: dop.tdop, .hdop: dop.hdop, .gdop: dop.gdop, .pdop: dop.pdop,
        ]
        let count = min(max(Int(data.pointee.satellites_visible), 0), GPSDConnection.maximumSatellites)
        let satellites = (0..<count).map { index in
            let satellite = CGPS_satellite(data, Int32(index)).pointee
            let identity =
                satellite.svid == 0
                ? nil
                : Satellite.SignalIdentity(
                    gnssID: Int(satellite.gnssid), svID: Int(satellite.svid), signalID: Int(satellite.sigid),
                    frequencyID: satellite.freqid >= 0 ? Int(satellite.freqid) : nil, health: Int(satellite.health))
            return Satellite(
                id: Int(satellite.PRN), elevation: finite(satellite.elevation), azimuth: finite(satellite.azimuth),
                signal: finite(satellite.ss), used: satellite.used, signalIdentity: identity)
        }
        self.init(dilutions: dilutions, satellites: satellites)
    }

}

/// `value`, or `nil` for libgps's NaN (a member the report did not have).
private func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
