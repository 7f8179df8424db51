import Foundation
import LocationCore
import Testing

// Expected values: Fixtures/duration-conversions.csv, written by
// scripts/reference/make_duration_reference.py (exact rational arithmetic in Python).

@Suite("Duration to seconds and microseconds")
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

    @Test("Short duration text: ms, s and us, at most a day; anything else is refused")
    func shortText() {
        #expect(Duration(shortText: "800ms") == .milliseconds(800))
        #expect(Duration(shortText: "1.5s") == .milliseconds(1500))
        #expect(Duration(shortText: "250us") == .microseconds(250))
        #expect(Duration(shortText: "0s") == .zero)
        #expect(Duration(shortText: "86400s") == .seconds(86_400))
        for refused in ["", "s", "ms", "-1s", "1 s", " 1s", "1h", "86400.001s", "1e400s", "nans", "2", "1.5"] {
            #expect(Duration(shortText: refused) == nil, "\(refused)")
        }
    }
}
