import Foundation
import LocationCore
import LocationIndex

/// Where the default index comes from and where it is cached: the command's policy, read from
/// the environment and the file system here, so that `LocationIndex` only takes paths.
enum DefaultIndex {
    /// Where the place CSVs are looked for, in order (``searchGeodata(_:environment:executable:exists:)``),
    /// as every `--geodata` help says it.
    static let geodataSearch = "$LOCSIM_GEODATA, ./geodata, share/locsim/geodata beside the binary's bin/, or the source tree's"

    /// Opens the index `--db` names, read-only, or without one the default index (built from the
    /// place CSVs on first use, then cached).
    ///
    /// - Parameter geodata: `--geodata` when given.
    /// - Throws: ``CommandFailure`` when no place folder can be found; `IndexError` for bad CSVs,
    ///   an unwritable cache, or an index that cannot be opened.
    static func open(db: String? = nil, geodata: String?) throws -> NearbyIndex {
        if let db { return try NearbyIndex(path: db, configuration: .init(access: .readOnly)) }
        return try DefaultPlaceDatabase.open(
            geodataDirectory: try geodataDirectory(geodata), cacheDirectory: try cacheDirectory(environment: ProcessInfo.processInfo.environment))
    }

    /// The files the default index reads when no `--db` is given, for a command to refuse an output
    /// that would replace one: the place CSVs of the folder it uses, and the index built from them in the cache.
    /// None for a folder that cannot be found or listed: opening the index then says why.
    static func files(db: String?, geodata: String?) -> [(path: String?, role: String)] {
        guard db == nil, let folder = searchGeodata(geodata).found else { return [] }
        do {
            let cache = try cacheDirectory(environment: ProcessInfo.processInfo.environment)
            return try DefaultPlaceDatabase.sourceFiles(geodataDirectory: folder).map { ($0, "a place CSV of the default index") }
                + [(try DefaultPlaceDatabase.databasePath(geodataDirectory: folder, cacheDirectory: cache), "the default index's cache")]
        } catch {
            return []  // an unreadable folder or CSV: opening the index reports it
        }
    }

    /// The place CSVs behind the default index, the same for every command, first found of:
    /// `--geodata`; `$LOCSIM_GEODATA`; `./geodata`; `share/locsim/geodata` beside the installed
    /// binary's `bin/`; the `geodata` folder of the source tree holding the binary (a SwiftPM
    /// build in `.build/…`).
    ///
    /// - Throws: ``CommandFailure`` naming the places looked at and the flag that settles it.
    static func geodataDirectory(_ explicit: String?) throws(CommandFailure) -> String {
        try found(searchGeodata(explicit))
    }

    /// ``geodataDirectory(_:)`` with its inputs injected (for tests).
    static func geodataDirectory(
        _ explicit: String?, environment: [String: String], executable: String?, exists: (String) -> Bool
    ) throws(CommandFailure) -> String {
        try found(searchGeodata(explicit, environment: environment, executable: executable, exists: exists))
    }

    /// The folders looked in, when neither `--geodata` nor `$LOCSIM_GEODATA` names one and none
    /// of them exists (nil when one does): `serve` with players then runs without places.
    static func missingGeodata() -> [String]? {
        let search = searchGeodata(nil)
        return search.found == nil ? search.candidates : nil
    }

    private static func found(_ search: (found: String?, candidates: [String])) throws(CommandFailure) -> String {
        if let found = search.found { return found }
        throw CommandFailure(
            "no place data for the default index (looked in \(search.candidates.joined(separator: ", ")))",
            hint: "pass --geodata DIR (a folder of place CSVs) or --db FILE (an index), or set LOCSIM_GEODATA")
    }

    /// ``searchGeodata(_:environment:executable:exists:)`` in this process's environment and file system.
    private static func searchGeodata(_ explicit: String?) -> (found: String?, candidates: [String]) {
        searchGeodata(
            explicit, environment: ProcessInfo.processInfo.environment,
            executable: Bundle.main.executableURL?.resolvingSymlinksInPath().path,
            exists: { FileManager.default.fileExists(atPath: $0) })
    }

    /// ``geodataDirectory(_:)``'s search: the folder found, if any, and the folders looked in.
    private static func searchGeodata(
        _ explicit: String?, environment: [String: String], executable: String?, exists: (String) -> Bool
    ) -> (found: String?, candidates: [String]) {
        if let explicit { return (explicit, [explicit]) }
        if let fromEnvironment = environment["LOCSIM_GEODATA"], !fromEnvironment.isEmpty { return (fromEnvironment, [fromEnvironment]) }
        var candidates = ["geodata"]
        if let executable {
            let binary = URL(fileURLWithPath: executable).deletingLastPathComponent()
            candidates.append(binary.deletingLastPathComponent().appendingPathComponent("share/locsim/geodata").path)
            // A build inside a clone: <clone>/.build/<triple>/<config>/locsim, or a folder above.
            var folder = binary
            while folder.path != "/" {
                if exists(folder.appendingPathComponent("Package.swift").path) {
                    candidates.append(folder.appendingPathComponent("geodata").path)
                    break
                }
                folder.deleteLastPathComponent()
            }
        }
        return (candidates.first(where: exists), candidates)
    }

    /// Where the built default index is kept: `$LOCSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/locsim`
    /// (an absolute path: the XDG rule ignores a relative one), else `~/.cache/locsim`, the home
    /// being `$HOME` when it is an absolute path, else the user's in the password database. Never
    /// the current folder: with HOME unset, a cache there was shared by whoever ran in `/tmp`.
    ///
    /// - Throws: ``CommandFailure`` when there is no home to use and no variable names a folder.
    static func cacheDirectory(environment: [String: String], passwordHome: () -> String? = { UserAccount()?.home }) throws -> String {
        if let explicit = environment["LOCSIM_CACHE_DIR"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/locsim" }
        let home = [environment["HOME"], passwordHome()].lazy.compactMap { $0 }.first { $0.hasPrefix("/") }
        guard let home else {
            throw CommandFailure(
                "no folder for the default index's cache: HOME is not an absolute path and this user has no home in the password database",
                hint: "set LOCSIM_CACHE_DIR to a folder this user may write, or give --db FILE")
        }
        return (home.hasSuffix("/") ? home : home + "/") + ".cache/locsim"
    }
}
