import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim index import/stats --postgres` and `locsim serve --postgres` against a private
/// PostgreSQL + PostGIS started by the test (skipped, saying why, where none can run).
@Suite(.timeLimit(.minutes(1))) struct PostGISCommandTests {
    func withServer(_ body: (PostgresServer) async throws -> Void) async throws {
        if let reason = PostgresServer.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        try await PostgresServer.with(body)
    }

    @Test("import, stats and serve from PostGIS give what --db gives; the password never shows")
    func importStatsServe() async throws {
        try await withServer { postgres in try await withScratchFolder("locsim-postgis-command") { directory in
            let db = directory + "/sf.sqlite"
            #expect(try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--db", db]).status == 0)
            // The password from PGPASSWORD, not the URL.
            let imported = try await CLI.run(
                ["index", "import", "geodata/sf-mission.csv", "--postgres", postgres.urlWithoutPassword],
                environment: ["PGPASSWORD": PostgresServer.password])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains(" new, 0 updated, 0 unchanged, 0 skipped; postgres://postgres@127.0.0.1:\(postgres.port)/postgres now holds"))
            #expect(!(imported.stdout + imported.stderr).contains(PostgresServer.password))
            let again = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--postgres", postgres.url])
            // Every row read is a place given as stored, as an SQLite index counts it.
            let rows = try #require(again.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) })
            #expect(again.stdout.contains(": 0 new, 0 updated, \(rows) unchanged, 0 skipped; "), "\(again.stdout)")
            let sqliteAgain = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--db", db])
            #expect(sqliteAgain.stdout.contains(": 0 new, 0 updated, \(rows) unchanged, 0 skipped; "), "\(sqliteAgain.stdout)")
            #expect(!(again.stdout + again.stderr).contains(PostgresServer.password))
            let sqliteStats = try await CLI.run(["index", "stats", "--db", db, "--format", "json"])
            let stats = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--format", "json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            let count = { (text: String) in
                (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["places"] as? Int
            }
            #expect(try count(stats.stdout) != nil)
            #expect(try count(stats.stdout) == count(sqliteStats.stdout))
            // The record as documented, without --verify's members; the URL without its password.
            let record = try #require(SchemaCheck.record(named: "index stats --postgres"))
            var members = Set<String>()
            #expect(SchemaCheck.problems(String(stats.stdout.dropLast()), record: record, members: &members).isEmpty, "\(stats.stdout)")
            #expect(members == Set(record.fields.filter { $0.presence == .always }.map { "index stats --postgres.\($0.name)" }))
            #expect(stats.stdout.contains(#""database":"postgres://postgres@127.0.0.1:\#(postgres.port)/postgres""#), "\(stats.stdout)")

            let sqliteServer = try await ServeProcess.start(["--db", db])
            let (sqlite, sqliteBase) = (sqliteServer.command, sqliteServer.base)
            defer { sqlite.stop() }
            // At trace: whatever the server, the pool and the service group log, never the password.
            let servedServer = try await ServeProcess.start(["--postgres", postgres.url, "--log-level", "trace"])
            let (served, base) = (servedServer.command, servedServer.base)
            defer { served.stop() }
            for query in ["lat=37.7599&lng=-122.4148&radius=300", "lat=37.76&lng=-122.42&radius=5000&limit=7",
                          "lat=37.76&lng=-122.42&radius=100"] {
                let expected = try await RawHTTP.get(sqliteBase + "/locations/nearby?" + query)
                let actual = try await RawHTTP.get(base + "/locations/nearby?" + query)
                #expect(expected.status == 200)
                #expect(actual.status == 200)
                #expect(actual.body == expected.body)
            }
            #expect(try await RawHTTP.get(base + "/healthz").status == 200)

            // The database goes away: 503 with Retry-After, /healthz names the backend; it comes
            // back: the same process answers again.
            try await postgres.halt()
            let down = try await RawHTTP.get(base + "/locations/nearby?lat=37.76&lng=-122.42&radius=300")
            #expect(down.status == 503)
            #expect(down.retryAfter == "1")
            let health = try await RawHTTP.get(base + "/healthz")
            #expect(health.status == 503)
            #expect(health.body.contains("postgres 127.0.0.1:\(postgres.port)"), "\(health.body)")
            // For a team's alerts: the backend's gauge in /metrics.
            let gauge = "locsim_backend_up{role=\"primary\",endpoint=\"127.0.0.1:\(postgres.port)\"} "
            #expect(try await RawHTTP.get(base + "/metrics").body.contains(gauge + "0\n"))
            try await postgres.restart()
            try await eventually("serve answers again after the restart") {
                try await RawHTTP.get(base + "/locations/nearby?lat=37.76&lng=-122.42&radius=300").status == 200
            }
            #expect(try await RawHTTP.get(base + "/healthz").status == 200)
            #expect(try await RawHTTP.get(base + "/metrics").body.contains(gauge + "1\n"))
            served.interrupt()
            #expect(try await served.waitForExit() == .exited(0))
            #expect(!served.lines.contains { $0.text.contains(PostgresServer.password) })
            #expect(!served.child.errors.contains(PostgresServer.password))
            // Ended before its folder goes: a server still running could add a file to the folder
            // as it is removed (left behind, seen after loaded runs).
            await sqlite.child.stopped()
        } }
    }

    @Test("--replace with a file of no places (a header only) is refused with a hint about the file, not about disks")
    func replaceWithNoPlaces() async throws {
        try await withServer { postgres in
            try await withScratchFolder("locsim-postgis-command") { directory in
                try "id,name,lat,lon\n".write(toFile: directory + "/empty.csv", atomically: true, encoding: .utf8)
                let refused = try await CLI.run(["index", "import", directory + "/empty.csv", "--postgres", postgres.url, "--replace"])
                #expect(refused.status == 1)
                #expect(refused.stderr.contains("holds no places, and --replace would delete every place the database holds"), "\(refused.stderr)")
                #expect(refused.stderr.hasSuffix(
                    "hint: check that the file holds the places (an export that failed upstream leaves its header only); "
                        + "--replace never empties the database\n"), "\(refused.stderr)")
            }
        }
    }

    @Test("A search_path none of whose schemas exists: import and stats say so, naming search_path, not a null identifier or a missing table")
    func searchPathWithoutSchema() async throws {
        try await withServer { postgres in
            for command in [["index", "import", "geodata/sf-mission.csv"], ["index", "stats"]] {
                let refused = try await CLI.run(command + ["--postgres", postgres.url], environment: ["PGOPTIONS": "-c search_path=nosuch"])
                #expect(refused.status == 1, "\(command)")
                #expect(refused.stderr.contains("search_path: no schema it names exists in database postgres ('nosuch')"), "\(refused.stderr)")
                #expect(!refused.stderr.contains("null values"), "\(refused.stderr)")
            }
        }
    }

    @Test("Another service on the port (it answers and closes): said in words, not postgres-nio's code name")
    func notPostgreSQL() async throws {
        let (listener, port) = try LoopbackSocket.makeListener()
        defer { close(listener) }
        // An HTTP server's answer to bytes it cannot read, then the end of the connection.
        async let served: Void = onThread {
            let connection = LoopbackSocket.accept(listener)
            guard connection >= 0 else { throw HarnessError("accept failed: errno \(errno)") }
            // Read what the client sent first: closing with it unread would reset the connection.
            var request = [UInt8](repeating: 0, count: 1_024)
            _ = request.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
            _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }
        let result = try await CLI.run(["index", "stats", "--postgres", "postgres://u@127.0.0.1:\(port)/d?sslmode=disable"])
        try await served
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix(
            "locsim: error: 127.0.0.1:\(port): something answered at this address but closed the connection without speaking PostgreSQL's protocol"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("serverClosedConnection"))
    }

    @Test("bad URLs are usage errors naming --postgres; an unreachable server is a run-time error with a hint")
    func errors() async throws {
        let malformed = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--postgres", "mysql://x/y"])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("--postgres"))
        let both = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--postgres", "postgres://h/d", "--db", "x.sqlite"])
        #expect(both.status == 2)
        try await LoopbackSocket.withRefusingPort { port in
            let unreachable = try await CLI.run(
                ["index", "stats", "--postgres", "postgres://u:topsecret@127.0.0.1:\(port)/d?sslmode=disable"])
            #expect(unreachable.status == 1)
            #expect(unreachable.stderr.hasPrefix("locsim: error: 127.0.0.1:\(port): "), "\(unreachable.stderr)")
            #expect(unreachable.stderr.contains("cannot reach the server: Connection refused\n"), "\(unreachable.stderr)")
            #expect(unreachable.stderr.contains("\nhint: check the URL's host and port (127.0.0.1:\(port)): is PostgreSQL running there"))
            #expect(!unreachable.stderr.contains("topsecret"))
            // serve starts with its database down (it may come up later): requests get 503
            // naming it at once, not after a deadline each.
            let downServer = try await ServeProcess.start(["--postgres", "postgres://u:topsecret@127.0.0.1:\(port)/d?sslmode=disable"])
            defer { downServer.command.stop() }
            let downHealth = try await RawHTTP.get(downServer.base + "/healthz")
            #expect(downHealth.status == 503)
            #expect(downHealth.body.contains("postgres 127.0.0.1:\(port) (primary) is down: cannot reach the server: Connection refused"), "\(downHealth.body)")
            #expect(downServer.command.child.errors.contains("primary postgres 127.0.0.1:\(port) is down; reads get 503 until it answers again"))
            try await withServer { postgres in
                let empty = try await CLI.run(["index", "stats", "--postgres", postgres.url])
                #expect(empty.status == 1)
                #expect(empty.stderr.contains("no locsim_place table"), "\(empty.stderr)")
                // The command to run next, as given (sslmode kept), less the password.
                #expect(empty.stderr.contains("--postgres \(postgres.urlWithoutPassword)'"), "\(empty.stderr)")
                #expect(!empty.stderr.contains(PostgresServer.password))
                // serve refuses a database that would get every request a 503, before it listens,
                // as 'index stats' does; the same for a password the server refuses.
                let emptyServe = try await CLI.run(["serve", "--port", "0", "--postgres", postgres.url])
                #expect(emptyServe.status == 1)
                #expect(emptyServe.stderr.hasPrefix("locsim: error: --postgres: 127.0.0.1:\(postgres.port): database postgres has no locsim_"), "\(emptyServe.stderr)")
                #expect(emptyServe.stderr.contains("hint: import places with 'locsim index import FILE --postgres \(postgres.urlWithoutPassword)'"))
                #expect(!emptyServe.stdout.contains("listening"), "\(emptyServe.stdout)")
                let wrongServe = try await CLI.run(
                    ["serve", "--port", "0", "--postgres", postgres.url.replacingOccurrences(of: PostgresServer.password, with: "wrong")])
                #expect(wrongServe.status == 1)
                #expect(wrongServe.stderr.contains("(SQLSTATE 28P01)\nhint: check the password for postgres"), "\(wrongServe.stderr)")
                #expect(!wrongServe.stdout.contains("listening"))
                // A replica that refuses is named as one, even while the primary is down.
                let wrongReplica = try await CLI.run(
                    ["serve", "--port", "0", "--postgres", "postgres://u:topsecret@127.0.0.1:\(port)/d?sslmode=disable",
                     "--replica", postgres.url.replacingOccurrences(of: PostgresServer.password, with: "wrong")])
                #expect(wrongReplica.status == 1)
                #expect(wrongReplica.stderr.hasPrefix("locsim: error: --replica (replica 1): 127.0.0.1:\(postgres.port): password authentication failed"), "\(wrongReplica.stderr)")
                // TLS the server does not offer: named as sslmode, with a hint about TLS.
                let tls = try await CLI.run(["index", "stats", "--postgres", postgres.url.replacingOccurrences(of: "sslmode=disable", with: "sslmode=require")])
                #expect(tls.status == 1)
                #expect(tls.stderr.contains(": sslmode: the server offers no TLS, and sslmode=require asks for it"), "\(tls.stderr)")
                #expect(tls.stderr.contains("hint: the URL's sslmode (and sslrootcert) and the server's TLS must agree"), "\(tls.stderr)")
                // Each refusal of the server gets the hint for its cause, not "is it running?".
                func database(_ name: String, in url: String) -> String { url.replacingOccurrences(of: "/postgres?", with: "/\(name)?") }
                let noDatabase = try await CLI.run(["index", "stats", "--postgres", database("nosuch", in: postgres.url)])
                #expect(noDatabase.stderr.contains("database \"nosuch\" does not exist"), "\(noDatabase.stderr)")
                #expect(noDatabase.stderr.contains("hint: create it (createdb -h 127.0.0.1 -p \(postgres.port) -U postgres nosuch)"))
                // A name the shell would split is quoted in the command the hint gives.
                let spaced = try await CLI.run(["index", "stats", "--postgres", database("my%20places", in: postgres.url)])
                #expect(spaced.stderr.contains("hint: create it (createdb -h 127.0.0.1 -p \(postgres.port) -U postgres 'my places')"), "\(spaced.stderr)")
                let wrongPassword = try await CLI.run(
                    ["index", "stats", "--postgres", postgres.url.replacingOccurrences(of: PostgresServer.password, with: "wrong")])
                #expect(wrongPassword.stderr.contains("(SQLSTATE 28P01)"), "\(wrongPassword.stderr)")
                #expect(wrongPassword.stderr.contains("hint: check the password for postgres"))
                try await postgres.psql("CREATE ROLE plain LOGIN PASSWORD '\(PostgresServer.password)'")
                try await postgres.psql("CREATE DATABASE plaindb OWNER plain")
                let plain = postgres.url.replacingOccurrences(of: "//postgres:", with: "//plain:")
                let noExtension = try await CLI.run(
                    ["index", "import", "geodata/sf-mission.csv", "--postgres", database("plaindb", in: plain)])
                #expect(noExtension.status == 1)
                #expect(noExtension.stderr.contains("permission denied to create extension \"postgis\""), "\(noExtension.stderr)")
                #expect(noExtension.stderr.contains("-d plaindb -c 'CREATE EXTENSION postgis'"))
                // No password anywhere: said so, not "cannot reach the server".
                let none = try await CLI.run(["index", "stats", "--postgres", postgres.urlWithoutPassword], environment: ["HOME": "/nonexistent"], removing: ["PGPASSWORD", "PGPASSFILE"])
                #expect(none.status == 1)
                #expect(none.stderr.contains(": password: the server asks for a password and none was given"), "\(none.stderr)")
                #expect(none.stderr.contains("hint: give postgres's password as libpq takes it: PGPASSWORD"), "\(none.stderr)")
            }
        }
        // ~/.pgpass is found through $HOME, as libpq finds it (a container's or a CI job's HOME):
        // this one is open to others, so it is refused before any connection.
        try await withScratchFolder("locsim-pgpass-home") { home in
            try "127.0.0.1:*:*:u:fromfile\n".write(toFile: home + "/.pgpass", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home + "/.pgpass")
            try await LoopbackSocket.withRefusingPort { port in
                let open = try await CLI.run(
                    ["index", "stats", "--postgres", "postgres://u@127.0.0.1:\(port)/d?sslmode=disable"], environment: ["HOME": home], removing: ["PGPASSWORD", "PGPASSFILE"])
                #expect(open.status == 2)
                #expect(open.stderr.contains("chmod 600 \(home)/.pgpass"), "\(open.stderr)")
            }
        }
    }

    @Test("stats --verify finds stale tiles (exit 1, saying how to repair), --verify --repair rebuilds them")
    func verifyAndRepairTiles() async throws {
        #expect(try await CLI.run(["index", "stats", "--postgres", "postgres://h/d", "--repair"]).status == 2)
        #expect(try await CLI.run(["index", "stats", "--db", "x.sqlite", "--repair"]).status == 2)
        try await withServer { postgres in
            #expect(try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--postgres", postgres.url]).status == 0)
            let clean = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"])
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(clean.stdout.contains("each as locsim_place gives it"), "\(clean.stdout)")
            // One place moved by 1e-7°: its one tile, counted in the singular.
            try await postgres.psql(
                "BEGIN; SET LOCAL session_replication_role = replica; "
                    + "UPDATE locsim_place SET lat_e7 = lat_e7 + 1 WHERE id = (SELECT min(id) FROM locsim_place); COMMIT")
            let one = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"])
            #expect(one.status == 1)
            #expect(one.stderr.contains("error: 1 tile of locsim_tile disagrees with locsim_place"), "\(one.stderr)")
            try await postgres.psql(
                "BEGIN; SET LOCAL session_replication_role = replica; UPDATE locsim_place SET lat_e7 = lat_e7 + 1000000; COMMIT")
            let stale = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"])
            #expect(stale.status == 1)
            #expect(stale.stderr.contains("tiles of locsim_tile disagree with locsim_place"), "\(stale.stderr)")
            #expect(stale.stderr.contains("hint: rebuild them from locsim_place: locsim index stats --postgres URL --verify --repair"))
            let repaired = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify", "--repair", "--format", "json"])
            #expect(repaired.status == 0, "\(repaired.stderr)")
            // Every member as docs/reference/jsonl.md gives it, the optional ones present.
            let record = try #require(SchemaCheck.record(named: "index stats --postgres"))
            var members = Set<String>()
            #expect(SchemaCheck.problems(String(repaired.stdout.dropLast()), record: record, members: &members).isEmpty, "\(repaired.stdout)")
            #expect(members == Set(record.fields.map { "index stats --postgres.\($0.name)" }), "\(repaired.stdout)")
            let fields = try JSONSerialization.jsonObject(with: Data(repaired.stdout.utf8)) as? [String: Any]
            #expect(fields?["tiles_disagreeing"] as? Int == 0, "\(repaired.stdout)")
            #expect((fields?["tiles_rebuilt"] as? Int ?? 0) > 0, "\(repaired.stdout)")
            #expect(try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"]).status == 0)
        }
    }

    @Test("stats --verify finds the tables changed by hand (a trigger off, an index, a check or a NOT NULL dropped, a bad row); --repair makes what it can again")
    func verifySchema() async throws {
        try await withServer { postgres in
            #expect(try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--postgres", postgres.url]).status == 0)
            let clean = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"])
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(clean.stdout.contains("schema:         as locsim makes it"), "\(clean.stdout)")
            try await postgres.psql("ALTER TABLE locsim_place DISABLE TRIGGER locsim_place_tiles_update; DROP INDEX locsim_place_geog")
            let offAndGone = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"])
            #expect(offAndGone.status == 1)
            #expect(
                offAndGone.stderr.contains(
                    "locsim_place is not as locsim makes it: locsim_place has no GiST index on geog; "
                        + "the trigger locsim_place_tiles_update is disabled (edits leave locsim_tile stale)\n"), "\(offAndGone.stderr)")
            #expect(offAndGone.stderr.contains("hint: make them again: locsim index stats --postgres URL --verify --repair"))
            // Changes a repair must not make: a check and a NOT NULL dropped, and a row they
            // would have refused, written with the triggers off.
            try await postgres.psql(
                "ALTER TABLE locsim_place DROP CONSTRAINT locsim_place_lat_e7_check; ALTER TABLE locsim_place ALTER COLUMN name DROP NOT NULL; "
                    + "BEGIN; SET LOCAL session_replication_role = replica; "
                    + "INSERT INTO locsim_place (id, name, kind, lat_e7, lon_e7) VALUES ('past-the-pole', NULL, '', 950000000, 0); COMMIT")
            let byHand = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify", "--repair"])
            #expect(byHand.status == 1)
            #expect(byHand.stderr.contains("column name takes NULL (its NOT NULL was dropped); column lat_e7 has no range check"), "\(byHand.stderr)")
            #expect(byHand.stderr.contains("1 row of locsim_place with a NULL or a coordinate out of range (\"past-the-pole\")"), "\(byHand.stderr)")
            #expect(!byHand.stderr.contains("is disabled"), "\(byHand.stderr)")
            #expect(byHand.stderr.contains("(--repair made again the 2 triggers or indexes missing or disabled"), "\(byHand.stderr)")
            #expect(try await postgres.psqlValues("SELECT tgenabled FROM pg_trigger WHERE tgname = 'locsim_place_tiles_update'") == "O")
            // Undone by hand: the tiles (stale from the row written with the triggers off) are what is left.
            try await postgres.psql(
                "DELETE FROM locsim_place WHERE id = 'past-the-pole'; ALTER TABLE locsim_place ALTER COLUMN name SET NOT NULL; "
                    + "ALTER TABLE locsim_place ADD CHECK (lat_e7 BETWEEN -900000000 AND 900000000)")
            #expect(try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"]).status == 0)
            // A column gone: the counts fail in PostgreSQL's words, with a hint to --verify, which names it.
            try await postgres.psql("ALTER TABLE locsim_place DROP COLUMN kind")
            let counts = try await CLI.run(["index", "stats", "--postgres", postgres.url])
            #expect(counts.status == 1)
            #expect(counts.stderr.contains("column \"kind\" does not exist (SQLSTATE 42703)\nhint: a column locsim makes is gone"), "\(counts.stderr)")
            let verified = try await CLI.run(["index", "stats", "--postgres", postgres.url, "--verify"])
            #expect(verified.stderr.contains("locsim_place is not as locsim makes it: locsim_place has no column kind\n"), "\(verified.stderr)")
        }
    }
}
