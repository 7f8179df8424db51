#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import LocationCore

/// NMEA's speed unit: one knot, 1,852 m an hour, in metres per second. The package's one
/// conversion (RMC and VTG speeds, the Android console's `geo fix` velocity).
package enum Knot {
    package static let metresPerSecond = 1852.0 / 3600.0
}

/// The two-letter talker identifier that starts an NMEA address (`GP` in `$GPRMC`).
///
/// Any two upper-case ASCII letters are accepted on read (receivers use `GP`, `GN`, `GL`, `GA`,
/// `BD`, `GB`, `GQ`, `QZ`, `II`, …); the writer uses ``gps`` or ``combined`` in practice.
public struct NMEATalker: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The two letters, for example `"GP"`.
    public let rawValue: String

    /// Creates a talker from exactly two upper-case ASCII letters; `nil` for anything else.
    public init?(rawValue: String) {
        let bytes = Array(rawValue.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        self.rawValue = rawValue
    }

    /// For two letters already checked: the constants below, and the parser's talker field.
    init(unchecked: String) { rawValue = unchecked }

    /// `GP`: GPS (and, on older receivers, any GNSS).
    public static let gps = NMEATalker(unchecked: "GP")
    /// `GN`: a solution combining several constellations.
    public static let combined = NMEATalker(unchecked: "GN")
    /// `GL`: GLONASS.
    public static let glonass = NMEATalker(unchecked: "GL")
    /// `GA`: Galileo.
    public static let galileo = NMEATalker(unchecked: "GA")
    /// `GB`: BeiDou (NMEA 4.10 spelling).
    public static let beidou = NMEATalker(unchecked: "GB")
    /// `BD`: BeiDou (older spelling still emitted by many receivers).
    public static let beidouLegacy = NMEATalker(unchecked: "BD")

    public var description: String { rawValue }
}

/// A UTC time of day as NMEA writes it (`hhmmss.ss`).
///
/// Stored as seconds since midnight, 0 ..< 86 401 (the last second admits the leap second
/// `23:59:60`).
public struct NMEATimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 00:00:00 UTC, 0 ..< 86 401.
    public let secondsSinceMidnight: Double

    /// Creates a time of day from its components.
    ///
    /// - Parameters:
    ///   - hour: 0…23.
    ///   - minute: 0…59.
    ///   - second: 0 ..< 60, or 60 ..< 61 (a leap second) only at 23:59.
    /// - Returns: `nil` when a component is out of range or not finite.
    public init?(hour: Int, minute: Int, second: Double) {
        guard (0...23).contains(hour), (0...59).contains(minute), second.isFinite, second >= 0 else { return nil }
        guard second < 60 || (second < 61 && hour == 23 && minute == 59) else { return nil }
        secondsSinceMidnight = Double(hour * 3600 + minute * 60) + second
    }

    /// Creates a time of day from seconds since midnight, 0 ..< 86 401; `nil` outside that range.
    public init?(secondsSinceMidnight: Double) {
        guard secondsSinceMidnight.isFinite, secondsSinceMidnight >= 0, secondsSinceMidnight < 86_401 else {
            return nil
        }
        self.secondsSinceMidnight = secondsSinceMidnight
    }

    /// 0…23.
    public var hour: Int { min(23, Int(secondsSinceMidnight) / 3600) }
    /// 0…59.
    public var minute: Int { secondsSinceMidnight >= 86_400 ? 59 : Int(secondsSinceMidnight) % 3600 / 60 }
    /// Seconds within the minute, 0 ..< 60 (60 ..< 61 during a leap second).
    public var second: Double { secondsSinceMidnight - Double(hour * 3600 + minute * 60) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSinceMidnight < rhs.secondsSinceMidnight }

    /// `hh:mm:ss.sss`.
    public var description: String {
        let millis = Int((second * 1000).rounded(.down))
        return pad2(hour) + ":" + pad2(minute) + ":" + pad2(millis / 1000) + "." + pad(millis % 1000, 3)
    }
}

/// A calendar date as NMEA's RMC writes it (`ddmmyy`).
///
/// RMC carries a two-digit year. This module reads `80`…`99` as 1980…1999 and `00`…`79` as
/// 2000…2079 (GPS time starts in 1980), and the writer rejects years outside 1980…2079.
public struct NMEADate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The years RMC's two-digit year can say, and so the years a writer takes.
    package static let writableYears = 1980...2079

    /// The UTC year of `date` (for checking a time against ``writableYears`` before writing).
    package static func year(of date: Date) -> Int {
        CivilCalendar.civil(fromDays: Int((date.timeIntervalSince1970 / 86_400).rounded(.down))).year
    }

    /// Four-digit year.
    public let year: Int
    /// 1…12.
    public let month: Int
    /// 1…31, valid for the month.
    public let day: Int

    /// Creates a date; `nil` when the month or day is out of range for the year.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The UTC date of `date` (saturating about 27 billion years from 1970; not-a-number is 1970-01-01).
    public init(_ date: Date) {
        let dayCount = (date.timeIntervalSince1970 / 86_400).rounded(.down)
        let days = dayCount.isNaN ? 0 : Int(max(-1e13, min(1e13, dayCount)))
        (year, month, day) = CivilCalendar.civil(fromDays: days)
    }

    /// Days since 1970-01-01.
    var daysSince1970: Int { CivilCalendar.days(year: year, month: month, day: day) }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day) }

    /// `yyyy-mm-dd`.
    public var description: String { pad(year, 4) + "-" + pad2(month) + "-" + pad2(day) }

    /// The instant `time` on this date, UTC. A leap second `23:59:60.x` becomes the next day's
    /// `00:00:00.x` (`Date` has no leap seconds).
    public func date(at time: NMEATimeOfDay) -> Date {
        Date(timeIntervalSince1970: Double(daysSince1970) * 86_400 + time.secondsSinceMidnight)
    }
}

/// The positioning-mode indicator of NMEA 2.3 and later (RMC field 12, VTG field 9).
public enum NMEAModeIndicator: Character, Sendable, Hashable, CaseIterable {
    /// `A`: autonomous GNSS fix.
    case autonomous = "A"
    /// `D`: differential (SBAS, DGPS).
    case differential = "D"
    /// `E`: estimated (dead reckoning).
    case estimated = "E"
    /// `F`: RTK float.
    case rtkFloat = "F"
    /// `M`: manual input.
    case manual = "M"
    /// `N`: data not valid.
    case notValid = "N"
    /// `P`: precise.
    case precise = "P"
    /// `R`: RTK fixed integer.
    case rtkFixed = "R"
    /// `S`: simulator.
    case simulator = "S"

    /// `true` for every indicator except ``notValid``.
    public var isValid: Bool { self != .notValid }
}

/// GGA's fix-quality indicator (field 6). Extensible; unknown digits are kept as raw values.
public struct NMEAFixQuality: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The digit as sent, 0…9.
    public let rawValue: Int
    /// Wraps a quality digit, 0…9 (others cannot be encoded).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `0`: no fix. The only quality without a position.
    public static let invalid = NMEAFixQuality(rawValue: 0)
    /// `1`: autonomous GNSS fix.
    public static let gps = NMEAFixQuality(rawValue: 1)
    /// `2`: differential GNSS fix (DGPS, SBAS).
    public static let differential = NMEAFixQuality(rawValue: 2)
    /// `3`: PPS fix.
    public static let pps = NMEAFixQuality(rawValue: 3)
    /// `4`: RTK, fixed integers.
    public static let rtkFixed = NMEAFixQuality(rawValue: 4)
    /// `5`: RTK, float.
    public static let rtkFloat = NMEAFixQuality(rawValue: 5)
    /// `6`: estimated (dead reckoning).
    public static let estimated = NMEAFixQuality(rawValue: 6)
    /// `7`: manual input.
    public static let manual = NMEAFixQuality(rawValue: 7)
    /// `8`: simulation.
    public static let simulation = NMEAFixQuality(rawValue: 8)

    /// `true` for every quality except ``invalid``.
    public var hasPosition: Bool { rawValue != 0 }

    public var description: String { String(rawValue) }
}

/// How many metres one unit of DOP is worth: an explicit, opt-in conversion between NMEA's
/// dilution of precision and ``/LocationCore/Fix``'s accuracy radii.
///
/// NMEA does not carry accuracies, only DOPs. Accuracy ≈ UERE × DOP, where the user equivalent
/// range error (UERE) depends on the receiver and conditions (a few metres for a consumer GPS).
/// Nothing converts DOPs to accuracies unless a model is given to ``NMEAReader/Options`` or
/// ``NMEAWriter/Options``.
///
/// - Reader: `horizontalAccuracy = uere × HDOP`, `verticalAccuracy = uere × VDOP`.
/// - Writer: `HDOP = horizontalAccuracy / uere`, `VDOP = verticalAccuracy / uere`, and
///   `PDOP = √(HDOP² + VDOP²)` when both are known.
public struct NMEAAccuracyModel: Sendable, Hashable {
    /// The user equivalent range error in metres, finite and > 0.
    public let userEquivalentRangeError: Double

    /// - Parameter userEquivalentRangeError: metres per unit of DOP, finite and > 0.
    /// - Returns: `nil` when the value is not finite or not positive.
    public init?(userEquivalentRangeError: Double) {
        guard userEquivalentRangeError.isFinite, userEquivalentRangeError > 0 else { return nil }
        self.userEquivalentRangeError = userEquivalentRangeError
    }

    /// gpsd's model for an autonomous GPS fix: 19 m per unit of HDOP. gpsd reports
    /// `eph = 19 m × HDOP` for a GGA with fix quality 1 (its receiver logs show it:
    /// `ublox-lea-5h`'s HDOP 2.51 becomes eph 47.69 m), so fixes written with this model reach
    /// gpsd's clients with the accuracy they had, and a log read with it gets gpsd's accuracy.
    /// (gpsd's vertical figure uses 23 m per VDOP, so `epv` is not carried over as exactly.)
    public static let gpsd = NMEAAccuracyModel(checkedUserEquivalentRangeError: 19)

    private init(checkedUserEquivalentRangeError: Double) {
        userEquivalentRangeError = checkedUserEquivalentRangeError
    }
}

// MARK: - Small helpers shared by the module

@inline(__always) func pad2(_ value: Int) -> String { DecimalText.zeroPadded(value, width: 2) }

@inline(__always) func pad(_ value: Int, _ width: Int) -> String { DecimalText.zeroPadded(value, width: width) }

