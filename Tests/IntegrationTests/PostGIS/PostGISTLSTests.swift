import Foundation
import LocSimTestHelpers
import LocationCore
import LocationPostGIS
import Testing

/// TLS as libpq does it (issue #30 item 3), against a private PostgreSQL whose certificate was
/// signed by a certificate authority the test makes with `openssl`, for the name `localhost`
/// only: `require` takes any certificate, `verify-ca` needs the authority (`sslrootcert`) but not
/// the name, `verify-full` both; `allow` and `prefer` take the other way when the server refuses
/// the first; a missing or unreadable `sslrootcert` is refused up front.
@Suite(.timeLimit(.minutes(1))) struct PostGISTLSTests {
    static let openssl = "/usr/bin/openssl"

    /// A certificate authority (`ca.crt`) and a server certificate and key (`server.crt`,
    /// `server.key`) for the name `localhost` only, signed by it, in `directory`; a second authority
    /// (`other-ca.crt`) that signed nothing.
    static func makeCertificates(in directory: String) async throws {
        try """
            subjectAltName = DNS:localhost
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth

            """.write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        func authority(_ name: String) -> [String] {
            [
                Self.openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".crt",
                "-days", "2", "-subj", "/CN=locsim test " + name, "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ]
        }
        for command in [
            authority("ca"), authority("other-ca"),
            [
                Self.openssl, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                "-subj", "/CN=locsim test server",
            ],
            [
                Self.openssl, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.crt", "-days", "2", "-extfile", "server.ext",
            ],
        ] {
            let outcome = try await ChildProcess.run(command, directory: directory, timeout: .seconds(30))
            guard outcome.termination == .exited(0) else {
                throw HarnessError("\(command.joined(separator: " ")): \(outcome.termination) \(outcome.output)\(outcome.errors)")
            }
        }
    }

    /// Runs `body` with a private PostgreSQL holding test places, TLS on with a certificate from
    /// the test's own authority (``makeCertificates(in:)``, in `directory`); skipped, saying why,
    /// without PostgreSQL or openssl.
    func withTLSServer(_ body: (_ directory: String, _ server: PostgresServer) async throws -> Void) async throws {
        if let reason = PostgresServer.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        guard FileManager.default.isExecutableFile(atPath: Self.openssl) else {
            print("skipped: \(Self.openssl) is missing; run scripts/bootstrap.sh (it installs openssl)")
            return
        }
        try await withScratchFolder { directory in
            try await Self.makeCertificates(in: directory)
            try await withPostGIS { server, store in
                _ = try writeTestPlaces(to: directory + "/places.csv", seed: 40)
                try await store.importPlaces(fromFile: directory + "/places.csv")
                try await server.enableTLS(certificate: directory + "/server.crt", key: directory + "/server.key")
                try await eventually("TLS is on") { try await server.psqlValues("SHOW ssl") == "on" }
                try await body(directory, server)
            }
        }
    }

    @Test("sslmode as libpq: require takes any certificate; verify-ca needs the authority, verify-full the address too")
    func sslModes() async throws {
        try await withTLSServer { directory, server in
            let byAddress = "postgres://postgres:\(PostgresServer.password)@127.0.0.1:\(server.port)/postgres"
            let byName = "postgres://postgres:\(PostgresServer.password)@localhost:\(server.port)/postgres"
            let authority = "&sslrootcert=" + directory + "/ca.crt"

            // The certificate's authority and name: verify-full connects, over TLS.
            let full = try await sessions(byName + "?sslmode=verify-full" + authority, on: server)
            #expect(full.error == nil, "\(String(describing: full.error))")
            #expect(full.tls >= 1)
            for mode in ["verify-ca" + authority, "require", "require" + authority, "prefer"] {
                let outcome = try await sessions(byAddress + "?sslmode=" + mode, on: server)
                #expect(outcome.error == nil, "\(mode): \(String(describing: outcome.error))")
                #expect(outcome.tls >= 1, "\(mode)")
            }
            #expect(try await sessions(byAddress + "?sslmode=disable", on: server).error == nil)
            // The address, which is not on the certificate: verify-ca takes it, verify-full not.
            let wrongName = try await sessions(byAddress + "?sslmode=verify-full" + authority, on: server).error
            #expect(wrongName?.message.contains("TLS with the server failed") == true, "\(String(describing: wrongName))")
            // An authority that did not sign it, and the system's store, which knows neither.
            for mode in ["verify-ca&sslrootcert=" + directory + "/other-ca.crt", "require&sslrootcert=" + directory + "/other-ca.crt",
                         "verify-ca", "verify-full"] {
                let error = try await sessions(byName + "?sslmode=" + mode, on: server).error
                #expect(error != nil, "\(mode)")
                #expect(error?.message.contains("TLS with the server failed") == true, "\(String(describing: error))")
                print("sslmode=\(mode): \(error.map { "\($0)" } ?? "connected")")
            }
            print("verify-full by address: \(wrongName.map { "\($0)" } ?? "connected")")
        }
    }

    /// What a store made from `url` says to a health check and then a pooled read (nil when
    /// both read), and how many sessions of `user` use TLS and how many do not while it still
    /// runs. The server's own psql connections are the user `postgres`'s without TLS.
    func sessions(_ url: String, user: String = "postgres", on server: PostgresServer) async throws -> (error: PostGISError?, tls: Int, plain: Int) {
        let store = try PostGISPlaceStore(
            url: try PostgresURL(parsing: url), queryTimeout: .seconds(2), clock: ContinuousClock(), logger: quietLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            var error: PostGISError?
            do {
                try await store.checkHealth()
                _ = try await store.places(near: try Coordinate(latitude: 0, longitude: 0), within: 5000)
            } catch let failure as PostGISError {
                error = failure
            }
            let counts = try await server.psqlValues(
                "SELECT count(*) FILTER (WHERE ssl) || '|' || count(*) FILTER (WHERE NOT ssl) FROM pg_stat_ssl "
                    + "JOIN pg_stat_activity USING (pid) WHERE backend_type = 'client backend' AND usename = '\(user)'"
            ).split(separator: "|").map { Int($0) ?? -1 }
            return (error, counts.first ?? -1, counts.last ?? -1)
        }
    }

    @Test("allow and prefer as libpq: allow first without TLS, prefer first with it; each the other way when the server refuses that login")
    func allowAndPrefer() async throws {
        try await withTLSServer { directory, server in
            // Three users: one the server takes either way, one only over TLS, one only without.
            for user in ["either", "tls_only", "plain_only"] {
                try await server.psql("CREATE ROLE \(user) LOGIN PASSWORD 'pw-\(user)'")
                try await server.psql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(user)")
            }
            try await server.addAccessRules([
                "hostnossl all tls_only 127.0.0.1/32 reject",
                "hostssl all plain_only 127.0.0.1/32 reject",
            ])
            func url(_ user: String, _ mode: String) -> String {
                "postgres://\(user):pw-\(user)@127.0.0.1:\(server.port)/postgres?sslmode=\(mode)"
            }
            func expectConnected(_ user: String, _ mode: String, tls: Bool) async throws {
                let outcome = try await sessions(url(user, mode), user: user, on: server)
                #expect(outcome.error == nil, "\(user) \(mode): \(String(describing: outcome.error))")
                #expect(tls ? outcome.tls >= 1 && outcome.plain == 0 : outcome.plain >= 1 && outcome.tls == 0,
                        "\(user) \(mode): \(outcome.tls) sessions with TLS, \(outcome.plain) without")
            }
            try await expectConnected("either", "allow", tls: false)
            try await expectConnected("either", "prefer", tls: true)
            try await expectConnected("tls_only", "allow", tls: true)
            try await expectConnected("tls_only", "prefer", tls: true)
            try await expectConnected("plain_only", "allow", tls: false)
            try await expectConnected("plain_only", "prefer", tls: false)
            // One way only: the server's refusal is the answer, in PostgreSQL's words.
            for (user, mode) in [("tls_only", "disable"), ("plain_only", "require")] {
                let error = try await sessions(url(user, mode), user: user, on: server).error
                #expect(error?.message.contains("pg_hba.conf") == true, "\(user) \(mode): \(String(describing: error))")
            }
            // A wrong password is refused both ways, and said once.
            let wrong = try await sessions(
                "postgres://either:wrong@127.0.0.1:\(server.port)/postgres?sslmode=allow", user: "either", on: server).error
            #expect(wrong?.message.contains("password authentication failed") == true, "\(String(describing: wrong))")
        }
    }

    @Test("an sslrootcert that is missing or not PEM is refused when the store is made, naming sslrootcert")
    func unreadableRoots() async throws {
        try withScratchFolder { directory in
            try "not a certificate".write(toFile: directory + "/junk.pem", atomically: true, encoding: .utf8)
            for file in [directory + "/missing.pem", directory + "/junk.pem"] {
                let url = try PostgresURL(parsing: "postgres://u@127.0.0.1:1/d?sslmode=verify-full&sslrootcert=" + file)
                #expect {
                    try PostGISPlaceStore(url: url, clock: ContinuousClock(), logger: quietLogger)
                } throws: { error in
                    guard let error = error as? PostGISError else { return false }
                    return error.code == .invalidURL && error.parameter == "sslrootcert" && error.message.contains(file)
                }
            }
        }
    }
}
