#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// The embedded default index: built from the project's own place sets (`geodata/*.csv`) on
/// first use and cached, so `locsim` answers nearby queries with no setup.
///
/// The cache file is `<cache>/geodata-<hash>.sqlite`, where `<hash>` covers the index schema
/// version and the names and bytes of every CSV: editing, adding or removing a CSV, or a locsim
/// with a newer schema, makes a new file (the cache is opened read-only, so an older file could
/// not be migrated in place; the three most recent earlier builds are kept, for other checkouts
/// sharing the cache, and older ones removed); a cached file that is damaged or not an index is
/// built again. The caller chooses `<cache>`
/// (the `locsim` command: `$LOCSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/locsim`, else
/// `$HOME/.cache/locsim`). A build goes to a temporary file renamed into place when complete,
/// so a crash never leaves a half-built cache.
///
/// ```swift
/// let index = try DefaultPlaceDatabase.open(geodataDirectory: "geodata", cacheDirectory: ".cache/locsim")
/// ```
///
/// Package access: the `locsim` command's default index; apps open a `NearbyIndex` at a path of their choosing.
package enum DefaultPlaceDatabase {
    /// The path the database for the current CSVs has (or will have) in `cacheDirectory`.
    ///
    /// - Throws: ``IndexError/Code/unreadableInput`` when the directory or a CSV cannot be read,
    ///   or holds no CSV.
    package static func databasePath(geodataDirectory: String, cacheDirectory: String) throws(IndexError) -> String {
        let sources = try readSources(in: geodataDirectory)
        return entry("geodata-" + fingerprint(sources) + ".sqlite", in: cacheDirectory)
    }

    /// `name` in the folder `cache` (`/geodata-….sqlite` in `/`, not `//geodata-….sqlite`).
    private static func entry(_ name: String, in cache: String) -> String {
        (cache.hasSuffix("/") ? cache : cache + "/") + name
    }

    /// The place CSVs the default index is built from, in name order (an output must not replace one).
    ///
    /// - Throws: ``IndexError/Code/unreadableInput`` when the directory cannot be listed or holds no CSV.
    package static func sourceFiles(geodataDirectory: String) throws(IndexError) -> [String] {
        try csvFiles(in: geodataDirectory)
    }

    /// Opens the default index, building it first if the CSVs changed since the last build.
    ///
    /// - Parameters:
    ///   - geodataDirectory: The folder holding the place CSVs (the repository's `geodata/`).
    ///   - cache: Where to keep the built index; created if missing.
    /// - Returns: The index, opened read-only.
    /// - Throws: ``IndexError`` for unreadable or bad CSVs (naming file, line, column), or an
    ///   unwritable cache directory.
    package static func open(geodataDirectory: String, cacheDirectory cache: String) throws(IndexError) -> NearbyIndex {
        // Each CSV is read once: the fingerprint and the import see the same bytes.
        let sources = try readSources(in: geodataDirectory)
        let hash = fingerprint(sources)
        let path = entry("geodata-" + hash + ".sqlite", in: cache)
        if FileManager.default.fileExists(atPath: path) {
            do {
                return try NearbyIndex(path: path, configuration: .init(access: .readOnly))
            } catch where rebuilt.contains(error.code) {
                // The file is the cache's own: damaged (a disk filled up, a copy cut short) or
                // replaced by something else, it is built again rather than failing every later
                // command that has no --db. Any other failure (permissions, a lock) is reported.
                try NearbyIndex.removeFiles(path)
            }
        }
        try build(sources: sources, into: path, cache: cache)
        return try NearbyIndex(path: path, configuration: .init(access: .readOnly))
    }

    /// Failures opening a cached index that building it again mends.
    private static let rebuilt: Set<IndexError.Code> = [.notAnIndex, .corrupt, .unsupportedVersion]

    /// A place CSV, read.
    private struct Source {
        var path: String
        var bytes: [UInt8]
    }

    /// The directory's CSVs, in name order, each read once.
    private static func readSources(in directory: String) throws(IndexError) -> [Source] {
        var sources: [Source] = []
        for path in try csvFiles(in: directory) {
            sources.append(Source(path: path, bytes: try PlaceParsers.readFile(path)))
        }
        return sources
    }

    private static func csvFiles(in directory: String) throws(IndexError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw IndexError(.unreadableInput, "cannot list the geodata directory: \(FileErrorText.reason(for: error))", path: directory)
        }
        let csvs = names.filter { $0.hasSuffix(".csv") }.sorted()
        guard !csvs.isEmpty else {
            throw IndexError(.unreadableInput, "no .csv place set in this folder", path: directory, parameter: "geodata")
        }
        return csvs.map { directory + "/" + $0 }
    }

    /// FNV-1a 64 over the schema version and each file's name and bytes, as 16 hex digits.
    private static func fingerprint(_ sources: [Source]) -> String {
        var hash = FNV1a64()
        func mix(_ bytes: some Sequence<UInt8>) { hash.combine(bytes) }
        mix("schema \(IndexSchema.latestVersion)".utf8)
        mix([0])
        for source in sources {
            mix(source.path.split(separator: "/").last.map { Array($0.utf8) } ?? [])
            mix([0])
            mix(source.bytes)
            mix([0])
        }
        let hex = String(hash.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func build(sources: [Source], into path: String, cache: String) throws(IndexError) {
        do {
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        } catch {
            throw IndexError(
                .cannotOpen, "cannot create the cache directory: \(FileErrorText.reason(for: error))",
                path: cache)
        }
        // Another process may publish the same build first; that one is as good.
        do {
            _ = try NearbyIndex.buildingNew(at: path) { index in
                for source in sources {
                    try index.importPlaces(bytes: source.bytes, from: source.path, format: .csv, options: ImportOptions())
                }
                // Only ever opened read-only from here on: without WAL, no -wal and -shm files
                // appear beside it in the cache.
                try index.useRollbackJournal()
            }
        } catch let error as IndexError where error.code == .cannotOpen || error.code == .readOnly {
            // A folder this user may not write: said as the cache's, whose place is chosen by
            // the environment, not by a --db that was never given.
            throw IndexError(error.code, "cannot build the default index in the cache directory: \(error.message)", path: error.path)
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.io, "building the default index failed: \(FileErrorText.reason(for: error))", path: path)
        }
        try pruneEarlierBuilds(in: cache, current: path)
    }

    /// How many builds from other CSV contents a cache keeps beside the current one. A cache may
    /// be shared (one `LOCSIM_CACHE_DIR` for several checkouts or users) by copies of `geodata/`
    /// that differ: removing every other build made two such checkouts delete each other's on
    /// every run, each building its own again. The most recently built are kept.
    package static let keptEarlierBuilds = 3

    /// Removes the builds from other CSV contents beyond the ``keptEarlierBuilds`` most recent. A
    /// file this user may not remove (another user's, in a shared cache with the sticky bit, as
    /// `/tmp` has) is theirs and stays; a build already removed by another process is skipped.
    private static func pruneEarlierBuilds(in cache: String, current path: String) throws(IndexError) {
        let current = path.split(separator: "/").last.map(String.init) ?? ""
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: cache)
        } catch {
            throw IndexError(.io, "cannot list the cache directory: \(FileErrorText.reason(for: error))", path: cache)
        }
        var earlier: [(path: String, built: Date)] = []
        for name in entries where name.hasPrefix("geodata-") && name.hasSuffix(".sqlite") && name != current {
            let file = entry(name, in: cache)
            do {
                let built = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
                earlier.append((file, built ?? .distantPast))
            } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
                continue  // removed meanwhile by another process
            } catch {
                throw IndexError(.io, "cannot read an earlier build's date: \(FileErrorText.reason(for: error))", path: file)
            }
        }
        earlier.sort { ($0.built, $0.path) > ($1.built, $1.path) }
        for build in earlier.dropFirst(keptEarlierBuilds) {
            try NearbyIndex.removeFiles(build.path, leavingOthers: true)
        }
    }
}
