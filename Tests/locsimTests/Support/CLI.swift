import Foundation
import LocSimTestHelpers
import Testing

/// Runs the `locsim` binary built beside the test bundle. The test target depends on the
/// executable, so `swift build --build-tests` and `swift test` rebuild it with the tests: the
/// binary under test is never one left over from an earlier build.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/locsim"

    /// A private cache so the default index is built inside the test's temporary folder.
    static let cacheDirectory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locsim-cli-cache-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Runs the binary (or a copy of it at `binary`) in `directory` (the package root by
    /// default), with `extra` set and `removing` unset in the environment.
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], removing: [String] = [],
        binary: String = binary, directory: String = PackagePaths.root
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "100"
        environment["LOCSIM_CACHE_DIR"] = cacheDirectory
        for (key, value) in extra { environment[key] = value }
        for key in removing { environment[key] = nil }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain standard error on another thread while reading standard output, so a large
        // output on either cannot block the child.
        let errBox = DataBox()
        let reader = Thread { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let stdoutData: Data? = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errBox.isSet { usleep(1000) }
        let errData = errBox.data
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdoutData ?? Data(), as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `locsim ARGUMENTS` with all three streams on a pseudo-terminal (python's pty module),
    /// and returns its exit status and everything it wrote there (`\n` arrives as `\r\n`).
    static func runOnTerminal(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let script = """
            import os, pty, sys
            out = b""
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            while True:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(out.decode("utf-8", "replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, binary] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: PackagePaths.root)
        var environment = ProcessInfo.processInfo.environment
        environment["LOCSIM_CACHE_DIR"] = cacheDirectory
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    final class DataBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Data?
        var data: Data {
            get { lock.withLock { value ?? Data() } }
            set { lock.withLock { value = newValue } }
        }
        var isSet: Bool { lock.withLock { value != nil } }
    }

    /// Compares `actual` with `Golden/<name>`; `RECORD_GOLDEN=1` rewrites the file and fails.
    static func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = PackagePaths.path("Tests/locsimTests/Golden/" + name)
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            Issue.record("recorded \(name); rerun without RECORD_GOLDEN", sourceLocation: sourceLocation)
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(actual == expected, "differs from Golden/\(name) (RECORD_GOLDEN=1 rewrites it)", sourceLocation: sourceLocation)
    }
}
