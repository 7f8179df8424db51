#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// What `locsim replay` writes, and when: buffered output that loses nothing on a signal, the
/// progress line, `--noise 0`.
@Suite(.timeLimit(.minutes(1))) struct ReplayOutputTests {
    @Test("The progress line counts fix time from the first fix: it never runs ahead of the lines printed above it")
    func progressFollowsTheFixes() async throws {
        // The last 2 min 14 s of the walk at 50×, standard output and error both on one terminal.
        let (status, output) = try await CLI.runOnTerminal([
            "replay", "tracks/sf-mission-walk.gpx", "--speed", "50", "--start", "48:10", "--format", "jsonl",
            "--geodata", "geodata",
        ])
        #expect(status == 0, "\(output)")
        // The terminal gets lines ("…\r\n") and status redraws ("\r\u{1B}[K…"), in the order written.
        var fixTimes: [Date] = []
        var statuses: [(percent: Int, afterFix: Int)] = []
        for segment in output.components(separatedBy: "\r\u{1B}[K") {
            if segment.hasPrefix("{") || segment.isEmpty || segment.hasPrefix("\r\n") {
                for line in segment.components(separatedBy: "\r\n") {
                    guard let object = LiveCommand.parse(line), object.type == "fix", let time = object.time else { continue }
                    fixTimes.append(time)
                }
            } else if let match = segment.firstMatch(of: /^(\d+)%/), let percent = Int(match.1) {
                statuses.append((percent, fixTimes.count))
            }
        }
        let first = try #require(fixTimes.first), last = try #require(fixTimes.last)
        let covered = last.timeIntervalSince(first)
        #expect(covered > 100)
        #expect(!statuses.isEmpty, "a status line was drawn")
        // The status after fix k shows at most k's share of the run (1 point of slack for rounding).
        let ahead = statuses.compactMap { status -> String? in
            let share = status.afterFix == 0 ? 0 : fixTimes[status.afterFix - 1].timeIntervalSince(first) / covered * 100
            return Double(status.percent) <= share + 1 ? nil : "\(status.percent)% after a fix at \(Int(share))%"
        }
        #expect(ahead.isEmpty, "\(ahead.count) of \(statuses.count) status lines ran ahead: \(ahead.prefix(3))")
    }

    @Test("--noise 0 is no noise: the same log as without --noise", arguments: [
        ["replay", "tracks/sf-mission-walk.gpx", "--fast", "--format", "jsonl", "--geodata", "geodata"],
        ["simulate", "line", "--from", "35.6812,139.7671", "--to", "35.6852,139.7528", "--start-time", "2024-01-01T00:00:00Z",
         "--format", "jsonl"],
    ])
    func noiseZero(arguments: [String]) async throws {
        let clean = try await CLI.run(arguments)
        let zero = try await CLI.run(arguments + ["--noise", "0"])
        #expect(clean.status == 0 && zero.status == 0, "\(clean.stderr)\(zero.stderr)")
        #expect(!clean.stdout.isEmpty)
        #expect(zero.stdout == clean.stdout)
    }

    @Test("SIGINT during a replay writing to a pipe: exit 0, every buffered line written, the summary counting them")
    func interruptedReplay() async throws {
        try await withScratchFolder("locsim-replay-output") { directory in
            // The shipped hour-long walk in real time, each line flushed: the first fix line means
            // the replay loop is running, and an hour is left for the signal to find it so, however
            // loaded the machine. (A --fast or fast-forwarded replay can finish before a signal
            // reaches it.)
            let track = "tracks/tokyo-marunouchi-walk.gpx"
            let index = try await Self.emptyIndex(in: directory)
            let total = Self.fixLines(try await CLI.run(["replay", track, "--fast", "--format", "jsonl", "--db", index]).stdout)
            let replay = try await LiveCommand(["replay", track, "--speed", "1", "--flush", "--format", "jsonl", "--db", index])
            defer { replay.stop() }
            try await replay.wait(for: "the first fix line", timeout: .seconds(120)) { lines in
                lines.contains { $0.json?.type == "fix" }
            }
            replay.interrupt()
            #expect(try await replay.waitForExit(timeout: .seconds(60)) == .exited(0), "\(replay.child.errors)")

            let fixes = try Self.expectWholeStoppedOutput(replay)
            #expect(fixes < total, "interrupted before the end (\(fixes) of \(total) fixes)")
        }
    }

    @Test(
        "A SIGINT before the run began, to a replay a script started with SIGINT ignored (`locsim … &`): exit 130 saying so, never lost",
        .ownThread)
    func interruptedBeforeTheRun() async throws {
        try await withScratchFolder("locsim-replay-output") { directory in
            let index = try await Self.emptyIndex(in: directory)
            // A FIFO as the walk: once this test's open for writing returns, locsim has opened it
            // and waits to read it, well before its run; nothing is ever written.
            let walk = directory + "/walk.gpx"
            try #require(mkfifo(walk, 0o600) == 0)
            let child = try await ChildProcess(
                ["/bin/sh", "-c", "trap '' INT; exec \"$@\"", "sh", CLI.binary, "replay", walk, "--fast", "--db", index])
            // Blocks this test's own thread (.ownThread), not the pool, until the reader is there.
            let writer = open(walk, O_WRONLY)
            try #require(writer >= 0)
            defer { close(writer) }
            child.send(SIGINT)
            // Lost, as it was, the replay would wait on the FIFO until this times out.
            let termination = try await child.waitForExit(timeout: .seconds(30))
            #expect(termination == .exited(130), "\(child.errors)")
            #expect(child.errors.contains("locsim: interrupted (SIGINT) before writing anything"), "\(child.errors)")
            #expect(child.output.isEmpty)
        }
    }

    @Test(
        "SIGINT, SIGTERM or SIGHUP (a closed terminal) during a --fast replay held on a server's answer: exit 0, the buffered lines written, the summary counting them",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func interruptedFastReplay(signal: Int32) async throws {
        // A --fast replay waits for each real answer, and this server answers three requests and
        // holds every later one: the replay stands still, its lines still in its buffer (stdout is
        // a pipe and there is no --flush), until the signal.
        let server = try await LocalHTTPServer()
        defer { server.stop() }
        let replay = try await LiveCommand([
            "replay", "tracks/sf-mission-walk.gpx", "--fast", "--format", "jsonl", "--no-progress",
            "--online", "http://127.0.0.1:\(server.port)/hold-after-3",
        ])
        defer { replay.stop() }
        try await server.waitForOutput("HELD 4")
        // Under the 64 KiB block, nothing has been written yet.
        #expect(replay.child.output.isEmpty, "output buffered until the signal")
        replay.child.send(signal)
        #expect(try await replay.waitForExit(timeout: .seconds(60)) == .exited(0), "\(replay.child.errors)")

        try Self.expectWholeStoppedOutput(replay)
        // Everything before the held request came out: the three answers and the fourth fetch.
        let objects = replay.lines.map(\.json)
        #expect(objects.count { $0?.type == "answer" } == 3)
        #expect(objects.count { $0?.type == "fetch" } >= 4)
    }

    /// What a replay stopped by a signal must have written: whole JSON lines ending in a summary
    /// that counts the fix lines and says it was stopped. Returns the fix lines' count.
    @discardableResult
    static func expectWholeStoppedOutput(_ replay: LiveCommand, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        #expect(replay.child.output.hasSuffix("\n"), "no line cut in half", sourceLocation: sourceLocation)
        let objects = replay.lines.map(\.json)
        #expect(objects.allSatisfy { $0 != nil }, "every line is JSON", sourceLocation: sourceLocation)
        let summary = try #require(objects.last ?? nil, sourceLocation: sourceLocation)
        #expect(summary.type == "summary", sourceLocation: sourceLocation)
        let fixes = objects.count { $0?.type == "fix" }
        #expect(fixes > 0, sourceLocation: sourceLocation)
        #expect(summary.numbers["fixes"].map(Int.init) == fixes, "the summary counts the fix lines written", sourceLocation: sourceLocation)
        #expect(summary.numbers["interrupted"] == 1, "the summary says the run was stopped early", sourceLocation: sourceLocation)
        return fixes
    }

    @Test("--fast of a walk without times gives the same log on every run: it starts at 2000-01-01T00:00:00Z, as a scenario's untimed route")
    func fastUntimedIsReproducible() async throws {
        try await withScratchFolder("locsim-replay-output") { directory in
            let track = directory + "/untimed.gpx"
            try """
                <?xml version="1.0"?>
                <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                <trkpt lat="35.6812" lon="139.7671"/><trkpt lat="35.6822" lon="139.7681"/><trkpt lat="35.6832" lon="139.7691"/>
                </trkseg></trk></gpx>
                """.write(toFile: track, atomically: true, encoding: .utf8)
            let index = try await Self.emptyIndex(in: directory)
            let arguments = ["replay", track, "--fast", "--format", "jsonl", "--db", index]
            let first = try await CLI.run(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains(#""t":"2000-01-01T00:00:00.000Z""#), "\(first.stdout.prefix(300))")
            let second = try await CLI.run(arguments)
            #expect(second.stdout == first.stdout)
        }
    }

    /// How many fix lines a jsonl log has.
    static func fixLines(_ log: String) -> Int {
        log.split(separator: "\n").count { $0.hasPrefix(#"{"type":"fix""#) }
    }

    /// An index with no places (every fetch answers nothing), so the test needs no geodata build.
    static func emptyIndex(in directory: String) async throws -> String {
        let csv = directory + "/none.csv"
        try "id,name,lat,lon\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let path = directory + "/none.sqlite"
        let result = try await CLI.run(["index", "import", csv, "--db", path])
        guard result.status == 0 else { throw HarnessError("index import: \(result.stderr)") }
        return path
    }
}
