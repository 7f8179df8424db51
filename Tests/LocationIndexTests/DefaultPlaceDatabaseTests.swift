import Foundation
import LocationCore
import LocationIndex
import Testing
import LocSimTestHelpers

@Suite("The default database built from geodata/", .ownThread)
struct DefaultPlaceDatabaseTests {
    static let repositoryGeodata: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("geodata").path
    }()

    @Test("Built on first use, reused while the CSVs are unchanged, rebuilt when one changes")
    func buildsAndRebuilds() throws {
        try withTemporaryDirectory { directory in
            let geodata = directory.file("geodata")
            let cache = directory.file("cache")
            try FileManager.default.createDirectory(atPath: geodata, withIntermediateDirectories: true)
            try "id,name,lat,lon\na,Alpha,10,20\n".write(toFile: geodata + "/one.csv", atomically: true, encoding: .utf8)
            try "id,name,lat,lon,kind\nb,Beta,10.001,20,cafe\n".write(toFile: geodata + "/two.csv", atomically: true, encoding: .utf8)
            let first = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            #expect(try everything(first).map(\.id) == ["a", "b"])
            #expect(first.configuration.access == .readOnly)
            let built = try FileManager.default.attributesOfItem(atPath: first.path)[.modificationDate] as? Date
            let again = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            #expect(again.path == first.path)
            #expect(try FileManager.default.attributesOfItem(atPath: again.path)[.modificationDate] as? Date == built)

            try "id,name,lat,lon\na,Alpha renamed,10,20\n".write(toFile: geodata + "/one.csv", atomically: true, encoding: .utf8)
            let rebuilt = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            #expect(rebuilt.path != first.path)
            #expect(try everything(rebuilt).map(\.name) == ["Alpha renamed", "Beta"])
            // The current database and the earlier build (kept for a checkout that may still use
            // it), and no -wal or -shm beside a file that is open read-only and has been queried.
            let files = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
            #expect(files == [first.path, rebuilt.path].map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())
        }
    }

    @Test("A cached file that is damaged, empty or not an index is built again, not reported on every later open")
    func damagedCacheIsRebuilt() throws {
        try withTemporaryDirectory { directory in
            let (geodata, cache) = try Self.geodata(in: directory, ["one.csv": "id,name,lat,lon\na,Alpha,10,20\n"])
            let path = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache).path
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            for damage in [Data("garbage\n".utf8), Data(), whole.prefix(whole.count / 2)] {
                try damage.write(to: URL(fileURLWithPath: path))
                let index = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
                #expect(index.path == path)
                #expect(try everything(index).map(\.id) == ["a"], "\(damage.count) bytes")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache) == [URL(fileURLWithPath: path).lastPathComponent])
        }
    }

    @Test("A bad CSV fails the build with its location and leaves no cache file")
    func badCSV() throws {
        try withTemporaryDirectory { directory in
            let geodata = directory.file("geodata")
            let cache = directory.file("cache")
            try FileManager.default.createDirectory(atPath: geodata, withIntermediateDirectories: true)
            try "id,name,lat,lon\na,Alpha,10,20\nb,Beta,100,20\n".write(toFile: geodata + "/bad.csv", atomically: true, encoding: .utf8)
            let error = try #require(throws: IndexError.self) { try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache) }
            #expect(error.line == 3 && error.column == "lat")
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
        }
    }

    @Test("The committed geodata sets import cleanly and answer around Tokyo and the Mission")
    func committedGeodata() throws {
        try withTemporaryDirectory { directory in
            let index = try DefaultPlaceDatabase.open(geodataDirectory: Self.repositoryGeodata, cacheDirectory: directory.path)
            let statistics = try index.statistics()
            #expect(statistics.placeCount > 4_000)
            let tokyo = try index.places(near: Coordinate(latitude: 35.6812, longitude: 139.7671), within: 500)
            let mission = try index.places(near: Coordinate(latitude: 37.7599, longitude: -122.4148), within: 500)
            // Each place from its own file (the ids are UUIDs: nothing in them says which).
            func ids(_ file: String) throws -> Set<String> {
                let text = try String(contentsOfFile: Self.repositoryGeodata + "/" + file, encoding: .utf8)
                return Set(text.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) })
            }
            let tokyoIDs = try ids("tokyo-central.csv"), missionIDs = try ids("sf-mission.csv")
            #expect(tokyo.count > 30 && tokyo.allSatisfy { tokyoIDs.contains($0.place.id) })
            #expect(mission.count > 60 && mission.allSatisfy { missionIDs.contains($0.place.id) })
        }
    }

    /// The committed reference (StableIDTests' stable-ids.json): schema version → expected
    /// fingerprint of Fixtures/fingerprint-geodata.
    static func referenceFingerprints() throws -> [Int: String] {
        var table: [Int: String] = [:]
        for (version, fingerprint) in try StableIDTests.reference().fingerprint {
            table[try #require(Int(version))] = fingerprint
        }
        return table
    }

    @Test("open() builds the database under the reference fingerprint's name, which databasePath also gives")
    func fingerprintMatchesReference() throws {
        let geodata = try fixture("fingerprint-geodata")
        let table = try Self.referenceFingerprints()
        try withTemporaryDirectory { directory in
            let index = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: directory.path)
            let version = try index.statistics().schemaVersion
            let expected = try #require(table[version], "no reference for schema \(version): extend make_stable_id_reference.py")
            #expect(URL(fileURLWithPath: index.path).lastPathComponent == "geodata-\(expected).sqlite")
            #expect(try DefaultPlaceDatabase.databasePath(geodataDirectory: geodata, cacheDirectory: directory.path) == index.path)
            #expect(try everything(index).map(\.id).sorted() == ["bridge-1", "cafe-1", "tower-1"])
        }
    }

    @Test("A database already in the cache under the CSVs' fingerprint is opened as it is, not rebuilt")
    func existingDatabaseIsCurrent() throws {
        let geodata = try fixture("fingerprint-geodata")
        let table = try Self.referenceFingerprints()
        try withTemporaryDirectory { directory in
            // Built by "an earlier locsim": one marker place the CSVs do not have.
            let marker = directory.file("marker.sqlite")
            let version: Int = try {
                let index = try NearbyIndex(path: marker)
                try index.importPlaces([Place(id: "marker", name: "Built earlier", coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))])
                return try index.statistics().schemaVersion
            }()
            let expected = try #require(table[version])
            let cache = directory.file("cache")
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: marker, toPath: cache + "/geodata-\(expected).sqlite")
            let index = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            #expect(try everything(index).map(\.id) == ["marker"])
        }
    }

    /// A `geodata` folder holding `files` (name → contents) in `directory`, and a cache path beside it.
    static func geodata(in directory: TemporaryDirectory, _ files: [String: String]) throws -> (geodata: String, cache: String) {
        let geodata = directory.file("geodata")
        try FileManager.default.createDirectory(atPath: geodata, withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(toFile: geodata + "/" + name, atomically: true, encoding: .utf8)
        }
        return (geodata, directory.file("cache"))
    }

    @Test("A cache shared by two geodata folders keeps both builds: switching between them builds nothing; beyond the three most recent earlier builds the oldest go")
    func sharedCacheKeepsRecentBuilds() throws {
        try withTemporaryDirectory { directory in
            let cache = directory.file("cache")
            // Geodata folders that differ, as two checkouts at different commits.
            func geodata(_ number: Int) throws -> String {
                let folder = directory.file("geodata-\(number)")
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try "id,name,lat,lon\np\(number),Place \(number),10,20\n".write(toFile: folder + "/places.csv", atomically: true, encoding: .utf8)
                return folder
            }
            func built(_ path: String) throws -> Date? {
                try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            }
            // Dated one hour apart, oldest first, so that which are "most recent" does not hang on
            // the clock's resolution.
            func age(_ path: String, hours: Double) throws {
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600 * hours)], ofItemAtPath: path)
            }
            let one = try geodata(1), two = try geodata(2)
            let first = try DefaultPlaceDatabase.open(geodataDirectory: one, cacheDirectory: cache).path
            try age(first, hours: 10)
            let second = try DefaultPlaceDatabase.open(geodataDirectory: two, cacheDirectory: cache).path
            try age(second, hours: 9)
            let firstBuilt = try built(first), secondBuilt = try built(second)
            for _ in 0..<2 {
                #expect(try DefaultPlaceDatabase.open(geodataDirectory: one, cacheDirectory: cache).path == first)
                #expect(try DefaultPlaceDatabase.open(geodataDirectory: two, cacheDirectory: cache).path == second)
            }
            #expect(try built(first) == firstBuilt && built(second) == secondBuilt, "neither was built again")

            // Three more: the first is now the fourth earlier build, the only one removed.
            var paths = [first, second]
            for number in 3...5 {
                let path = try DefaultPlaceDatabase.open(geodataDirectory: try geodata(number), cacheDirectory: cache).path
                try age(path, hours: Double(10 - number))
                paths.append(path)
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
            #expect(DefaultPlaceDatabase.keptEarlierBuilds == 3)
            #expect(files == paths.dropFirst().map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())
        }
    }

    @Test("Adding a CSV rebuilds, and removing it again rebuilds under the first name")
    func addingAndRemovingRebuilds() throws {
        try withTemporaryDirectory { directory in
            let (geodata, cache) = try Self.geodata(in: directory, ["one.csv": "id,name,lat,lon\na,Alpha,10,20\n"])
            let first = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            try "id,name,lat,lon\nb,Beta,10.001,20\n".write(toFile: geodata + "/two.csv", atomically: true, encoding: .utf8)
            let added = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            #expect(added.path != first.path)
            #expect(try everything(added).map(\.id) == ["a", "b"])
            try FileManager.default.removeItem(atPath: geodata + "/two.csv")
            let removed = try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            #expect(removed.path == first.path)
            #expect(try everything(removed).map(\.id) == ["a"])
        }
    }

    @Test("Errors name the CSV: a bad row in the second file, and a .csv that cannot be read")
    func errorsNameTheFile() throws {
        try withTemporaryDirectory { directory in
            let (geodata, cache) = try Self.geodata(
                in: directory, ["a.csv": "id,name,lat,lon\na,Alpha,10,20\n", "b.csv": "id,name,lat,lon\nb,Beta,10,200\n"])
            let bad = try #require(throws: IndexError.self) { try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache) }
            #expect(bad.code == .malformedRow && bad.path == geodata + "/b.csv" && bad.line == 2 && bad.column == "lon")

            // A directory named like a CSV cannot be read as a file (even by root).
            try FileManager.default.removeItem(atPath: geodata + "/b.csv")
            try FileManager.default.createDirectory(atPath: geodata + "/c.csv", withIntermediateDirectories: true)
            let unreadable = try #require(throws: IndexError.self) {
                try DefaultPlaceDatabase.open(geodataDirectory: geodata, cacheDirectory: cache)
            }
            #expect(unreadable.code == .unreadableInput && unreadable.path == geodata + "/c.csv")
            let also = try #require(throws: IndexError.self) {
                try DefaultPlaceDatabase.databasePath(geodataDirectory: geodata, cacheDirectory: cache)
            }
            #expect(also.code == .unreadableInput && also.path == geodata + "/c.csv")
        }
    }
}
