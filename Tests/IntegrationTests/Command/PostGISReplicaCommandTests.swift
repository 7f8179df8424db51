import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// `locsim serve --postgres PRIMARY --replica URL` against a real primary and a real streaming
/// replica (`pg_basebackup -R`) started by the test on their own loopback ports: primary down,
/// replica down, both down, recovery without restarting `serve`, and an import on the primary
/// seen through the replica. Every server and process is stopped, even when the test fails.
@Suite(.timeLimit(.minutes(1))) struct PostGISReplicaCommandTests {
    @Test("serve --replica: reads from the replica, fail-over both ways, 503 with both down, recovery, imports seen")
    func replicaFailover() async throws {
        if let reason = PostgresServer.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        try await PostgresServer.with { primary in
            let replica = try await PostgresServer.startReplica(of: primary)
            do {
                try await scenario(primary: primary, replica: replica)
            } catch {
                print("primary log:\n\(primary.log.suffix(1_500))\nreplica log:\n\(replica.log.suffix(1_500))")
                await replica.stop()
                throw error
            }
            await replica.stop()
        }
    }

    func scenario(primary: PostgresServer, replica: PostgresServer) async throws {
        try await withScratchFolder("locsim-replica-command") { directory in
            try await scenario(primary: primary, replica: replica, in: directory)
        }
    }

    func scenario(primary: PostgresServer, replica: PostgresServer, in directory: String) async throws {
        let db = directory + "/sf.sqlite"
        #expect(try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--db", db]).status == 0)
        let imported = try await CLI.run(["index", "import", "geodata/sf-mission.csv", "--postgres", primary.url])
        #expect(imported.status == 0, "\(imported.stderr)")

        let sqliteServer = try await ServeProcess.start(["--db", db])
        let (sqlite, sqliteBase) = (sqliteServer.command, sqliteServer.base)
        defer { sqlite.stop() }
        // Passwords from PGPASSWORD, not the URLs.
        let servedServer = try await ServeProcess.start(
            ["--postgres", primary.urlWithoutPassword, "--replica", replica.urlWithoutPassword],
            environment: ["PGPASSWORD": PostgresServer.password])
        let (served, base) = (servedServer.command, servedServer.base)
        defer { served.stop() }
        let queries = ["lat=37.7599&lng=-122.4148&radius=300", "lat=37.76&lng=-122.42&radius=5000&limit=7"]
        var expected: [String] = []
        for query in queries {
            let answer = try await RawHTTP.get(sqliteBase + "/locations/nearby?" + query)
            #expect(answer.status == 200)
            expected.append(answer.body)
        }
        func answersMatch() async throws -> Bool {
            for (number, query) in queries.enumerated() {
                let answer = try await RawHTTP.get(base + "/locations/nearby?" + query)
                guard answer.status == 200, answer.body == expected[number] else { return false }
            }
            return true
        }
        try await eventually("the replica has replayed the import") { try await answersMatch() }
        #expect(try await RawHTTP.get(base + "/healthz").body == "ok\n")

        // The primary down: the replica answers alone (so reads do go to it); /healthz is 200
        // and names the primary.
        try await primary.halt()
        #expect(try await answersMatch())
        var health = try await RawHTTP.get(base + "/healthz")
        #expect(health.status == 200)
        #expect(health.body.hasPrefix("ok\ndegraded: backend postgres 127.0.0.1:\(primary.port) (primary) is down"), "\(health.body)")

        // The primary back and the replica down: the primary answers; /healthz names replica 1.
        try await primary.restart()
        try await replica.halt()
        try await eventually("the primary answers for the replica") { try await answersMatch() }
        health = try await RawHTTP.get(base + "/healthz")
        #expect(health.status == 200)
        #expect(health.body.contains("degraded: backend postgres 127.0.0.1:\(replica.port) (replica 1) is down"), "\(health.body)")

        // Both down: 503 with Retry-After; /healthz is 503 and names both.
        try await primary.halt()
        let down = try await RawHTTP.get(base + "/locations/nearby?" + queries[0])
        #expect(down.status == 503)
        #expect(down.retryAfter == "1")
        health = try await RawHTTP.get(base + "/healthz")
        #expect(health.status == 503)
        #expect(health.body.contains("postgres 127.0.0.1:\(primary.port) (primary) is down"), "\(health.body)")
        #expect(health.body.contains("postgres 127.0.0.1:\(replica.port) (replica 1) is down"), "\(health.body)")

        // Both back: the same process answers again, and /healthz is plain ok.
        try await primary.restart()
        try await replica.restart()
        try await eventually("serve answers again and /healthz is ok") {
            guard try await answersMatch() else { return false }
            return try await RawHTTP.get(base + "/healthz").body == "ok\n"
        }

        // An import on the primary becomes visible through the replica (the primary is then
        // stopped, so the answer can only come from the replica).
        try "id,name,lat,lon,kind,level\nreplicated-1,Fresh Place,37.75990,-122.41480,shop,\n".write(
            toFile: directory + "/more.csv", atomically: true, encoding: .utf8)
        let more = try await CLI.run(["index", "import", directory + "/more.csv", "--postgres", primary.url])
        #expect(more.status == 0, "\(more.stderr)")
        try await eventually("the replica has replayed the second import") {
            try await RawHTTP.get(base + "/locations/nearby?" + queries[0]).body.contains("\"replicated-1\"")
        }
        try await primary.halt()
        #expect(try await RawHTTP.get(base + "/locations/nearby?" + queries[0]).body.contains("\"replicated-1\""))
        try await primary.restart()

        served.interrupt()
        #expect(try await served.waitForExit() == .exited(0))
        let output = served.child.output + served.child.errors
        #expect(!output.contains(PostgresServer.password))
        #expect(output.contains("127.0.0.1:\(replica.port) is down"), "the fail-over is logged: \(output.suffix(2_000))")
        // Ended before its folder goes: a server still running could add a file to the folder
        // as it is removed (left behind, seen after loaded runs).
        await sqlite.child.stopped()
    }

    @Test("--replica without --postgres, and a malformed --replica URL, are usage errors naming the flag")
    func usageErrors() async throws {
        let alone = try await CLI.run(["serve", "--replica", "postgres://u@127.0.0.1:5432/d"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("--replica needs --postgres"), "\(alone.stderr)")
        let malformed = try await CLI.run(["serve", "--postgres", "postgres://u@127.0.0.1/d", "--replica", "postgres://u:pw@h:99999/d"])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("--replica: port"), "\(malformed.stderr)")
        #expect(!malformed.stderr.contains(":pw@"))
    }
}
