import ArgumentParser
import Foundation
import LocationCore

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
            let arguments = Array(CommandLine.arguments.dropFirst())
            // First, before anything is parsed or read: a signal from now on is never lost.
            if commandType(named: arguments) is any Interruption.Command.Type { Interruption.install() }
            try checkHelpTopic(arguments)
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            if Interruption.stoppedByReader { Foundation.exit(128 + SIGPIPE) }  // it has said what it kept
            if let failure = outputFailure() { throw failure }
        } catch {
            if exitCode(for: error) == .success {
                // --help, --version: written as every other output, so a failed write is an error.
                Terminal.out(fullMessage(for: error))
                guard let failure = outputFailure() else { Foundation.exit(0) }
                for line in ErrorReport.make(for: failure, arguments: []).lines { Terminal.err(line) }
                Foundation.exit(1)
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

extension LocSim {
    /// The error to end with when standard output could not be written, if it could not.
    static func outputFailure() -> CommandFailure? {
        Terminal.outputFailure.map { failure in
            let hint =
                switch failure.code {
                // SIGPIPE ignored (as some runners start their children), the reader gone.
                case EPIPE: "the program reading standard output stopped reading (as '| head' does); let it read to the end"
                // Started with standard output closed (`>&-`).
                case EBADF, EINVAL: "standard output is closed; give it somewhere to go (> FILE, or > /dev/null)"
                default: "make room where standard output goes, or send it elsewhere"
                }
            return CommandFailure("cannot write standard output: \(failure); what it shows is incomplete", hint: hint)
        }
    }

    /// The command the leading words of `arguments` name (`replay`, `index import`), or nil.
    static func commandType(named arguments: [String]) -> (any ParsableCommand.Type)? {
        var found: (any ParsableCommand.Type)?
        var commands: [any ParsableCommand.Type] = configuration.subcommands
        for name in arguments {
            guard let next = commands.first(where: { $0._commandName == name }) else { break }
            found = next
            commands = next.configuration.subcommands
        }
        return found
    }

    /// `locsim help A B` names commands: ArgumentParser shows the nearest known one's help for a
    /// misspelt name, with status 0, as if it were asked for. Refuse it, naming what is known.
    static func checkHelpTopic(_ arguments: [String]) throws {
        guard arguments.first == "help" else { return }
        var commands: [any ParsableCommand.Type] = configuration.subcommands
        var path = ["locsim"]
        for name in arguments.dropFirst() where !name.hasPrefix("-") && name != "help" {
            guard let next = commands.first(where: { $0._commandName == name }) else {
                let known = commands.map { $0._commandName }.joined(separator: ", ")
                throw ValidationError(
                    "no command '\(name)' in '\(path.joined(separator: " "))'"
                        + (known.isEmpty ? " (it has no subcommands)" : "; its commands: \(known)"))
            }
            path.append(name)
            commands = next.configuration.subcommands
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
