#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FuzzDriver
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@testable import LocationGPSD

/// Each input line is a gpsd JSON report, decoded by libgps and classified as a live session
/// would; the class sniff and the balance check see the raw text too.
func fuzzGPSDReport(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    // libgps reads C strings: a NUL ends a line as it would end gps_read's buffer.
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(64).map {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    for line in lines {
        _ = GPSDConnection.messageClass(of: line)
    }
    do {
        _ = try GPSDConnection.decode(lines, receivedAt: Date(timeIntervalSince1970: 0), source: "fuzz")
    } catch {
        _ = error.description
    }
    return 0
}

// The program's top-level code: SwiftPM points `main` here, so libFuzzer runs through its driver
// entry rather than its own main.
var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues) { data, size in fuzzGPSDReport(data, size) })
