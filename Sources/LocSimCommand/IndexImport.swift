import ArgumentParser
import Foundation
import LocationIndex
#if PostGIS
import LocationPostGIS
#endif

/// `--format` values, mapped onto ``ImportFormat``.
enum IndexFileFormat: String, ExpressibleByArgument, CaseIterable {
    case csv, geojson, geonames

    var importFormat: ImportFormat {
        switch self {
        case .csv: .csv
        case .geojson: .geoJSON
        case .geonames: .geoNames
        }
    }
}

/// `locsim index import FILE --db PATH` or `--postgres URL`
struct IndexImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import places into an index (created if missing); existing ids are updated.",
        discussion: """
            Formats: csv (header with id,name,lat,lon and optional kind,level), geojson \
            (FeatureCollection of Points), geonames (lat,lon,name,admin1,admin2,cc). \
            The import is one transaction: on any error the index keeps its previous content.
            """
    )

    @Argument(help: ArgumentHelp("The place file.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The index file to create or update.", valueName: "path"))
    var db: String?

    @Option(
        help: ArgumentHelp(
            "Import into this PostGIS database instead (password from the URL, PGPASSWORD or ~/.pgpass).", valueName: "url"))
    var postgres: String?

    @Option(help: "Input layout: csv, geojson or geonames (default: from the file name).")
    var format: IndexFileFormat?

    @Flag(help: "Skip bad rows and report them, instead of stopping at the first.")
    var lenient = false

    @Flag(help: "Report progress on standard error.")
    var progress = false

    @Flag(help: "With --postgres: also delete the places the file does not hold, in the same transaction.")
    var replace = false

    func validate() throws {
        guard (db == nil) != (postgres == nil) else {
            throw ValidationError("give exactly one of --db PATH and --postgres URL")
        }
        if let postgres { try PostgresTarget.validate(postgres) }
        if replace, postgres == nil {
            throw ValidationError("--replace works with --postgres only")
        }
        if replace, lenient {
            throw ValidationError("--replace with --lenient would delete the places of skipped rows; give one or the other")
        }
        guard format != nil || ImportFormat(fileName: file) != nil else {
            throw ValidationError("cannot tell the format of \(file) from its name; pass --format csv|geojson|geonames")
        }
    }

    func run() async throws {
        if let postgres {
            #if PostGIS
            try await importIntoPostgres(try PostgresTarget.url(postgres))
            #endif
            return
        }
        guard let db else { return }
        // A failed import into a new file leaves nothing behind: no empty index to mistake for
        // a real one. An existing index keeps its previous content (the import is one transaction).
        let isNew = !FileManager.default.fileExists(atPath: db)
        let report: ImportReport
        do {
            report = try importPlaces(db: db)
        } catch {
            if isNew {
                for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: db + suffix) {
                    try? FileManager.default.removeItem(atPath: db + suffix)  // the import's own error says more
                }
            }
            throw error
        }
        print(
            "imported \(report.rowsRead) rows from \(file): \(report.inserted) new, \(report.updated) updated, "
                + "\(report.skipped) skipped; \(db) now holds \(report.placeCount) places")
    }

    /// Opens (or creates) the index, imports, and closes it again before returning.
    private func importPlaces(db: String) throws -> ImportReport {
        let index = try NearbyIndex(path: db)
        let showProgress = progress
        let report = try index.importPlaces(
            fromFile: file, options: ImportOptions(format: format?.importFormat, isLenient: lenient, progressInterval: 100_000)
        ) { step in
            guard showProgress else { return }
            let line =
                step.phase == .reading
                ? "read \(step.rowsRead) rows"
                : "wrote \(step.tilesWritten) of \(step.tilesTotal) tiles"
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        reportSkipped(report)
        return report
    }

    #if PostGIS
    /// The same parsers and rules, one transaction on the server (COPY, then upsert by id).
    private func importIntoPostgres(_ url: PostgresURL) async throws {
        let showProgress = progress
        let options = ImportOptions(format: format?.importFormat, isLenient: lenient, progressInterval: 100_000)
        let report: ImportReport
        do {
            report = try await PostGISPlaceStore.withRunning(
                url, clock: ContinuousClock(), logger: PostgresTarget.logger("locsim.index.import")
            ) { store in
                try await store.importPlaces(fromFile: file, options: options, replace: replace) { step in
                    guard showProgress else { return }
                    let line =
                        step.phase == .reading
                        ? "read \(step.rowsRead) rows" : "sent \(step.tilesWritten) of \(step.tilesTotal) rows"
                    FileHandle.standardError.write(Data((line + "\n").utf8))
                }
            }
        } catch let error as PostGISError {
            throw PostgresTarget.failure(error, url: url)
        }
        reportSkipped(report)
        print(
            "imported \(report.rowsRead) rows from \(file): \(report.inserted) new, \(report.updated) updated, "
                + (replace ? "\(report.deleted) deleted, " : "")
                + "\(report.skipped) skipped; \(url) now holds \(report.placeCount) places")
    }
    #endif

    private func reportSkipped(_ report: ImportReport) {
        for issue in report.issues.prefix(10) {
            FileHandle.standardError.write(Data("skipped: \(issue)\n".utf8))
        }
        if report.skipped > 10 {
            FileHandle.standardError.write(Data("skipped: ... and \(report.skipped - 10) more\n".utf8))
        }
    }
}
