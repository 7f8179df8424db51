import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// DTM: decoding its errors, the datum a read fix names, and the writer's DTM read back. What
/// pynmea2 decodes is in SentenceTests (variants.jsonl); gpsd 3.22's own names for the same
/// sentences are in IntegrationTests' `GPSDReceiverLogTests.mapDatum`.
@Suite("Datum (DTM)", .ownThread)
struct DatumTests {
    static let rmc = TestNMEA.checksummed("GPRMC,120000.00,A,4807.03800,N,01131.00000,E,1.000,84.40,150624,,,A")
    static let gga = TestNMEA.checksummed("GPGGA,120000.00,4807.03800,N,01131.00000,E,1,08,0.90,545.40,M,46.90,M,,")
    static let nextRMC = TestNMEA.checksummed("GPRMC,120001.00,A,4807.03900,N,01131.00100,E,1.000,84.40,150624,,,A")

    @Test(
        "A DTM that cannot be read names its field",
        arguments: [
            ("GPDTM,W84,,0.5,X,0.0,E,0.0,W84", NMEAError.Code.malformedField, 4, "latitude offset direction 'X' must be N or S"),
            ("GPDTM,W84,,0.5,N,0.25,,0.0,W84", .missingField, 6, "longitude offset has no direction letter"),
            ("GPDTM,W84,,0.5,N,0.25,S,0.0,W84", .malformedField, 6, "longitude offset direction 'S' must be E or W"),
            ("GPDTM,W84,,half,N,0.0,E,0.0,W84", .malformedField, 3, "latitude offset 'half' is not a number"),
            ("GPDTM,W84,,0.0,N,0.0,E,high,W84", .malformedField, 7, "altitude offset 'high' is not a number"),
            ("GPDTM,W84,,0.0,N,0.0,E,0.0,W84,X", .wrongFieldCount, nil, "DTM has 9 fields; expected 1…8"),
        ] as [(String, NMEAError.Code, Int?, String)])
    func errors(body: String, code: NMEAError.Code, field: Int?, message: String) {
        #expect {
            try NMEASentence(parsing: TestNMEA.checksummed(body))
        } throws: { error in
            guard let error = error as? NMEAError else { return false }
            return error.code == code && error.field == field && error.message == message
        }
    }

    @Test("A direction letter with no offset says nothing, as an empty hemisphere does")
    func directionWithoutValue() throws {
        guard case .dtm(let dtm) = try NMEASentence(parsing: TestNMEA.checksummed("GPDTM,W72,,,N,,E,,W84")) else {
            Issue.record("not DTM")
            return
        }
        #expect(dtm.latitudeOffset == nil && dtm.longitudeOffset == nil && dtm.altitudeOffset == nil)
        #expect(dtm.localDatum == "W72" && dtm.referenceDatum == "W84")
    }

    @Test("A read fix names its epoch's datum; an epoch without a DTM names none")
    func readDatum() throws {
        let dtm = TestNMEA.checksummed("GPDTM,W72,,0.0,N,0.0,E,0.0,W84")
        let text = [Self.rmc, dtm, Self.gga, Self.nextRMC].joined(separator: "\r\n") + "\r\n"
        let fixes = try NMEAReader.fixes(in: text).fixes
        #expect(fixes.count == 2)
        guard case .dtm(let sentence) = try NMEASentence(parsing: dtm) else {
            Issue.record("not DTM")
            return
        }
        #expect(fixes.first?.receiver?.datum == sentence.datumName)
        #expect(fixes.first?.receiver?.datum != nil)
        #expect(fixes.last?.receiver?.datum == nil)
    }

    @Test("A DTM before the first timed sentence joins the first epoch, as VTG and GSA do")
    func leadingDTM() throws {
        let text = [TestNMEA.checksummed("GPDTM,S85,,,,,,,W84"), Self.rmc, Self.gga].joined(separator: "\r\n")
        let fixes = try NMEAReader.fixes(in: text).fixes
        #expect(fixes.count == 1)
        #expect(fixes.first?.receiver?.datum == NMEASentence.DTM(localDatum: "S85").datumName)
    }

    @Test("Names and codes are each other's inverse; a code gpsd does not name is its own name")
    func namesAndCodes() {
        for code in ["W84", "W72", "S85", "P90", "999", "N27", "216"] {
            let name = NMEASentence.DTM(localDatum: code).datumName
            #expect(name.map(NMEASentence.DTM.code(forDatumName:)) == code, "\(code)")
        }
        #expect(NMEASentence.DTM(localDatum: "N27").datumName == "N27")
        #expect(NMEASentence.DTM(localDatum: nil).datumName == nil)
    }

    static func fix(datum: String?) throws -> Fix {
        var fix = Fix(
            time: Date(timeIntervalSince1970: 1_718_452_800), coordinate: try Coordinate(latitude: 48.1173, longitude: 11.5167),
            altitude: 545.4, speed: 0.5, course: 84.4, mode: .threeDimensional, source: .nmea)
        if let datum {
            var receiver = ReceiverReport()
            receiver.datum = datum
            fix.receiver = receiver
        }
        return fix
    }

    @Test(
        "gpsd's writing puts a DTM after RMC for a fix naming a datum, and reading it gives the datum back",
        arguments: ["WGS84", "WGS72", "SGS85", "PE90", "User Defined", "N27"])
    func writeAndReadBack(datum: String) throws {
        let writer = NMEAWriter(options: .gpsd())
        let sentences = try writer.sentences(for: try Self.fix(datum: datum))
        let types = sentences.map(\.type)
        let rmc = try #require(types.firstIndex(of: .rmc))
        #expect(types.firstIndex(of: .dtm) == rmc + 1, "\(types)")
        let text = try writer.string(for: try Self.fix(datum: datum))
        let read = try NMEAReader.fixes(in: text).fixes
        #expect(read.map { $0.receiver?.datum } == [datum])
    }

    @Test("WGS 84 is written with zero offsets; another datum's offsets are unknown, so empty")
    func writtenOffsets() throws {
        let writer = NMEAWriter(options: .init(sentences: [.dtm]))
        #expect(try writer.string(for: try Self.fix(datum: "WGS84")) == TestNMEA.checksummed("GPDTM,W84,,0.0000,N,0.0000,E,0.00,W84") + "\r\n")
        #expect(try writer.string(for: try Self.fix(datum: "WGS72")) == TestNMEA.checksummed("GPDTM,W72,,,,,,,W84") + "\r\n")
        #expect(try writer.string(for: try Self.fix(datum: nil)) == "")
    }

    @Test("A negative offset is written with S or W and reads back signed")
    func signedOffsets() throws {
        let dtm = NMEASentence.dtm(.init(localDatum: "999", latitudeOffset: -0.08, longitudeOffset: -0.07, altitudeOffset: -2.8))
        let text = try dtm.encoded()
        #expect(text == TestNMEA.checksummed("GPDTM,999,,0.0800,S,0.0700,W,-2.80,W84"))
        #expect(try NMEASentence(parsing: text) == dtm)
    }

    @Test("A datum name NMEA cannot carry is refused, naming the field")
    func unwritableName() {
        #expect {
            try NMEAWriter(options: .gpsd()).string(for: try Self.fix(datum: "WGS,84"))
        } throws: { error in
            guard let error = error as? NMEAError else { return false }
            return error.code == .invalidValue && error.message.contains("local datum 'WGS,84'")
        }
    }
}
