// The rtree experiment's SQLite access: the index's own internal connection and statements,
// reached with `@testable import` (see `LOCSIM_BENCHMARK_INTERNALS` in Package.swift), so the
// library carries no benchmark-only API.
import LocationCore
@testable import LocationIndex

/// A value for ``RawSQLiteConnection/insertRows(_:_:)``.
enum RawSQLiteValue {
    case integer(Int64)
    case text(String)
}

/// One result row of ``RawSQLiteConnection/forEachRow(_:bindings:_:)``.
struct RawSQLiteRow {
    fileprivate let statement: SQLiteStatement
    func integer(_ column: Int32) -> Int64 { statement.int64(column) }
    func text(_ column: Int32) -> String { statement.text(column) ?? "" }
}

/// A read-write connection to a database that is not an index.
final class RawSQLiteConnection {
    private let connection: SQLiteConnection

    init(path: String) throws(IndexError) {
        connection = try SQLiteConnection(path: path, readOnly: false, create: true)
    }

    func execute(_ sql: String) throws(IndexError) { try connection.execute(sql) }

    /// Runs `sql` with integer parameters and calls `row` for each result row.
    func forEachRow(_ sql: String, bindings: [Int64], _ row: (RawSQLiteRow) throws(IndexError) -> Void) throws(IndexError) {
        let statement = try connection.cached(sql)
        defer { statement.reset() }
        for (offset, value) in bindings.enumerated() { try statement.bind(value, at: Int32(offset + 1)) }
        while try statement.step() { try row(RawSQLiteRow(statement: statement)) }
    }

    /// Runs `sql` once per element of `rows`, inside the caller's transaction.
    func insertRows(_ sql: String, _ rows: [[RawSQLiteValue]]) throws(IndexError) {
        let statement = try connection.cached(sql)
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

extension NearbyIndex {
    /// The `placeTile` row-id ranges a query would read, for the account of seeks and of the
    /// time the level walk takes (`ranges`, `floor`).
    func rowRanges(near center: Coordinate, within radius: Double) throws(IndexError) -> [(Int64, Int64)] {
        let cap = SearchCap(center: center, radius: radius)
        return try withReader { reader throws(IndexError) in cap.rowRanges(in: grid, splits: try reader.currentSplitNodes()) }
    }
}
