import ArgumentParser
import CommandTestHelpers
import LocSimTestHelpers
import Foundation
@testable import LocSimCommand
import Testing

/// Every numeric flag of every command takes a negative value to its own check, so `--radius -5`
/// says what is wrong with -5 (naming the flag), never "Missing value for '--radius <m>'".
///
/// The flags come from the command's own description (`--experimental-dump-help`), so a numeric
/// flag added later is checked too: an option is numeric when `5` parses and `five` does not.
///
/// On threads of their own: about 700 parses of tens of milliseconds each, side by side, held
/// both of a two-core machine's pool threads for 5 s at a time beside two CPU hogs (a probe's
/// 50 ms sleeps woke that late), and a PostGIS test timing its 2 s deadline beside them
/// measured 6.4 s.
@Suite(.ownThread, .timeLimit(.minutes(1))) struct NumericFlagTests {
    struct Flag: Sendable, CustomStringConvertible {
        let command: [String]
        let name: String
        var description: String { (command + [name]).joined(separator: " ") }
    }

    /// Every option of every command, from the command's description: read once for all the
    /// cases below.
    static let described = Task { try await options() }

    static func options() async throws -> [Flag] {
        let result = try await CLI.run(["--experimental-dump-help"])
        guard result.status == 0 else { throw HarnessError("locsim --experimental-dump-help: \(result.status), \(result.stderr)") }
        guard let root = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let command = root["command"] as? [String: Any]
        else { throw HarnessError("locsim --experimental-dump-help: not a description: \(result.stdout.prefix(200))") }
        var flags: [Flag] = []
        func walk(_ command: [String: Any], path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
                let names = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
                if let name = names.first?["name"] as? String { flags.append(Flag(command: path, name: "--" + name)) }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path: path + [sub["commandName"] as? String ?? ""])
            }
        }
        walk(command, path: [])
        return flags
    }

    /// What parsing `arguments` says, or nil when it parses (and validates).
    static func message(_ arguments: [String]) -> String? {
        do {
            _ = try LocSim.parseAsRoot(arguments)
            return nil
        } catch {
            return LocSim.message(for: error)
        }
    }

    /// The commands that take options, each one test case: about 700 parses in a debug build,
    /// spread over the cores and each case within its own time limit (one case for all of them
    /// passed its minute beside two CPU hogs).
    static let commands: [[String]] = [
        ["track", "stats"], ["index", "import"], ["index", "query"], ["index", "stats"], ["replay"], ["simulate"], ["gpsd"],
        ["nmea", "serve"], ["serve"], ["swarm"],
    ]

    @Test("Every command that takes options is one of the cases below, so a new one is checked too")
    func everyCommandListed() async throws {
        let listed = Set(Self.commands.map { $0.joined(separator: " ") })
        let described = Set(try await Self.described.value.map { $0.command.joined(separator: " ") })
        #expect(described == listed)
    }

    @Test("A negative value of any numeric flag reaches the flag's own check (never 'Missing value')", arguments: commands)
    func negativeValues(command: [String]) async throws {
        let flags = try await Self.described.value.filter { $0.command == command }
        #expect(!flags.isEmpty, "the description lists the command's options")
        var numeric: [Flag] = []
        // A parse in a debug build takes tens of milliseconds (ArgumentParser checks the whole
        // command's definition each time): a flag that takes `five` is not parsed again with `5`.
        for flag in flags {
            guard (Self.message(flag.command + [flag.name, "five"]) ?? "").contains("is invalid for"),
                !(Self.message(flag.command + [flag.name, "5"]) ?? "").contains("is invalid for")
            else { continue }
            numeric.append(flag)
            let negative = Self.message(flag.command + [flag.name, "-5"]) ?? ""
            #expect(!negative.contains("Missing value"), "\(flag): \(negative)")
        }
        // Every number is read as place files and the server read them: hexadecimal and nan
        // are refused (Double(String) took --radius 0x10 as 16 m), named after the flag.
        for flag in numeric {
            for odd in ["0x10", "nan"] {
                let message = Self.message(flag.command + [flag.name, odd]) ?? "accepted"
                #expect(message.contains("'\(odd)' is invalid for '\(flag.name)"), "\(flag) \(odd): \(message)")
            }
        }
        if command == ["replay"] {
            #expect(Self.message(["replay", "w.gpx", "--min-accuracy", "inf"]) == nil, "inf keeps every fix")
            // Echoed as written, as every other flag echoes its number (it said -1.0).
            #expect(Self.message(["replay", "w.gpx", "--min-accuracy", "-1"]) == "--min-accuracy must be > 0 metres (inf accepts every fix), got -1")
        }
        // The classifier finds the flags it should (durations and numbers of several commands).
        let name = command.joined(separator: " ")
        for known in ["replay --radius", "serve --port", "swarm --players", "index query --limit", "simulate --mps"]
        where known.hasPrefix(name + " --") {
            #expect(numeric.contains { $0.description == known }, "\(known) is numeric")
        }
    }
}
