import ArgumentParser
import Foundation
import LocationCore
import LocationIndex
#if PostGIS
import LocationPostGIS
#endif

/// `--format csv|geojson|geonames`, by the formats' own names.
extension ImportFormat: ExpressibleByArgument {}

/// `locsim index import FILE --db PATH` or `--postgres URL`
struct IndexImport: AsyncParsableCommand, Interruption.Command {
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
    var format: ImportFormat?

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
        let options = ImportOptions(format: format, isLenient: lenient, progressInterval: 100_000)
        #if PostGIS
        let url = try postgres.map { try PostgresTarget.url($0) }
        #else
        guard postgres == nil else { return }
        #endif
        // validate() made sure of one of --postgres and --db.
        #if PostGIS
        guard let target = url?.description ?? db else { return }
        #else
        guard let target = db else { return }
        #endif
        // Ctrl-C, SIGTERM or SIGHUP cancels the import, which is one transaction: nothing of it is
        // written, and a new index file is removed again.
        let outcome = Locked<ImportReport?>(nil)
        let newIndex = db.map { !FileManager.default.fileExists(atPath: $0) } ?? false
        let signal = try await runUntilInterrupted {
            do {
                #if PostGIS
                if let url {
                    let report = try await importIntoPostgres(url, options: options)
                    outcome.withLock { $0 = report }
                    return
                }
                #endif
                let report = try importIntoIndex(target, options: options)
                outcome.withLock { $0 = report }
            } catch where Task.isCancelled {
                // The signal (the import's own cancellation error, or one from the database
                // connection it closed): the transaction was rolled back, said below.
                return
            }
        }
        // A signal after the import's commit changes nothing: it is reported as done.
        guard let report = outcome.withLock({ $0 }) else {
            Terminal.err(
                "locsim: interrupted: nothing was imported; "
                    + (newIndex ? "no index was made at \(target)" : "\(target) is as it was before"))
            throw ExitCode(128 + (signal ?? SIGINT))
        }
        // A repeated id's later row is kept (it replaces the earlier one, which is the row counted
        // as skipped): the line named is the one kept, so it is "replaced", not "skipped".
        for issue in report.issues.prefix(10) { Terminal.err("\(issue.code == .duplicateID ? "replaced" : "skipped"): \(issue)") }
        if report.skipped > 10 { Terminal.err("skipped: ... and \(report.skipped - 10) more") }
        if report.rowsRead == 0 {
            // Taken (an empty index is how a replay runs with no places), but never in silence:
            // a header-only export is what a failed upstream query leaves.
            Terminal.err(
                "locsim: warning: \(file) holds no place (no row after its header, or no feature): nothing was imported"
                    + (newIndex ? "; \(target) is an empty index" : ""))
        }
        Terminal.out(
            "imported \(PeopleText.count(report.rowsRead, "row", "rows")) from \(file): \(report.inserted) new, \(report.updated) updated, \(report.unchanged) unchanged, "
                + (replace ? "\(report.deleted) deleted, " : "")
                + "\(report.skipped) skipped; \(target) now holds \(PeopleText.count(report.placeCount, "place", "places"))")
    }

    /// Imports into the index at `db`, closed again before returning. A new index is built out
    /// of sight and published whole (``/LocationIndex/NearbyIndex/buildingNew(at:configuration:_:)``):
    /// a failed, interrupted or killed import leaves no empty index to mistake for a real one.
    /// An existing index keeps its previous content on failure (the import is one transaction),
    /// and one that appeared while a new one was built (another import) is imported into.
    private func importIntoIndex(_ db: String, options: ImportOptions) throws -> ImportReport {
        let (file, progress) = (file, progressLines("wrote", "tiles"))
        func importPlaces(into index: NearbyIndex) throws -> ImportReport {
            try index.importPlaces(fromFile: file, options: options, progress: progress)
        }
        if !FileManager.default.fileExists(atPath: db), let report = try NearbyIndex.buildingNew(at: db, importPlaces) {
            return report
        }
        return try importPlaces(into: NearbyIndex(path: db))
    }

    #if PostGIS
    /// The same parsers and rules, one transaction on the server (COPY, then upsert by id).
    private func importIntoPostgres(_ url: PostgresURL, options: ImportOptions) async throws -> ImportReport {
        let progress = progressLines("sent", "rows")
        do {
            return try await PostGISPlaceStore.withRunning(
                url, clock: ContinuousClock(), logger: PostgresTarget.logger("locsim.index.import")
            ) { store in
                try await store.importPlaces(fromFile: file, options: options, replace: replace, progress: progress)
            }
        } catch let error as PostGISError {
            throw PostgresTarget.failure(error, url: url)
        }
    }
    #endif

    /// With --progress, a line on standard error per step: the rows read, then what was written
    /// (`verb` … `of` … `unit`).
    private func progressLines(_ verb: String, _ unit: String) -> @Sendable (ImportProgress) -> Void {
        let shows = progress
        return { step in
            guard shows else { return }
            Terminal.err(step.phase == .reading ? "read \(step.rowsRead) rows" : "\(verb) \(step.tilesWritten) of \(step.tilesTotal) \(unit)")
        }
    }
}
