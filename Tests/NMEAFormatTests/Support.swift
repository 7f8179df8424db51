import Foundation
import LocationCore
import NMEAFormat

/// Locates ../shared/data (real receiver logs) relative to the package root.
enum SharedData {
    /// The package root: three levels above this file (Tests/NMEAFormatTests/Support.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/data/gpsd`, next to the package.
    static let gpsdFolder = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data/gpsd")

    static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: gpsdFolder.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The `NAME` of every `NAME.log` that has a `NAME.tpv.jsonl` beside it.
    static var gpsdLogNames: [String] {
        guard isPresent, let names = try? FileManager.default.contentsOfDirectory(atPath: gpsdFolder.path) else {
            return []
        }
        return names.filter { $0.hasSuffix(".log") }.map { String($0.dropLast(4)) }
            .filter { names.contains($0 + ".tpv.jsonl") }.sorted()
    }
}

/// The committed fixtures of this test target.
enum Fixtures {
    static func url(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureMissing(name: name)
        }
        return url
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        let name: String
        var description: String { "fixture \(name) is not in the test bundle" }
    }
}

/// A small, seedable generator (SplitMix64) so random tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The tolerances a round trip must meet: half a unit of the last written digit (plus a
/// little floating-point slack), derived from `NMEAPrecision` rather than typed in.
enum Tolerance {
    static let slack = 1e-9
    static let degrees = 0.5 / pow(10, Double(NMEAPrecision.minuteDecimals)) / 60 + 1e-12
    static let seconds = 0.5 / pow(10, Double(NMEAPrecision.timeDecimals)) + 1e-6
    static let speed = 0.5 / pow(10, Double(NMEAPrecision.speedDecimals)) * 1852 / 3600 + slack
    static let course = 0.5 / pow(10, Double(NMEAPrecision.courseDecimals)) + slack
    static let altitude = 0.5 / pow(10, Double(NMEAPrecision.altitudeDecimals)) + slack
}

/// Longitude difference across the antimeridian, in degrees (0…180).
func longitudeDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}

/// Course difference on the circle, in degrees (0…180).
func courseDifference(_ a: Double, _ b: Double) -> Double { longitudeDifference(a, b) }
