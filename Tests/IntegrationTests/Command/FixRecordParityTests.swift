import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `fix` records from the three commands that write them, for the same walk: one schema, the
/// same members in the same order; accuracy always (null when unknown), speed and course when known.
@Suite(.enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"), .timeLimit(.minutes(1)))
struct FixRecordParityTests {
    /// What every source here knows for a moving walk, in the schema's order.
    static let common = ["type", "t", "lat", "lon", "accuracy", "mode", "speed", "course"]

    @Test("replay, simulate and gpsd (a real gpsd fed by nmea serve) write fixes with the same members, in the same order")
    func sameMembers() async throws {
        let track = PackagePaths.path("tracks/sf-mission-walk.gpx")
        // The file has no <speed> or <course>: every fix carries those of the move it is part of,
        // the recorded 1 Hz points and the 2 Hz ones between them alike.
        let replay = try await CLI.run(["replay", track, "--fast", "--format", "jsonl", "--start", "40:00", "--rate", "2", "--geodata", "geodata"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let simulate = try await CLI.run([
            "simulate", "line", "--from", "37.7577,-122.4189", "--to", "37.7610,-122.4150", "--noise", "3", "--seed", "7",
            "--format", "jsonl",
        ])
        #expect(simulate.status == 0, "\(simulate.stderr)")

        // The same track through NMEA and a real gpsd.
        let serve = try await NMEAServe.start([track, "--speed", "20", "--original-times"])
        defer { serve.command.stop() }
        let daemon = try await GPSDDaemon.start(feedPort: serve.port)
        defer { daemon.stop() }
        let gpsd = try await LiveCommand(["gpsd", "--port", String(daemon.port), "--format", "jsonl"])
        defer { gpsd.stop() }
        try await gpsd.wait(for: "fixes at 10 different times") { lines in
            Set(lines.compactMap { $0.json?.type == "fix" ? $0.json?.timestamp : nil }).count >= 10
        }
        gpsd.interrupt()
        #expect(try await gpsd.waitForExit() == .exited(0), "\(gpsd.child.errors)")

        let outputs = ["replay": replay.stdout, "simulate": simulate.stdout, "gpsd": gpsd.child.output]
        for (command, output) in outputs.sorted(by: { $0.key < $1.key }) {
            let types = try SchemaCheck.check(output)
            #expect(types.contains("fix"), "\(command) wrote no fix")
            let fixes = output.split(separator: "\n").map(String.init).filter { $0.hasPrefix(#"{"type":"fix""#) }
            #expect(!fixes.isEmpty, "\(command) wrote no fix line")
            for (number, line) in fixes.enumerated() {
                let keys = LiveCommand.orderedKeys(line)
                // The members every source has, in the schema's order; speed and course on every
                // fix of replay and simulate, and on gpsd's after its first epoch (gpsd 3.22 may
                // report the first epoch before it has the RMC that carries them, now that locsim
                // writes GSA first).
                let knowsMotion = command != "gpsd" || number > 0
                let expected = knowsMotion ? Self.common : Self.common.filter { $0 != "speed" && $0 != "course" }
                let mayKnowMotion = command == "gpsd" && number == 0 && keys.contains("speed")
                #expect(keys.filter(Self.common.contains) == (mayKnowMotion ? Self.common : expected), "\(command): \(line)")
                #expect(!keys.contains("rejected"), "\(command): only a map timeline writes rejected")
            }
        }
    }
}

