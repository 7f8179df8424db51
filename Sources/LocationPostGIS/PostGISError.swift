/// Something the PostGIS store could not do, with where: the server (`host:port`), the
/// parameter, or the URL.
///
/// Import errors about the input itself (a bad row, a missing column) are the Places module's
/// `IndexError`, thrown unchanged: the file is read by the same parsers as an SQLite import.
package struct PostGISError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    package struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The connection URL is malformed (`parameter` names the part).
        package static let invalidURL = Code(rawValue: "invalidURL")
        /// An argument is out of range (`parameter` names it).
        package static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The server cannot be reached or refused the login (`endpoint` says which).
        package static let unavailable = Code(rawValue: "unavailable")
        /// A query passed its deadline (the store's `queryTimeout`) and was cancelled: by the server
        /// (`statement_timeout`) or by closing its connection when the server did not answer
        /// (`endpoint` says which server).
        package static let timedOut = Code(rawValue: "timedOut")
        /// The server answered a statement with an error.
        package static let query = Code(rawValue: "query")
        /// The database holds a `locsim_place` table that is not this version's, or no PostGIS.
        package static let schema = Code(rawValue: "schema")
        /// The import was cancelled; nothing was written.
        package static let cancelled = Code(rawValue: "cancelled")

        package var description: String { rawValue }

        package static func ~= (code: Code, error: any Error) -> Bool { (error as? PostGISError)?.code == code }
    }

    package var code: Code
    package var message: String
    /// `host:port` of the server concerned, if any.
    package var endpoint: String?
    /// The parameter or URL part at fault, if any.
    package var parameter: String?
    /// The server's SQLSTATE when the server said no (`3D000`: no such database; `28P01`: wrong
    /// password; `42501`: insufficient privilege), for a hint that fits the cause.
    package var sqlState: String?

    package init(_ code: Code, _ message: String, endpoint: String? = nil, parameter: String? = nil, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.endpoint = endpoint
        self.parameter = parameter
        self.sqlState = sqlState
    }

    /// Whether the server refused for a reason that waiting does not mend, only a change of
    /// configuration: a wrong or missing password, an unknown user or database, no place tables
    /// (or another version's), no grant to read them, a search_path with no schema, TLS that the
    /// URL and the server disagree on. A server that cannot be reached, is starting or stopping,
    /// or answered too late may answer later: not a refusal.
    package var isRefusal: Bool {
        if code == .schema || code == .invalidArgument || code == .invalidURL { return true }
        if parameter == "password" || parameter == "sslmode" { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("28") || sqlState == "3D000" || sqlState == "42501" || sqlState == "42P01"
    }

    package var description: String {
        var prefix = ""
        if let endpoint { prefix += "\(endpoint): " }
        if let parameter { prefix += "\(parameter): " }
        return prefix + message
    }
}
