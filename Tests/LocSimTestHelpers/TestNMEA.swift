public import Foundation

/// A few NMEA 0183 sentences for tests that must not depend on ../shared/data, with the values
/// a decoder should read back computed from the text actually written.
public enum TestNMEA {
    /// One epoch: RMC + GGA + GSA at `time`, a 3D fix at `latitude`/`longitude`/`altitude`.
    public struct Epoch: Sendable {
        public let sentences: [String]
        /// The position as written (ddmm.mmmm, so rounded to 1e-4 minute), in degrees.
        public let latitude: Double
        public let longitude: Double
        public let time: Date
    }

    public static func epoch(time: Date, latitude: Double, longitude: Double, altitude: Double = 25.0,
                      geoidSeparation: Double = 0, speedKnots: Double = 3.0, course: Double = 90.0) -> Epoch {
        let (hhmmss, ddmmyy) = stamps(time)
        let (lat, latHemisphere, latDegrees) = format(latitude, degreeDigits: 2, positive: "N", negative: "S")
        let (lon, lonHemisphere, lonDegrees) = format(longitude, degreeDigits: 3, positive: "E", negative: "W")
        let rmc = "GPRMC,\(hhmmss),A,\(lat),\(latHemisphere),\(lon),\(lonHemisphere),"
            + String(format: "%.2f,%.2f,", speedKnots, course) + "\(ddmmyy),,,A"
        let gga = "GPGGA,\(hhmmss),\(lat),\(latHemisphere),\(lon),\(lonHemisphere),1,08,0.9,"
            + String(format: "%.1f,M,%.1f,M,,", altitude, geoidSeparation)
        let gsa = "GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.5,0.9,1.2"
        return Epoch(sentences: [rmc, gga, gsa].map(checksummed), latitude: latDegrees, longitude: lonDegrees, time: time)
    }

    /// One epoch of a receiver without a fix: RMC void, GGA quality 0, GSA mode 1.
    public static func noFixEpoch(time: Date) -> [String] {
        let (hhmmss, ddmmyy) = stamps(time)
        return [
            "GPRMC,\(hhmmss),V,,,,,,,\(ddmmyy),,,N",
            "GPGGA,\(hhmmss),,,,,0,00,99.99,,,,,,",
            "GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99",
        ].map(checksummed)
    }

    /// One 2D epoch: RMC and GGA without altitude, GSA mode 2.
    public static func twoDimensionalEpoch(time: Date, latitude: Double, longitude: Double) -> Epoch {
        let (hhmmss, ddmmyy) = stamps(time)
        let (lat, latHemisphere, latDegrees) = format(latitude, degreeDigits: 2, positive: "N", negative: "S")
        let (lon, lonHemisphere, lonDegrees) = format(longitude, degreeDigits: 3, positive: "E", negative: "W")
        let sentences = [
            "GPRMC,\(hhmmss),A,\(lat),\(latHemisphere),\(lon),\(lonHemisphere),0.50,45.00,\(ddmmyy),,,A",
            "GPGGA,\(hhmmss),\(lat),\(latHemisphere),\(lon),\(lonHemisphere),1,04,2.5,,,,,,",
            "GPGSA,A,2,01,02,03,04,,,,,,,,,2.7,2.5,1.0",
        ].map(checksummed)
        return Epoch(sentences: sentences, latitude: latDegrees, longitude: lonDegrees, time: time)
    }

    private static func stamps(_ time: Date) -> (hhmmss: String, ddmmyy: String) {
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: time)
        let centiseconds = Int((Double(parts.nanosecond ?? 0) / 1e7).rounded())
        return (
            String(format: "%02d%02d%02d.%02d", parts.hour!, parts.minute!, parts.second!, centiseconds),
            String(format: "%02d%02d%02d", parts.day!, parts.month!, parts.year! % 100)
        )
    }

    /// `$BODY*CS` with the XOR checksum of BODY.
    public static func checksummed(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + "*" + String(format: "%02X", checksum)
    }

    /// ddmm.mmmm text, hemisphere, and the degrees that text denotes.
    private static func format(_ degrees: Double, degreeDigits: Int, positive: String, negative: String)
        -> (String, String, Double)
    {
        let magnitude = abs(degrees)
        var whole = Int(magnitude)
        var minutes = ((magnitude - Double(whole)) * 60 * 10_000).rounded() / 10_000
        if minutes >= 60 {
            whole += 1
            minutes -= 60
        }
        let text = String(format: "%0\(degreeDigits)d%07.4f", whole, minutes)
        let written = Double(whole) + minutes / 60
        return (text, degrees < 0 ? negative : positive, degrees < 0 ? -written : written)
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
