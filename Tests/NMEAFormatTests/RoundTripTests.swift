import Foundation
import LocationCore
import NMEAFormat
import LocSimTestHelpers
import Testing

/// Fix → sentences → Fix, to NMEA's precision (NMEAPrecision), and the writer's exact text
/// against sentences rendered and checksummed by pynmea2 (Fixtures/make_reference.py).
@Suite("Round trips", .ownThread)
struct RoundTripTests {
    static func expectSame(
        _ read: Fix, _ original: Fix, accuracyTolerance: Double? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let what = "\(original) vs \(read)"
        #expect(abs(read.time.timeIntervalSince1970 - original.time.timeIntervalSince1970) <= Tolerance.seconds, "\(what)", sourceLocation: sourceLocation)
        #expect(read.mode == original.mode, "\(what)", sourceLocation: sourceLocation)
        #expect(read.source == .nmea, sourceLocation: sourceLocation)
        switch (read.coordinate, original.coordinate) {
        case (nil, nil): break
        case (let a?, let b?):
            #expect(abs(a.latitude - b.latitude) <= Tolerance.degrees, "\(what)", sourceLocation: sourceLocation)
            #expect(longitudeDifference(a.longitude, b.longitude) <= Tolerance.degrees, "\(what)", sourceLocation: sourceLocation)
        default: Issue.record("coordinate \(String(describing: read.coordinate)) ≠ \(String(describing: original.coordinate))", sourceLocation: sourceLocation)
        }
        func near(_ a: Double?, _ b: Double?, _ tolerance: Double, _ name: String, circle: Bool = false) {
            switch (a, b) {
            case (nil, nil): break
            case (let a?, let b?):
                let difference = circle ? courseDifference(a, b) : abs(a - b)
                #expect(difference <= tolerance, "\(name): \(what)", sourceLocation: sourceLocation)
            default: Issue.record("\(name) \(String(describing: a)) ≠ \(String(describing: b))", sourceLocation: sourceLocation)
            }
        }
        near(read.altitude, original.altitude, Tolerance.altitude, "altitude")
        near(read.speed, original.speed, Tolerance.speed, "speed")
        near(read.course, original.course, Tolerance.course, "course", circle: true)
        if let accuracyTolerance {
            near(read.horizontalAccuracy, original.horizontalAccuracy, accuracyTolerance, "horizontal accuracy")
            near(read.verticalAccuracy, original.verticalAccuracy, accuracyTolerance, "vertical accuracy")
        } else {
            #expect(read.horizontalAccuracy == nil && read.verticalAccuracy == nil, sourceLocation: sourceLocation)
        }
    }

    static func fix(_ values: ReferenceRow.FixValues) throws -> Fix {
        let time = Date(timeIntervalSince1970: values.time)
        let mode = try #require(FixMode(rawValue: values.mode))
        guard mode != .noFix, let lat = values.lat, let lon = values.lon else { return .noFix(time: time, source: .nmea) }
        return Fix(
            time: time, coordinate: try Coordinate(latitude: lat, longitude: lon), altitude: values.alt,
            speed: values.speed, course: values.course, mode: mode, source: .nmea)
    }

    @Test("The writer's text equals pynmea2's rendering, and reads back to the fix")
    func writerMatchesReference() throws {
        let rows = try Fixtures.jsonLines("reference.jsonl", as: ReferenceRow.self)
        #expect(rows.count > 400)
        for row in rows {
            let fix = try Self.fix(row.fix)
            let talker = try #require(NMEATalker(rawValue: row.talker))
            let text = try NMEAWriter(options: .init(talker: talker)).string(for: fix)
            #expect(text == row.text)
            let read = try NMEAReader.fixes(in: text).fixes
            try #require(read.count == 1)
            Self.expectSame(read[0], fix)
        }
    }

    /// Random fixes over the whole RMC date range, both hemispheres, near the poles and ±180°.
    static func randomFixes(count: Int, seed: UInt64) -> [Fix] {
        var rng = SplitMix64(seed: seed)
        let start = UTCTimestamp.parse("1980-01-01T00:00:00Z")!.timeIntervalSince1970
        let end = UTCTimestamp.parse("2079-12-31T23:59:59Z")!.timeIntervalSince1970
        return (0..<count).map { i in
            var time = Double.random(in: start...end, using: &rng)
            if i % 10 == 1 {  // within 20 ms of midnight
                time = (time / 86_400).rounded() * 86_400 + Double.random(in: -0.02...0.02, using: &rng)
                time = min(max(time, start), end)
            }
            let date = Date(timeIntervalSince1970: time)
            if i % 13 == 0 { return Fix.noFix(time: date, source: .nmea) }
            var latitude = Double.random(in: -90...90, using: &rng)
            var longitude = Double.random(in: -180..<180, using: &rng)
            switch i % 7 {
            case 1: latitude = (latitude < 0 ? -1 : 1) * Double.random(in: 89.9999...90, using: &rng)
            case 2: longitude = (longitude < 0 ? -1 : 1) * Double.random(in: 179.9999..<180, using: &rng)
            case 3: latitude = Double.random(in: -1e-7...1e-7, using: &rng)
            default: break
            }
            let altitude: Double? = i % 5 == 0 ? nil : Double.random(in: -430...9000, using: &rng)
            let speed: Double? = i % 6 == 0 ? nil : Double.random(in: 0...350, using: &rng)
            let course: Double? = i % 4 == 0 ? nil : Double.random(in: 0..<360, using: &rng)
            let mode: FixMode = i % 3 == 0 ? .twoDimensional : .threeDimensional
            return Fix(
                time: date, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
                altitude: altitude, speed: speed, course: course, mode: mode, source: .nmea)
        }
    }

    @Test("5,000 seeded random fixes round-trip one by one", arguments: [NMEATalker.gps, .combined])
    func randomFixesRoundTrip(talker: NMEATalker) throws {
        let writer = NMEAWriter(options: .init(talker: talker))
        for fix in Self.randomFixes(count: 5_000, seed: talker == .gps ? 1 : 2) {
            let text = try writer.string(for: fix)
            let read = try NMEAReader.fixes(in: text).fixes
            try #require(read.count == 1, "\(text)")
            Self.expectSame(read[0], fix)
        }
    }

    /// A track of fixes `step` seconds apart from `start`, crossing midnight and a year.
    static func track(from start: String, count: Int, step: Double) -> [Fix] {
        let t0 = UTCTimestamp.parse(start)!.timeIntervalSince1970
        var rng = SplitMix64(seed: 7)
        var coordinate = Coordinate(uncheckedLatitude: -33.9, longitude: 179.99)
        return (0..<count).map { i in
            coordinate = coordinate.destination(distance: 25, bearing: 80)
            return Fix(
                time: Date(timeIntervalSince1970: t0 + Double(i) * step), coordinate: coordinate,
                altitude: Double.random(in: 0...50, using: &rng), speed: 25 / step,
                course: 80, mode: .threeDimensional, source: .nmea)
        }
    }

    @Test("A track across midnight, the new year and the antimeridian round-trips as one stream")
    func trackRoundTrip() throws {
        let fixes = Self.track(from: "2023-12-31T23:50:00.00Z", count: 3_000, step: 0.37)
        let text = try NMEAWriter(options: .init(talker: .combined)).string(for: fixes)
        let read = try NMEAReader.fixes(in: text).fixes
        try #require(read.count == fixes.count)
        for (a, b) in zip(read, fixes) { Self.expectSame(a, b) }
    }

    @Test("Reduced sentence sets: GGA only (date from initialDate, rolled over at midnight), RMC only")
    func reducedSentenceSets() throws {
        let fixes = Self.track(from: "2024-02-28T23:55:00Z", count: 1_000, step: 1)
        // GGA only: no RMC, so the date comes from initialDate and rolls over at midnight twice.
        let ggaText = try NMEAWriter(options: .init(sentences: [.gga])).string(for: fixes)
        let gga = try NMEAReader.fixes(
            in: ggaText, options: .init(mode: .strict, initialDate: NMEADate(fixes[0].time))
        ).fixes
        try #require(gga.count == fixes.count)
        for (a, b) in zip(gga, fixes) {
            var expected = b
            expected.speed = nil
            expected.course = nil
            Self.expectSame(a, expected)
        }
        // RMC only: no altitude, so 2D.
        let rmcText = try NMEAWriter(options: .init(sentences: [.rmc])).string(for: fixes)
        let rmc = try NMEAReader.fixes(in: rmcText).fixes
        try #require(rmc.count == fixes.count)
        for (a, b) in zip(rmc, fixes) {
            var expected = b
            expected.altitude = nil
            expected.mode = .twoDimensional
            Self.expectSame(a, expected)
        }
        // VTG + GGA + GSA (speed from VTG km/h).
        let vtgText = try NMEAWriter(options: .init(sentences: [.gga, .vtg, .gsa])).string(for: fixes)
        let vtg = try NMEAReader.fixes(
            in: vtgText, options: .init(mode: .strict, initialDate: NMEADate(fixes[0].time))
        ).fixes
        try #require(vtg.count == fixes.count)
        for (a, b) in zip(vtg, fixes) { Self.expectSame(a, b) }
    }

    @Test("Accuracies cross only through an explicit UERE model")
    func accuracyModel() throws {
        let model = try #require(NMEAAccuracyModel(userEquivalentRangeError: 5))
        var fix = Self.track(from: "2024-06-01T12:00:00Z", count: 1, step: 1)[0]
        fix.horizontalAccuracy = 7.3
        fix.verticalAccuracy = 11.1

        let plain = try NMEAWriter().string(for: fix)
        #expect(try NMEAReader.fixes(in: plain).fixes.first?.horizontalAccuracy == nil)
        // Without a writer model the DOP fields are empty; a reader model then has nothing to scale.
        #expect(try NMEAReader.fixes(in: plain, options: .init(mode: .strict, accuracyModel: model)).fixes.first?.horizontalAccuracy == nil)

        let text = try NMEAWriter(options: .init(accuracyModel: model)).string(for: fix)
        let read = try NMEAReader.fixes(in: text, options: .init(mode: .strict, accuracyModel: model)).fixes
        try #require(read.count == 1)
        let dopUnit = 0.5 / pow(10, Double(NMEAPrecision.dopDecimals))
        Self.expectSame(read[0], fix, accuracyTolerance: 5 * dopUnit + 1e-9)
        // The same text read without a model: no accuracies invented.
        #expect(try NMEAReader.fixes(in: text).fixes.first?.horizontalAccuracy == nil)
        #expect(NMEAAccuracyModel(userEquivalentRangeError: 0) == nil)
        #expect(NMEAAccuracyModel(userEquivalentRangeError: .nan) == nil)
    }

    @Test("Values NMEA cannot carry are errors, not silently written")
    func invalidValues() throws {
        let base = Self.track(from: "2024-06-01T12:00:00Z", count: 1, step: 1)[0]
        var nanSpeed = base
        nanSpeed.speed = .nan
        var negativeSpeed = base
        negativeSpeed.speed = -1
        var infiniteAltitude = base
        infiniteAltitude.altitude = .infinity
        var tooLate = base
        tooLate.time = UTCTimestamp.parse("2080-01-01T00:00:00Z")!
        var tooEarly = base
        tooEarly.time = UTCTimestamp.parse("1979-12-31T23:59:59Z")!
        for fix in [nanSpeed, negativeSpeed, infiniteAltitude, tooLate, tooEarly] {
            #expect {
                try NMEAWriter().string(for: fix)
            } throws: { ($0 as? NMEAError)?.code == .invalidValue }
        }
        #expect {
            try NMEAWriter(options: .init(sentences: [NMEASentenceType(rawValue: "GLL")])).string(for: base)
        } throws: { ($0 as? NMEAError)?.code == .invalidValue }
        // GSV tells a sky; a fix given without one has none to tell.
        #expect(try NMEAWriter(options: .init(sentences: [.gsv])).string(for: base) == "")
        // Courses outside 0..<360 are normalised, not rejected.
        var wrapped = base
        wrapped.course = -90
        let read = try NMEAReader.fixes(in: NMEAWriter().string(for: wrapped)).fixes
        #expect(read.first?.course == 270)
    }
}
