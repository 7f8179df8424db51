internal import CSQLite
internal import LocationCore
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The index error for a failed SQLite call: maps the result code to an ``IndexError/Code`` and
/// says what to do about it.
func indexError(_ result: Int32, message: String, path: String) -> IndexError {
    let indexCode: IndexError.Code
    var advice = ""
    // Extended result codes (SQLITE_BUSY_SNAPSHOT) are reduced to their primary code, the low 8 bits.
    switch result & 0xFF {
    case SQLITE_BUSY, SQLITE_LOCKED:
        indexCode = .busy
        advice = "; another process is writing to this index: retry when it has finished"
    case SQLITE_READONLY where result == SQLITE_READONLY | (6 << 8):  // SQLITE_READONLY_DIRECTORY (a macro Swift does not import)
        // A WAL-mode index is read through its -shm file, which SQLite cannot make here.
        indexCode = .readOnly
        advice = "; an index in WAL mode is read with a -shm file beside it, which cannot be made in its folder: "
            + "copy the index to a folder you can write, or have its owner run sqlite3 FILE 'PRAGMA journal_mode=DELETE'"
    case SQLITE_READONLY, SQLITE_PERM:
        indexCode = .readOnly
        advice = leftoverAdvice(path) ?? "; open the index read-write and check the file and its directory are writable"
    case SQLITE_CORRUPT:
        indexCode = .corrupt
        advice = "; delete the file and rebuild it with `locsim index import`"
    case SQLITE_NOTADB:
        indexCode = .notAnIndex
        advice = "; this file is not an SQLite database: pass the path of a locsim index"
    case SQLITE_CANTOPEN:
        indexCode = .cannotOpen
        advice = "; check that the directory exists and is accessible"
    case SQLITE_IOERR, SQLITE_FULL:
        indexCode = .io
    case SQLITE_INTERRUPT:
        indexCode = .cancelled
    default:
        indexCode = .sqlite
    }
    return IndexError(indexCode, message + advice, path: path, sqliteCode: result)
}

/// What to do when the index's `-wal` or `-shm` is there and this user may not write it: another
/// user's read of a WAL index leaves both, theirs, with the index's mode, and every later write by
/// the index's owner then fails as "read-only" though the index and its folder are writable.
private func leftoverAdvice(_ path: String) -> String? {
    let blocked = ["-wal", "-shm"].map { path + $0 }.filter { access($0, F_OK) == 0 && access($0, W_OK) != 0 }
    guard let first = blocked.first else { return nil }
    var info = stat()
    let owner = stat(first, &info) == 0 ? UserAccount(uid: info.st_uid)?.name ?? "uid \(info.st_uid)" : "another user"
    var wal = stat()
    let walBytes = stat(path + "-wal", &wal) == 0 ? Int(wal.st_size) : 0
    let names = blocked.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: " and ")
    // In a sticky folder (/tmp, a team's drop folder) only their owner or root may remove them.
    let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    var folderInfo = stat()
    let sticky = stat(folder.isEmpty ? "/" : folder, &folderInfo) == 0 && folderInfo.st_mode & S_ISVTX != 0 && info.st_uid != geteuid()
    let remedy =
        walBytes == 0
        ? "once no one has the index open, \(sticky ? "have \(owner) or root remove" : "remove") \(path)-wal and \(path)-shm "
            + "(they hold no data; SQLite makes them again)"
        : "have \(owner) or root give them to this user (chown): the -wal holds \(walBytes) bytes not yet in the index"
    guard info.st_uid != geteuid() else {
        // This user's own, read-only as the index was when they were made (SQLite gives them its mode).
        return "; \(names) beside it \(blocked.count == 1 ? "is" : "are") this user's but read-only (made with the index's mode by an earlier read): "
            + "once no one has the index open, remove \(path)-wal and \(path)-shm" + (walBytes == 0 ? " (they hold no data)" : ", or first make them writable (chmod u+w): the -wal holds \(walBytes) bytes not yet in the index")
    }
    return "; \(names) beside it belong to \(owner), whose read of the index left them, and this user may not write them: \(remedy)"
}

/// One SQLite connection, used by one thread at a time.
///
/// `@unchecked Sendable`: the connection is opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`)
/// and is only ever used by whoever checked it out of ``NearbyIndex``'s pool under its lock, so it
/// moves between threads but is never used by two at once.
final class SQLiteConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    private var cache: [String: SQLiteStatement] = [:]

    /// What to do when the system refused to open the database file at `path` with `error` (an
    /// `errno`): a missing file in a folder that is there is not a missing folder.
    static func advice(forOpenError error: Int32, path: String) -> String {
        switch error {
        case EISDIR: "; give the path of a file, not a folder"
        case ENOENT where Self.folderExists(of: path): "; there is no file at this path"
        case ENOENT, ENOTDIR: "; check that the folder exists"
        case EACCES, EPERM, EROFS: "; check the permissions of the file and its folder"
        default: ""
        }
    }

    /// Whether the folder of `path` (``folder(of:)``) is there.
    static func folderExists(of path: String) -> Bool {
        var status = stat()
        return stat(folder(of: path), &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The folder of `path` (`.` for a bare name).
    static func folder(of path: String) -> String {
        switch path.lastIndex(of: "/") {
        case nil: "."
        case path.startIndex?: "/"
        case let slash?: String(path[..<slash])
        }
    }

    /// Whether this process may write the file at `path` (`access(2)`), for opening a read-only
    /// index's connections read-write with `query_only` where it may: SQLite removes the `-wal`
    /// and `-shm` files when the last connection closes only if that one could write.
    static func mayWrite(_ path: String) -> Bool {
        access(path, W_OK) == 0
    }

    /// Why this process may not write the file at `path`, which is there, or `nil` when it may
    /// (or there is no file). Checked before an index is opened to be written: SQLite would open
    /// the file read-only without a word and leave a `-wal` and a `-shm` of this user's beside it
    /// on its first read, which then block the owner's own writes.
    static func writeRefusal(_ path: String) -> String? {
        guard access(path, F_OK) == 0, access(path, W_OK) != 0 else { return nil }
        if errno == EROFS { return "the index is on a read-only file system" }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let user = UserAccount()?.name ?? "uid \(geteuid())"
        let owner = info.st_uid == geteuid() ? "this user" : UserAccount(uid: info.st_uid)?.name ?? "uid \(info.st_uid)"
        return "this user (\(user)) may not write the index (its owner: \(owner), mode \(String(info.st_mode & 0o777, radix: 8)))"
    }

    /// Opens (or creates, with `create`) the database at `path`.
    ///
    /// The corresponding C function is `sqlite3_open_v2`.
    init(path: String, readOnly: Bool, create: Bool) throws(IndexError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // SQLite opens a folder read-only and fails at the first read with "disk I/O error".
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw IndexError(.cannotOpen, String(cString: strerror(EISDIR)) + Self.advice(forOpenError: EISDIR, path: path), path: path)
        }
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // The system's reason is the one a person can act on: "No such file or directory",
            // "Is a directory", "Permission denied" rather than "unable to open database file".
            let systemError = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            if result & 0xFF == SQLITE_CANTOPEN, systemError != 0 {
                throw IndexError(
                    .cannotOpen, String(cString: strerror(systemError)) + Self.advice(forOpenError: systemError, path: path), path: path,
                    sqliteCode: result)
            }
            throw indexError(result, message: message, path: path)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The error for a failed call on this connection, with SQLite's message.
    func error(_ result: Int32, _ context: String) -> IndexError {
        let message = String(cString: sqlite3_errmsg(handle))
        return indexError(result, message: "\(context): \(message)", path: path)
    }

    /// Runs one or more SQL statements that return no rows.
    ///
    /// The corresponding C function is `sqlite3_exec`.
    func execute(_ sql: String) throws(IndexError) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result, "cannot run \"\(sql)\"") }
    }

    /// A statement prepared once and kept for the life of the connection.
    ///
    /// The caller must `reset()` it before handing the connection back.
    func cached(_ sql: String) throws(IndexError) -> SQLiteStatement {
        if let statement = cache[sql] { return statement }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Prepares `sql`, runs `body` with it and finalizes it however `body` exits.
    func withStatement<T>(
        _ sql: String, _ body: (SQLiteStatement) throws(IndexError) -> T
    ) throws(IndexError) -> T {
        let statement = try SQLiteStatement(connection: self, sql: sql)
        defer { statement.finalize() }
        return try body(statement)
    }

    /// The single integer a pragma or `SELECT` returns.
    func integer(_ sql: String) throws(IndexError) -> Int64 {
        try withStatement(sql) { statement throws(IndexError) in
            guard try statement.step() else { throw error(SQLITE_ERROR, "\"\(sql)\" returned no row") }
            return statement.int64(0)
        }
    }

    /// Sets how long a write waits for another writer's lock before failing with ``IndexError/Code/busy``.
    ///
    /// The corresponding C function is `sqlite3_busy_timeout`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// A counter that changes whenever the main database changes, through this connection or
    /// any other, as seen by this connection's latest read transaction: equal values before and
    /// after some reads mean they saw the same snapshot.
    ///
    /// The corresponding C call is `sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, …)`
    /// (no statement, no lock).
    func dataVersion() throws(IndexError) -> UInt32 {
        var version: UInt32 = 0
        let result = sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        guard result == SQLITE_OK else { throw error(result, "cannot read the data version") }
        return version
    }

    /// Whether the connection is inside an explicit transaction.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

/// A prepared statement. Finalized by ``finalize()`` or when released.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    unowned let connection: SQLiteConnection

    /// Compiles `sql`.
    ///
    /// The corresponding C function is `sqlite3_prepare_v3`.
    init(connection: SQLiteConnection, sql: String) throws(IndexError) {
        self.connection = connection
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw connection.error(result, "cannot prepare \"\(sql)\"")
        }
        handle = statement
    }

    deinit { finalize() }

    /// Releases the compiled statement. The corresponding C function is `sqlite3_finalize`.
    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    private var statement: OpaquePointer {
        guard let handle else { preconditionFailure("statement used after finalize") }
        return handle
    }

    /// Runs the statement to its next row: `true` when a row is ready, `false` when done.
    ///
    /// The corresponding C function is `sqlite3_step`.
    @inline(__always)
    func step() throws(IndexError) -> Bool {
        let result = sqlite3_step(statement)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        let error = connection.error(result, "cannot run \"\(String(cString: sqlite3_sql(statement)))\"")
        sqlite3_reset(statement)
        throw error
    }

    /// Runs a statement that returns no rows to completion, then resets it.
    func run() throws(IndexError) {
        defer { reset() }
        while try step() {}
    }

    /// Makes the statement ready to run again and releases its read lock; bindings stay.
    func reset() { sqlite3_reset(statement) }

    /// Binds a 64-bit integer to the 1-based parameter `index`.
    @inline(__always)
    func bind(_ value: Int64, at index: Int32) throws(IndexError) {
        let result = sqlite3_bind_int64(statement, index, value)
        guard result == SQLITE_OK else { throw connection.error(result, "cannot bind parameter \(index)") }
    }

    /// Binds text (copied by SQLite).
    func bind(_ value: String, at index: Int32) throws(IndexError) {
        let result = sqlite3_bind_text(statement, index, value, -1, CSQLite_transient())
        guard result == SQLITE_OK else { throw connection.error(result, "cannot bind parameter \(index)") }
    }

    /// Binds a blob (copied by SQLite).
    func bind(_ value: [UInt8], at index: Int32) throws(IndexError) {
        let result = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob64(statement, index, bytes.baseAddress, sqlite3_uint64(bytes.count), CSQLite_transient())
        }
        guard result == SQLITE_OK else { throw connection.error(result, "cannot bind parameter \(index)") }
    }

    /// The integer in result column `index` (0-based).
    @inline(__always)
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    /// Whether result column `index` holds an integer (not NULL, text, a real or a blob).
    func isInteger(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_INTEGER }

    /// The text in result column `index`, or nil for NULL.
    func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, index) else { return nil }
        return String(cString: pointer)
    }

    /// Calls `body` with the bytes of the blob in column `index`; the bytes are valid only
    /// inside `body` (SQLite owns them). Empty for NULL.
    @inline(__always)
    func withBlob<T>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws(IndexError) -> T) throws(IndexError) -> T {
        let pointer = sqlite3_column_blob(statement, index)
        let count = Int(sqlite3_column_bytes(statement, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
}
