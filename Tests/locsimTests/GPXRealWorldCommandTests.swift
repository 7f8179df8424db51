import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `track stats` and `replay` on the real-world GPX cases of
/// `scripts/reference/make_gpx_realworld_reference.py` (files and expected values in
/// Tests/GPXFormatTests/Fixtures/realworld).
@Suite(.timeLimit(.minutes(1))) struct GPXRealWorldCommandTests {
    static let directory = "Tests/GPXFormatTests/Fixtures/realworld/"

    struct Reference: Decodable {
        struct Problem: Decodable { var line: Int, column: Int, code: String }
        struct Reversal: Decodable { var kind: String, line: Int, column: Int }
        struct Point: Decodable { var time: Double? }
        var segments: [[Point]]
        var problems: [Problem]?
        var skipped_points: Int?
        var dropped_values: Int?
        var reversals: [Reversal]?
        var track_reversals: Int?
        struct Position: Decodable { var line: Int, column: Int }
        var truncation: Position?
    }

    static func reference(_ name: String) throws -> Reference {
        let data = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.path(directory + name + ".json")))
        return try JSONDecoder().decode(Reference.self, from: data)
    }

    func stats(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test("track stats --lenient keeps a point whose only fault is a bad value, and says where each problem is")
    func trackStatsLenient() async throws {
        let file = Self.directory + "bad-values.gpx"
        let reference = try Self.reference("bad-values")
        let result = try await CLI.run(["track", "stats", file, "--lenient", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try stats(result)
        #expect(json["points"] as? Int == reference.segments.flatMap { $0 }.count)
        // The JSON says what standard error says, for a script that reads only standard output.
        let skipped = json["skipped_points"] as? Int, dropped = json["dropped_values"] as? Int
        #expect(skipped == reference.skipped_points && dropped == reference.dropped_values, "\(result.stdout)")
        #expect(json["cut_off"] is NSNull, "\(result.stdout)")
        let problems = try #require(reference.problems)
        #expect(result.stderr.contains("skipped 1 point with a bad position"), "\(result.stderr)")
        #expect(result.stderr.contains("dropped \(try #require(reference.dropped_values)) bad values"), "\(result.stderr)")
        for problem in problems.prefix(5) {
            #expect(result.stderr.contains("\(file):\(problem.line):\(problem.column): error: "), "\(result.stderr)")
        }
        // Strict: the first bad value stops it, where it is.
        let strict = try await CLI.run(["track", "stats", file])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("\(file):\(problems[0].line):\(problems[0].column):"), "\(strict.stderr)")
        #expect(strict.stderr.contains("hint: fix the file at that line and column"), "\(strict.stderr)")
    }

    @Test("track stats reads ISO-8859-1, windows-1252 and UTF-16 files", arguments: [
        "latin1-declared", "windows1252-declared", "windows1252-undeclared", "utf16le-bom", "utf16be-bom",
    ])
    func trackStatsEncodings(name: String) async throws {
        let reference = try Self.reference(name)
        let result = try await CLI.run(["track", "stats", Self.directory + name + ".gpx", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try stats(result)["points"] as? Int == reference.segments.flatMap { $0 }.count)
    }

    @Test("track stats says which track points go back in time, with file:line:column")
    func trackStatsReversals() async throws {
        let file = Self.directory + "backwards-times.gpx"
        let reference = try Self.reference("backwards-times")
        let result = try await CLI.run(["track", "stats", file, "--format", "json"])
        #expect(result.status == 0)
        let count = try #require(reference.track_reversals)
        #expect(result.stderr.contains("warning: \(count) track points have a time earlier than a point before them"), "\(result.stderr)")
        let listed = try #require(reference.reversals).filter { $0.kind == "trkpt" }.prefix(5)
        for reversal in listed {
            #expect(result.stderr.contains("\(file):\(reversal.line):\(reversal.column): warning: <trkpt> time "), "\(result.stderr)")
        }
    }

    @Test("replay --lenient plays the points it can and reports the rest")
    func replayLenient() async throws {
        let file = Self.directory + "bad-values.gpx"
        let reference = try Self.reference("bad-values")
        let result = try await CLI.run(["replay", file, "--lenient", "--fast", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let fixes = result.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"fix\"") }
        // Every kept point with a time becomes a fix; the one whose <time> was dropped is left out.
        let timed = reference.segments.flatMap { $0 }.filter { $0.time != nil }.count
        #expect(fixes.count == timed, "\(result.stdout.prefix(400))")
        #expect(result.stderr.contains("left 1 point without a usable <time> out of the replay:\n"), "\(result.stderr)")
        // Named where it is, as every problem: the point whose bad <time> was dropped (its line).
        let problems = try #require(reference.problems)
        let badTime = try #require(problems.first { $0.code == "invalidTime" })
        #expect(result.stderr.contains("\n  \(file):\(badTime.line):"), "\(result.stderr)")
        for problem in try #require(reference.problems).prefix(5) {
            #expect(result.stderr.contains("\(file):\(problem.line):\(problem.column): error: "), "\(result.stderr)")
        }
    }

    @Test("A recording cut off mid-write: replay names the cut and offers --lenient, which plays the points before it and says where the file ends")
    func cutOffRecording() async throws {
        let file = Self.directory + "truncated.gpx"
        let reference = try Self.reference("truncated")
        let at = try #require(reference.truncation)
        let strict = try await CLI.run(["replay", file, "--fast", "--format", "jsonl"])
        #expect(strict.status == 1 && strict.stdout.isEmpty, "\(strict.stderr)")
        #expect(strict.stderr.contains("error: \(file):\(at.line):\(at.column): input ended inside <time>") && strict.stderr.contains("'locsim replay --lenient' and 'locsim track stats --lenient' read it up to the cut"), "\(strict.stderr)")

        let lenient = try await CLI.run(["replay", file, "--fast", "--format", "jsonl", "--lenient"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        let fixes = lenient.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"fix\"") }
        #expect(fixes.count == reference.segments.flatMap { $0 }.count, "\(lenient.stdout.prefix(400))")
        #expect(lenient.stderr.contains("\(file):\(at.line):\(at.column): warning: input ended inside <time>: the file ends early"), "\(lenient.stderr)")

        let stats = try await CLI.run(["track", "stats", file, "--lenient", "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let json = try self.stats(stats)
        #expect(json["points"] as? Int == reference.segments.flatMap { $0 }.count)
        let cut = try #require(json["cut_off"] as? [String: Any], "\(stats.stdout)")
        let line = cut["line"] as? Int, column = cut["column"] as? Int
        #expect(line == at.line && column == at.column && cut["message"] as? String == "input ended inside <time>", "\(stats.stdout)")
        #expect(stats.stderr.contains("\(file):\(at.line):\(at.column): warning: "), "\(stats.stderr)")

        // An empty file has nothing --lenient could read: the hint does not offer it.
        try await withScratchFolder("locsim-gpx-empty") { folder in
            try "".write(toFile: folder + "/empty.gpx", atomically: true, encoding: .utf8)
            let empty = try await CLI.run(["replay", folder + "/empty.gpx", "--fast"])
            #expect(empty.status == 1 && empty.stderr.contains("there is nothing in it to read") && !empty.stderr.contains("--lenient"), "\(empty.stderr)")
        }
    }

    @Test("replay says which points it dropped because their time goes backwards")
    func replayReversals() async throws {
        let file = Self.directory + "backwards-times.gpx"
        let reference = try Self.reference("backwards-times")
        let result = try await CLI.run(["replay", file, "--fast", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let count = try #require(reference.track_reversals)
        #expect(result.stderr.contains("dropped \(count) points whose time goes backwards"), "\(result.stderr)")
        for reversal in try #require(reference.reversals).filter({ $0.kind == "trkpt" }).prefix(5) {
            #expect(result.stderr.contains("\(file):\(reversal.line):\(reversal.column): warning: "), "\(result.stderr)")
        }
        let fixes = result.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"fix\"") }
        #expect(fixes.count == reference.segments.flatMap { $0 }.count - count)
    }

    @Test("A 1 GB sparse file fails at 1:1 naming the NUL byte")
    func sparseFile() async throws {
        try await withScratchFolder("locsim-sparse-file") { folder in
            let path = folder + "/sparse.gpx"
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: 1 << 30)
            try handle.close()
            let result = try await CLI.run(["track", "stats", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("locsim: error: \(path):1:1: a NUL byte"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: the file is not well-formed XML there"), "\(result.stderr)")
        }
    }

    @Test("Malformed XML: the hint names --lenient only to a command that has it")
    func malformedHintPerCommand() async throws {
        try await withScratchFolder("locsim-malformed-hint") { folder in
            try FileManager.default.createDirectory(atPath: folder + "/tracks", withIntermediateDirectories: false)
            let path = folder + "/tracks/bad.gpx"
            try "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=1 lon=2></trkpt></trkseg></trk></gpx>\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            let stats = try await CLI.run(["track", "stats", path])
            #expect(stats.status == 1)
            #expect(stats.stderr.contains("hint: the file is not well-formed XML there, which --lenient cannot skip"), "\(stats.stderr)")
            let swarm = try await CLI.run(["swarm", "--server", "http://127.0.0.1:1", "--players", "1", "--tracks", folder + "/tracks"])
            #expect(swarm.status == 1)
            #expect(swarm.stderr.contains("locsim: error: \(path):1:"), "\(swarm.stderr)")
            #expect(swarm.stderr.hasSuffix("hint: the file is not well-formed XML there (docs/reference/gpx.md says what is read)\n"), "\(swarm.stderr)")
        }
    }

    @Test("An encoding locsim cannot read is an error naming it, with a hint to convert")
    func unsupportedEncoding() async throws {
        try await withScratchFolder("locsim-encoding") { folder in
            let path = folder + "/sjis.gpx"
            try "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<gpx version=\"1.1\"/>\n".write(toFile: path, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["track", "stats", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("locsim: error: \(path):1:31: encoding \"Shift_JIS\" is not supported"), "\(result.stderr)")
            #expect(result.stderr.contains("iconv -f Shift_JIS -t UTF-8"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: convert it to UTF-8"), "\(result.stderr)")
        }
    }
}
