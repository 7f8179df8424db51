import ArgumentParser
import Foundation
import LocationCore
import LocationIndex
#if PostGIS
import LocationPostGIS
#endif

/// `locsim index stats`
struct IndexStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Counts and sizes of an index; --verify also checks every page.")

    @OptionGroup var location: IndexLocation

    @Flag(help: "Run SQLite's integrity check too.")
    var verify = false

    @Option(help: "Output: text or json.")
    var format: DataFormat = .text

    @Option(help: ArgumentHelp("Counts and sizes of this PostGIS database instead.", valueName: "url"))
    var postgres: String?

    func validate() throws {
        if let postgres {
            guard location.db == nil else { throw ValidationError("give one of --db PATH and --postgres URL, not both") }
            guard !verify else { throw ValidationError("--verify checks an SQLite index; it does not apply to --postgres") }
            try PostgresTarget.validate(postgres)
        }
        guard format != .jsonl else { throw ValidationError("--format jsonl is for 'index query --queries'; stats prints text or json") }
    }

    func run() async throws {
        if let postgres {
            #if PostGIS
            try await postgresStatistics(try PostgresTarget.url(postgres))
            #endif
            return
        }
        let index = try location.open()
        if verify { try index.verifyIntegrity() }
        let statistics = try index.statistics()
        guard format == .text else { return Terminal.out(IndexStatsRecord(path: index.path, statistics: statistics).line) }
        let perPlace = statistics.bytesPerPlaceBeyondNames.map { DecimalText.fixed($0, decimals: 1) }
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

    #if PostGIS
    private func postgresStatistics(_ url: PostgresURL) async throws {
        let statistics: PostGISStatistics
        do {
            statistics = try await PostGISPlaceStore.withRunning(
                url, clock: ContinuousClock(), logger: PostgresTarget.logger("locsim.index.stats")
            ) { store in try await store.statistics() }
        } catch let error as PostGISError {
            throw PostgresTarget.failure(error, url: url)
        }
        if format == .json {
            Terminal.out(
                "{\"database\":\(JSONWriter.quoted(url.description)),\"places\":\(statistics.placeCount),"
                    + "\"kinds\":\(statistics.kindCount),\"tableBytes\":\(statistics.tableBytes),"
                    + "\"indexBytes\":\(statistics.indexBytes),\"postgis\":\(JSONWriter.quoted(statistics.postgisVersion)),"
                    + "\"server\":\(JSONWriter.quoted(statistics.serverVersion))}")
            return
        }
        print("database:       \(url)")
        print("places:         \(statistics.placeCount)")
        print("kinds:          \(statistics.kindCount) (including none)")
        print("table size:     \(statistics.tableBytes) bytes, indexes \(statistics.indexBytes) bytes")
        print("server:         PostgreSQL \(statistics.serverVersion), PostGIS \(statistics.postgisVersion)")
    }
    #endif
}
