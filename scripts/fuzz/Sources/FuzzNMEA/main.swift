#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzDriver
@testable import NMEAFormat

/// Feeds the input to the NMEA reader in two pieces (split where the first byte says), strictly
/// and leniently, with and without checksums required.
func fuzzNMEA(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for mode in [NMEAReader.Options.Mode.strict, .lenient] {
        for requiresChecksum in [true, false] {
            var options = NMEAReader.Options(mode: mode)
            options.requiresChecksum = requiresChecksum
            options.maximumLineLength = 512
            var reader = NMEAReader(options: options)
            do {
                _ = try reader.read(bytes[..<split])
                _ = try reader.read(bytes[split...])
                _ = try reader.finish()
            } catch {
                _ = error.description
            }
        }
    }
    return 0
}

// The program's top-level code: SwiftPM points `main` here, so libFuzzer runs through its driver
// entry rather than its own main.
var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues) { data, size in fuzzNMEA(data, size) })
