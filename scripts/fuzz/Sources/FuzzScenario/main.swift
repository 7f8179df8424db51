#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import FuzzDriver
import LocationCore
@testable import LocationSimulation

/// Reads the input as a GeoJSON route file (a scenario's `route.file` may be one), then as a
/// scenario file; a scenario it accepts then runs its phone (trouble, delivery rules, app moves)
/// over a short walk. Any error is an answer; a crash, a hang or runaway memory is a finding.
func fuzzScenario(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    do {
        _ = try ReplayPath(geoJSON: bytes, source: "fuzz.geojson").segments.count
    } catch {
        _ = error.description
    }
    let scenario: Scenario
    do {
        scenario = try Scenario.parse(bytes, source: "fuzz.json", directory: "/walks/")
    } catch {
        _ = error.description
        return 0
    }
    do {
        var phone = try ScenarioPhone(scenario: scenario)
        let origin = Date(timeIntervalSince1970: 1_760_000_000)
        for second in 0..<40 {
            // A walk north at 1.4 m/s, one fix a second, every tenth fix 10 minutes later.
            let time = origin.addingTimeInterval(Double(second) + Double(second / 10) * 600)
            let coordinate = try Coordinate(latitude: 37.7599 + Double(second) * 1.4 / 111_195, longitude: -122.4148)
            _ = phone.offer(Fix(time: time, coordinate: coordinate, source: .synthetic))
        }
        _ = phone.finish()
    } catch {
        _ = "\(error)"
    }
    return 0
}

// The program's top-level code: SwiftPM points `main` here, so libFuzzer runs through its driver
// entry rather than its own main.
var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues) { data, size in fuzzScenario(data, size) })
