import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// Decoding single sentences, compared with pynmea2's decoding (Fixtures/make_reference.py).
@Suite("Sentences", .ownThread)
struct SentenceTests {
    /// pynmea2 reads two-digit years with Python's pivot (69…99 → 19xx); this module with GPS's
    /// (80…99 → 19xx, 00…79 → 20xx). Compare the printed ddmmyy instead.
    static func sameDay(_ date: NMEADate?, _ iso: String?) -> Bool {
        guard let date, let iso else { return date == nil && iso == nil }
        let parts = iso.split(separator: "-").compactMap { Int($0) }
        return parts.count == 3 && parts[0] % 100 == date.year % 100 && parts[1] == date.month && parts[2] == date.day
    }

    static func expectCoordinate(_ coordinate: Coordinate?, _ lat: Double?, _ lon: Double?, _ text: some StringProtocol) {
        guard let lat, let lon else {
            #expect(coordinate == nil, "\(text)")
            return
        }
        #expect(abs((coordinate?.latitude ?? .nan) - lat) < 1e-12, "\(text)")
        #expect(longitudeDifference(coordinate?.longitude ?? .nan, lon) < 1e-12, "\(text)")
    }

    @Test("Sentence layouts from real receivers decode as pynmea2 decodes them")
    func variantsMatchPynmea2() throws {
        let rows = try Fixtures.jsonLines("variants.jsonl", as: VariantRow.self)
        #expect(rows.count >= 21)
        #expect(rows.contains { $0.type == "DTM" })
        for row in rows {
            let text = row.sentence
            let sentence = try NMEASentence(parsing: text)
            #expect(sentence.talker.rawValue == row.talker, "\(text)")
            #expect(sentence.type.rawValue == row.type, "\(text)")
            switch sentence {
            case .rmc(let s):
                Self.expectCoordinate(s.coordinate, row.lat, row.lon, text)
                #expect(abs((s.time?.secondsSinceMidnight ?? -1) - (row.seconds ?? -2)) < 1e-9, "\(text)")
                #expect(s.isActive == (row.status == "A"), "\(text)")
                #expect(Self.sameDay(s.date, row.date), "\(text)")
                #expect(s.speedKnots == row.knots, "\(text)")
                #expect(s.courseTrue == row.course, "\(text)")
                #expect(s.magneticVariation == row.variation, "\(text)")
                #expect(s.mode.map { String($0.rawValue) } == row.mode, "\(text)")
                #expect(s.navigationalStatus.map { String($0) } == row.navigationalStatus, "\(text)")
            case .gga(let s):
                Self.expectCoordinate(s.coordinate, row.lat, row.lon, text)
                #expect(abs((s.time?.secondsSinceMidnight ?? -1) - (row.seconds ?? -2)) < 1e-9, "\(text)")
                #expect(s.quality.rawValue == row.quality, "\(text)")
                #expect(s.satellitesInUse == row.satellitesInUse, "\(text)")
                #expect(s.hdop == row.hdop, "\(text)")
                #expect(s.altitudeMSL == row.altitude, "\(text)")
                #expect(s.geoidSeparation == row.geoidSeparation, "\(text)")
                #expect(s.differentialAge == row.age, "\(text)")
                #expect(s.differentialStation == row.station, "\(text)")
            case .vtg(let s):
                #expect(s.courseTrue == row.courseTrue, "\(text)")
                #expect(s.courseMagnetic == row.courseMagnetic, "\(text)")
                #expect(s.speedKnots == row.knots, "\(text)")
                #expect(s.speedKilometersPerHour == row.kmh, "\(text)")
                #expect(s.mode.map { String($0.rawValue) } == row.mode, "\(text)")
            case .gsa(let s):
                #expect(s.selection.map { String($0.rawValue) } == row.selection, "\(text)")
                #expect(s.fixMode?.rawValue == row.fixType, "\(text)")
                #expect(s.satellites == row.satelliteIDs, "\(text)")
                #expect(s.pdop == row.pdop, "\(text)")
                #expect(s.hdop == row.hdop, "\(text)")
                #expect(s.vdop == row.vdop, "\(text)")
                #expect(s.systemID == row.systemID, "\(text)")
            case .gsv:
                Issue.record("variants.jsonl has no GSV rows (SatelliteSentenceTests covers GSV): \(text)")
            case .dtm(let s):
                #expect(s.localDatum == row.localDatum, "\(text)")
                #expect(s.subdivision == row.subdivision, "\(text)")
                #expect(s.latitudeOffset == row.latitudeOffset, "\(text)")
                #expect(s.longitudeOffset == row.longitudeOffset, "\(text)")
                #expect(s.altitudeOffset == row.altitudeOffset, "\(text)")
                #expect(s.referenceDatum == row.referenceDatum, "\(text)")
            }
        }
    }

    @Test("Every writer-reference line decodes as pynmea2 decodes it")
    func referenceLinesMatchPynmea2() throws {
        for row in try Fixtures.jsonLines("reference.jsonl", as: ReferenceRow.self) {
            let e = row.pynmea2
            for line in row.text.split(separator: "\r\n") {
                switch try NMEASentence(parsing: line) {
                case .rmc(let s):
                    Self.expectCoordinate(s.coordinate, e.rmc.lat, e.rmc.lon, line)
                    #expect(abs(s.time!.secondsSinceMidnight - e.rmc.seconds) < 1e-9, "\(line)")
                    #expect(Self.sameDay(s.date, e.rmc.date), "\(line)")
                    #expect(s.speedKnots == e.rmc.knots, "\(line)")
                    #expect(s.courseTrue == e.rmc.course, "\(line)")
                    #expect(s.isActive == (e.rmc.status == "A"), "\(line)")
                case .gga(let s):
                    Self.expectCoordinate(s.coordinate, e.gga.lat, e.gga.lon, line)
                    #expect(s.quality.rawValue == e.gga.quality, "\(line)")
                    #expect(s.altitudeMSL == e.gga.altitude, "\(line)")
                case .vtg(let s):
                    #expect(s.speedKnots == e.vtg.knots, "\(line)")
                    #expect(s.speedKilometersPerHour == e.vtg.kmh, "\(line)")
                    #expect(s.courseTrue == e.vtg.course, "\(line)")
                case .gsa(let s):
                    #expect(s.fixMode?.rawValue == e.gsa.fixType, "\(line)")
                case .gsv, .dtm:
                    Issue.record("the writer reference has no GSV or DTM: \(line)")
                }
            }
        }
    }

    @Test("A sentence re-encodes to the same values, to the writer's precision")
    func encodedRoundTrip() throws {
        for row in try Fixtures.jsonLines("variants.jsonl", as: VariantRow.self) {
            let sentence = try NMEASentence(parsing: row.sentence)
            if case .gga(let gga) = sentence, let time = gga.time, time.secondsSinceMidnight > 86_399.995 {
                // 23:59:59.999 cannot be written with two decimals without changing the day.
                #expect(throws: NMEAError.self) { try sentence.encoded() }
                continue
            }
            let again = try NMEASentence(parsing: sentence.encoded())
            switch (sentence, again) {
            case (.gsa(let a), .gsa(let b)): #expect(a == b)
            case (.vtg(let a), .vtg(let b)): #expect(a == b)
            case (.dtm(let a), .dtm(let b)):
                // Every field reads back as written (a short DTM is written with all 8 fields).
                #expect(a == b)
            case (.rmc(let a), .rmc(let b)):
                #expect(a.date == b.date && a.isActive == b.isActive && a.mode == b.mode && a.speedKnots == b.speedKnots)
                #expect(a.navigationalStatus == b.navigationalStatus && a.magneticVariation == b.magneticVariation)
                #expect(abs((a.time?.secondsSinceMidnight ?? 0) - (b.time?.secondsSinceMidnight ?? 0)) <= Tolerance.seconds)
                #expect(abs((a.coordinate?.latitude ?? 0) - (b.coordinate?.latitude ?? 0)) <= Tolerance.degrees)
            case (.gga(let a), .gga(let b)):
                #expect(a.quality == b.quality && a.satellitesInUse == b.satellitesInUse && a.hdop == b.hdop)
                #expect(a.differentialStation == b.differentialStation && a.differentialAge == b.differentialAge)
                #expect(abs((a.altitudeMSL ?? 0) - (b.altitudeMSL ?? 0)) <= Tolerance.altitude)
                #expect(abs((a.geoidSeparation ?? 0) - (b.geoidSeparation ?? 0)) <= Tolerance.altitude)
                #expect(longitudeDifference(a.coordinate?.longitude ?? 0, b.coordinate?.longitude ?? 0) <= Tolerance.degrees)
            default: Issue.record("type changed: \(row.sentence)")
            }
        }
    }

    @Test("A leap second 23:59:60 folds into the next day's first second, as UTCTimestamp does")
    func leapSecond() throws {
        let sentence = try NMEASentence(parsing: TestNMEA.checksummed("GPRMC,235960.25,A,4807.038,N,01131.000,E,0.0,,311216,,,A"))
        guard case .rmc(let rmc) = sentence else { Issue.record("not RMC"); return }
        let time = try #require(rmc.time)
        #expect(time.hour == 23 && time.minute == 59)
        let date = try #require(rmc.date).date(at: time)
        #expect(date == UTCTimestamp.parse("2016-12-31T23:59:60.25Z"))
    }

    @Test("GSA with more than 12 satellite slots takes its DOPs from the last three fields")
    func extendedGSA() throws {
        let ids = (1...20).map { $0 < 10 ? "0\($0)" : "\($0)" }
        let body = "GPGSA,A,3," + ids.joined(separator: ",") + ",,,,,3.1,2.2,1.3"
        guard case .gsa(let gsa) = try NMEASentence(parsing: TestNMEA.checksummed(body)) else {
            Issue.record("not GSA")
            return
        }
        #expect(gsa.satellites == Array(1...20))
        #expect(gsa.pdop == 3.1 && gsa.hdop == 2.2 && gsa.vdop == 1.3)
        #expect(gsa.systemID == nil)
    }

    @Test("An RMC that puts its mode letter where the variation direction belongs (Motorola) is read")
    func rmcModeInVariationField() throws {
        guard case .rmc(let rmc) = try NMEASentence(parsing: TestNMEA.checksummed("GPRMC,212614.879,A,4839.9488,N,00214.8863,E,0.56,344.41,181207,0,A"))
        else {
            Issue.record("not RMC")
            return
        }
        #expect(rmc.mode == .autonomous)
        #expect(rmc.magneticVariation == nil)
        #expect(rmc.date == NMEADate(year: 2007, month: 12, day: 18))
    }

    @Test("Talkers: any two upper-case letters")
    func talkers() {
        #expect(NMEATalker(rawValue: "GN") == .combined)
        #expect(NMEATalker(rawValue: "gp") == nil)
        #expect(NMEATalker(rawValue: "GPS") == nil)
        #expect(NMEATalker(rawValue: "G1") == nil)
    }
}
