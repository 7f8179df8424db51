import Foundation
import LocSimTestHelpers
import LocationCore
import LocationPostGIS
import LocationTestSupport
import Places
import Testing

/// The URL's login and libpq parameters against a real PostgreSQL (#30 item 4): passwords with
/// the characters that split URLs, `application_name` as the server sees it, `connect_timeout`
/// against a server that never answers.
@Suite(.timeLimit(.minutes(1))) struct PostGISLoginTests {
    /// A password with every character a URL gives a meaning to.
    static let oddPassword = "p/a?s:s@w#o&r=d%1"

    @Test("a password with / ? : @ # & = % logs in, written raw (the @ and % as %40 and %25) or from the password file")
    func passwordsWithURLCharacters() async throws {
        try await withPostGIS { server, _ in
            let quoted = Self.oddPassword.replacingOccurrences(of: "'", with: "''")
            try await server.psql("CREATE ROLE odd LOGIN PASSWORD '\(quoted)'; GRANT pg_read_all_data TO odd")
            let written = Self.oddPassword.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "@", with: "%40")
            let inURL = try PostgresURL(parsing: "postgres://odd:\(written)@127.0.0.1:\(server.port)/postgres?sslmode=disable")
            #expect(inURL.password == Self.oddPassword)
            let line = "127.0.0.1:\(server.port):postgres:odd:" + Self.oddPassword.replacingOccurrences(of: ":", with: "\\:") + "\n"
            let fromFile = try PostgresURL(
                parsing: "postgres://odd@127.0.0.1:\(server.port)/postgres?sslmode=disable",
                passwordFile: PostgresURL.PasswordFile(path: "/unused/.pgpass", contents: line, permissions: 0o600))
            #expect(fromFile.password == Self.oddPassword)
            for url in [inURL, fromFile] {
                try await PostGISPlaceStore.withRunning(url, clock: ContinuousClock(), logger: quietLogger) { odd in
                    // No places imported: the login worked when the answer is "no table", not a refused login.
                    do {
                        _ = try await odd.statistics()
                        Issue.record("statistics on an empty database answered")
                    } catch let error as PostGISError {
                        #expect(error.code == .schema, "\(error)")
                        #expect(!error.description.contains("w#o"))
                    }
                }
            }
        }
    }

    @Test("the server sees application_name (default locsim) for every session of the store")
    func applicationName() async throws {
        try await withPostGIS { server, store in
            let center = try Coordinate(latitude: 0, longitude: 0)
            try await withScratchFolder { directory in
                let file = directory + "/p.csv"
                try "id,name,lat,lon\na,A,0,0\n".write(toFile: file, atomically: true, encoding: .utf8)
                try await store.importPlaces(fromFile: file)
            }
            _ = try await store.places(near: center, within: 100)
            #expect(try await server.psqlValues("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'locsim'") != "0")
            let named = try PostgresURL(parsing: server.url + "&application_name=qa%20run%207")
            try await PostGISPlaceStore.withRunning(named, clock: ContinuousClock(), logger: quietLogger) { other in
                #expect(try await other.places(near: center, within: 100).map(\.place.id) == ["a"])
                let sessions = try await server.psqlValues(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'qa run 7' AND usename = 'postgres'")
                #expect(sessions != "0")
            }
        }
    }

    /// A store for a server at `port` on loopback that accepts and never answers, logging in
    /// with `connect_timeout` seconds.
    static func store(silentOn port: Int, connectTimeout: Int, queryTimeout: Duration, clock: any Clock<Duration>) throws -> PostGISPlaceStore {
        let url = try PostgresURL(
            parsing: "postgres://postgres:x@127.0.0.1:\(port)/postgres?sslmode=disable&connect_timeout=\(connectTimeout)")
        return try PostGISPlaceStore(url: url, queryTimeout: queryTimeout, clock: clock, logger: quietLogger)
    }

    @Test("connect_timeout ends a login the server never answers, saying so")
    func connectTimeout() async throws {
        let listener = try LoopbackSocket.makeListener()  // the kernel accepts; no one ever answers
        defer { close(listener.descriptor) }
        // A read deadline far beyond the connect timeout, so the connect timeout is what ends it.
        let store = try Self.store(silentOn: listener.port, connectTimeout: 1, queryTimeout: .seconds(60), clock: ContinuousClock())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            do {
                _ = try await store.statistics()
                Issue.record("a server that never answers was reached")
            } catch let error as PostGISError {
                #expect(error.code == .unavailable)
                #expect(error.endpoint == "127.0.0.1:\(listener.port)")
                #expect(error.description.contains("connect_timeout"), "\(error)")
            }
        }
    }

    @Test("A connection of its own gets connect_timeout to open, not the shorter read deadline; its query then gets the read deadline")
    func connectTimeoutLongerThanReadDeadline() async throws {
        let listener = try LoopbackSocket.makeListener()  // the kernel accepts; no one ever answers
        defer { close(listener.descriptor) }
        let clock = VirtualClock()
        let store = try Self.store(silentOn: listener.port, connectTimeout: 5, queryTimeout: .seconds(1), clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            let read = Task { try await store.statistics() }
            // Past the read deadline the login is still given its time: the connect timer sleeps on.
            await clock.waitForSleepers(1)
            await clock.advance(by: .milliseconds(1500))
            await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(4))
            do {
                _ = try await read.value
                Issue.record("a server that never answers was reached")
            } catch let error as PostGISError {
                #expect(error.code == .unavailable)
                #expect(error.description.contains("could not connect and log in within 5 s (connect_timeout)"), "\(error)")
            }
        }
    }
}
