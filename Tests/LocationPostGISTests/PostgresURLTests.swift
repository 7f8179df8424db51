import LocationPostGIS
import Testing
import LocSimTestHelpers

@Suite(.ownThread) struct PostgresURLTests {
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
        let text = """
            # comment
            other:5432:*:alice:wrong-host
            h\\:x:1:d:alice:escaped-host
            h:1:*:alice:from-file
            """
        let file = PostgresURL.PasswordFile(path: "/home/alice/.pgpass", contents: text, permissions: 0o600)
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

    @Test("a / ? : # or & in a password does not split the URL; an @ is written %40; no error shows any of it")
    func passwordsWithURLCharacters() throws {
        let url = try PostgresURL(parsing: "postgres://alice:p/a?s:s#w&x=1%40%25@db.example:6543/places?sslmode=disable")
        #expect(url.user == "alice")
        #expect(url.password == "p/a?s:s#w&x=1@%")
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.database == "places")
        #expect(url.tlsMode == .disable)
        #expect(!url.description.contains("p/a"))
        // `?name=` in a password stays in the password unless the name is libpq's.
        let question = try PostgresURL(parsing: "postgres://alice:p?x=1@h/d?sslmode=require")
        #expect(question.password == "p?x=1" && question.host == "h" && question.tlsMode == .require)
        // An @ in a query value is not the end of user information.
        let query = try PostgresURL(parsing: "postgres://h/d?sslrootcert=/etc/ca@2.pem")
        #expect(query.host == "h")
        #expect(query.rootCertificates == .file("/etc/ca@2.pem"))
        for text in ["postgres://alice:se@cret@h/d", "postgres://alice:secret/x@h:12ab/d", "postgres://alice:sec:ret@h:99999999/d"] {
            #expect {
                try PostgresURL(parsing: text)
            } throws: { error in
                let description = "\(error)"
                return (error as? PostGISError)?.code == .invalidURL && !description.contains("cret")
                    && !description.contains("ret@") && !description.contains("12ab")
            }
        }
    }

    @Test("application_name, else PGAPPNAME, else fallback_application_name, else locsim")
    func applicationName() throws {
        #expect(try PostgresURL(parsing: "postgres://h/d").applicationName == "locsim")
        #expect(try PostgresURL(parsing: "postgres://h/d?fallback_application_name=qa").applicationName == "qa")
        let environment = ["PGAPPNAME": "from-env"]
        #expect(try PostgresURL(parsing: "postgres://h/d?fallback_application_name=qa", environment: environment).applicationName == "from-env")
        #expect(
            try PostgresURL(parsing: "postgres://h/d?application_name=qa%20run%207", environment: environment).applicationName == "qa run 7")
    }

    @Test("connect_timeout in whole seconds ≥ 1, else PGCONNECT_TIMEOUT, else 3 s; 0 (libpq's forever) is refused")
    func connectTimeout() throws {
        #expect(try PostgresURL(parsing: "postgres://h/d").connectTimeout == PostgresURL.defaultConnectTimeout)
        #expect(try PostgresURL(parsing: "postgres://h/d?connect_timeout=7").connectTimeout == .seconds(7))
        #expect(try PostgresURL(parsing: "postgres://h/d", environment: ["PGCONNECT_TIMEOUT": "4"]).connectTimeout == .seconds(4))
        let both = try PostgresURL(parsing: "postgres://h/d?connect_timeout=9", environment: ["PGCONNECT_TIMEOUT": "4"])
        #expect(both.connectTimeout == .seconds(9))
        for (text, environment, part) in [
            ("postgres://h/d?connect_timeout=0", [:], "connect_timeout"), ("postgres://h/d?connect_timeout=1.5", [:], "connect_timeout"),
            ("postgres://h/d?connect_timeout=", [:], "connect_timeout"), ("postgres://h/d", ["PGCONNECT_TIMEOUT": "-1"], "PGCONNECT_TIMEOUT"),
        ] {
            #expect {
                try PostgresURL(parsing: text, environment: environment)
            } throws: { error in
                (error as? PostGISError)?.parameter == part && "\(error)".contains("1...86400")
            }
        }
    }

    @Test("libpq's other parameters are refused by name as unsupported, others as unknown, values never shown")
    func otherParameters() {
        for (name, kind) in [("sslcert", "not supported"), ("target_session_attrs", "not supported"), ("password", "not supported"),
                             ("timeout", "unknown parameter")] {
            #expect {
                try PostgresURL(parsing: "postgres://h/d?\(name)=s3cr3t")
            } throws: { error in
                let description = "\(error)"
                return (error as? PostGISError)?.parameter == name && description.contains(kind) && description.contains("connect_timeout")
                    && !description.contains("s3cr3t")
            }
        }
    }

    @Test("a password file group or others may read is refused, naming it, only when its password would be used")
    func passwordFilePermissions() throws {
        let line = "h:1:d:alice:from-file\n"
        let open = PostgresURL.PasswordFile(path: "/tmp/x/.pgpass", contents: line, permissions: 0o644)
        #expect {
            try PostgresURL(parsing: "postgres://alice@h:1/d", passwordFile: open)
        } throws: { error in
            let description = "\(error)"
            return (error as? PostGISError)?.parameter == "/tmp/x/.pgpass" && description.contains("644")
                && description.contains("chmod 600 /tmp/x/.pgpass") && !description.contains("from-file")
        }
        // Not used: a password from the URL or PGPASSWORD, or no line for this server.
        #expect(try PostgresURL(parsing: "postgres://alice:u@h:1/d", passwordFile: open).password == "u")
        #expect(try PostgresURL(parsing: "postgres://alice@h:1/d", environment: ["PGPASSWORD": "e"], passwordFile: open).password == "e")
        #expect(try PostgresURL(parsing: "postgres://bob@h:1/d", passwordFile: open).password == nil)
        for permissions in [0o600, 0o400, nil] {
            let file = PostgresURL.PasswordFile(path: "/p", contents: line, permissions: permissions)
            #expect(try PostgresURL(parsing: "postgres://alice@h:1/d", passwordFile: file).password == "from-file")
        }
    }

    @Test("options, else PGOPTIONS: server settings in libpq's form, percent-decoded")
    func options() throws {
        #expect(try PostgresURL(parsing: "postgres://h/d").options == nil)
        let url = try PostgresURL(parsing: "postgres://h/d?options=-c%20search_path%3Dteam,public")
        #expect(url.options == "-c search_path=team,public")
        #expect(try PostgresURL(parsing: "postgres://h/d", environment: ["PGOPTIONS": "-c search_path=x"]).options == "-c search_path=x")
    }
}
