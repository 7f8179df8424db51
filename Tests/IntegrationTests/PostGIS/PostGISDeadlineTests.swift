import Foundation
import LocSimTestHelpers
import LocationCore
import LocationPostGIS
import Places
import Testing

/// Never hang (issue #30): a read past its deadline (2 s, the default) is cancelled and fails
/// over or throws within that deadline, whatever holds it: a lock on the table it reads, a
/// frozen server (`SIGSTOP` of every process of it), a frozen replica.
///
/// These tests time what they test, the deadline itself, against the wall clock, with a bound
/// of the deadline plus 1 s: generous for a loaded machine, and far below the 11.6 s, 13 s and
/// 631 s that issue #30 measured before.
@Suite(.timeLimit(.minutes(1))) struct PostGISDeadlineTests {
    static let deadline: Duration = .seconds(2)
    static let bound: Duration = deadline + .seconds(1)
    static let center: Coordinate = {
        do {
            return try Coordinate(latitude: 35.68, longitude: 139.76)
        } catch {
            preconditionFailure("a valid coordinate: \(error)")
        }
    }()

    func store(_ server: PostgresServer) throws -> PostGISPlaceStore {
        try PostGISPlaceStore(
            url: try PostgresURL(parsing: server.url), queryTimeout: Self.deadline, clock: ContinuousClock(), logger: quietLogger)
    }

    /// How long `body` took, and what it threw (nil when it returned).
    func timed(_ body: () async throws -> Void) async -> (Duration, PostGISError?) {
        let clock = ContinuousClock()
        let started = clock.now
        do {
            try await body()
            return (clock.now - started, nil)
        } catch let error as PostGISError {
            return (clock.now - started, error)
        } catch {
            Issue.record("not a PostGISError: \(error)")
            return (clock.now - started, nil)
        }
    }

    /// A PostgreSQL server whose store (with the 2 s deadline) has imported the seeded test
    /// places, and the store's answer at ``center`` within 5 km, not empty.
    func withImportedPlaces(
        seed: UInt64, _ body: (PostgresServer, PostGISPlaceStore, [NearbyPlace]) async throws -> Void
    ) async throws {
        try await withPostGIS(queryTimeout: Self.deadline) { server, store in
            try await withScratchFolder { directory in
                _ = try writeTestPlaces(to: directory + "/places.csv", seed: seed)
                try await store.importPlaces(fromFile: directory + "/places.csv")
                let expected = try await store.places(near: Self.center, within: 5_000)
                #expect(!expected.isEmpty)
                try await body(server, store, expected)
            }
        }
    }

    /// The statements of this store's sessions (not psql's) still running on the server.
    func runningReads(_ server: PostgresServer) async throws -> String {
        try await server.psqlValues(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%locsim_tile%' "
                + "AND application_name NOT LIKE 'psql%' AND application_name <> 'locsim-test-lock'")
    }

    @Test("a lock on locsim_tile: the read throws timedOut within the deadline, its statement is gone, then it answers")
    func lockedTable() async throws {
        try await withImportedPlaces(seed: 30) { server, store, expected in
            // The table people edit: reads never touch it, so a lock on it holds none of them.
            try await server.withLock(on: "locsim_place") {
                let (elapsed, error) = await timed {
                    let answer = try await store.places(near: Self.center, within: 5_000)
                    #expect(answer == expected)
                }
                #expect(error == nil)
                #expect(elapsed < Self.bound)
            }

            // The table reads come from: each read ends at its deadline, and so does its statement.
            try await server.withLock(on: "locsim_tile") {
                for attempt in 1...2 {
                    let (elapsed, error) = await timed { _ = try await store.places(near: Self.center, within: 5_000) }
                    print("read \(attempt) behind a lock on locsim_tile: \(elapsed), \(error.map { "\($0)" } ?? "answered")")
                    #expect(error?.code == .timedOut, "\(String(describing: error))")
                    #expect(error?.endpoint == "127.0.0.1:\(server.port)")
                    #expect(error?.message.contains("2 s deadline") == true, "\(String(describing: error))")
                    #expect(elapsed < Self.bound)
                    try await eventually("the cancelled statement has left the server", within: .seconds(1)) {
                        try await runningReads(server) == "0"
                    }
                }
                // The health check is a real read: it fails too, saying why.
                let (elapsed, error) = await timed { try await store.checkHealth() }
                #expect(error?.code == .timedOut)
                #expect(elapsed < Self.bound)
            }
            // The lock gone, the same store answers (on a new connection where one was closed).
            // A wrong answer is reported as the last error, so a failure says what came back.
            try await eventually("the store answers again") {
                let answer = try await store.places(near: Self.center, within: 5_000)
                guard answer == expected else {
                    throw HarnessError("answered \(answer.count) places, not the \(expected.count) expected")
                }
                return true
            }
        }
    }

    @Test("a read cancelled while its statement is prepared behind a lock: the next read on the store answers")
    func cancelledPreparation() async throws {
        try await withImportedPlaces(seed: 33) { server, writer, expected in
            // A store whose connections have never prepared the tile read, and a deadline far
            // away, so what ends the read is PostgreSQL cancelling it while it is prepared
            // (someone's pg_cancel_backend; statement_timeout behind a lock does the same).
            let store = try PostGISPlaceStore(
                url: try PostgresURL(parsing: server.url), queryTimeout: .seconds(60), clock: ContinuousClock(),
                logger: quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await store.run() }
                defer { group.cancelAll() }
                try await server.withLock(on: "locsim_tile") {
                    async let read = timed { _ = try await store.places(near: Self.center, within: 5_000) }
                    var waiting = ""
                    try await eventually("the read waits for the lock", within: .seconds(10)) {
                        waiting = try await server.psqlValues(
                            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%locsim_tile%' "
                                + "AND application_name NOT LIKE 'psql%' AND application_name <> 'locsim-test-lock'")
                        return !waiting.isEmpty
                    }
                    _ = try await server.psqlValues("SELECT pg_cancel_backend(\(waiting))")
                    let (_, error) = await read
                    #expect(error?.code == .query, "\(String(describing: error))")
                    #expect(error?.message.contains("57014") == true, "\(String(describing: error))")
                }
                // The lock gone, the very next read answers: the connection whose preparation
                // failed was not lent again (postgres-nio would repeat the failure on it).
                let answer = try await store.places(near: Self.center, within: 5_000)
                #expect(answer == expected)
            }
        }
    }

    @Test("a frozen server (SIGSTOP): the read throws within the deadline; thawed, it answers again")
    func frozenServer() async throws {
        try await withImportedPlaces(seed: 31) { server, store, expected in
            try await server.withFrozen {
                for attempt in 1...3 {
                    let (elapsed, error) = await timed { _ = try await store.places(near: Self.center, within: 5_000) }
                    print("read \(attempt) from a frozen server: \(elapsed), \(error.map { "\($0)" } ?? "answered")")
                    // The first read's query is sent on the pooled connection and cancelled
                    // (timedOut); later ones may still be waiting for a new connection (unavailable).
                    #expect(error?.code == .timedOut || error?.code == .unavailable, "\(String(describing: error))")
                    // A timed-out read names its deadline; a later one may fail at once on the
                    // pool's closed connection, and then says so rather than a generic text.
                    if error?.code == .timedOut {
                        #expect(error?.message.contains("2 s deadline") == true, "\(String(describing: error))")
                    } else {
                        #expect(error?.message.contains("Generic description") == false, "\(String(describing: error))")
                    }
                    #expect(elapsed < Self.bound)
                }
            }
            try await eventually("the thawed server answers") {
                try await store.places(near: Self.center, within: 5_000) == expected
            }
        }
    }

    @Test("a frozen replica: the read fails over to the primary within the deadline; a frozen primary: the replica answers")
    func frozenBackends() async throws {
        if let reason = PostgresServer.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        try await PostgresServer.with { primary in
            let replica = try await PostgresServer.startReplica(of: primary)
            do {
                try await withScratchFolder { directory in
                    _ = try writeTestPlaces(to: directory + "/places.csv", seed: 32)
                    let writer = try store(primary)
                    let router = PostGISReadRouter(
                        primary: try store(primary), replicas: [try store(replica)], clock: ContinuousClock(), logger: quietLogger)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { await writer.run() }
                        group.addTask { await router.run() }
                        defer { group.cancelAll() }
                        try await writer.importPlaces(fromFile: directory + "/places.csv")
                        let expected = try await writer.places(near: Self.center, within: 5_000)
                        func reads() -> [PostGISReadRouter.Role: Int] {
                            Dictionary(uniqueKeysWithValues: router.status().map { ($0.role, $0.reads) })
                        }
                        try await eventually("the replica has replayed the import and answers") {
                            try await router.places(near: Self.center, within: 5_000) == expected && reads()[.replica(1)]! > 0
                        }

                        // The replica frozen: its read is cancelled at the deadline and the primary answers.
                        try await replica.withFrozen {
                            let before = reads()
                            let (elapsed, error) = await timed {
                                let answer = try await router.places(near: Self.center, within: 5_000)
                                #expect(answer == expected)
                            }
                            print("read with the replica frozen: \(elapsed), \(error.map { "\($0)" } ?? "answered")")
                            #expect(error == nil)
                            #expect(elapsed < Self.bound)
                            #expect(reads()[.primary]! == before[.primary]! + 1)
                            let status = router.status().first { $0.role == .replica(1) }
                            #expect(status?.isUp == false)
                            #expect(status?.reason?.contains("2 s deadline") == true, "\(String(describing: status))")
                            // Marked down: the next read goes to the primary without waiting.
                            let (next, nextError) = await timed { _ = try await router.places(near: Self.center, within: 5_000) }
                            #expect(nextError == nil)
                            #expect(next < Self.deadline)
                        }
                        try await eventually("the thawed replica is checked up again") {
                            router.status().allSatisfy(\.isUp)
                        }

                        // The primary frozen: reads go to the replica and never wait for it;
                        // the health check names it within the deadline.
                        try await primary.withFrozen {
                            let before = reads()
                            let (elapsed, error) = await timed {
                                let answer = try await router.places(near: Self.center, within: 5_000)
                                #expect(answer == expected)
                            }
                            print("read with the primary frozen: \(elapsed), \(error.map { "\($0)" } ?? "answered")")
                            #expect(error == nil)
                            #expect(elapsed < Self.bound)
                            #expect(reads()[.replica(1)]! == before[.replica(1)]! + 1)
                            let clock = ContinuousClock()
                            let started = clock.now
                            let health = await router.checkHealth()
                            let checked = clock.now - started
                            print("health check with the primary frozen: \(checked): \(health.map(\.description))")
                            // One deadline, or two when the pool had no connection to give and a
                            // connection of its own was tried to find out why.
                            #expect(checked < Self.deadline * 2 + .seconds(1))
                            #expect(health.first { $0.role == .primary }?.isUp == false)
                            #expect(health.first { $0.role == .replica(1) }?.isUp == true)
                        }
                    }
                }
            } catch {
                for server in [primary, replica] {
                    print("PostgreSQL log of port \(server.port) (last 1,500 bytes):\n\(server.log.suffix(1_500))")
                }
                await replica.stop()
                throw error
            }
            await replica.stop()
        }
    }
}
