import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `locsim`: the only composition root. Commands parse arguments, wire library types together
/// and print; the work happens in the libraries.
///
/// Exit codes: 0 success, 1 runtime failure, 2 usage error. Every failure prints one message on
/// standard error that says what went wrong and where.
@main
struct LocSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locsim",
        abstract: "Simulate and capture location, and run the game's map-screen logic headless.",
        version: "0.1.0",
        subcommands: [
            Track.self,
            Index.self,
            Replay.self,
            Simulate.self,
            GPSD.self,
            NMEACommand.self,
            Serve.self,
        ]
    )

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            } else if code == .validationFailure || isUsageError(error) {
                Terminal.err(fullMessage(for: error))
                Terminal.err("Run 'locsim help' or add --help for usage.")
                systemExit(2)
            } else if let exit = error as? ExitCode {
                systemExit(exit.rawValue)
            } else {
                Terminal.err("locsim: \(error)")
                systemExit(1)
            }
        }
    }

    /// ArgumentParser reports some usage mistakes (unknown option, missing argument) with its own
    /// error types and exit code 64; locsim reports every usage error with 2.
    private static func isUsageError(_ error: any Error) -> Bool {
        exitCode(for: error).rawValue == 64
    }
}

/// `--format text|json`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// `exit(3)`, named apart from ArgumentParser's `exit(withError:)`.
func systemExit(_ code: Int32) -> Never {
    #if canImport(Glibc)
    Glibc.exit(code)
    #elseif canImport(Musl)
    Musl.exit(code)
    #else
    Darwin.exit(code)
    #endif
}
