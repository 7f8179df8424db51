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

    fileprivate func statementCache(_ sql: String) throws(IndexError) -> SQLiteStatement { try connection.cached(sql) }
}

extension RawSQLiteConnection {
    /// Runs `sql` with integer parameters and calls `row` for each result row, for experiments
    /// (the benchmark's per-place R*Tree variant). `row` gets a column reader.
    package func forEachRow(
        _ sql: String, bindings: [Int64], _ row: (RawSQLiteRow) throws(IndexError) -> Void
    ) throws(IndexError) {
        let statement = try statementCache(sql)
        defer { statement.reset() }
        for (offset, value) in bindings.enumerated() { try statement.bind(value, at: Int32(offset + 1)) }
        while try statement.step() { try row(RawSQLiteRow(statement: statement)) }
    }

    /// Runs `sql` once per element of `rows`, binding its text and integer values in order, inside
    /// the caller's transaction.
    package func insertRows(_ sql: String, _ rows: [[RawSQLiteValue]]) throws(IndexError) {
        let statement = try statementCache(sql)
        for values in rows {
            for (offset, value) in values.enumerated() {
                switch value {
                case .integer(let number): try statement.bind(number, at: Int32(offset + 1))
                case .text(let text): try statement.bind(text, at: Int32(offset + 1))
                }
            }
            try statement.run()
        }
    }
}

/// A value for ``RawSQLiteConnection/insertRows(_:_:)``.
package enum RawSQLiteValue {
    case integer(Int64)
    case text(String)
}

/// One result row of ``RawSQLiteConnection/forEachRow(_:bindings:_:)``.
package struct RawSQLiteRow {
    fileprivate let statement: SQLiteStatement
    package func integer(_ column: Int32) -> Int64 { statement.int64(column) }
    package func text(_ column: Int32) -> String { statement.text(column) ?? "" }
}
