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
        commandName: "stats",
        abstract: "Counts and sizes of an index; --verify also checks every page (SQLite), or the tables and every tile (PostGIS).")

    @OptionGroup var location: IndexLocation

    @Flag(help: "Run SQLite's integrity check too; with --postgres, check the tables' shape and compare every tile with locsim_place.")
    var verify = false

    @Flag(help: "With --postgres --verify: make missing or disabled triggers and indexes again, and rebuild every tile from locsim_place when any disagrees.")
    var repair = false

    @Option(help: "Output: text or json.")
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("Counts and sizes of this PostGIS database instead.", valueName: "url"))
    var postgres: String?

    func validate() throws {
        if let postgres {
            guard location.db == nil else { throw ValidationError("give one of --db PATH and --postgres URL, not both") }
            guard !repair || verify else { throw ValidationError("--repair goes with --verify: give --verify --repair") }
            try PostgresTarget.validate(postgres)
        } else if repair {
            throw ValidationError("--repair rebuilds a PostGIS database's tiles; it needs --postgres URL --verify")
        }
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
        guard format == .text else { return Terminal.out(IndexStatsRecord(path: index.path, statistics: statistics, verified: verify).line) }
        let perPlace = statistics.bytesPerPlaceBeyondNames.map { DecimalText.fixed($0, decimals: 1) }
        Terminal.out("index:          \(index.path)")
        Terminal.out("places:         \(statistics.placeCount)")
        Terminal.out("kinds:          \(statistics.kindCount) (including none)")
        Terminal.out("tile rows:      \(statistics.tileRowCount), tiles of \(statistics.tileSize)°")
        Terminal.out("rows per level: \(statistics.rowsPerLevel.map(String.init).joined(separator: " ")) (levels 0...\(statistics.rowsPerLevel.count - 1), nodes 4^level tiles wide; \(statistics.splitNodeCount) split)")
        Terminal.out("file size:      \(statistics.fileBytes) bytes, of which \(statistics.nameBytes) are names (WAL: \(statistics.walBytes) bytes)")
        Terminal.out("per place:      \(perPlace ?? "-") bytes beyond names")
        Terminal.out("schema version: \(statistics.schemaVersion), page size \(statistics.pageSize)")
        if verify { Terminal.out("integrity:      ok") }
    }

    #if PostGIS
    private func postgresStatistics(_ url: PostgresURL) async throws {
        var tiles: TileCheck?
        var rebuilt: Int?
        var schemaRepaired: [SchemaFinding] = []
        let statistics: PostGISStatistics
        do {
            statistics = try await PostGISPlaceStore.withRunning(
                url, clock: ContinuousClock(), logger: PostgresTarget.logger("locsim.index.stats")
            ) { store in
                if verify {
                    // The tables' shape first: a column dropped by hand would fail the counts
                    // below in PostgreSQL's words, and a trigger turned off would make the tiles
                    // stale again after a repair.
                    var findings = try await store.verifySchema()
                    if repair, findings.contains(where: \.isRepairable) {
                        try await store.repairSchema()
                        schemaRepaired = findings.filter(\.isRepairable)
                        findings = try await store.verifySchema()
                    }
                    if !findings.isEmpty { throw Self.schemaFailure(findings, repaired: schemaRepaired.count) }
                }
                let statistics = try await store.statistics()
                guard verify else { return statistics }
                var check = try await store.verifyTiles()
                if repair, check.disagreeing > 0 {
                    rebuilt = try await store.rebuildTiles()
                    check = try await store.verifyTiles()
                }
                tiles = check
                return statistics
            }
        } catch let error as PostGISError {
            throw PostgresTarget.failure(error, url: url)
        }
        if format == .json {
            Terminal.out(
                PostGISStatsRecord(database: url.description, statistics: statistics, tiles: tiles, rebuilt: rebuilt).line)
        } else {
            Terminal.out("database:       \(url)")
            Terminal.out("places:         \(statistics.placeCount)")
            Terminal.out("kinds:          \(statistics.kindCount) (including none)")
            Terminal.out("table size:     \(statistics.tableBytes) bytes, indexes \(statistics.indexBytes) bytes")
            Terminal.out("server:         PostgreSQL \(statistics.serverVersion), PostGIS \(statistics.postgisVersion)")
            if !schemaRepaired.isEmpty {
                Terminal.out("repaired:       the triggers and indexes made again (\(schemaRepaired.count) missing or disabled)")
            }
            if verify { Terminal.out("schema:         as locsim makes it (columns, keys, range checks, indexes, triggers)") }
            if let rebuilt { Terminal.out("repaired:       every tile rebuilt from locsim_place (\(rebuilt) tiles)") }
            if let tiles, tiles.disagreeing == 0 { Terminal.out("tiles:          \(tiles.tiles), each as locsim_place gives it") }
        }
        if let tiles, tiles.disagreeing > 0 {
            throw CommandFailure(
                "\(PeopleText.count(tiles.disagreeing, "tile")) of locsim_tile \(tiles.disagreeing == 1 ? "disagrees" : "disagree") with locsim_place (of \(tiles.tiles) it fills): nearby answers "
                    + "there are stale; locsim_place was changed with its triggers off (session_replication_role = replica, "
                    + "pg_restore --disable-triggers) or locsim_tile was written directly",
                hint: "rebuild them from locsim_place: locsim index stats --postgres URL --verify --repair")
        }
    }

    /// The `--verify` failure for tables changed by hand: each finding, and what mends them.
    private static func schemaFailure(_ findings: [SchemaFinding], repaired: Int) -> CommandFailure {
        let repairable = findings.contains(where: \.isRepairable)
        let byHand = findings.contains { !$0.isRepairable }
        var hint = byHand
            ? "these were changed by hand: undo the change, or import into a fresh database (docs/guides/postgis.md)"
            : "make them again: locsim index stats --postgres URL --verify --repair"
        if repairable, byHand { hint += "; --verify --repair makes the triggers and indexes again" }
        if repaired > 0 { hint += " (--repair made again the \(repaired) trigger\(repaired == 1 ? "" : "s") or index\(repaired == 1 ? "" : "es") missing or disabled; the tiles were not checked)" }
        return CommandFailure(
            "locsim_place is not as locsim makes it: " + findings.map(\.description).joined(separator: "; "), hint: hint)
    }
    #endif
}
