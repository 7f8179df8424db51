#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import FuzzDriver
@testable import LocSimCommand

/// The command line as the `locsim` executable parses it: the input is split at NUL bytes into
/// at most 24 arguments (invalid UTF-8 repaired, as the shell's bytes would be decoded), parsed
/// and validated by the root command (every subcommand's options and `validate()`), and any
/// error is turned into the two lines the user would see. Nothing runs: a parsed command is
/// dropped. Any thrown error is an answer; a crash (an integer conversion trap, an index out of
/// range), a hang or an ASan report is a finding.
func fuzzOptions(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let arguments = bytes.split(separator: 0, maxSplits: 23, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    do {
        _ = try LocSim.parseAsRoot(arguments)
    } catch {
        // What `locsim` prints: ArgumentParser's own message for help/usage, our report otherwise.
        _ = LocSim.fullMessage(for: error)
        _ = LocSim.exitCode(for: error)
        _ = ErrorReport.make(for: error, arguments: arguments).lines
    }
    return 0
}

// Output paths are checked before a run by creating a temporary file beside them (and removing
// it): work in a scratch folder so relative paths land there. It is this process's own, removed
// when the fuzzer exits (at the end of its runs, or after writing a finding).
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("locsim-fuzz-options-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
atexit { try? FileManager.default.removeItem(at: scratch) }
guard FileManager.default.changeCurrentDirectoryPath(scratch.path) else { exit(1) }

// The program's top-level code: SwiftPM points `main` here, so libFuzzer runs through its driver
// entry rather than its own main.
var argumentCount = CommandLine.argc
var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentValues) { data, size in fuzzOptions(data, size) })
