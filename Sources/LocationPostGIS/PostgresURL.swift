import LocationCore

/// Where a PostgreSQL server is and how to log in: `postgres://user[:password]@host[:port]/database`
/// (or `postgresql://`), with libpq's query parameters `sslmode`, `sslrootcert`,
/// `application_name`, `fallback_application_name`, `connect_timeout` and `options`. Every other parameter
/// is refused by name (libpq's own ones as "not supported", anything else as unknown), so that a
/// typo does not pass silently.
///
/// The user information ends at the first `@` (as in libpq; an `@` in a password is written
/// `%40`), so a `/`, `?` or `:` in a password does not split the URL. Any part may be
/// percent-encoded. No message ever echoes the user information.
///
/// The password is looked up like libpq does: the URL's, else `PGPASSWORD`, else the first
/// matching line of the password file (`PGPASSFILE`, or `~/.pgpass`), which, as for libpq and
/// psql, must not be readable by group or others. ``description`` never shows it.
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var user: String
    package var database: String
    /// The password, if any source had one.
    package var password: String?
    /// `sslmode`, else `PGSSLMODE`, else prefer, as libpq (loopback servers in tests use disable).
    package var tlsMode: TLSMode
    /// `sslrootcert`, else `PGSSLROOTCERT`: the certificate authorities that ``TLSMode/verifyCA``
    /// and ``TLSMode/verifyFull`` trust (and ``TLSMode/require`` too when given, as in libpq);
    /// nil for the system's store.
    package var rootCertificates: RootCertificates?
    /// The name the server shows for our sessions (`pg_stat_activity.application_name`, its log's
    /// `%a`): `application_name`, else `PGAPPNAME`, else `fallback_application_name`, else
    /// `locsim`.
    package var applicationName: String
    /// How long one connection attempt (TCP, TLS, login) may take: `connect_timeout` (whole
    /// seconds, ≥ 1), else `PGCONNECT_TIMEOUT`, else 3 s. (libpq waits forever by default and
    /// for 0; locsim never does, so 0 is refused.)
    package var connectTimeout: Duration
    /// Server settings for every session, in libpq's form: `options`, else `PGOPTIONS`
    /// (`-c search_path=team,public` keeps the place tables in schema `team`). Sent as the
    /// startup packet's `options`, which the server applies before locsim's own settings
    /// (the read deadline), so those cannot be overridden here.
    package var options: String?
    /// The URL as given, less its password: what a hint may tell the user to run again
    /// (`postgres://team@db:5432/places?sslmode=disable`). The password comes from where it came
    /// from before (`PGPASSWORD`, the password file) or is asked for again.
    package var textWithoutPassword: String

    /// The default of ``connectTimeout``.
    package static let defaultConnectTimeout = Duration.seconds(3)

    /// The query parameters understood.
    package static let supportedParameters = [
        "sslmode", "sslrootcert", "application_name", "fallback_application_name", "connect_timeout", "options",
    ]

    /// libpq's other connection parameters (PostgreSQL 17), refused as "not supported" rather
    /// than as unknown.
    static let libpqParameters: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
        "client_encoding", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
        "tcp_user_timeout", "replication", "gssencmode", "sslnegotiation", "sslcompression", "sslcert", "sslkey",
        "sslpassword", "sslcertmode", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs",
        "load_balance_hosts",
    ]

    /// libpq's `sslmode` values, with libpq's meanings.
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// First without TLS; with TLS (unverified) when the server refuses that login.
        case allow
        /// First with TLS, unverified, when the server offers it; without when the server refuses
        /// that login.
        case prefer
        /// TLS or no connection; the certificate is not verified unless ``rootCertificates`` is
        /// given, then its chain is (as ``verifyCA``).
        case require
        /// TLS, with a certificate chain that ends at a trusted authority; any host name.
        case verifyCA = "verify-ca"
        /// TLS, with a trusted chain and a certificate for the host connected to (name or IP).
        case verifyFull = "verify-full"
    }

    /// Where trusted authorities come from.
    package enum RootCertificates: Sendable, Hashable {
        /// A PEM file of one or more certificates.
        case file(String)
        /// The system's store (`sslrootcert=system`, as libpq 16).
        case system
    }

    /// A password file as the caller read it (this type does no I/O).
    package struct PasswordFile: Sendable, Hashable {
        /// Where it is, for messages.
        package var path: String
        /// Its text.
        package var contents: String
        /// Its permission bits (`st_mode & 0o7777`), or nil where not known.
        package var permissions: Int?

        package init(path: String, contents: String, permissions: Int?) {
            self.path = path
            self.contents = contents
            self.permissions = permissions
        }
    }

    /// `host:port`, for messages.
    package var endpoint: String { HostPort(host: host, port: port).description }

    /// The URL without its password.
    package var description: String { "postgres://\(user)@\(endpoint)/\(database)" }

    /// Parses `text`, taking the password from `environment` (`PGPASSWORD`) or from the
    /// password file when the URL has none.
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - environment: The process environment (`PGPASSWORD`, `PGUSER`, `USER`, `PGSSLMODE`,
    ///     `PGSSLROOTCERT`, `PGAPPNAME`, `PGCONNECT_TIMEOUT`, `PGOPTIONS`).
    ///   - passwordFile: The password file, if it exists (the caller reads it, so this type does
    ///     no I/O).
    /// - Throws: ``PostGISError/Code/invalidURL`` naming the part or parameter at fault;
    ///   ``PostGISError/Code/invalidArgument`` naming the password file when the password would
    ///   come from a file that group or others may read.
    package init(
        parsing text: String, environment: [String: String] = [:], passwordFile: PasswordFile? = nil
    ) throws(PostGISError) {
        func fail(_ message: String, _ part: String) -> PostGISError {
            // Never echo the URL: it may hold a password.
            PostGISError(.invalidURL, message, parameter: part)
        }
        var rest = Substring(text)
        if rest.hasPrefix("postgres://") {
            rest = rest.dropFirst("postgres://".count)
        } else if rest.hasPrefix("postgresql://") {
            rest = rest.dropFirst("postgresql://".count)
        } else {
            throw fail("must start with postgres:// or postgresql://", "scheme")
        }
        // The user information ends at the first `@`, unless that `@` is inside the query (a
        // `?` then a parameter name and `=` come before it).
        var userInfo: Substring?
        if let at = rest.firstIndex(of: "@"), !Self.hasQuery(rest[..<at]) {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let location = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var urlUser: String?
        var urlPassword: String?
        if let userInfo {
            if let colon = userInfo.firstIndex(of: ":") {
                urlUser = try Self.decode(userInfo[..<colon], part: "user")
                urlPassword = try Self.decode(userInfo[userInfo.index(after: colon)...], part: "password")
            } else {
                urlUser = try Self.decode(userInfo, part: "user")
            }
        }
        var hostPart = rest
        guard !hostPart.contains("@") else {
            // `user:p@ss@host`: the rest of a password, which must not be printed.
            throw fail("holds an @: write an @ in the user name or password as %40", "host")
        }
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw fail("an IPv6 host needs its closing ]", "host") }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw fail("junk after ]", "host") }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portText = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        host = hostPart.isEmpty ? "localhost" : try Self.decode(hostPart, part: "host")
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                // Digits are no secret; anything else might be part of a password.
                let shown = portText.allSatisfy(\.isASCII) && portText.allSatisfy(\.isNumber) ? " '\(portText)'" : ""
                throw fail("the port\(shown) is not a number within 1...65535", "port")
            }
            port = value
        } else {
            port = 5432
        }
        let givenUser = userInfo.map { info in (info.firstIndex(of: ":").map { info[..<$0] } ?? info) + "@" } ?? ""
        textWithoutPassword = "postgres://\(givenUser)\(location)" + (query.isEmpty ? "" : "?\(query)")
        user = urlUser ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        guard !user.isEmpty else { throw fail("the user name is empty", "user") }
        database = path.isEmpty ? user : try Self.decode(path, part: "database")
        func mode(_ value: String, _ source: String) throws(PostGISError) -> TLSMode {
            guard let mode = TLSMode(rawValue: value) else {
                let known = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("'\(value)' is not one of \(known)", source)
            }
            return mode
        }
        func roots(_ value: String, _ source: String) throws(PostGISError) -> RootCertificates {
            guard !value.isEmpty else { throw fail("is empty: give a PEM file, or system", source) }
            return value == "system" ? .system : .file(value)
        }
        func seconds(_ value: String, _ source: String) throws(PostGISError) -> Duration {
            guard let seconds = Int(value), seconds >= 1, seconds <= 86_400 else {
                throw fail(
                    "'\(value)' is not whole seconds within 1...86400 (libpq's 0, wait forever, is not supported: "
                        + "locsim never waits without a limit)", source)
            }
            return .seconds(seconds)
        }
        tlsMode = try environment["PGSSLMODE"].map { value throws(PostGISError) in try mode(value, "PGSSLMODE") } ?? .prefer
        rootCertificates = try environment["PGSSLROOTCERT"].map { value throws(PostGISError) in try roots(value, "PGSSLROOTCERT") }
        connectTimeout =
            try environment["PGCONNECT_TIMEOUT"].map { value throws(PostGISError) in try seconds(value, "PGCONNECT_TIMEOUT") }
            ?? Self.defaultConnectTimeout
        var applicationName = environment["PGAPPNAME"]
        options = environment["PGOPTIONS"]
        var fallbackApplicationName: String?
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = String(parts[0])
            let supported = Self.supportedParameters.joined(separator: ", ")
            guard Self.supportedParameters.contains(name) else {
                // Never echo the value: a misplaced password could be in it.
                if Self.libpqParameters.contains(name) {
                    throw fail("libpq's '\(name)' is not supported by locsim (supported: \(supported))", name)
                }
                throw fail("unknown parameter '\(name)' (supported: \(supported))", name)
            }
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", part: name)
            switch name {
            case "sslmode": tlsMode = try mode(value, name)
            case "sslrootcert": rootCertificates = try roots(value, name)
            case "application_name": applicationName = value
            case "fallback_application_name": fallbackApplicationName = value
            case "options": options = value
            default: connectTimeout = try seconds(value, name)
            }
        }
        self.applicationName = applicationName ?? fallbackApplicationName ?? "locsim"
        if let password = urlPassword ?? environment["PGPASSWORD"] {
            self.password = password
        } else if let passwordFile,
            let password = Self.passwordFileLookup(
                passwordFile.contents, host: host, port: port, database: database, user: user)
        {
            // libpq and psql ignore such a file with a warning; here it is an error that says why.
            if let permissions = passwordFile.permissions, permissions & 0o077 != 0 {
                throw PostGISError(
                    .invalidArgument,
                    "holds the password for \(user)@\(HostPort(host: host, port: port)) but group or others may read it "
                        + "(mode \(String(permissions & 0o777, radix: 8))); as libpq and psql require, restrict it: "
                        + "chmod 600 \(passwordFile.path)",
                    parameter: passwordFile.path)
            }
            self.password = password
        } else {
            password = nil
        }
    }

    /// Whether `text` (the URL after its scheme, up to an `@`) holds the start of a query: a `?`
    /// followed by one of libpq's parameter names and `=` (so an `@` in `sslrootcert=/a@b.pem`
    /// is not taken for the end of a password, while a password such as `p?x=1` stays one).
    private static func hasQuery(_ text: Substring) -> Bool {
        var rest = text
        while let mark = rest.firstIndex(of: "?") {
            rest = rest[rest.index(after: mark)...]
            let name = String(rest.prefix { $0.isASCII && ($0.isLetter || $0 == "_") })
            if supportedParameters.contains(name) || libpqParameters.contains(name), rest.dropFirst(name.count).first == "=" {
                return true
            }
        }
        return false
    }

    /// Percent-decodes one URL part.
    private static func decode(_ part: Substring, part name: String) throws(PostGISError) -> String {
        let (bytes, malformed) = PercentEncoding.decoded(part.utf8, plusIsSpace: false)
        guard !malformed else {
            throw PostGISError(.invalidURL, "a % must be followed by two hex digits", parameter: name)
        }
        guard bytes.withUnsafeBytes(\.isValidUTF8) else {
            throw PostGISError(.invalidURL, "is not UTF-8 once decoded", parameter: name)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The password of the first line of a `.pgpass` file matching `host:port:database:user`
    /// (`*` matches anything; `\:` and `\\` escape), as libpq reads it.
    static func passwordFileLookup(_ contents: String, host: String, port: Int, database: String, user: String) -> String? {
        let wanted = [host, String(port), database, user]
        for line in contents.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) where !line.hasPrefix("#") {
            var fields: [String] = []
            var current = ""
            var escaped = false
            for character in line {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":", fields.count < 4 {
                    fields.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            fields.append(current)
            guard fields.count == 5 else { continue }
            let matches = zip(fields.prefix(4), wanted).allSatisfy { field, value in
                field == "*" || field == value
            }
            if matches { return fields[4] }
        }
        return nil
    }
}
