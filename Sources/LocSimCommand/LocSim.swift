import ArgumentParser
import Foundation

/// `locsim`: the only composition root. Commands parse arguments, wire library types together
/// and print; the work happens in the libraries.
///
/// Exit codes: 0 success, 1 runtime failure, 2 usage error. Every failure prints two lines on
/// standard error, `locsim: error: …` saying what went wrong and where, and `hint: …` saying
/// what to do (``ErrorReport``).
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
            SwarmCommand.self,
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
            if let failure = Terminal.outputFailure {
                throw CommandFailure(
                    "cannot write standard output: \(failure); what it shows is incomplete",
                    hint: "make room where standard output goes, or send it elsewhere")
            }
        } catch {
            if exitCode(for: error) == .success {
                exit(withError: error)  // --help, --version
            }
            if let code = error as? ExitCode {
                Foundation.exit(code.rawValue)  // the command has said what happened
            }
            let report = ErrorReport.make(for: error, arguments: Array(CommandLine.arguments.dropFirst()))
            for line in report.lines { Terminal.err(line) }
            Foundation.exit(report.status)
        }
    }
}

/// The `locsim` executable's entry point (Sources/locsim/main.swift): parses the process's
/// arguments, runs the command and exits with its status.
package enum LocSimCommandLine {
    package static func main() async {
        await LocSim.main()
    }
}

/// `--format text|json` (and `serve --log-format`).
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// `--format text|jsonl` (`replay`, `simulate`, `gpsd`).
enum TimelineFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}

/// `--format text|json|jsonl` (`index query` and `stats`, `swarm`).
enum DataFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, jsonl
}
