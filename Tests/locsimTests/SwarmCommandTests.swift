import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

@Suite(.timeLimit(.minutes(1))) struct SwarmCommandTests {
    let base = ["swarm", "--virtual", "--players", "300", "--duration", "20m", "--seed", "11"]

    @Test("the same options give byte-identical output, on any number of threads; another seed does not")
    func reproducible() async throws {
        let a = try await CLI.run(base + ["--threads", "1"])
        let b = try await CLI.run(base + ["--threads", "2"])
        let c = try await CLI.run(base + ["--threads", "1", "--seed", "12"])
        #expect(a.status == 0, "\(a.stderr)")
        #expect(a.stdout == b.stdout)
        #expect(a.stdout != c.stdout)
        #expect(a.stdout.contains("virtual swarm: 300 players, 0:20:00 of game time, seed 11"))
        for reason in ["first", "moved", "elapsed", "retry", "all"] {
            #expect(a.stdout.contains("\n  \(reason) "), "no \(reason) row")
        }
        // Every player opens the app once: 300 first fetches.
        #expect(a.stdout.contains(#/\n  first +300 /#))
    }

    @Test("--every-fix gives the same load as the shortcut, with the rule evaluated at every fix")
    func everyFix() async throws {
        let args = base + ["--mix", "walk=0.4,cycle=0.3,drive=0.3", "--fail-rate", "0.05", "--format", "json"]
        let fast = try await CLI.run(args)
        let every = try await CLI.run(args + ["--every-fix"])
        #expect(fast.status == 0 && every.status == 0, "\(fast.stderr)\(every.stderr)")
        func withoutEvaluations(_ text: String) -> String {
            text.replacing(#/"evaluations":\d+,/#, with: "")
        }
        #expect(withoutEvaluations(fast.stdout) == withoutEvaluations(every.stdout))
        #expect(fast.stdout != every.stdout)
        let fixes = try #require(every.stdout.firstMatch(of: #/"fixes":(\d+)/#)?.output.1)
        #expect(every.stdout.contains(#""evaluations":\#(fixes)"#))
        #expect(!fast.stdout.contains(#""retry":{"total":0,"#))
    }

    @Test("--db starts players at the index's places")
    func startsAtPlaces() async throws {
        try await withScratchFolder("locsim-swarm-db") { folder in
            let db = folder + "/swarm.sqlite"
            let imported = try await CLI.run(["index", "import", "geodata/tokyo-central.csv", "--db", db])
            #expect(imported.status == 0, "\(imported.stderr)")
            // Two sampled players, not the default 20: each sample is a 5 km query of the debug build.
            let run = try await CLI.run(base + ["--db", db, "--area", "35.6812,139.7671,1000", "--sample-answers", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains(#/\(starting at \d+ places\)/#))
            #expect(run.stdout.contains(#/places per answer \(\d+ answers, every fetch of the first 2 players\): mean /#))
            let unsampled = try await CLI.run(base + ["--db", db, "--area", "35.6812,139.7671,1000", "--sample-answers", "0"])
            #expect(unsampled.status == 0 && !unsampled.stdout.contains("places per answer"))
            let empty = try await CLI.run(base + ["--db", db, "--area", "0,0,1000"])
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("no places of \(db) within 1000 m"))
            // The swarm has no default index: the hint does not offer one.
            let missing = try await CLI.run(base + ["--db", folder + "/none.sqlite"])
            #expect(missing.status == 1)
            #expect(missing.stderr.hasSuffix("or leave out --db to start the players anywhere in --area\n"), "\(missing.stderr)")
        }
    }

    @Test(
        "a bad option stops with status 2 naming it",
        arguments: [
            (["--players", "0"], "--players"),
            (["--players", "10000001"], "--players"),
            (["--duration", "0"], "--duration"),
            (["--duration", "8d"], "--duration"),
            (["--duration", "1x"], "--duration"),
            (["--duration", "1h30"], "--duration"),
            (["--ramp", "2h"], "--ramp"),
            (["--mix", "fly=1"], "--mix"),
            (["--mix", "walk=0"], "--mix"),
            (["--area", "91,0,100"], "--area"),
            (["--area", "35,139"], "--area"),
            (["--area", "35,139,0"], "--area"),
            (["--fail-rate", "2"], "--fail-rate"),
            (["--fail-rate", "nan"], "--fail-rate"),
            (["--threads", "0"], "--threads"),
            // Options a --virtual run has no use for, and game time in fractions of a second.
            (["--connections", "0"], "--connections"),
            (["--scenario-share", "2"], "--scenario-share"),
            (["--timeout", "5s"], "--timeout"),
            (["--sample-answers", "5"], "--sample-answers"),
            (["--duration", "1.5", "--ramp", "0"], "--duration"),
            (["--ramp", "0.5"], "--ramp"),
        ])
    func badOption(_ extra: [String], flag: String) async throws {
        let result = try await CLI.run(["swarm", "--virtual", "--players", "10", "--duration", "1h"] + extra)
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("locsim: error:") == true)
        #expect(lines.first?.contains(flag) == true, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("A run shorter than a minute needs no --ramp: the players open the app over the whole run")
    func shortRunRampsOverItself() async throws {
        let result = try await CLI.run(["swarm", "--virtual", "--players", "10", "--duration", "30s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("opening the app over the first 30 s"), "\(result.stdout.prefix(400))")
        // --ramp 0: all at once, said so (not "over the first 0 s").
        let atOnce = try await CLI.run(["swarm", "--virtual", "--players", "10", "--duration", "30s", "--ramp", "0"])
        #expect(atOnce.status == 0, "\(atOnce.stderr)")
        #expect(atOnce.stdout.contains("; all opening the app at once\n"), "\(atOnce.stdout.prefix(400))")
    }

    @Test("without --virtual it says what exists")
    func needsVirtual() async throws {
        let result = try await CLI.run(["swarm", "--players", "10"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--virtual"))
    }
}
