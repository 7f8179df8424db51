import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// Streaming (chunks, line endings, files) and the epoch rules that merge sentences into fixes.
@Suite("Reader", .ownThread)
struct ReaderTests {
    static let rmc = TestNMEA.checksummed("GPRMC,235959.00,A,4807.03800,S,01131.00000,W,19.438,84.40,311299,003.1,W,A")
    static let gga = TestNMEA.checksummed("GPGGA,235959.00,4807.03800,S,01131.00000,W,1,08,0.90,545.40,M,46.90,M,,")
    static let vtg = TestNMEA.checksummed("GPVTG,84.40,T,,M,19.438,N,36.000,K,A")
    static let gsa2D = TestNMEA.checksummed("GPGSA,A,2,04,05,09,12,,,,,,,,,2.5,1.3,2.1")

    /// A longer stream: the writer's rendering of a seeded track (crossing midnight).
    static func stream() throws -> String {
        let fixes = RoundTripTests.track(from: "2023-12-31T23:59:00Z", count: 300, step: 0.5)
        return try NMEAWriter(options: .init(talker: .combined)).string(for: fixes)
    }

    @Test("Chunk boundaries anywhere (even between CR and LF) give the same fixes", arguments: [1, 2, 3, 5, 13, 81, 82, 83, 4096])
    func chunking(size: Int) throws {
        let text = try Self.stream()
        let whole = try NMEAReader.fixes(in: text)
        var reader = NMEAReader()
        var fixes: [Fix] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + size, bytes.count)
            fixes += try reader.read(bytes[start..<end])
            start = end
        }
        fixes += try reader.finish()
        #expect(fixes == whole.fixes)
        #expect(reader.statistics == whole.statistics)
        #expect(whole.fixes.count == 300)
    }

    @Test("Non-contiguous input (any Sequence of bytes) reads like contiguous input")
    func genericSequence() throws {
        let text = try Self.stream() + "$GPTXT," + String(repeating: "x", count: 5_000) + "\r\n"
        let contiguous = try NMEAReader.fixes(in: Array(text.utf8), options: .lenient)
        let generic = try NMEAReader.fixes(in: AnySequence(Array(text.utf8)), options: .lenient)
        #expect(generic == contiguous)
        #expect(contiguous.statistics.skipped == [.lineTooLong: 1])
        #expect(contiguous.fixes.count == 300)
    }

    @Test("CR LF, LF and CR line endings read alike")
    func lineEndings() throws {
        let crlf = try Self.stream()
        let lf = crlf.replacingOccurrences(of: "\r\n", with: "\n")
        let cr = crlf.replacingOccurrences(of: "\r\n", with: "\r")
        let expected = try NMEAReader.fixes(in: crlf)
        #expect(try NMEAReader.fixes(in: lf).fixes == expected.fixes)
        #expect(try NMEAReader.fixes(in: cr).fixes == expected.fixes)
        #expect(try NMEAReader.fixes(in: Data(crlf.utf8)).fixes == expected.fixes)
        #expect(expected.statistics.lines == 1_200)
    }

    @Test("A file is streamed in small chunks to the same fixes; the last line may lack its newline")
    func fileReader() throws {
        let text = try Self.stream()
        try withScratchFolder("locsim-nmea-reader") { folder in
            let path = folder + "/stream.nmea"
            // Drop the final line ending ("\r\n" is one Character).
            try Data(text.dropLast().utf8).write(to: URL(fileURLWithPath: path))

            var file = try NMEAFileReader(path: path, options: .strict, chunkSize: 100)
            var fixes: [Fix] = []
            while let fix = try file.next() { fixes.append(fix) }
            #expect(try file.next() == nil)
            #expect(fixes == (try NMEAReader.fixes(in: text).fixes))
            #expect(file.statistics.fixes == 300)
            #expect(try NMEAReader.fixes(contentsOfFile: path).fixes == fixes)
        }
    }

    @Test("Each fix's line is that of the RMC or GGA that opened its epoch, whatever the chunks", arguments: [7, 100, 65_536])
    func fixLines(chunkSize: Int) throws {
        // A comment and a blank line first, so that lines are not sentence counts.
        let text = "# a receiver's log\n\n" + (try Self.stream()).replacingOccurrences(of: "\r\n", with: "\n")
        // Expected from the text itself: the lines of RMC and GGA (the sentences with a time)
        // whose time differs from the timed sentence before (each epoch's first).
        var expected: [Int] = []
        var previous: Substring?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let type = fields.first, type.hasSuffix("RMC") || type.hasSuffix("GGA") else { continue }
            if fields[1] != previous { expected.append(index + 1) }
            previous = fields[1]
        }
        try withScratchFolder("locsim-nmea-lines") { folder in
            let path = folder + "/lines.nmea"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            var file = try NMEAFileReader(path: path, options: .strict, chunkSize: chunkSize)
            var lines: [Int] = []
            while try file.next() != nil {
                let line = file.lineOfLastFix
                lines.append(try #require(line))
            }
            #expect(lines.count == 300)
            #expect(lines == expected)
        }
    }

    @Test("requireSentences: an empty file, text, GPX or JSON is noSentences naming the file; a log without a fix passes")
    func requireSentences() throws {
        let noFix = "$GPRMC,,V,,,,,,,,,,N*53\r\n$GPGGA,,,,,,0,00,99.99,,,,,,*48\r\n"
        let damaged = "$GPRMC,,V,,,,,,,,,,N*54\r\n"
        let cases: [(text: String, says: String?)] = [
            ("", "the file is empty: no NMEA sentence"),
            ("hello\n\n", "no NMEA sentence in 2 lines"),
            ("<?xml version=\"1.0\"?>\n<gpx>\n", "no NMEA sentence in 2 lines: its first line looks like XML (a GPX file? name it .gpx)"),
            (#"{"class":"TPV"}"# + "\n", "no NMEA sentence in 1 line: its first line looks like JSON (gpsd's reports? record NMEA with 'gpspipe -r')"),
            (noFix, nil), (damaged, nil), ("$GPTXT,01,01,02,u-blox ag - www.u-blox.com*50\r\n", nil),
        ]
        for (text, says) in cases {
            try withScratchFolder("locsim-nmea-sentences") { folder in
                let path = folder + "/log.nmea"
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                var file = try NMEAFileReader(path: path, options: .lenient)
                while try file.next() != nil {}
                if let says {
                    let error = #expect(throws: NMEAError.self) { try file.requireSentences() }
                    #expect(error?.code == .noSentences)
                    #expect(error?.description == "\(path): noSentences: \(says)", "\(text)")
                } else {
                    try file.requireSentences()
                }
            }
        }
    }

    @Test("RMC, GGA, VTG and GSA of one time merge; GSA's mode wins over the altitude")
    func epochMerge() throws {
        let text = [Self.gga, Self.gsa2D, Self.rmc, Self.vtg].joined(separator: "\r\n") + "\r\n"
        let result = try NMEAReader.fixes(in: text)
        try #require(result.fixes.count == 1)
        let fix = result.fixes[0]
        #expect(fix.time == UTCTimestamp.parse("1999-12-31T23:59:59Z"))
        #expect(fix.coordinate == Coordinate(uncheckedLatitude: -(48 + 7.038 / 60), longitude: -(11 + 31.0 / 60)))
        #expect(fix.altitude == 545.4)
        #expect(fix.mode == .twoDimensional)
        let knots: Double = 19.438 * 1852 / 3600
        #expect(fix.speed == knots)  // from RMC, in knots
        #expect(fix.course == 84.4)
        #expect(fix.horizontalAccuracy == nil)
        #expect(result.statistics.sentences == 4)
    }

    @Test("Two complete sentences on one line are both read")
    func twoSentencesOnOneLine() throws {
        let result = try NMEAReader.fixes(in: Self.rmc + Self.gga + "\r\n")
        #expect(result.fixes.first?.altitude == 545.4)
        #expect(result.statistics.sentences == 2)
    }

    @Test("Without RMC, VTG supplies speed (km/h) and course")
    func vtgSpeed() throws {
        let text = [Self.gga, Self.vtg].joined(separator: "\n") + "\n"
        let fixes = try NMEAReader.fixes(in: text, options: .init(mode: .strict, initialDate: NMEADate(year: 1999, month: 12, day: 31))).fixes
        #expect(fixes.first?.speed == 36.0 / 3.6)
        #expect(fixes.first?.course == 84.4)
        #expect(fixes.first?.mode == .threeDimensional)
    }

    @Test("Two talkers repeating one solution give one fix; the first of each type is used")
    func duplicateTalkers() throws {
        let glgga = TestNMEA.checksummed("GLGGA,235959.00,4807.03900,S,01131.00000,W,1,02,0.90,999.00,M,46.90,M,,")
        let text = [Self.rmc, Self.gga, glgga].joined(separator: "\n") + "\n"
        let fixes = try NMEAReader.fixes(in: text).fixes
        #expect(fixes.count == 1)
        #expect(fixes.first?.altitude == 545.4)
    }

    @Test("Void RMC and invalid GGA give a no-fix report; time-less sentences are counted")
    func noFix() throws {
        let rmc = TestNMEA.checksummed("GPRMC,120000.00,V,,,,,,,311299,,,N")
        let gga = TestNMEA.checksummed("GPGGA,120000.00,,,,,0,00,99.99,,,,,,")
        let timeless = TestNMEA.checksummed("GPRMC,,V,,,,,,,,,,N")
        let result = try NMEAReader.fixes(in: [timeless, rmc, gga].joined(separator: "\n") + "\n")
        #expect(result.fixes == [Fix.noFix(time: UTCTimestamp.parse("1999-12-31T12:00:00Z")!, source: .nmea)])
        #expect(result.statistics.sentencesWithoutTime == 1)
    }

    @Test("Epochs without RMC take the last date and roll it over at midnight")
    func dateRollover() throws {
        let nextDay = TestNMEA.checksummed("GPGGA,000001.00,4807.03800,S,01131.00000,W,1,08,0.90,545.40,M,46.90,M,,")
        let fixes = try NMEAReader.fixes(in: [Self.rmc, Self.gga, nextDay].joined(separator: "\n") + "\n").fixes
        #expect(fixes.map(\.time) == [UTCTimestamp.parse("1999-12-31T23:59:59Z"), UTCTimestamp.parse("2000-01-01T00:00:01Z")])
    }

    @Test("The source and the UERE model are explicit options")
    func options() throws {
        let model = try #require(NMEAAccuracyModel(userEquivalentRangeError: 4))
        let text = [Self.rmc, Self.gga, Self.gsa2D].joined(separator: "\n") + "\n"
        let fix = try #require(
            try NMEAReader.fixes(in: text, options: .init(mode: .strict, accuracyModel: model, source: .gpsd)).fixes.first)
        #expect(fix.source == .gpsd)
        #expect(fix.horizontalAccuracy == 4 * 0.90)  // GGA's HDOP
        #expect(fix.verticalAccuracy == 4 * 2.1)  // GSA's VDOP
    }

    @Test("Lenient statistics keep the first errors and count the rest")
    func statistics() throws {
        let bad = String(Self.gga.dropLast(2)) + "00"
        let lines = [Self.rmc] + Array(repeating: bad, count: 30)
        let result = try NMEAReader.fixes(in: lines.joined(separator: "\n") + "\n", options: .lenient)
        #expect(result.statistics.skipped == [.badChecksum: 30])
        #expect(result.statistics.totalSkipped == 30)
        #expect(result.statistics.firstErrors.count == NMEAReader.Statistics.maximumKeptErrors)
        #expect(result.statistics.firstErrors.map(\.line) == Array(2...21).map { Optional($0) })
        #expect(result.fixes.count == 1)
    }
}
