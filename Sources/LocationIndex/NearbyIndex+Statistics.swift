#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// Size and content figures of an index.
package struct IndexStatistics: Sendable, Hashable {
    /// Places stored.
    package var placeCount: Int
    /// Rows of the `placeTile` table (tiles, or parts of crowded tiles).
    package var tileRowCount: Int
    /// Rows of `placeTile` at each level, index 0 (tiles of ``tileSize``) to 5 (nodes of
    /// 4⁵ × 4⁵ tiles). Sparse places share rows of coarse levels, dense ones fill level 0.
    package var rowsPerLevel: [Int]
    /// Nodes of levels 1 and above split into their children (rows of `placeSplit`).
    package var splitNodeCount: Int
    /// Distinct kinds (including the empty kind).
    package var kindCount: Int
    /// Bytes of UTF-8 in all place names.
    package var nameBytes: Int
    /// Size of the database file, in bytes.
    package var fileBytes: Int
    /// Size of its write-ahead log (`-wal` file), in bytes: transient, 0 after a clean close.
    package var walBytes: Int
    /// Tile edge in degrees.
    package var tileSize: Double
    /// Schema version (`PRAGMA user_version`).
    package var schemaVersion: Int
    /// SQLite page size in bytes.
    package var pageSize: Int

    /// Database file bytes per place, not counting the bytes of the names themselves (nor the
    /// transient WAL); nil when empty.
    package var bytesPerPlaceBeyondNames: Double? {
        placeCount == 0 ? nil : Double(fileBytes - nameBytes) / Double(placeCount)
    }
}

extension NearbyIndex {
    /// Counts and sizes of the index, from one snapshot.
    ///
    /// - Throws: ``IndexError`` for SQLite failures.
    package func statistics() throws(IndexError) -> IndexStatistics {
        try withReader { reader throws(IndexError) in
            let connection = reader.connection
            try connection.execute("BEGIN")
            do throws(IndexError) {
                var rowsPerLevel = [Int](repeating: 0, count: TileGrid.levelCount)
                try connection.withStatement("SELECT key >> 48, count(*) FROM placeTile GROUP BY 1") {
                    statement throws(IndexError) in
                    while try statement.step() {
                        let level = Int(statement.int64(0))
                        guard rowsPerLevel.indices.contains(level) else {
                            throw IndexError(.corrupt, "placeTile has rows of level \(level); rebuild the index", path: path)
                        }
                        rowsPerLevel[level] = Int(statement.int64(1))
                    }
                }
                let statistics = IndexStatistics(
                    placeCount: Int(try IndexSchema.metadataInteger(connection, "placeCount")),
                    tileRowCount: rowsPerLevel.reduce(0, +),
                    rowsPerLevel: rowsPerLevel,
                    splitNodeCount: Int(try connection.integer("SELECT count(*) FROM placeSplit")),
                    kindCount: Int(try connection.integer("SELECT count(*) FROM placeKind")),
                    nameBytes: Int(try IndexSchema.metadataInteger(connection, "nameBytes")),
                    fileBytes: try Self.fileSize(path),
                    walBytes: try Self.fileSize(path + "-wal"),
                    tileSize: Double(grid.size) / 1e7,
                    schemaVersion: Int(try connection.integer("PRAGMA user_version")),
                    pageSize: Int(try connection.integer("PRAGMA page_size")))
                try connection.execute("COMMIT")
                return statistics
            } catch {
                throw IndexSchema.rollback(connection, after: error)
            }
        }
    }

    /// Checks every page and index of the file (`PRAGMA integrity_check`).
    ///
    /// - Throws: ``IndexError/Code/corrupt`` with SQLite's first findings when the file is damaged.
    package func verifyIntegrity() throws(IndexError) {
        try withReader { reader throws(IndexError) in
            let findings = try reader.connection.withStatement("PRAGMA integrity_check") { statement throws(IndexError) in
                var lines: [String] = []
                while try statement.step() { lines.append(statement.text(0) ?? "") }
                return lines
            }
            guard findings == ["ok"] else {
                throw IndexError(
                    .corrupt,
                    "integrity check failed: \(findings.prefix(3).joined(separator: "; ")); rebuild the index with `locsim index import`",
                    path: path)
            }
            // SQLite's check covers its pages, not the tiles inside them: bytes overwritten in a
            // tile leave sound pages. Every row is read as a query would, and checked whole.
            let connection = reader.connection
            try connection.execute("BEGIN")
            do throws(IndexError) {
                let kindCount = try IndexSchema.kindNames(connection).count
                // Every place is in one row: the rows' places add up to the count the metadata
                // keeps, or rows were copied or deleted by hand (a query would answer a copied
                // row's places twice).
                var stored = 0
                try connection.withStatement("SELECT key, count, data FROM placeTile") { statement throws(IndexError) in
                    while try statement.step() {
                        let key = statement.int64(0), count = statement.int64(1)
                        try statement.withBlob(2) { bytes throws(IndexError) in
                            let tile = try PlaceTileView(bytes, path: path)
                            try tile.check(key: key, kindCount: kindCount, path: path)
                            guard Int64(tile.count) == count else {
                                throw IndexError(
                                    .corrupt, "placeTile row \(key) says it holds \(count) places and holds \(tile.count); rebuild the index",
                                    path: path)
                            }
                            stored += tile.count
                        }
                    }
                }
                let counted = try IndexSchema.metadataInteger(connection, "placeCount")
                guard Int64(stored) == counted else {
                    throw IndexError(
                        .corrupt,
                        "the tiles hold \(stored) places where the index counts \(counted): rows of placeTile were added or "
                            + "removed by hand; rebuild the index with `locsim index import`",
                        path: path)
                }
                try connection.execute("COMMIT")
            } catch {
                throw IndexSchema.rollback(connection, after: error)
            }
        }
    }

    private static func fileSize(_ path: String) throws(IndexError) -> Int {
        // A missing -wal file (after a clean close) simply counts as 0 bytes.
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return (attributes[.size] as? Int) ?? Int((attributes[.size] as? UInt64) ?? 0)
        } catch {
            throw IndexError(.io, "cannot read the file size: \(FileErrorText.reason(for: error))", path: path)
        }
    }
}
