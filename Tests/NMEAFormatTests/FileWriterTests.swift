import Foundation
import LocationCore
import NMEAFormat
import Testing
import LocSimTestHelpers

/// ``NMEAFileWriter``: NMEAWriter's text in a file, written atomically or live.
@Suite("File writer", .timeLimit(.minutes(1)), .ownThread)
struct FileWriterTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// A walk with a lost fix in the middle.
    static let fixes: [Fix] = (0..<6).map { i in
        let time = start.addingTimeInterval(Double(i))
        if i == 3 { return .noFix(time: time, source: .synthetic) }
        return Fix(
            time: time, coordinate: Coordinate(uncheckedLatitude: 51.5 + Double(i) * 1e-4, longitude: -0.12),
            altitude: 12, speed: 1.4, course: 90, horizontalAccuracy: 4 + Double(i), source: .synthetic)
    }

    @Test("A file holds exactly NMEAWriter's text for the fixes, and appears at its path only when finished")
    func atomicFile() throws {
        try withScratchFolder("locsim-nmea-file") { folder in
            let path = folder + "/out.nmea"
            let file = try NMEAFileWriter(path: path, options: .gpsd())
            for fix in Self.fixes { try file.write(fix) }
            #expect(!FileManager.default.fileExists(atPath: path))
            try file.finish()
            try file.finish()
            let expected = try NMEAWriter(options: .gpsd()).string(for: Self.fixes)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
        }
    }

    @Test("A live recording holds every fix written so far, without finish(), and reads back")
    func liveRecording() throws {
        try withScratchFolder("locsim-nmea-live") { folder in
            let path = folder + "/live.nmea"
            let writer = NMEAWriter(options: .gpsd(satellitesInUse: 5))
            let file = try NMEAFileWriter(recordingTo: path, options: writer.options)
            for count in 1...Self.fixes.count {
                try file.write(Self.fixes[count - 1])
                #expect(try String(contentsOfFile: path, encoding: .utf8) == writer.string(for: Self.fixes.prefix(count)))
            }
            var reader = try NMEAFileReader(path: path, options: .init(mode: .strict, accuracyModel: .gpsd))
            var read: [Fix] = []
            while let fix = try reader.next() { read.append(fix) }
            #expect(read.map(\.hasPosition) == Self.fixes.map(\.hasPosition))
            try file.finish()
        }
    }

    @Test("The gpsd dialect writes GSA first, GSV for a fix with a sky, DTM after RMC, gpsd's accuracy model and the satellite count")
    func gpsdOptions() {
        let options = NMEAWriter.Options.gpsd(satellitesInUse: 6)
        #expect(options.sentences == [.gsa, .gsv, .rmc, .dtm, .gga, .vtg])
        #expect(options.accuracyModel == .gpsd)
        #expect(options.satellitesInUse == 6)
    }

    @Test("A file that cannot be created is an io error naming the path", arguments: [false, true])
    func unwritable(live: Bool) {
        let path = "/nonexistent-locsim-directory/out.nmea"
        let error = #expect(throws: NMEAError.self) {
            _ = live ? try NMEAFileWriter(recordingTo: path) : try NMEAFileWriter(path: path)
        }
        #expect(error?.code == .io)
        #expect(error?.source == path)
    }
}
