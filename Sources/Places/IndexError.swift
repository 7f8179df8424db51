/// Everything that can go wrong reading, storing and querying places (the Places parsers and
/// the `LocationIndex` SQLite store), with where it went wrong.
///
/// One error type for both: a ``Code`` says what kind of problem it is (match it with
/// `catch IndexError.Code.busy` or `error.code == .malformedRow`), and the context says where:
/// the database or input file, the line and column of a bad row, the parameter of a bad
/// argument, and the SQLite result code when SQLite reported it.
package struct IndexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem. Extensible: new codes may be added in later versions.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A query argument is out of range: a radius outside 1 m … half the circumference, a
        /// non-finite radius, a limit ≤ 0, or a latitude/longitude out of range. `parameter`
        /// names it.
        package static let invalidArgument = Code("invalid argument")
        /// An input row could not be read: a bad number, a coordinate out of range, a wrong
        /// field count. `path`, `line` and `column` say where.
        package static let malformedRow = Code("malformed row")
        /// A CSV header lacks a required column (id, name, lat, lon) or names a column twice.
        package static let badHeader = Code("bad header")
        /// The same id appears twice in one import (strict mode).
        package static let duplicateID = Code("duplicate id")
        /// The input file cannot be read: absent, a folder, no permission.
        package static let unreadableInput = Code("unreadable input")
        /// The input file was read but is not in its format at all: empty, not JSON, not a
        /// GeoJSON FeatureCollection; or, read leniently, every row of it was bad (the message
        /// names the first). (A bad row in a file of the right format is ``malformedRow``.)
        package static let wrongFormat = Code("wrong format")
        /// The file is not a locsim index: another SQLite database, or not SQLite at all.
        package static let notAnIndex = Code("not a locsim index")
        /// The index was written by a newer locsim (its schema version is unknown).
        package static let unsupportedVersion = Code("unsupported index version")
        /// SQLite found the file damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB` after open).
        package static let corrupt = Code("corrupt database")
        /// The database cannot be written: opened read-only or on a read-only file
        /// (`SQLITE_READONLY`).
        package static let readOnly = Code("read-only database")
        /// Another connection or process holds the write lock past the busy timeout
        /// (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        package static let busy = Code("database locked")
        /// The database file cannot be opened or created (`SQLITE_CANTOPEN`).
        package static let cannotOpen = Code("cannot open database")
        /// The file at the index's path is no longer the one opened (a rebuild published a new
        /// index there, or the file was removed): a new read connection would open another file
        /// than the open ones read, so none is opened; open the index again (restart the server).
        package static let replaced = Code("index file replaced")
        /// The operating system failed to read or write (`SQLITE_IOERR`, `SQLITE_FULL`).
        package static let io = Code("I/O error")
        /// The operation was cancelled; nothing was written.
        package static let cancelled = Code("cancelled")
        /// Any other SQLite failure; `sqliteCode` and `message` carry the details.
        package static let sqlite = Code("SQLite error")

        package var description: String { name }
    }

    /// What kind of problem.
    package let code: Code
    /// Human-readable detail, including what to do about it where that is known.
    package let message: String
    /// The database or input file involved, if any.
    package var path: String?
    /// 1-based line of the input file where the offending record starts, if any.
    package var line: Int?
    /// The input column (CSV header name or GeoJSON member) involved, if any.
    package var column: String?
    /// The API parameter involved (`radius`, `limit`, `latitude`...), if any.
    package var parameter: String?
    /// The SQLite (extended) result code, when SQLite reported the problem.
    package var sqliteCode: Int32?

    /// Creates an error; the context fields are optional.
    package init(
        _ code: Code, _ message: String, path: String? = nil, line: Int? = nil, column: String? = nil,
        parameter: String? = nil, sqliteCode: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.parameter = parameter
        self.sqliteCode = sqliteCode
    }

    /// `path:line: column "lat": malformed row: ...`, the location first so editors can jump to it.
    package var description: String {
        var location = ""
        if let path {
            location = path
            if let line { location += ":\(line)" }
            location += ": "
        } else if let line {
            location = "line \(line): "
        }
        if let column {
            location += "column \"\(column)\": "
        } else if let parameter {  // a file's column says where; the parameter is then its meaning
            location += "parameter \(parameter): "
        }
        var text = "\(location)\(code): \(message)"
        if let sqliteCode { text += " (SQLite code \(sqliteCode))" }
        return text
    }
}

extension IndexError.Code {
    /// Lets `catch IndexError.Code.busy` match a thrown ``IndexError``.
    package static func ~= (code: Self, error: any Error) -> Bool {
        (error as? IndexError)?.code == code
    }
}
