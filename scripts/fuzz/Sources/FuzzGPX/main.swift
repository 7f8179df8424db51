#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzDriver
@testable import GPXFormat

/// Reads the input as a GPX file, strictly and leniently, to the end or the first error, then as
/// a KML file's lines (the same XML scanner). Any error is an answer; a crash, a hang or runaway
/// memory is a finding.
func fuzzGPX(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    for options in [GPXReader.Options.strict, .lenient] {
        // A small token cap so the fuzzer explores the cap itself, not the allocator.
        var bounded = options
        bounded.maximumTokenLength = 4096
        // Tiny chunks cross every token boundary; the default chunk is one read.
        for chunkSize in [7, 1 << 18] {
            let reader = GPXReader(bytes: bytes, readsDeclaration: true, options: bounded, chunkSize: chunkSize)
            do {
                while try reader.next() != nil {}
            } catch {
                _ = error.description
            }
        }
    }
    do {
        _ = try KMLLines(bytes: bytes, source: "fuzz.kml").segments.count
    } catch {
        _ = error.description
    }
    return 0
}

// The program's top-level code: SwiftPM points `main` here, so libFuzzer runs through its driver
// entry rather than its own main.
var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues) { data, size in fuzzGPX(data, size) })
