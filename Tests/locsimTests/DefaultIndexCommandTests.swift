import Foundation
import CommandTestHelpers
@testable import LocSimCommand
import LocSimTestHelpers
import Testing

/// Where the command finds the place CSVs of the default index and where it caches the built
/// index: the command's policy (Sources/LocSimCommand/Geodata.swift), not LocationIndex's.
///
/// Each test runs the command in a scratch folder: outside the clone, so `./geodata` is not there.
@Suite(.timeLimit(.minutes(1))) struct DefaultIndexCommandTests {
    static func cachedIndexes(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("geodata-") && $0.hasSuffix(".sqlite") }
    }

    @Test("Run outside the clone, a development build finds the clone's geodata/ and caches in LOCSIM_CACHE_DIR")
    func cloneGeodataAndCacheVariable() async throws {
        try await withScratchFolder("locsim-default-index") { directory in
            let cache = directory + "/cache"
            let result = try await CLI.run(
                ["index", "stats"], environment: ["LOCSIM_CACHE_DIR": cache, "XDG_CACHE_HOME": directory + "/xdg"],
                removing: ["LOCSIM_GEODATA"], directory: directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.cachedIndexes(in: cache).count == 1)
            #expect(!FileManager.default.fileExists(atPath: directory + "/xdg"))
        }
    }

    @Test("The cache's folder: never the current one (HOME unset, empty or relative takes the password database's home); a relative XDG_CACHE_HOME is ignored")
    func cacheFolderRule() throws {
        let passwd = { "/home/qa" as String? }
        #expect(try DefaultIndex.cacheDirectory(environment: ["LOCSIM_CACHE_DIR": "/c", "HOME": "/h"], passwordHome: passwd) == "/c")
        #expect(try DefaultIndex.cacheDirectory(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"], passwordHome: passwd) == "/x/locsim")
        #expect(try DefaultIndex.cacheDirectory(environment: ["XDG_CACHE_HOME": "relcache", "HOME": "/h"], passwordHome: passwd) == "/h/.cache/locsim")
        #expect(try DefaultIndex.cacheDirectory(environment: ["HOME": "/"], passwordHome: passwd) == "/.cache/locsim")
        for home in [nil, "", "relative"] as [String?] {
            let environment = home.map { ["HOME": $0] } ?? [:]
            #expect(try DefaultIndex.cacheDirectory(environment: environment, passwordHome: passwd) == "/home/qa/.cache/locsim", "\(String(describing: home))")
        }
        #expect(throws: CommandFailure.self) { try DefaultIndex.cacheDirectory(environment: [:], passwordHome: { nil }) }
    }

    @Test("Without LOCSIM_CACHE_DIR the index is cached in XDG_CACHE_HOME/locsim")
    func xdgCache() async throws {
        try await withScratchFolder("locsim-default-index") { directory in
            let result = try await CLI.run(
                ["index", "stats"], environment: ["XDG_CACHE_HOME": directory + "/xdg"],
                removing: ["LOCSIM_CACHE_DIR", "LOCSIM_GEODATA"], directory: directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.cachedIndexes(in: directory + "/xdg/locsim").count == 1)
        }
    }

    @Test("An installed binary reads share/locsim/geodata beside its bin/, and says what to do when there is none")
    func installedBinary() async throws {
        try await withScratchFolder("locsim-default-index") { prefix in
            try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: CLI.binary, toPath: prefix + "/bin/locsim")
            let environment = ["LOCSIM_CACHE_DIR": prefix + "/cache"]

            let missing = try await CLI.run(
                ["index", "stats"], environment: environment, removing: ["LOCSIM_GEODATA"], binary: prefix + "/bin/locsim",
                directory: prefix)
            #expect(missing.status == 1)
            let lines = missing.stderr.split(separator: "\n")
            #expect(lines.count == 2, "\(missing.stderr)")
            #expect(lines.first?.hasPrefix("locsim: error: no place data for the default index") == true, "\(missing.stderr)")
            #expect(lines.first?.contains(prefix + "/share/locsim/geodata") == true, "\(missing.stderr)")
            #expect(lines.last?.contains("--geodata") == true, "\(missing.stderr)")

            let share = prefix + "/share/locsim/geodata"
            try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: PackagePaths.root + "/geodata/sf-mission.csv", toPath: share + "/sf-mission.csv")
            let found = try await CLI.run(
                ["index", "query", "--lat", "37.7765499", "--lon", "-122.4219638", "--radius", "1", "--format", "json"],
                environment: environment, removing: ["LOCSIM_GEODATA"], binary: prefix + "/bin/locsim", directory: prefix)
            #expect(found.status == 0, "\(found.stderr)")
            // The file's first place, whose coordinates the query gave.
            let csv = try String(contentsOfFile: share + "/sf-mission.csv", encoding: .utf8)
            let firstID = csv.split(separator: "\n")[1].prefix { $0 != "," }
            #expect(found.stdout.contains("\"\(firstID)\""), "\(found.stdout)")
            #expect(Self.cachedIndexes(in: prefix + "/cache").count == 1)
        }
    }
}
