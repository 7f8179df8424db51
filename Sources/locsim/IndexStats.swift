import ArgumentParser
import Foundation
import LocationCore
import LocationIndex

/// `locsim index stats`
struct IndexStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Counts and sizes of an index; --verify also checks every page.")

    @OptionGroup var location: IndexLocation

    @Flag(help: "Run SQLite's integrity check too.")
    var verify = false

    @Option(help: "Output: text or json.")
    var format: IndexQuery.Format = .text

    func validate() throws {
        guard format != .jsonl else { throw ValidationError("--format jsonl is for 'index query --queries'; stats prints text or json") }
    }

    func run() async throws {
        let index = try location.open()
        if verify { try index.verifyIntegrity() }
        let statistics = try index.statistics()
        let perPlace = statistics.bytesPerPlaceBeyondNames.map { DecimalText.fixed($0, decimals: 1) }
        if format == .json {
            Terminal.out(IndexStatsRecord(path: index.path, statistics: statistics).line)
            return
        }
        print("index:          \(index.path)")
        print("places:         \(statistics.placeCount)")
        print("kinds:          \(statistics.kindCount) (including none)")
        print("tile rows:      \(statistics.tileRowCount), tiles of \(statistics.tileSize)°")
        print("rows per level: \(statistics.rowsPerLevel.map(String.init).joined(separator: " ")) (levels 0...\(statistics.rowsPerLevel.count - 1), nodes 4^level tiles wide; \(statistics.splitNodeCount) split)")
        print("file size:      \(statistics.fileBytes) bytes, of which \(statistics.nameBytes) are names (WAL: \(statistics.walBytes) bytes)")
        print("per place:      \(perPlace ?? "-") bytes beyond names")
        print("schema version: \(statistics.schemaVersion), page size \(statistics.pageSize)")
        if verify { print("integrity:      ok") }
    }
}
