import Foundation
import LocationCore
import LocSimTestHelpers
import Testing

// Expected instants come from Foundation's Calendar (Gregorian, fixed-offset time zones) and
// ISO8601DateFormatter, an independent implementation of the same calendar arithmetic.

@Suite("UTC timestamps", .ownThread)
struct UTCTimestampTests {
    /// The instant of a wall-clock time at a fixed UTC offset, computed by Foundation.
    static func instant(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0,
        offsetSeconds: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: offsetSeconds), sourceLocation: sourceLocation)
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return try #require(calendar.date(from: components), sourceLocation: sourceLocation)
    }

    @Test("Parses whole seconds with Z, and without a zone as UTC")
    func wholeSeconds() throws {
        let expected = try Self.instant(2018, 11, 29, 1, 48, 58)
        #expect(UTCTimestamp.parse("2018-11-29T01:48:58Z") == expected)
        #expect(UTCTimestamp.parse("2018-11-29T01:48:58") == expected)
        #expect(UTCTimestamp.parse("2018-11-29t01:48:58z") == expected)
        #expect(UTCTimestamp.parse("2018-11-29 01:48:58Z") == expected)
        #expect(UTCTimestamp.parse("  2018-11-29T01:48:58Z\n") == expected)
        // Whether the zone was given: where a person types a time, one without is refused.
        #expect(UTCTimestamp.parseZoned("2018-11-29T01:48:58")?.hasZone == false)
        #expect(UTCTimestamp.parseZoned("2018-11-29T01:48:58.5 ")?.hasZone == false)
        for zoned in ["2018-11-29T01:48:58Z", "2018-11-29T10:48:58+09:00", "2018-11-29T01:48:58-00:00", "2018-11-29T10:48:58+09"] {
            #expect(UTCTimestamp.parseZoned(zoned)?.hasZone == true, "\(zoned)")
            #expect(UTCTimestamp.parseZoned(zoned)?.date == expected, "\(zoned)")
        }
        #expect(UTCTimestamp.parse(Array("2018-11-29T01:48:58Z".utf8)) == expected)
        #expect(UTCTimestamp.parse(Array("xx2018-11-29T01:48:58Zyy".utf8)[2..<22]) == expected)
    }

    @Test("Parses fractional seconds of any length", arguments: [
        (".5", 0.5), (".123", 0.123), (".123456", 0.123456), (",25", 0.25), (".000001", 0.000001), (".999999999", 0.999999999),
    ])
    func fractions(suffix: String, fraction: Double) throws {
        let whole = try Self.instant(2024, 2, 29, 23, 59, 59)
        let parsed = try #require(UTCTimestamp.parse("2024-02-29T23:59:59\(suffix)Z"))
        #expect(abs(parsed.timeIntervalSince(whole) - fraction) < 1e-6)
    }

    @Test("Parses ±hh:mm, ±hhmm and ±hh offsets", arguments: [
        ("+09:00", 9 * 3600), ("-05:30", -(5 * 3600 + 30 * 60)), ("+0930", 9 * 3600 + 30 * 60), ("-0800", -8 * 3600),
        ("+05", 5 * 3600), ("-00:00", 0), ("+23:59", 23 * 3600 + 59 * 60),
    ])
    func offsets(suffix: String, offset: Int) throws {
        let expected = try Self.instant(2019, 6, 30, 12, 34, 56).addingTimeInterval(Double(-offset))
        if TimeZone(secondsFromGMT: offset) != nil {  // Foundation's zones stop at ±18 h
            #expect(expected == (try Self.instant(2019, 6, 30, 12, 34, 56, offsetSeconds: offset)))
        }
        #expect(UTCTimestamp.parse("2019-06-30T12:34:56\(suffix)") == expected)
        let withFraction = try #require(UTCTimestamp.parse("2019-06-30T12:34:56.250\(suffix)"))
        #expect(abs(withFraction.timeIntervalSince(expected) - 0.25) < 1e-6)
    }

    @Test("Rejects malformed timestamps", arguments: [
        "", " ", "2018-11-29", "2018-11-29T", "2018-11-29T01:48", "2018-11-29T01:48:5", "18-11-29T01:48:58Z",
        "2018/11/29T01:48:58Z", "2018-11-29X01:48:58Z", "2018-1-29T01:48:58Z", "abcd-11-29T01:48:58Z",
        "2018-00-10T01:48:58Z", "2018-13-01T00:00:00Z", "2018-11-00T00:00:00Z", "2018-11-31T00:00:00Z",
        "2018-04-31T00:00:00Z", "2018-11-29T24:00:00Z", "2018-11-29T23:60:00Z", "2018-11-29T23:59:61Z",
        "2018-11-29T01:48:58.Z", "2018-11-29T01:48:58.5.5Z", "2018-11-29T01:48:58+24:00", "2018-11-29T01:48:58+05:60",
        "2018-11-29T01:48:58+5", "2018-11-29T01:48:58+05:3", "2018-11-29T01:48:58+05:", "2018-11-29T01:48:58ZZ",
        "2018-11-29T01:48:58+05:00Z", "2018-11-29T01:48:58 Z", "2018-11-29T01:48:58UTC", "2018-11-29T1:48:58Z",
        "2018-11-29T01:48:58-", "２０１８-11-29T01:48:58Z",
    ])
    func rejects(text: String) {
        #expect(UTCTimestamp.parse(text) == nil, "accepted \(text.debugDescription)")
    }

    @Test("29 February exists exactly in leap years (Gregorian rules)", arguments: [
        (2000, true), (2004, true), (2024, true), (2400, true), (1600, true),
        (1900, false), (2100, false), (2023, false), (2019, false), (1800, false),
    ])
    func leapYears(year: Int, isLeap: Bool) throws {
        let text = "\(year)-02-29T12:00:00Z"
        if isLeap {
            #expect(UTCTimestamp.parse(text) == (try Self.instant(year, 2, 29, 12)))
        } else {
            #expect(UTCTimestamp.parse(text) == nil)
        }
        // The day after 28 February is 29 February or 1 March, by the same rule.
        let feb28 = try #require(UTCTimestamp.parse("\(year)-02-28T12:00:00Z"))
        let next = UTCTimestamp.format(feb28.addingTimeInterval(86_400), fractionDigits: 0)
        #expect(next == (isLeap ? "\(year)-02-29T12:00:00Z" : "\(year)-03-01T12:00:00Z"))
    }

    @Test("A leap second (:60, the last minute of a UTC day) folds into the next day's first second; :60 elsewhere is refused")
    func leapSecond() throws {
        #expect(UTCTimestamp.parse("2016-12-31T23:59:60Z") == (try Self.instant(2017, 1, 1)))
        #expect(UTCTimestamp.parse("2017-01-01T08:59:60+09:00") == (try Self.instant(2017, 1, 1)))
        #expect(UTCTimestamp.parse("2016-12-31T18:29:60-05:30") == (try Self.instant(2017, 1, 1)))
        // Only the last minute of a UTC day has a 60th second.
        for notLeap in ["2024-03-15T12:30:60Z", "2016-12-31T23:59:60+09:00", "2016-12-31T23:58:60Z"] {
            #expect(UTCTimestamp.parse(notLeap) == nil, "\(notLeap)")
        }
    }

    @Test("Formats with milliseconds, rounded to the nearest, as Foundation reads it back")
    func formatsMilliseconds() throws {
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try Self.instant(2018, 11, 29, 1, 48, 58).addingTimeInterval(0.1237)
        #expect(UTCTimestamp.format(date) == "2018-11-29T01:48:58.124Z")
        #expect(UTCTimestamp.format(date, fractionDigits: 0) == "2018-11-29T01:48:58Z")
        #expect(UTCTimestamp.format(date, fractionDigits: 6) == "2018-11-29T01:48:58.123700Z")
        // Rounding carries into the seconds, minutes, ... and the year.
        let almost = try Self.instant(2019, 12, 31, 23, 59, 59).addingTimeInterval(0.9996)
        #expect(UTCTimestamp.format(almost) == "2020-01-01T00:00:00.000Z")
        let plain = ISO8601DateFormatter()
        var random = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            let instant = Date(timeIntervalSince1970: random.uniform(-2_208_988_800...7_258_118_400))  // 1900...2200
            let text = UTCTimestamp.format(instant)
            let parsed = try #require(reference.date(from: text), "Foundation cannot read \(text)")
            #expect(abs(parsed.timeIntervalSince(instant)) <= 0.000_5 + 1e-6, "\(text)")
            let whole = Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))
            #expect(UTCTimestamp.format(whole, fractionDigits: 0) == plain.string(from: whole))
        }
    }

    @Test("Round trip over many random instants (seeded), 1900 to 2200, at every precision")
    func roundTrip() throws {
        var random = SplitMix64(seed: 7)
        for i in 0..<20_000 {
            let instant = Date(timeIntervalSince1970: random.uniform(-2_208_988_800...7_258_118_400))
            let digits = i % 10
            let text = UTCTimestamp.format(instant, fractionDigits: digits)
            let parsed = try #require(UTCTimestamp.parse(text), "cannot parse \(text)")
            // Off by at most half a unit of the last digit, plus Date's own resolution (~1 µs
            // at these magnitudes).
            #expect(abs(parsed.timeIntervalSince(instant)) <= 0.5 * pow(10, -Double(digits)) + 2e-6, "\(text)")
            // Where a Date resolves the last digit (up to 10 µs), formatting the parsed value
            // gives the same text back.
            if digits <= 5 {
                #expect(UTCTimestamp.format(parsed, fractionDigits: digits) == text)
            }
        }
    }

    @Test("Formats far-future and pre-1970 instants with nanoseconds without overflowing")
    func formatsFarInstants() throws {
        for (year, text) in [(2300, "2300-01-01T00:00:00.250000000Z"), (9999, "9999-01-01T00:00:00.250000000Z"),
                             (1900, "1900-01-01T00:00:00.250000000Z")] {
            let date = try Self.instant(year, 1, 1).addingTimeInterval(0.25)
            #expect(UTCTimestamp.format(date, fractionDigits: 9) == text)
        }
        let beforeEpoch = Date(timeIntervalSince1970: -0.25)
        #expect(UTCTimestamp.format(beforeEpoch) == "1969-12-31T23:59:59.750Z")
    }
}

@Suite("UTC timestamps far from 1970", .ownThread)
struct UTCTimestampSaturationTests {
    @Test("Formatting never traps: dates beyond ±10¹⁵ s are written as the bound on their side, NaN as 1970",
          arguments: [1e300, -1e300, Double.infinity, -Double.infinity, 9.3e18, -9.3e18])
    func saturates(_ seconds: Double) {
        let bound = seconds > 0 ? UTCTimestamp.formattableSeconds : -UTCTimestamp.formattableSeconds
        let text = UTCTimestamp.format(Date(timeIntervalSince1970: seconds))
        #expect(text == UTCTimestamp.format(Date(timeIntervalSince1970: bound)))
        #expect(text.hasSuffix("Z"))
    }

    @Test("NaN formats as the epoch; the bound itself is written in full, with a year of more than four digits")
    func nanAndBound() {
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: .nan)) == UTCTimestamp.format(Date(timeIntervalSince1970: 0)))
        let far = UTCTimestamp.format(Date(timeIntervalSince1970: UTCTimestamp.formattableSeconds), fractionDigits: 0)
        // 10¹⁵ s is 31,688,738 Gregorian years of 365.2425 days after 1970.
        let years = Int((UTCTimestamp.formattableSeconds / (365.2425 * 86_400)).rounded(.down)) + 1970
        #expect(far.hasPrefix("\(years)-"), "\(far)")
    }
}
