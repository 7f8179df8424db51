// NMEA read throughput benchmark. See docs/benchmarks/nmea.md and run.sh beside this file.
//
//   NMEABenchmark generate FILE FIXES [sky]
//                                       writes FIXES fixes (RMC, GGA, VTG, GSA each) to FILE; with
//                                       `sky`, each with a sky of 24 satellites (GPS, GLONASS,
//                                       Galileo) that moves every epoch: 3 GSA and 7 GSV a fix
//   NMEABenchmark read FILE [strict|lenient]
//                                       reads FILE with NMEAFileReader and prints one JSON line
//                                       {"fixes":…, "seconds":…, "bytes":…, "maxRSSKiB":…,
//                                       "satellites": the skies' satellites, summed over the fixes}
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

/// A multi-constellation receiver's sky at epoch `i`: 10 GPS, 8 GLONASS and 6 Galileo satellites,
/// 16 used, their azimuths and signals changing every epoch (so every fix has a sky of its own).
func sky(at i: Int) -> [Satellite] {
    let systems: [(gnss: Int, count: Int, prn: (Int) -> Int)] = [(0, 10, { $0 }), (6, 8, { 64 + $0 }), (2, 6, { 300 + $0 })]
    return systems.flatMap { system in
        (1...system.count).map { sv in
            let turn = Double((i + 7 * sv + 50 * system.gnss) % 360)
            return Satellite(
                id: system.prn(sv), elevation: Double(5 + (sv * 11) % 80), azimuth: turn, signal: Double(20 + (i + sv) % 30),
                used: sv <= 6, signalIdentity: Satellite.SignalIdentity(gnssID: system.gnss, svID: sv))
        }
    }
}

func generate(path: String, count: Int, withSky: Bool) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil),
        let handle = FileHandle(forWritingAtPath: path)
    else { throw Failure(description: "cannot create \(path)") }
    defer { try? handle.close() }
    let sentences: [NMEASentenceType] = withSky ? [.rmc, .gga, .vtg, .gsa, .gsv] : [.rmc, .gga, .vtg, .gsa]
    let writer = NMEAWriter(options: .init(talker: .combined, sentences: sentences, satellitesInUse: 12))
    let start = UTCTimestamp.parse("2024-06-01T23:00:00Z")!.timeIntervalSince1970
    var coordinate = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
    var batch = ""
    for i in 0..<count {
        coordinate = coordinate.destination(distance: 1.4, bearing: Double(i % 360))
        let fix = Fix(
            time: Date(timeIntervalSince1970: start + Double(i)), coordinate: coordinate,
            altitude: 40 + Double(i % 100) / 10, speed: 1.4, course: Double(i % 360), mode: .threeDimensional,
            source: .synthetic)
        try writer.write(fix, sky: withSky ? sky(at: i) : nil, to: &batch)
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
    var satellites = 0
    while let fix = try file.next() {
        count += 1
        latitudeSum += fix.coordinate?.latitude ?? 0
        satellites += fix.receiver?.sky?.satellites.count ?? 0
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
        "{\"fixes\":\(count),\"seconds\":\(seconds),\"bytes\":\(bytes),\"maxRSSKiB\":\(usage.ru_maxrss),\"checksum\":\(latitudeSum),\"satellites\":\(satellites)}"
    )
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
    case ("generate", 4), ("generate", 5):
        guard let count = Int(arguments[3]), count > 0 else { throw Failure(description: "FIXES must be a positive integer") }
        guard arguments.count == 4 || arguments[4] == "sky" else { throw Failure(description: "the last argument must be `sky`, not \(arguments[4])") }
        try generate(path: arguments[2], count: count, withSky: arguments.count == 5)
    case ("read", 3), ("read", 4):
        let mode: NMEAReader.Options.Mode = arguments.count == 4 && arguments[3] == "lenient" ? .lenient : .strict
        try read(path: arguments[2], mode: mode)
    default:
        throw Failure(description: "usage: NMEABenchmark generate FILE FIXES [sky] | read FILE [strict|lenient]")
    }
} catch {
    FileHandle.standardError.write(Data("NMEABenchmark: \(error)\n".utf8))
    exit(1)
}
