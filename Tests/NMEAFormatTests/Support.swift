import Foundation
import LocationCore
import LocSimTestHelpers
import NMEAFormat

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
