import LocationCore

/// Where a PostgreSQL server is and how to log in: `postgres://user[:password]@host[:port]/database`
/// (or `postgresql://`). Query parameters other than `sslmode` and `sslrootcert` are refused so
/// that a typo does not pass silently.
///
/// The password is looked up like libpq does: the URL's, else `PGPASSWORD`, else the first
/// matching line of the password file (`PGPASSFILE`, or `~/.pgpass`). ``description`` never
/// shows it.
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

    /// libpq's `sslmode` values, with libpq's meanings.
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, unverified. (libpq tries without TLS first; postgres-nio
        /// cannot, so this is ``prefer``.)
        case allow
        /// TLS when the server offers it, unverified.
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

    /// `host:port`, for messages.
    package var endpoint: String { HostPort(host: host, port: port).description }

    /// The URL without its password.
    package var description: String { "postgres://\(user)@\(endpoint)/\(database)" }

    /// Parses `text`, taking the password from `environment` (`PGPASSWORD`) or from the
    /// password file's contents when the URL has none.
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - environment: The process environment (`PGPASSWORD`, `PGUSER`, `USER`, `PGSSLMODE`,
    ///     `PGSSLROOTCERT`).
    ///   - passwordFile: The text of the password file, if it exists (the caller reads it, so
    ///     this type does no I/O).
    /// - Throws: ``PostGISError/Code/invalidURL`` naming the part at fault.
    package init(parsing text: String, environment: [String: String] = [:], passwordFile: String? = nil) throws(PostGISError) {
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
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
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
        host = hostPart.isEmpty ? "localhost" : String(hostPart)
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw fail("port '\(portText)' is not within 1...65535", "port")
            }
            port = value
        } else {
            port = 5432
        }
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
        tlsMode = try environment["PGSSLMODE"].map { value throws(PostGISError) in try mode(value, "PGSSLMODE") } ?? .prefer
        rootCertificates = try environment["PGSSLROOTCERT"].map { value throws(PostGISError) in try roots(value, "PGSSLROOTCERT") }
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = String(parts[0])
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", part: name)
            switch name {
            case "sslmode": tlsMode = try mode(value, name)
            case "sslrootcert": rootCertificates = try roots(value, name)
            default: throw fail("unknown parameter '\(name)' (only sslmode and sslrootcert are understood)", name)
            }
        }
        password = urlPassword ?? environment["PGPASSWORD"]
            ?? passwordFile.flatMap { Self.passwordFileLookup($0, host: host, port: port, database: database, user: user) }
    }

    /// Percent-decodes one URL part.
    private static func decode(_ part: Substring, part name: String) throws(PostGISError) -> String {
        var bytes: [UInt8] = []
        var iterator = part.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                throw PostGISError(.invalidURL, "a % must be followed by two hex digits", parameter: name)
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PostGISError(.invalidURL, "is not UTF-8 once decoded", parameter: name)
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
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
