import Foundation
@testable import LocSimCommand
import LocationIndex
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim index` end to end, through the built binary (``CLI``).
@Suite("locsim index", .timeLimit(.minutes(1)))
struct IndexCommandTests {
    /// Runs locsim with every relative file argument resolved inside `directory`.
    func locsim(_ arguments: [String], in directory: String) async throws -> CLI.Result {
        let resolved = arguments.map { argument in
            argument.hasSuffix(".csv") || argument.hasSuffix(".sqlite") ? directory + "/" + argument : argument
        }
        return try await CLI.run(resolved)
    }

    @Test("import, query (text, json, jsonl) and stats")
    func endToEnd() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try """
                id,name,lat,lon,kind,level
                a,"Alpha, the first",35.0000000,139.0000000,shrine,1
                b,Beta,35.0010000,139.0000000,cafe,
                c,Gamma,-16.5,179.9999,buoy,2
                d,Delta,-16.5,-179.9999,buoy,3
                """.write(toFile: directory + "/p.csv", atomically: true, encoding: .utf8)
            let imported = try await locsim(["index", "import", "p.csv", "--db", "i.sqlite"], in: directory)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("4 new"))

            let json = try await locsim(
                ["index", "query", "--db", "i.sqlite", "--lat", "35", "--lon", "139", "--radius", "200", "--format", "json"],
                in: directory)
            #expect(json.status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let places = try #require(object?["places"] as? [[String: Any]])
            #expect(places.map { $0["id"] as? String } == ["a", "b"])
            #expect(places.first?["name"] as? String == "Alpha, the first")
            // --lng, as the server's parameter is named, is --lon.
            let lng = try await locsim(
                ["index", "query", "--db", "i.sqlite", "--lat", "35", "--lng", "139", "--radius", "200", "--format", "json"],
                in: directory)
            #expect(lng.status == 0 && lng.stdout == json.stdout, "\(lng.stderr)")
            // The same places saved as UTF-16 (with its byte-order mark) import the same.
            let text = try String(contentsOfFile: directory + "/p.csv", encoding: .utf8)
            try #require(("\u{FEFF}" + text).data(using: .utf16LittleEndian)).write(to: URL(fileURLWithPath: directory + "/p16.csv"))
            let imported16 = try await locsim(["index", "import", "p16.csv", "--db", "i16.sqlite"], in: directory)
            #expect(imported16.status == 0, "\(imported16.stderr)")
            let json16 = try await locsim(
                ["index", "query", "--db", "i16.sqlite", "--lat", "35", "--lon", "139", "--radius", "200", "--format", "json"],
                in: directory)
            #expect(json16.stdout == json.stdout)

            try "lat,lon,radius\n-16.5,180,100\n35,139,1\n0,0,1000\n".write(
                toFile: directory + "/q.csv", atomically: true, encoding: .utf8)
            let batch = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "q.csv", "--format", "jsonl"], in: directory)
            #expect(batch.status == 0, "\(batch.stderr)")
            let lines = batch.stdout.split(separator: "\n")
            #expect(lines.count == 3)
            let across = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: [[String: Any]]]
            #expect(Set(across?["places"]?.compactMap { $0["id"] as? String } ?? []) == ["c", "d"])
            #expect(across?["places"]?.first?.keys.sorted() == ["distance_m", "id", "kind", "lat", "level", "lon", "name"], "the same members as --format json")
            #expect(lines[2] == #"{"places":[]}"#)

            // The same queries as a spreadsheet exports them (byte-order mark, CRLF, quoted
            // fields, a blank line): read by the RFC 4180 reader place files use, same answers.
            let exported = "\u{FEFF}\"Latitude\",\"Longitude\",\"Radius\"\r\n\"-16.5\",\"180\",\"100\"\r\n\r\n35,139,\"1\"\r\n0,0,1000\r\n"
            try exported.write(toFile: directory + "/exported.csv", atomically: true, encoding: .utf8)
            let same = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "exported.csv", "--format", "jsonl"], in: directory)
            #expect(same.status == 0, "\(same.stderr)")
            #expect(same.stdout == batch.stdout)
            // A spreadsheet's "Unicode" export: UTF-16 with its byte-order mark, either order.
            for encoding in [String.Encoding.utf16LittleEndian, .utf16BigEndian] {
                try #require(exported.data(using: encoding)).write(to: URL(fileURLWithPath: directory + "/utf16.csv"))
                let utf16 = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "utf16.csv", "--format", "jsonl"], in: directory)
                #expect(utf16.status == 0, "\(encoding): \(utf16.stderr)")
                #expect(utf16.stdout == batch.stdout, "\(encoding)")
            }
            try "lat,lon,radius\n10,20,100\n\"10,20,100\n".write(toFile: directory + "/open.csv", atomically: true, encoding: .utf8)
            let open = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "open.csv", "--format", "jsonl"], in: directory)
            #expect(open.status == 1)
            #expect(open.stderr.contains("open.csv:3") && open.stderr.contains("quoted field is not closed"), "\(open.stderr)")
            // A row short of the columns says so, as a place file's does (not '"" is not a number').
            try "1,2,100\n1,2\n".write(toFile: directory + "/short.csv", atomically: true, encoding: .utf8)
            let short = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "short.csv", "--format", "jsonl"], in: directory)
            #expect(short.status == 1 && short.stdout.isEmpty)
            #expect(short.stderr.contains("/short.csv:2: malformed row: expected 3 fields, found 2\n"), "\(short.stderr)")
            // A header naming a column twice is refused, as in place files.
            try "lat,lon,radius,Lat\n10,20,100,11\n".write(toFile: directory + "/twice.csv", atomically: true, encoding: .utf8)
            let twice = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "twice.csv", "--format", "jsonl"], in: directory)
            #expect(twice.status == 1 && twice.stdout.isEmpty)
            #expect(twice.stderr.contains("twice.csv:1: column \"lat\": bad header: the header names the column 'lat' twice"), "\(twice.stderr)")

            // Query files take plain decimals, like place files: no hexadecimal, nan or inf.
            for value in ["0x1p3", "nan", "inf"] {
                try "lat,lon,radius\n10,20,100\n\(value),20,100\n".write(
                    toFile: directory + "/odd.csv", atomically: true, encoding: .utf8)
                let odd = try await locsim(["index", "query", "--db", "i.sqlite", "--queries", "odd.csv", "--format", "jsonl"], in: directory)
                #expect(odd.status == 1, "\(value): \(odd.stderr)")
                #expect(odd.stderr.contains("odd.csv:3: column \"lat\""), "\(odd.stderr)")
                #expect(odd.stderr.contains("\"\(value)\" is not a number"), "\(odd.stderr)")
            }

            let stats = try await locsim(["index", "stats", "--db", "i.sqlite", "--format", "json", "--verify"], in: directory)
            #expect(stats.status == 0)
            #expect(stats.stdout.contains(#""places":4"#))
            #expect(stats.stdout.contains(#""rows_per_level":["#))
        }
    }

    @Test("A place file of no place is taken (an empty index), with a warning saying so: a header-only export is what a failed query leaves")
    func noPlaceWarned() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\n".write(toFile: directory + "/h.csv", atomically: true, encoding: .utf8)
            let new = try await locsim(["index", "import", "h.csv", "--db", "i.sqlite"], in: directory)
            #expect(new.status == 0, "\(new.stderr)")
            #expect(new.stdout.hasPrefix("imported 0 rows from \(directory)/h.csv: 0 new"), "\(new.stdout)")
            #expect(new.stderr == "locsim: warning: \(directory)/h.csv holds no place (no row after its header, or no feature): nothing was imported; \(directory)/i.sqlite is an empty index\n", "\(new.stderr)")
            let again = try await locsim(["index", "import", "h.csv", "--db", "i.sqlite"], in: directory)
            #expect(again.status == 0 && again.stderr.hasSuffix("nothing was imported\n"), "\(again.stderr)")
        }
    }

    @Test("A damaged index: a query's hint names the check, the check's own failure only the rebuild")
    func damagedHints() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\nm,Marker Place Zq,35,139\n".write(toFile: directory + "/m.csv", atomically: true, encoding: .utf8)
            #expect(try await locsim(["index", "import", "m.csv", "--db", "i.sqlite"], in: directory).status == 0)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/i.sqlite"))
            let range = try #require(bytes.range(of: Data("Marker Place Zq".utf8)))
            bytes.replaceSubrange(range, with: Data(repeating: 0xFF, count: range.count))
            try bytes.write(to: URL(fileURLWithPath: directory + "/i.sqlite"))
            let query = try await locsim(["index", "query", "--db", "i.sqlite", "--lat", "35", "--lon", "139", "--radius", "100"], in: directory)
            #expect(query.status == 1)
            #expect(query.stderr.hasSuffix("hint: rebuild the index with 'locsim index import'; 'locsim index stats --verify' checks every page\n"), "\(query.stderr)")
            let check = try await locsim(["index", "stats", "--db", "i.sqlite", "--verify"], in: directory)
            #expect(check.status == 1)
            #expect(check.stderr.hasSuffix("hint: rebuild the index with 'locsim index import'\n"), "\(check.stderr)")
        }
    }

    @Test("--lenient: a bad row is 'skipped' at its line; a repeated id's later row, which is kept, says it replaced the earlier one")
    func lenientLines() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\na,First,1,1\nb,Bad,north,2\na,Second,3,3\n".write(
                toFile: directory + "/dup.csv", atomically: true, encoding: .utf8)
            let result = try await locsim(["index", "import", "dup.csv", "--db", "i.sqlite", "--lenient"], in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 2, "\(result.stderr)")
            #expect(lines.first?.hasPrefix("skipped: \(directory)/dup.csv:3: column \"lat\": ") == true, "\(result.stderr)")
            #expect(
                lines.last?.hasPrefix("replaced: \(directory)/dup.csv:4: column \"id\": duplicate id: id \"a\" already appeared at line 2") == true,
                "\(result.stderr)")
            #expect(result.stdout.contains("1 new, 0 updated, 0 unchanged, 2 skipped; "), "\(result.stdout)")
            let query = try await locsim(["index", "query", "--db", "i.sqlite", "--lat", "3", "--lon", "3", "--radius", "1000"], in: directory)
            #expect(query.stdout.contains("Second"), "the later row is the one kept: \(query.stdout)")
        }
    }

    @Test("A spreadsheet's CSV: not UTF-8 (Japanese Excel's CP932) is told to convert, not to skip rows; ';'-separated is named")
    func spreadsheetCSV() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            // 東京 in CP932 (Shift_JIS) bytes.
            let cp932 = Data("id,name,lat,lon\na,Plain,1,1\nb,".utf8) + Data([0x93, 0x8C, 0x8B, 0x9E]) + Data(",35.68,139.76\n".utf8)
            try cp932.write(to: URL(fileURLWithPath: directory + "/sjis.csv"))
            let sjis = try await locsim(["index", "import", "sjis.csv", "--db", "i.sqlite"], in: directory)
            #expect(sjis.status == 1)
            #expect(sjis.stderr.contains("sjis.csv:3: column \"name\": malformed row: not valid UTF-8"), "\(sjis.stderr)")
            #expect(sjis.stderr.contains("hint: the file is not UTF-8 text"), "\(sjis.stderr)")
            #expect(sjis.stderr.contains("iconv -f CP932 -t UTF-8"), "\(sjis.stderr)")
            try "id;name;lat;lon\na;Berlin;52,52;13,40\n".write(toFile: directory + "/semicolon.csv", atomically: true, encoding: .utf8)
            let semicolon = try await locsim(["index", "import", "semicolon.csv", "--db", "i.sqlite"], in: directory)
            #expect(semicolon.status != 0)
            #expect(semicolon.stderr.contains("(found: id;name;lat;lon); its fields are separated by ';'"), "\(semicolon.stderr)")
            // The GeoNames layout without --format: said so, not taken for a ';'-separated file.
            try "lat,lon,name,admin1,admin2,cc\n35.68,139.76,Tokyo,13,,JP\n".write(toFile: directory + "/cities.csv", atomically: true, encoding: .utf8)
            let geonames = try await locsim(["index", "import", "cities.csv", "--db", "i.sqlite"], in: directory)
            #expect(geonames.status != 0)
            #expect(geonames.stderr.contains("it is the GeoNames layout, read as the geonames format, not as a place CSV"), "\(geonames.stderr)")
            #expect(geonames.stderr.contains("hint: a CSV place file's header names id, name, lat and lon (kind and level optional); a GeoNames file's (--format geonames)"), "\(geonames.stderr)")
            // In a --geodata folder (read as place CSVs), the way in is an index of its own: no --format there.
            try FileManager.default.createDirectory(atPath: directory + "/geodata", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: directory + "/cities.csv", toPath: directory + "/geodata/cities.csv")
            let replay = try await locsim(["replay", PackagePaths.path("tracks/sf-mission-walk.gpx"), "--fast", "--geodata", directory + "/geodata"], in: directory)
            #expect(replay.status == 1)
            #expect(replay.stderr.hasSuffix(
                "hint: import it into an index first, 'locsim index import FILE --format geonames --db places.sqlite', and give --db places.sqlite instead of --geodata\n"),
                "\(replay.stderr)")
            // A folder of no place set, and an empty file as the index: said once, with what to do.
            try FileManager.default.createDirectory(atPath: directory + "/none", withIntermediateDirectories: true)
            let none = try await locsim(["replay", PackagePaths.path("tracks/sf-mission-walk.gpx"), "--fast", "--geodata", directory + "/none"], in: directory)
            #expect(none.status == 1)
            #expect(none.stderr.contains("none: parameter geodata: unreadable input: no .csv place set in this folder\nhint: give --geodata a folder of place CSVs"), "\(none.stderr)")
            try Data().write(to: URL(fileURLWithPath: directory + "/empty.sqlite"))
            let empty = try await locsim(["replay", PackagePaths.path("tracks/sf-mission-walk.gpx"), "--fast", "--db", "empty.sqlite"], in: directory)
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("empty.sqlite: not a locsim index: the file is empty; import places into it first\n"), "\(empty.stderr)")
            #expect(!geonames.stderr.contains("separated by ';'"), "\(geonames.stderr)")
        }
    }

    @Test("--lenient whose every row is bad: status 1 naming the first, and no new empty index file left behind")
    func lenientEveryRowBad() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\na,Far,999,1\nb,Text,north,2\n".write(toFile: directory + "/bad.csv", atomically: true, encoding: .utf8)
            let result = try await locsim(["index", "import", "bad.csv", "--db", "new.sqlite", "--lenient"], in: directory)
            #expect(result.status == 1, "\(result.stdout)")
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr.hasPrefix("locsim: error: \(directory)/bad.csv: wrong format: every one of its 2 rows was skipped as bad"),
                "\(result.stderr)")
            #expect(!result.stderr.contains("add --lenient"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["bad.csv"])
        }
    }

    @Test("A place file without the header its format needs: the hint gives each format's header, never 'read it with --format geonames' to one who did")
    func headerHint() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "35.0,139.0,Tokyo,Tokyo,,JP\n".write(toFile: directory + "/bare.csv", atomically: true, encoding: .utf8)
            for format in ["csv", "geonames"] {
                let result = try await locsim(["index", "import", "bare.csv", "--format", format, "--db", "i.sqlite"], in: directory)
                #expect(result.status == 1, "\(format): \(result.stdout)")
                let hint = try #require(result.stderr.split(separator: "\n").last, "\(format)")
                #expect(
                    hint == "hint: a CSV place file's header names id, name, lat and lon (kind and level optional); "
                        + "a GeoNames file's (--format geonames) is lat,lon,name,admin1,admin2,cc", "\(format): \(result.stderr)")
            }
        }
    }

    @Test("An index its reader cannot write answers queries, and again once the reader has made a -shm it cannot write either")
    func readOnlyFile() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\na,Alpha,35,139\nb,Beta,35.001,139\n".write(toFile: directory + "/p.csv", atomically: true, encoding: .utf8)
            #expect(try await locsim(["index", "import", "p.csv", "--db", "i.sqlite"], in: directory).status == 0)
            // Another user's index in a folder anyone may write: the reader's SQLite makes a -shm
            // it then opens read-only, which moves the data version at every read transaction
            // (a query spun forever on that before). Root reads any file, so the query runs as
            // `nobody` then.
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: directory + "/i.sqlite")
            let query = [CLI.binary, "index", "query", "--db", directory + "/i.sqlite", "--lat", "35", "--lon", "139", "--radius", "200"]
            let asReader = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] + query : query
            for run in 1...2 {
                let outcome = try await ChildProcess.run(asReader, timeout: .seconds(20))
                #expect(outcome.status == 0, "run \(run): \(outcome.errors)")
                #expect(outcome.output.contains("2 places within 200 m"), "run \(run): \(outcome.output)")
            }
            // In a folder the reader cannot write, SQLite cannot make the -shm: the error says so.
            guard getuid() == 0 else { return }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
            for suffix in ["-shm", "-wal"] { try FileManager.default.removeItem(atPath: directory + "/i.sqlite" + suffix) }
            let refused = try await ChildProcess.run(asReader, timeout: .seconds(20))
            #expect(refused.status == 1)
            #expect(refused.errors.contains("an index in WAL mode is read with a -shm file beside it, which cannot be made in its folder"), "\(refused.errors)")
        }
    }

    @Test("GeoJSON: a byte-order mark is read past; a syntax error says its line and column and how to fix the file")
    func geoJSONText() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            let point = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[139,35]},"properties":{"name":"A"}}]}"#
            try (Data([0xEF, 0xBB, 0xBF]) + Data(point.utf8)).write(to: URL(fileURLWithPath: directory + "/marked.geojson"))
            let marked = try await CLI.run(["index", "import", directory + "/marked.geojson", "--db", directory + "/m.sqlite"])
            #expect(marked.status == 0, "\(marked.stderr)")
            #expect(marked.stdout.contains("1 new"), "\(marked.stdout)")
            try "{\"type\": \"FeatureCollection\",\n \"features\": [,]}".write(toFile: directory + "/bad.geojson", atomically: true, encoding: .utf8)
            let bad = try await CLI.run(["index", "import", directory + "/bad.geojson", "--db", directory + "/b.sqlite"])
            #expect(bad.status == 1)
            #expect(bad.stderr.split(separator: "\n") == [
                "locsim: error: \(directory)/bad.geojson: wrong format: not valid JSON at line 2, column 15: expected a value",
                "hint: fix the file (docs/reference/place-index.md says what each format holds)",
            ])
            // Two names for one place: which is it? Refused where the second is, never one kept silently.
            try #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[139,35]},"properties":{"name":"A","name":"B"}}]}"#
                .write(toFile: directory + "/twice.geojson", atomically: true, encoding: .utf8)
            let twice = try await CLI.run(["index", "import", directory + "/twice.geojson", "--db", directory + "/t.sqlite"])
            #expect(twice.status == 1)
            #expect(twice.stderr.hasPrefix(
                "locsim: error: \(directory)/twice.geojson: wrong format: ambiguous JSON at line 1, column 135: the name \"name\" appears twice in one object (first at line 1, column 124)\n"),
                "\(twice.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/t.sqlite"))
        }
    }

    @Test("An error quoting a file's control bytes (an escape sequence, the NULs of a binary file) shows them as \\xNN, never sends them to the terminal; printable text as written")
    func controlBytesEscaped() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\na1,X,35.1\u{1B}[31m,139.1\n".write(toFile: directory + "/esc.csv", atomically: true, encoding: .utf8)
            let result = try await locsim(["index", "import", "esc.csv", "--db", "i.sqlite"], in: directory)
            #expect(result.status == 1)
            #expect(result.stderr.contains(#""35.1\x1B[31m" is not a number"#), "\(result.stderr)")
            #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(result.stderr.debugDescription)")

            // Printable text in any script is quoted as written, not as its bytes.
            try "id,name,lat,lon\na1,X,35°41′,139.1\n".write(toFile: directory + "/deg.csv", atomically: true, encoding: .utf8)
            let degrees = try await locsim(["index", "import", "deg.csv", "--db", "i.sqlite"], in: directory)
            #expect(degrees.status == 1)
            #expect(degrees.stderr.contains(#""35°41′" is not a number"#), "\(degrees.stderr)")
        }
    }

    @Test("Errors exit 1 with advice, usage errors exit 2")
    func exitStatuses() async throws {
        try await withScratchFolder("locsim-index-cli") { directory in
            try "id,name,lat,lon\nx,Bad,91,0\n".write(toFile: directory + "/bad.csv", atomically: true, encoding: .utf8)
            let bad = try await locsim(["index", "import", "bad.csv", "--db", "i.sqlite"], in: directory)
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("bad.csv:2: column \"lat\""))

            let notIndex = try await locsim(["index", "stats", "--db", "bad.csv"], in: directory)
            #expect(notIndex.status == 1)
            #expect(notIndex.stderr.contains("not a locsim index"))

            let missing = try await locsim(["index", "stats", "--db", "nothing.sqlite"], in: directory)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("locsim index import"))

            // --db naming a folder, or a file in a folder that is not there: the system's words,
            // and for import a hint about the path rather than "create an index with import".
            let intoNowhere = try await locsim(["index", "import", "bad.csv", "--db", "\(directory)/no-such-folder/i.db"], in: directory)
            #expect(intoNowhere.status == 1)
            // The path given, not the file the new index is built in beside it (path.partial-PID).
            #expect(
                intoNowhere.stderr.hasPrefix(
                    "locsim: error: \(directory)/no-such-folder/i.db: cannot open database: cannot create a new index there: its folder does not exist\n"),
                "\(intoNowhere.stderr)")
            #expect(intoNowhere.stderr.hasSuffix("hint: give --db the path of a file in a folder that exists and can be written\n"), "\(intoNowhere.stderr)")
            #if os(Linux)
            // A folder that is there but takes no new file (procfs; a folder without write
            // permission is the same for a user other than root): not "there is no file at this path".
            let intoProc = try await CLI.run(["index", "import", directory + "/bad.csv", "--db", "/proc/locsim-test.sqlite"])
            #expect(intoProc.status == 1)
            #expect(
                intoProc.stderr.hasPrefix(
                    "locsim: error: /proc/locsim-test.sqlite: cannot open database: cannot create a new index there: cannot create a file in its folder ("),
                "\(intoProc.stderr)")
            #endif
            for command in [["index", "import", "bad.csv"], ["index", "stats"], ["replay", "tracks/sf-mission-walk.gpx", "--fast"]] {
                let folder = try await locsim(command + ["--db", directory], in: directory)
                #expect(folder.status == 1)
                #expect(folder.stderr.hasPrefix("locsim: error: \(directory): cannot open database: Is a directory; give the path of a file, not a folder\n"), "\(folder.stderr)")
            }

            for arguments in [
                ["--lat", "91", "--lon", "0", "--radius", "10"],
                ["--lat", "0", "--lon", "0", "--radius", "0"],
                ["--lat", "0", "--lon", "0", "--radius", "10", "--limit", "0"],
                ["--queries", "q.csv"],
            ] {
                let usage = try await locsim(["index", "query", "--db", "i.sqlite"] + arguments, in: directory)
                #expect(usage.status == 2, "\(arguments): \(usage.stderr)")
            }
        }
    }
}
