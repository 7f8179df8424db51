/// A raw SQLite connection for this package's tests: to make foreign databases, hold a write
/// lock from "another process", or age a schema. Not public API.
package final class RawSQLiteConnection {
    private let connection: SQLiteConnection

    /// Opens (creating if needed) `path` read-write.
    package init(path: String) throws(IndexError) {
        connection = try SQLiteConnection(path: path, readOnly: false, create: true)
    }

    /// Runs SQL that returns no rows.
    package func execute(_ sql: String) throws(IndexError) { try connection.execute(sql) }

    /// The single integer `sql` returns.
    package func integer(_ sql: String) throws(IndexError) -> Int64 { try connection.integer(sql) }
}
