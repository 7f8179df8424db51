#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzDriver
@testable import Places

/// The first byte picks the importer (CSV, GeoNames, GeoJSON); the rest is the file, read
/// strictly and leniently.
func fuzzPlaces(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let all = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let selector = all.first else { return 0 }
    let bytes = Array(all.dropFirst())
    for isLenient in [false, true] {
        var collector = ImportCollector(
            path: "fuzz", options: ImportOptions(isLenient: isLenient), progress: { _ in })
        do {
            switch selector % 3 {
            case 0: try PlaceParsers.parseCSV(bytes, into: &collector)
            case 1: try PlaceParsers.parseGeoNames(bytes, into: &collector)
            default: try PlaceParsers.parseGeoJSON(bytes, into: &collector)
            }
        } catch {
            _ = "\(error)"
        }
    }
    return 0
}

// The program's top-level code: SwiftPM points `main` here, so libFuzzer runs through its driver
// entry rather than its own main.
var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues) { data, size in fuzzPlaces(data, size) })
