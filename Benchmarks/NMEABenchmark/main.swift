// NMEA read throughput benchmark. See docs/benchmarks/nmea.md and run.sh beside this file.
//
//   NMEABenchmark generate FILE FIXES   writes FIXES fixes (RMC, GGA, VTG, GSA each) to FILE
//   NMEABenchmark read FILE [strict|lenient]
//                                       reads FILE with NMEAFileReader and prints one JSON line
//                                       {"fixes":…, "seconds":…, "bytes":…, "maxRSSKiB":…}
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore
import NMEAFormat

struct Failure: Error, CustomStringConvertible {
    let description: String
}

func generate(path: String, count: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil),
        let handle = FileHandle(forWritingAtPath: path)
    else { throw Failure(description: "cannot create \(path)") }
    defer { try? handle.close() }
    let writer = NMEAWriter(options: .init(talker: .combined, satellitesInUse: 12))
    let start = UTCTimestamp.parse("2024-06-01T23:00:00Z")!.timeIntervalSince1970
    var coordinate = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
    var batch = ""
    for i in 0..<count {
        coordinate = coordinate.destination(distance: 1.4, bearing: Double(i % 360))
        let fix = Fix(
            time: Date(timeIntervalSince1970: start + Double(i)), coordinate: coordinate,
            altitude: 40 + Double(i % 100) / 10, speed: 1.4, course: Double(i % 360), mode: .threeDimensional,
            source: .synthetic)
        try writer.write(fix, to: &batch)
        if batch.utf8.count > 1 << 20 {
            handle.write(Data(batch.utf8))
            batch = ""
        }
    }
    handle.write(Data(batch.utf8))
}

func read(path: String, mode: NMEAReader.Options.Mode) throws {
    let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    let clock = ContinuousClock()
    let started = clock.now
    var file = try NMEAFileReader(path: path, options: .init(mode: mode))
    var count = 0
    var latitudeSum = 0.0
    while let fix = try file.next() {
        count += 1
        latitudeSum += fix.coordinate?.latitude ?? 0
    }
    let elapsed = clock.now - started
    let seconds = elapsed.fractionalSeconds
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    print(
        "{\"fixes\":\(count),\"seconds\":\(seconds),\"bytes\":\(bytes),\"maxRSSKiB\":\(usage.ru_maxrss),\"checksum\":\(latitudeSum)}"
    )
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
    case ("generate", 4):
        guard let count = Int(arguments[3]), count > 0 else { throw Failure(description: "FIXES must be a positive integer") }
        try generate(path: arguments[2], count: count)
    case ("read", 3), ("read", 4):
        let mode: NMEAReader.Options.Mode = arguments.count == 4 && arguments[3] == "lenient" ? .lenient : .strict
        try read(path: arguments[2], mode: mode)
    default:
        throw Failure(description: "usage: NMEABenchmark generate FILE FIXES | read FILE [strict|lenient]")
    }
} catch {
    FileHandle.standardError.write(Data("NMEABenchmark: \(error)\n".utf8))
    exit(1)
}
