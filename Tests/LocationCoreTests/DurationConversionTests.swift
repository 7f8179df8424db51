import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

// Expected values: Fixtures/duration-conversions.csv, written by
// scripts/reference/make_duration_reference.py (exact rational arithmetic in Python).

@Suite("Duration to seconds and microseconds", .ownThread)
struct DurationConversionTests {
    struct Row: CustomStringConvertible {
        let duration: Duration
        let nearestSeconds: Double
        let wholeMicroseconds: Int64
        var description: String { "\(duration.components)" }
    }

    static func rows() throws -> [Row] {
        let url = try #require(
            Bundle.module.url(forResource: "duration-conversions", withExtension: "csv", subdirectory: "Fixtures"),
            "Fixtures/duration-conversions.csv is missing; run scripts/reference/make_duration_reference.py")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
        return try lines.map { line in
            let fields = line.split(separator: ",").map(String.init)
            try #require(fields.count == 4, "\(line)")
            return Row(
                duration: Duration(
                    secondsComponent: try #require(Int64(fields[0])), attosecondsComponent: try #require(Int64(fields[1]))),
                nearestSeconds: try #require(Double(fields[2])), wholeMicroseconds: try #require(Int64(fields[3])))
        }
    }

    @Test("Whole microseconds truncate toward zero and saturate at the Int64 limits, as the reference computes")
    func wholeMicroseconds() throws {
        let rows = try Self.rows()
        #expect(rows.count > 150)
        #expect(rows.contains { $0.wholeMicroseconds == .max } && rows.contains { $0.wholeMicroseconds == .min })
        for row in rows {
            #expect(row.duration.wholeMicroseconds == row.wholeMicroseconds, "\(row)")
        }
    }

    @Test("Fractional seconds are within one ulp of the exactly rounded value, and finite for every duration")
    func fractionalSeconds() throws {
        var exact = 0
        let rows = try Self.rows()
        for row in rows {
            let value = row.duration.fractionalSeconds
            #expect(value.isFinite, "\(row)")
            #expect(abs(value - row.nearestSeconds) <= row.nearestSeconds.ulp, "\(row): \(value)")
            if value == row.nearestSeconds { exact += 1 }
        }
        // Most rows round exactly (the fraction is divided by an exact 10¹⁸ and rounded once).
        #expect(exact * 10 >= rows.count * 9, "\(exact) of \(rows.count) exact")
    }

    @Test("Durations a double holds exactly convert exactly, with their sign")
    func exactValues() {
        #expect(Duration.milliseconds(1500).fractionalSeconds == 1.5)
        #expect(Duration.milliseconds(-250).fractionalSeconds == -0.25)
        #expect(Duration.zero.fractionalSeconds == 0)
        #expect(Duration.seconds(86_400).fractionalSeconds == 86_400)
        #expect(Duration.nanoseconds(1_999).wholeMicroseconds == 1)
        #expect(Duration.nanoseconds(-1_999).wholeMicroseconds == -1)
    }

    @Test("Narrowing for 32-bit C APIs clamps instead of trapping")
    func narrowing() {
        #expect(Int32(clamping: Duration.seconds(Int64.max).wholeMicroseconds) == .max)
        #expect(Int32(clamping: Duration.seconds(Int64.min).wholeMicroseconds) == .min)
        #expect(Int32(clamping: Duration.seconds(2).wholeMicroseconds) == 2_000_000)
    }

    @Test(
        "Duration text: bare seconds, units (ms, us, s, m, h, d, combined once each), clocks; negative and malformed told apart",
        arguments: [
            ("30", 30_000_000), ("1.5", 1_500_000), ("0", 0), ("500ms", 500_000), ("250us", 250), ("30s", 30_000_000),
            ("5m", 300_000_000), ("2h", 7_200_000_000), ("1d", 86_400_000_000), ("1h30m", 5_400_000_000),
            ("1m30s", 90_000_000), ("1.5s", 1_500_000), ("0.5h", 1_800_000_000), ("1:30", 90_000_000),
            ("1:30:00", 5_400_000_000), ("49:00", 2_940_000_000), ("1:02:03.5", 3_723_500_000), ("0:00", 0),
        ] as [(String, Int64)])
    func durationText(text: String, microseconds: Int64) {
        #expect(DurationText.parse(text) == .success(.microseconds(microseconds)))
    }

    @Test("Duration text that is not one", arguments: [
        "", "s", "ms", "1 s", " 1s", "1e3", "inf", "nan", "1h1h", "1x", "1:60", "1:30:60", "1::2", ":30", "1:", "1.s", ".5s",
        "1:2:3:4", "1.5:00", "0x10", "１s",
    ])
    func durationTextRefused(text: String) {
        #expect(DurationText.parse(text) == .failure(.malformed), "\(text)")
    }

    @Test(
        "A well-written duration past 10^12 s is told as too long, not as badly written",
        arguments: ["100000000d", "99999999999999999s", "1000000000001", "277777778h", "1" + String(repeating: "0", count: 400) + "s", "9999999999999:00"])
    func durationTextTooLong(text: String) {
        #expect(DurationText.parse(text) == .failure(.tooLong), "\(text)")
        #expect(DurationText.parse("1000000000000") == .success(.seconds(1_000_000_000_000)))
        #expect(DurationText.parse("-100000000d") == .failure(.negative))
    }

    @Test("A negative duration is told as such", arguments: ["-1", "-5s", "-1:30", "-500ms"])
    func durationTextNegative(text: String) {
        #expect(DurationText.parse(text) == .failure(.negative))
        #expect(DurationText.Problem.negative.description == "must not be negative")
    }

    @Test("A duration above 0 that rounds to 0us is refused as too fine, not read as 0 (then told 'got 0'); 0.5us and up round to whole us",
          arguments: ["0.0000001s", "0.0000001", "0.0004ms", "0:00.0000004", "0.4us"])
    func durationTextBelowResolution(text: String) {
        #expect(DurationText.parse(text) == .failure(.belowResolution), "\(text)")
        #expect(DurationText.parse("0.0000005s") == .success(.microseconds(1)))
        #expect(DurationText.Problem.belowResolution.description == "must be 0 or at least 1us (durations are kept to the microsecond)")
    }

    @Test("A clock reads back as the whole seconds it was given, with or without hours", arguments: [0, 59, 61, 3_599, 3_600, 86_399, 360_061])
    func clockRoundTrip(seconds: Int) {
        for alwaysHours in [false, true] {
            let text = DurationText.clockText(Double(seconds) + 0.4, alwaysHours: alwaysHours)
            #expect(DurationText.parse(text) == .success(.seconds(seconds)), "\(text)")
            #expect(text.split(separator: ":").count == (alwaysHours || seconds >= 3_600 ? 3 : 2), "\(text)")
        }
        #expect(DurationText.clockText(-Double(seconds) - 0.4) == (seconds == 0 ? "" : "-") + DurationText.clockText(Double(seconds)))
        #expect(DurationText.clockText(.nan) == "-")
    }
}
