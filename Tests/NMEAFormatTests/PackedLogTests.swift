import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat
import Testing

/// A packed or UTF-16 log is named at its first bytes, strict or lenient (a lenient read skipped
/// every line of it and gave no fix and no error).
@Suite(.timeLimit(.minutes(1)))
struct PackedLogTests {
    static let walk = TestNMEA.checksummed("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W") + "\n"

    @Test("A gzip'd and a UTF-16 log: noSentences naming what it is and the command that reads it, in both modes",
        arguments: ["gzip -c walk.nmea > log.nmea", "iconv -f ASCII -t UTF-16 walk.nmea > log.nmea"])
    func packedLog(command: String) async throws {
        try await withScratchFolder("locsim-nmea-packed") { folder in
            try Data(Self.walk.utf8).write(to: URL(fileURLWithPath: folder + "/walk.nmea"))
            let made = try await ChildProcess.run(["/bin/sh", "-c", command], directory: folder)
            #expect(made.status == 0, "\(made.errors)")
            for options in [NMEAReader.Options.strict, .lenient] {
                var file = try NMEAFileReader(path: folder + "/log.nmea", options: options)
                #expect {
                    _ = try file.next()
                } throws: { error in
                    guard let error = error as? NMEAError, error.code == .noSentences else { return false }
                    return command.hasPrefix("gzip")
                        ? error.message.hasPrefix("the file is gzip-compressed (it starts with 1F 8B): unpack it first ('gzip -dc ")
                        : error.message.hasPrefix("the file is UTF-16LE text (a byte-order mark FF FE), not ASCII: convert it first ('iconv -f UTF-16 ")
                }
            }
        }
    }
}
