import ArgumentParser
import Foundation
import LocationIndex

/// `locsim index`: build and query the offline nearby-places index.
struct Index: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build and query the offline nearby-places index (SQLite).",
        discussion: """
            Without --db, query and stats use the default index built from the CSVs in --geodata \
            (./geodata) and cached in $LOCSIM_CACHE_DIR, $XDG_CACHE_HOME/locsim or ~/.cache/locsim.
            """,
        subcommands: [IndexImport.self, IndexQuery.self, IndexStats.self]
    )
}

/// Where the index comes from: --db, or the default database built from geodata.
struct IndexLocation: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The index file.", valueName: "path"))
    var db: String?

    @Option(
        help: ArgumentHelp(
            "Place CSVs for the default index, used when --db is absent (default: \(DefaultIndex.geodataSearch)).",
            valueName: "dir"))
    var geodata: String?

    func open() throws -> NearbyIndex {
        if let db, !FileManager.default.fileExists(atPath: db) {
            throw IndexError(.cannotOpen, "no index here; create one with `locsim index import FILE --db \(db)`", path: db)
        }
        return try DefaultIndex.open(db: db, geodata: geodata)
    }
}
