import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// Each kind of bad input: strict mode throws an error that says where; lenient mode skips the
/// sentence, counts it, and still returns the fixes around it.
@Suite("Bad input", .ownThread)
struct ErrorTests {
    static let rmc1 = TestNMEA.checksummed("GPRMC,120000.00,A,4807.03800,N,01131.00000,E,1.000,45.00,230394,,,A")
    static let gga1 = TestNMEA.checksummed("GPGGA,120000.00,4807.03800,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,")
    static let rmc2 = TestNMEA.checksummed("GPRMC,120001.00,A,4807.03900,N,01131.00100,E,1.000,45.00,230394,,,A")
    static let gga2 = TestNMEA.checksummed("GPGGA,120001.00,4807.03900,N,01131.00100,E,1,08,0.90,545.40,M,46.90,M,,")

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bad: String
        let code: NMEAError.Code
        /// The expected field index, if the error is about one field.
        var field: Int? = nil
        /// Text in `bad` at which the expected column points.
        var columnAt: String? = nil
        /// The bad text ends the input without a line ending.
        var atEndWithoutNewline = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "bad checksum",
            bad: String(TestNMEA.checksummed("GPGGA,120000.50,4807.03800,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,").dropLast(2)) + "00",
            code: .badChecksum, columnAt: "*"),
        Case(
            name: "checksum not hex", bad: "$GPGGA,120000.50,4807.03800,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,*ZZ",
            code: .badChecksum, columnAt: "ZZ"),
        Case(
            name: "missing checksum", bad: "$GPGGA,120000.50,4807.03800,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,",
            code: .missingChecksum),
        Case(
            name: "truncated at the end of the input", bad: "$GPGGA,120002.00,4807.0",
            code: .truncated, atEndWithoutNewline: true),
        Case(
            name: "truncated by the next sentence",
            bad: "$GPGGA,120000.50,4807.0" + TestNMEA.checksummed("GPVTG,45.00,T,,M,1.000,N,1.852,K,A"),
            code: .truncated),
        Case(
            name: "truncated checksum", bad: String(TestNMEA.checksummed("GPGGA,120000.50,,,,,0,00,,,,,,,").dropLast()),
            code: .truncated, columnAt: "*"),
        Case(
            name: "non-numeric latitude",
            bad: TestNMEA.checksummed("GPGGA,120000.50,4807.0x8,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,"),
            code: .malformedField, field: 2, columnAt: "4807.0x8"),
        Case(
            name: "non-numeric altitude",
            bad: TestNMEA.checksummed("GPGGA,120000.50,4807.038,N,01131.00000,E,1,08,0.90,5x5.40,M,46.90,M,,"),
            code: .malformedField, field: 9, columnAt: "5x5.40"),
        Case(
            name: "HDOP with more decimals than a double can scale (leading zeros)",
            bad: TestNMEA.checksummed("GPGGA,120000.50,4807.038,N,01131.00000,E,1,08,0.000000000000000000000001,545.40,M,46.90,M,,"),
            code: .malformedField, field: 8, columnAt: "0.000000000000000000000001"),
        Case(
            name: "minutes of 60 or more",
            bad: TestNMEA.checksummed("GPRMC,120000.50,A,4860.00000,N,01131.00000,E,1.0,45.0,230394,,,A"),
            code: .malformedField, field: 3, columnAt: "4860.00000"),
        Case(
            name: "bad hemisphere", bad: TestNMEA.checksummed("GPRMC,120000.50,A,4807.038,Q,01131.00000,E,1.0,45.0,230394,,,A"),
            code: .malformedField, field: 4, columnAt: "Q"),
        Case(
            name: "bad date", bad: TestNMEA.checksummed("GPRMC,120000.50,A,4807.038,N,01131.00000,E,1.0,45.0,310294,,,A"),
            code: .malformedField, field: 9, columnAt: "310294"),
        Case(
            name: "bad time", bad: TestNMEA.checksummed("GPGGA,126000.50,4807.038,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,"),
            code: .malformedField, field: 1, columnAt: "126000.50"),
        Case(
            name: "empty fix quality", bad: TestNMEA.checksummed("GPGGA,120000.50,4807.038,N,01131.00000,E,,08,0.90,545.40,M,46.90,M,,"),
            code: .missingField, field: 6),
        Case(
            name: "latitude without hemisphere",
            bad: TestNMEA.checksummed("GPGGA,120000.50,4807.038,,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,"),
            code: .missingField, field: 3),
        Case(
            name: "wrong field count (GGA with 13 fields)",
            bad: TestNMEA.checksummed("GPGGA,120000.50,4807.038,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,"),
            code: .wrongFieldCount),
        Case(
            name: "wrong field count (RMC with 14 fields)",
            bad: TestNMEA.checksummed("GPRMC,120000.50,A,4807.038,N,01131.00000,E,1.0,45.0,230394,,,A,S,X"),
            code: .wrongFieldCount),
        Case(name: "unknown sentence type", bad: TestNMEA.checksummed("GPXYZ,1,2,3"), code: .unsupportedSentence, field: 0),
        Case(name: "proprietary sentence", bad: TestNMEA.checksummed("PGRME,15.0,M,45.0,M,25.0,M"), code: .unsupportedSentence, field: 0),
        Case(name: "noise before the sentence", bad: "\u{01}\u{02}garbage", code: .unexpectedBytes, columnAt: "\u{01}"),
        Case(
            name: "line too long", bad: "$GPTXT," + String(repeating: "A", count: 5000),
            code: .lineTooLong),
    ]

    static func input(_ c: Case) -> (text: String, badLine: Int) {
        if c.atEndWithoutNewline {
            return ([rmc1, gga1, rmc2, gga2].map { $0 + "\r\n" }.joined() + c.bad, 5)
        }
        return ([rmc1, gga1, c.bad, rmc2, gga2].map { $0 + "\r\n" }.joined(), 3)
    }

    @Test("Strict mode throws, naming line, field, column and sentence", arguments: cases)
    func strictThrows(_ c: Case) throws {
        let (text, badLine) = Self.input(c)
        do {
            let result = try NMEAReader.fixes(in: text, options: .init(mode: .strict, sourceName: "test.nmea"))
            Issue.record("no error; read \(result.fixes.count) fixes")
        } catch {
            #expect(error.code == c.code, "\(error)")
            #expect(error.line == badLine, "\(error)")
            #expect(error.source == "test.nmea")
            #expect(error.field == c.field, "\(error)")
            if let columnAt = c.columnAt {
                let offset = try #require(c.bad.range(of: columnAt)).lowerBound
                #expect(error.column == c.bad.utf8.distance(from: c.bad.startIndex, to: offset) + 1, "\(error)")
            }
            #expect(!error.sentence.isEmpty)
            #expect(error.description.hasPrefix("test.nmea:\(badLine):"), "\(error)")
        }
    }

    @Test("Lenient mode skips and counts, keeping the fixes around the bad line", arguments: cases)
    func lenientCounts(_ c: Case) throws {
        let (text, badLine) = Self.input(c)
        let result = try NMEAReader.fixes(in: text, options: .lenient)
        #expect(result.fixes.count == 2)
        #expect(result.fixes.allSatisfy { $0.hasPosition })
        #expect(result.statistics.skipped == [c.code: 1], "\(result.statistics.firstErrors)")
        #expect(result.statistics.firstErrors.first?.line == badLine)
    }

    @Test("A field with an ESC (line noise) is quoted as \\x1B in the message, as in the sentence: nothing reaches the terminal")
    func controlBytesEscaped() throws {
        let bare = String(Self.rmc1.prefix { $0 != "*" })
        let fields = bare.split(separator: ",", omittingEmptySubsequences: false)
        let noisy = fields.enumerated().map { $0.offset == 3 ? $0.element.prefix(4) + "\u{1B}[31m" + $0.element.dropFirst(4) : $0.element }
            .joined(separator: ",")
        do {
            _ = try NMEAReader.fixes(in: noisy + "\n", options: .init(mode: .strict, requiresChecksum: false))
            Issue.record("no error")
        } catch {
            #expect(!error.message.contains("\u{1B}") && !error.description.contains("\u{1B}"), "\(error)")
            #expect(error.message.contains("\\x1B[31m"), "\(error.message)")
        }
    }

    @Test("A missing checksum is accepted when checksums are optional")
    func optionalChecksum() throws {
        let bare = String(Self.gga1.prefix { $0 != "*" })
        let result = try NMEAReader.fixes(
            in: [Self.rmc1, bare].joined(separator: "\n") + "\n", options: .init(mode: .strict, requiresChecksum: false))
        #expect(result.fixes.count == 1)
        #expect(result.fixes.first?.altitude == 545.4)
        // A wrong checksum is still wrong.
        #expect(throws: NMEAError.self) {
            try NMEAReader.fixes(
                in: String(Self.gga1.dropLast(2)) + "00", options: .init(mode: .strict, requiresChecksum: false))
        }
    }

    @Test("An epoch before any RMC has no date: strict throws, lenient counts, initialDate supplies it")
    func missingDate() throws {
        let text = [Self.gga1, Self.rmc2, Self.gga2].joined(separator: "\r\n") + "\r\n"
        #expect {
            try NMEAReader.fixes(in: text, options: .strict)
        } throws: { error in
            (error as? NMEAError)?.code == .missingDate && (error as? NMEAError)?.line == 1
                && (error as? NMEAError)?.message == "no date yet for the epoch at 12:00:00.000: no RMC sentence has given one"
        }
        // A receiver without a fix sends RMCs with an empty date: the message does not deny the RMC it quotes.
        let noDate = "$GPRMC,205150.00,V,,,,,,,,,,,V*4a\r\n"
        #expect {
            try NMEAReader.fixes(in: noDate, options: .strict)
        } throws: { error in
            (error as? NMEAError)?.message == "no date yet for the epoch at 20:51:50.000: its RMC's date field is empty, and no RMC before it gave one"
        }
        let lenient = try NMEAReader.fixes(in: text, options: .lenient)
        #expect(lenient.fixes.count == 1)
        #expect(lenient.statistics.skipped == [.missingDate: 1])

        let supplied = try NMEAReader.fixes(
            in: text, options: .init(mode: .strict, initialDate: NMEADate(year: 1994, month: 3, day: 23)))
        #expect(supplied.fixes.map(\.time) == [
            UTCTimestamp.parse("1994-03-23T12:00:00Z"), UTCTimestamp.parse("1994-03-23T12:00:01Z"),
        ])
    }

    @Test("Comment lines are skipped unless comments are turned off")
    func comments() throws {
        let text = "# a gpsd log header\r\n" + Self.rmc1 + "\r\n"
        #expect(try NMEAReader.fixes(in: text).fixes.count == 1)
        #expect {
            try NMEAReader.fixes(in: text, options: .init(mode: .strict, allowsCommentLines: false))
        } throws: { ($0 as? NMEAError)?.code == .unexpectedBytes }
    }

    @Test("A stray '$' before a sentence is noise; the sentence is still read")
    func strayDollar() throws {
        let result = try NMEAReader.fixes(in: "$" + Self.rmc1 + "\r\n", options: .lenient)
        #expect(result.fixes.count == 1)
        #expect(result.statistics.skipped == [.unexpectedBytes: 1])
    }

    @Test("A UTF-8 byte order mark at the start of the file is its encoding, not noise; one on a later line is noise")
    func byteOrderMark() throws {
        let bom = "\u{FEFF}"
        let first = try NMEAReader.fixes(in: bom + Self.rmc1 + "\r\n", options: .init(mode: .strict))
        #expect(first.fixes.count == 1)
        #expect(first.statistics.skipped.isEmpty)
        let later = try NMEAReader.fixes(in: Self.rmc1 + "\r\n" + bom + Self.rmc1 + "\r\n", options: .lenient)
        #expect(later.statistics.skipped == [.unexpectedBytes: 1])
    }

    @Test("Single-sentence parsing reports line 1 and the column")
    func singleSentence() {
        let line = "  $GPGGA,1200x0.50,4807.038,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,*00"
        let starColumn = Array(line.utf8).firstIndex(of: UInt8(ascii: "*"))! + 1
        #expect {
            try NMEASentence(parsing: line)
        } throws: { error in
            guard let error = error as? NMEAError else { return false }
            return error.code == .badChecksum && error.line == 1 && error.column == starColumn
        }
        let fixed = "  " + TestNMEA.checksummed("GPGGA,1200x0.50,4807.038,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,")
        let timeColumn = Array(fixed.utf8).firstIndex(of: UInt8(ascii: "1"))! + 1
        #expect {
            try NMEASentence(parsing: fixed)
        } throws: { error in
            guard let error = error as? NMEAError else { return false }
            return error.code == .malformedField && error.field == 1 && error.column == timeColumn
        }
        #expect(throws: NMEAError.self) { try NMEASentence(parsing: "GPGGA,no,dollar") }
    }

    @Test("A file that cannot be opened is an io error naming the path, told without the code's name")
    func unreadableFile() {
        let error = #expect(throws: NMEAError.self) {
            try NMEAReader.fixes(contentsOfFile: "/nonexistent/drive.nmea")
        }
        #expect(error?.code == .io)
        #expect(error?.source == "/nonexistent/drive.nmea")
        #expect(error?.description == "/nonexistent/drive.nmea: cannot open: No such file or directory")
    }

    @Test("catch NMEAError.Code.x matches")
    func codePatternMatching() {
        do {
            _ = try NMEASentence(parsing: "$GPXYZ,1*00")
            Issue.record("no error")
        } catch NMEAError.Code.badChecksum {
            // expected
        } catch {
            Issue.record("wrong error \(error)")
        }
    }
}
