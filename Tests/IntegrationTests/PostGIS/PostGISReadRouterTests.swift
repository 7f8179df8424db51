import Foundation
import LocSimTestHelpers
import LocationCore
import LocationIndex
import LocationPostGIS
import Testing

/// `PostGISReadRouter` against a real primary and two real streaming replicas
/// (`pg_basebackup -R`), each on its own loopback port, all stopped afterwards even on failure.
@Suite(.timeLimit(.minutes(1))) struct PostGISReadRouterTests {
    /// Skips where PostgreSQL cannot run; else a primary and `replicaCount` replicas of it.
    func withCluster(replicaCount: Int, _ body: (PostgresServer, [PostgresServer]) async throws -> Void) async throws {
        if let reason = PostgresServer.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        try await PostgresServer.with { primary in
            var replicas: [PostgresServer] = []
            do {
                for _ in 0..<replicaCount { replicas.append(try await PostgresServer.startReplica(of: primary)) }
                try await body(primary, replicas)
            } catch {
                for server in [primary] + replicas {
                    print("PostgreSQL log of port \(server.port) (last 1,500 bytes):\n\(server.log.suffix(1_500))")
                }
                for replica in replicas { await replica.stop() }
                throw error
            }
            for replica in replicas { await replica.stop() }
        }
    }

    func store(_ server: PostgresServer) throws -> PostGISPlaceStore {
        try PostGISPlaceStore(
            url: try PostgresURL(parsing: server.url), queryTimeout: .seconds(2), clock: ContinuousClock(), logger: quietLogger)
    }

    @Test("reads go round robin to the replicas, fail over to the primary, 503 with all down, and recover")
    func failoverAndRecovery() async throws {
        try await withCluster(replicaCount: 2) { primary, replicas in
            try await withScratchFolder { directory in
                let csv = directory + "/places.csv"
                _ = try writeTestPlaces(to: csv, seed: 16)
                let writer = try store(primary)
                let router = PostGISReadRouter(
                    primary: try store(primary), replicas: try replicas.map(store), clock: ContinuousClock(), logger: quietLogger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await writer.run() }
                    group.addTask { await router.run() }
                    defer { group.cancelAll() }
                    try await writer.importPlaces(fromFile: csv)
                    let queries = try [(35.68, 139.76, 3_000.0), (89.9, 10, 200_000), (0, 179.9, 500_000), (-89.5, -3, 90_000)].map {
                        (try Coordinate(latitude: $0.0, longitude: $0.1), $0.2)
                    }
                    // The primary's own answers are the reference; the replicas hold a copy.
                    var expected: [[NearbyPlace]] = []
                    for (center, radius) in queries { expected.append(try await writer.places(near: center, within: radius)) }
                    #expect(expected.allSatisfy { !$0.isEmpty })
                    func readAll() async throws -> Bool {
                        for (number, (center, radius)) in queries.enumerated() {
                            guard try await router.places(near: center, within: radius) == expected[number] else { return false }
                        }
                        return true
                    }
                    try await eventually("the replicas have replayed the import") {
                        let replicaStatus = router.status().filter { $0.role != .primary }
                        return try await readAll() && replicaStatus.allSatisfy { $0.reads > 0 }
                    }
                    func reads() -> [PostGISReadRouter.Role: Int] {
                        Dictionary(uniqueKeysWithValues: router.status().map { ($0.role, $0.reads) })
                    }
                    // All up: every read goes to a replica, in turn.
                    let before = reads()
                    for _ in 0..<5 { #expect(try await readAll()) }
                    let after = reads()
                    let sent = 5 * queries.count
                    #expect(after[.primary] == before[.primary])
                    #expect(after[.replica(1)]! - before[.replica(1)]! == sent / 2)
                    #expect(after[.replica(2)]! - before[.replica(2)]! == sent / 2)

                    // Replica 1 down: the same answers, from replica 2; the status names it.
                    try await replicas[0].halt()
                    #expect(try await readAll())
                    let oneDown = router.status()
                    #expect(oneDown.first { $0.role == .replica(1) }?.isUp == false)
                    #expect(oneDown.first { $0.role == .replica(1) }?.endpoint == "127.0.0.1:\(replicas[0].port)")
                    #expect(oneDown.first { $0.role == .replica(1) }?.description.contains("is down") == true)
                    let primaryReads = reads()[.primary]
                    #expect(try await readAll())
                    #expect(reads()[.primary] == primaryReads)

                    // The primary down too: replica 2 still answers alone.
                    try await primary.halt()
                    #expect(try await readAll())
                    #expect(await router.checkHealth().filter { !$0.isUp }.map(\.role).sorted { "\($0)" < "\($1)" } == [.primary, .replica(1)])

                    // Every backend down: unavailable, naming each one, without a password.
                    try await replicas[1].halt()
                    do {
                        _ = try await router.places(near: queries[0].0, within: queries[0].1)
                        Issue.record("a read with every backend down did not throw")
                    } catch let error as PostGISError {
                        #expect(error.code == .unavailable)
                        for server in [primary] + replicas { #expect(error.message.contains("127.0.0.1:\(server.port)"), "\(error)") }
                        #expect(!error.description.contains(PostgresServer.password))
                    }

                    // Back again, the same router answers, from the replicas once they are up.
                    try await primary.restart()
                    try await replicas[0].restart()
                    try await replicas[1].restart()
                    try await eventually("every backend is checked up again") {
                        router.status().allSatisfy(\.isUp)
                    }
                    #expect(try await readAll())

                    // An import on the primary becomes visible through the replicas.
                    try "id,name,lat,lon,kind,level\nnew-after-recovery,Fresh,35.6801,139.7601,shop,\n".write(
                        toFile: directory + "/more.csv", atomically: true, encoding: .utf8)
                    try await writer.importPlaces(fromFile: directory + "/more.csv")
                    let center = try Coordinate(latitude: 35.68, longitude: 139.76)
                    let fromPrimary = try await writer.places(near: center, within: 1_000)
                    #expect(fromPrimary.contains { $0.place.id == "new-after-recovery" })
                    let primaryBefore = reads()[.primary]
                    try await eventually("the import is replayed on both replicas") {
                        // Two reads in a row: one from each replica.
                        let first = try await router.places(near: center, within: 1_000)
                        let second = try await router.places(near: center, within: 1_000)
                        return first == fromPrimary && second == fromPrimary
                    }
                    #expect(reads()[.primary] == primaryBefore)
                }
            }
        }
    }

    @Test("a bad argument is not a fail-over: it throws at once, naming the parameter")
    func badArgumentsAreNotFailures() async throws {
        try await withCluster(replicaCount: 1) { primary, replicas in
            let router = PostGISReadRouter(
                primary: try store(primary), replicas: try replicas.map(store), clock: ContinuousClock(), logger: quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await router.run() }
                defer { group.cancelAll() }
                let center = try Coordinate(latitude: 0, longitude: 0)
                await #expect(throws: PostGISError(
                    .invalidArgument, "limit 0 must be > 0", parameter: "limit")) {
                    try await router.places(near: center, within: 100, limit: 0)
                }
                #expect(router.status().allSatisfy { $0.isUp })
            }
        }
    }
}
