import Foundation
import LocSimTestHelpers
package import Testing

/// Runs the `locsim` binary built beside the test bundle. The test target depends on the
/// executable, so `swift build --build-tests` and `swift test` rebuild it with the tests: the
/// binary under test is never one left over from an earlier build.
package enum CLI {
    package struct Result {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    package static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/locsim"

    /// A private cache so the default index is built inside the test's temporary folder.
    package static let cacheDirectory = processScratchFolder("locsim-cli-cache")

    /// Runs the binary (or a copy of it at `binary`) in `directory` (the package root by
    /// default), with `extra` set and `removing` unset in the environment, and awaits its end.
    package static func run(
        _ arguments: [String], environment extra: [String: String] = [:], removing: [String] = [],
        binary: String = binary, directory: String = PackagePaths.root
    ) async throws -> Result {
        let outcome = try await ChildProcess.run(
            [binary] + arguments, environment: ["COLUMNS": "100", "LOCSIM_CACHE_DIR": cacheDirectory].merging(extra) { $1 },
            removing: removing, directory: directory)
        return Result(status: outcome.status, stdout: outcome.output, stderr: outcome.errors)
    }

    /// Runs `locsim ARGUMENTS` with all three streams on a pseudo-terminal (python's pty module),
    /// and returns its exit status and everything it wrote there (`\n` arrives as `\r\n`).
    package static func runOnTerminal(_ arguments: [String], term: String? = "xterm-256color") async throws -> (status: Int32, output: String) {
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
        let outcome = try await ChildProcess.run(
            ["/usr/bin/env", "python3", "-c", script, binary] + arguments,
            environment: ["LOCSIM_CACHE_DIR": cacheDirectory].merging(term.map { ["TERM": $0] } ?? [:]) { $1 },
            removing: term == nil ? ["TERM"] : [], directory: PackagePaths.root)
        return (outcome.status, outcome.output)
    }

    /// Compares `actual` with `Golden/<name>`; `RECORD_GOLDEN=1` rewrites the file and fails.
    package static func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
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
