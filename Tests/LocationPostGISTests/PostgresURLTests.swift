import LocationPostGIS
import Testing

@Suite struct PostgresURLTests {
    @Test func partsAndDefaults() throws {
        let url = try PostgresURL(parsing: "postgresql://alice:s%3Acret@db.example:6543/places?sslmode=disable")
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.user == "alice")
        #expect(url.password == "s:cret")
        #expect(url.database == "places")
        #expect(url.tlsMode == .disable)
        let bare = try PostgresURL(parsing: "postgres://127.0.0.1", environment: ["USER": "bob"])
        #expect(bare.port == 5432)
        #expect(bare.user == "bob")
        #expect(bare.database == "bob")
        #expect(bare.password == nil)
        let v6 = try PostgresURL(parsing: "postgres://u@[::1]:7000/d")
        #expect(v6.host == "::1")
        #expect(v6.endpoint == "[::1]:7000")
    }

    @Test func descriptionNeverShowsThePassword() throws {
        let url = try PostgresURL(parsing: "postgres://alice:hunter2@h:1/d")
        #expect(!url.description.contains("hunter2"))
        #expect(url.description == "postgres://alice@h:1/d")
    }

    @Test func passwordPrecedence() throws {
        let file = """
            # comment
            other:5432:*:alice:wrong-host
            h\\:x:1:d:alice:escaped-host
            h:1:*:alice:from-file
            """
        let fromURL = try PostgresURL(
            parsing: "postgres://alice:from-url@h:1/d", environment: ["PGPASSWORD": "from-env"], passwordFile: file)
        #expect(fromURL.password == "from-url")
        let fromEnvironment = try PostgresURL(
            parsing: "postgres://alice@h:1/d", environment: ["PGPASSWORD": "from-env"], passwordFile: file)
        #expect(fromEnvironment.password == "from-env")
        let fromFile = try PostgresURL(parsing: "postgres://alice@h:1/d", environment: [:], passwordFile: file)
        #expect(fromFile.password == "from-file")
        let escaped = try PostgresURL(parsing: "postgres://alice@h:x:1/d", environment: [:], passwordFile: file)
        #expect(escaped.host == "h:x")  // the last colon separates the port
        #expect(escaped.password == "escaped-host")  // `\:` in the file is a literal colon
        let none = try PostgresURL(parsing: "postgres://carol@h:1/d", environment: [:], passwordFile: file)
        #expect(none.password == nil)
    }

    @Test("sslmode takes libpq's six values; sslrootcert a file or system; PGSSLMODE and PGSSLROOTCERT when the URL has none")
    func tlsParameters() throws {
        for mode in PostgresURL.TLSMode.allCases {
            #expect(try PostgresURL(parsing: "postgres://h/d?sslmode=\(mode.rawValue)").tlsMode == mode)
        }
        #expect(try PostgresURL(parsing: "postgres://h/d").tlsMode == .prefer)
        let url = try PostgresURL(parsing: "postgres://h/d?sslmode=verify-ca&sslrootcert=/etc/ssl/a%20b.pem")
        #expect(url.tlsMode == .verifyCA)
        #expect(url.rootCertificates == .file("/etc/ssl/a b.pem"))
        #expect(try PostgresURL(parsing: "postgres://h/d?sslrootcert=system").rootCertificates == .system)
        let environment = ["PGSSLMODE": "verify-full", "PGSSLROOTCERT": "/ca.pem"]
        let fromEnvironment = try PostgresURL(parsing: "postgres://h/d", environment: environment)
        #expect(fromEnvironment.tlsMode == .verifyFull)
        #expect(fromEnvironment.rootCertificates == .file("/ca.pem"))
        let overridden = try PostgresURL(parsing: "postgres://h/d?sslmode=require&sslrootcert=/other.pem", environment: environment)
        #expect(overridden.tlsMode == .require)
        #expect(overridden.rootCertificates == .file("/other.pem"))
        #expect {
            try PostgresURL(parsing: "postgres://h/d", environment: ["PGSSLMODE": "verify"])
        } throws: { error in
            (error as? PostGISError)?.parameter == "PGSSLMODE" && "\(error)".contains("verify-full")
        }
    }

    @Test(arguments: [
        ("mysql://h/d", "scheme"), ("postgres://h:0/d", "port"), ("postgres://h:99999/d", "port"), ("postgres://h:x1/d", "port"),
        ("postgres://h/d?sslmode=maybe", "sslmode"), ("postgres://h/d?timeout=3", "timeout"), ("postgres://u%zz@h/d", "user"),
        ("postgres://u:%4@h/d", "password"), ("postgres://h/d?sslrootcert=", "sslrootcert"),
        ("postgres://h/d?sslmode=verify_full", "sslmode"),
    ])
    func malformedURLsNameThePart(text: String, part: String) {
        #expect {
            try PostgresURL(parsing: text)
        } throws: { error in
            guard let error = error as? PostGISError else { return false }
            return error.code == .invalidURL && error.parameter == part && !error.description.contains("%4@")
        }
    }
}
