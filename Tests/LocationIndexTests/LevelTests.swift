import Foundation
import LocationCore
@testable import LocationIndex
import LocSimTestHelpers
import Testing

/// The levelled layout (schema v2): where places are stored, and that every way of getting
/// there (fresh import, re-import across levels, interrupted import, another connection's import,
/// a migrated v1 file) answers like a brute-force scan.
@Suite("Levels: sparse places in coarse rows, dense ones at level 0", .ownThread)
struct LevelTests {
    /// `count` places uniform in a latitude/longitude box, on the 1e-7° storage grid.
    static func scatter(
        _ prefix: String, count: Int, latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>, seed: UInt64,
        name: String = "place"
    ) -> [Place] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { number in
            Place(
                id: "\(prefix)\(number)", name: "\(name) \(number)",
                coordinate: gridCoordinate(
                    latitude: Double.random(in: latitudes, using: &random), longitude: Double.random(in: longitudes, using: &random)),
                kind: number % 2 == 0 ? "cafe" : "", level: number % 3 == 0 ? nil : number % 5)
        }
    }

    /// Places uniform on the whole sphere.
    static func uniform(_ prefix: String, count: Int, seed: UInt64) -> [Place] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { number in
            Place(
                id: "\(prefix)\(number)", name: "sphere \(number)",
                coordinate: gridCoordinate(
                    latitude: asin(Double.random(in: -1...1, using: &random)) * 180 / .pi,
                    longitude: Double.random(in: -180..<180, using: &random)))
        }
    }

    /// Queries near the places (1 m … 2,000 km, log-uniform) and anywhere, with some limits.
    static func queries(around places: [Place], count: Int, seed: UInt64) -> [NearbyIndexQueryTests.Query] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { number in
            let radius = exp(Double.random(in: 0...log(2_000_000.0), using: &random))
            let center: Coordinate
            if number % 4 == 3 || places.isEmpty {
                center = gridCoordinate(
                    latitude: asin(Double.random(in: -1...1, using: &random)) * 180 / .pi,
                    longitude: Double.random(in: -180..<180, using: &random))
            } else {
                let anchor = places[Int.random(in: 0..<places.count, using: &random)].coordinate
                let moved = anchor.destination(
                    distance: Double.random(in: 0...min(radius, 50_000), using: &random),
                    bearing: Double.random(in: 0..<360, using: &random))
                center = gridCoordinate(latitude: moved.latitude, longitude: moved.longitude)
            }
            let limit: Int? = number % 5 == 0 ? Int.random(in: 1...30, using: &random) : nil
            return NearbyIndexQueryTests.Query(center: center, radius: radius, limit: limit)
        }
    }

    /// Every query answers exactly like brute force over `places`; returns how many found something.
    @discardableResult
    static func expectBruteForce(
        _ index: NearbyIndex, _ places: [Place], queries: [NearbyIndexQueryTests.Query],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        var nonEmpty = 0
        let reference = BruteForce(places)
        reference.selfCheck(queries.prefix(10).map { ($0.center, $0.radius) }, sourceLocation: sourceLocation)
        for query in queries {
            let expected = reference.answer(center: query.center, radius: query.radius, limit: query.limit)
            let actual = try index.places(near: query.center, within: query.radius, limit: query.limit)
            #expect(actual == expected, "\(query)", sourceLocation: sourceLocation)
            if actual != expected { break }
            if !expected.isEmpty { nonEmpty += 1 }
        }
        return nonEmpty
    }

    /// Places with the ids of `update` replaced by them, plus the new ones, ordered by id.
    static func merged(_ base: [Place], _ update: [Place]) -> [Place] {
        var byID = Dictionary(uniqueKeysWithValues: base.map { ($0.id, $0) })
        for place in update { byID[place.id] = place }
        return byID.values.sorted { $0.id < $1.id }
    }

    /// 40 places in one top-level node (20.48° with 0.02° tiles: latitudes 32.88…53.36,
    /// longitudes 4.8…25.28).
    static let sparse = scatter("s", count: 40, latitudes: 40...50, longitudes: 6...15, seed: 1)
    /// 3,000 places within about 1 km of one point in that node.
    static let dense = scatter("d", count: 3_000, latitudes: 45.005...45.015, longitudes: 10.005...10.015, seed: 2)

    @Test("Sparse places share one coarse row; a dense spot splits the nodes above it down to level 0")
    func sparseAndDense() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("l.sqlite"))
            try index.importPlaces(Self.sparse)
            var statistics = try index.statistics()
            #expect(statistics.rowsPerLevel == [0, 0, 0, 0, 0, 1])
            #expect(statistics.splitNodeCount == 0)
            #expect(statistics.schemaVersion == 2)
            try Self.expectBruteForce(index, Self.sparse, queries: Self.queries(around: Self.sparse, count: 300, seed: 3))

            try index.importPlaces(Self.dense)
            statistics = try index.statistics()
            let all = Self.sparse + Self.dense
            #expect(statistics.rowsPerLevel[0] > 0)
            #expect(statistics.rowsPerLevel[5] == 0)  // the top node now holds 3,040 places
            #expect(statistics.rowsPerLevel[1...4].reduce(0, +) > 0)  // the sparse places beside the dense spot
            #expect(statistics.splitNodeCount >= 5)  // at least the chain from level 5 down to 1
            // Few rows: the sparse places are not each in a row of their own.
            #expect(statistics.tileRowCount < 60)
            let found = try Self.expectBruteForce(index, all, queries: Self.queries(around: all, count: 600, seed: 4))
            #expect(found > 300)
        }
    }

    @Test("Sparse and dense data at the poles, ±180° and the equator answer like brute force", arguments: [0.02, 0.3])
    func denseAtTheHardSpots(tileSize: Double) throws {
        var places = NearbyIndexQueryTests.places(seed: 5)  // sparse there, dense in one city
        places += Self.scatter("np", count: 1_500, latitudes: 89.6...90, longitudes: -180...179.9999999, seed: 6)
        places += Self.scatter("sp", count: 1_000, latitudes: -90 ... -89.8, longitudes: -180...179.9999999, seed: 7)
        places += Self.scatter("am-w", count: 700, latitudes: 51...51.2, longitudes: 179.8...179.9999999, seed: 8)
        places += Self.scatter("am-e", count: 700, latitudes: 51...51.2, longitudes: -180 ... -179.8, seed: 9)
        places += Self.scatter("eq", count: 1_000, latitudes: -0.05...0.05, longitudes: -30.05 ... -29.95, seed: 10)
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("hard.sqlite"), configuration: .init(tileSize: tileSize))
            try index.importPlaces(places)
            let statistics = try index.statistics()
            #expect(statistics.rowsPerLevel[0] > 0)
            #expect(statistics.rowsPerLevel.filter { $0 > 0 }.count >= 3, "\(statistics.rowsPerLevel)")
            var queries = Self.queries(around: places, count: 1_500, seed: 11)
            for longitude in [-180.0, 179.9999, 45] {
                for latitude in [90.0, -90, 89.9, -89.95, 0, 51.1] {
                    for radius in [1.0, 500, 20_000, 300_000] {
                        queries.append(.init(center: gridCoordinate(latitude: latitude, longitude: longitude), radius: radius))
                    }
                }
            }
            let found = try Self.expectBruteForce(index, places, queries: queries)
            #expect(found > queries.count / 2)
        }
    }

    /// Three generations of one index: sparse; dense (new places plus sparse ones moved into a
    /// cluster); sparse again (the cluster scattered over the sphere).
    static let generations: [[Place]] = {
        let first = scatter("g", count: 200, latitudes: 35...60, longitudes: -10...30, seed: 12)
            + uniform("u", count: 100, seed: 13)
        let cluster = scatter("c", count: 2_500, latitudes: 48.85...48.87, longitudes: 2.33...2.36, seed: 14)
        let movedIn = scatter("g", count: 100, latitudes: 48.85...48.87, longitudes: 2.33...2.36, seed: 15, name: "moved in")
        let second = cluster + movedIn
        let scattered = uniform("c", count: 2_500, seed: 16)
        let movedOut = scatter("g", count: 100, latitudes: -50 ... -20, longitudes: 100...150, seed: 17, name: "moved out")
        let third = scattered + movedOut
        return [first, second, third]
    }()

    @Test("Re-imports that make a node dense and sparse again answer like brute force after each")
    func reimportAcrossLevels() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("g.sqlite"))
            var current: [Place] = []
            var levelZeroRows: [Int] = []
            for (generation, update) in Self.generations.enumerated() {
                let report = try index.importPlaces(update)
                let updatedBefore = current.count
                current = Self.merged(current, update)
                #expect(report.placeCount == current.count)
                #expect(report.inserted == current.count - updatedBefore)
                #expect(try everything(index) == current)
                let statistics = try index.statistics()
                #expect(statistics.placeCount == current.count)
                #expect(statistics.nameBytes == current.reduce(0) { $0 + $1.name.utf8.count })
                levelZeroRows.append(statistics.rowsPerLevel[0])
                let found = try Self.expectBruteForce(
                    index, current, queries: Self.queries(around: current, count: 500, seed: 20 + UInt64(generation)))
                #expect(found > 150)
            }
            // Sparse, then a cluster at level 0, then sparse again with no level-0 row left.
            #expect(levelZeroRows[0] == 0)
            #expect(levelZeroRows[1] > 0)
            #expect(levelZeroRows[2] == 0)
        }
    }

    @Test("A re-import across levels that fails halfway leaves the previous rows, splits and answers")
    func interruptedReimport() throws {
        struct InjectedFailure: Error {}
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let before = Self.merged(Self.generations[0], Self.generations[1])
            try index.importPlaces(Self.generations[0])
            try index.importPlaces(Self.generations[1])
            let queries = Self.queries(around: before, count: 400, seed: 30)
            try Self.expectBruteForce(index, before, queries: queries)  // this reader caches the split nodes
            let statistics = try index.statistics()
            var written = 0
            #expect(throws: InjectedFailure.self) {
                try index.importPlaces(Self.generations[2], options: .init(progressInterval: 1)) { progress in
                    if progress.phase == .writing {
                        written = progress.tilesWritten
                        if progress.tilesWritten * 2 >= progress.tilesTotal { throw InjectedFailure() }
                    }
                }
            }
            #expect(written > 1)
            let after = try index.statistics()
            #expect(after.rowsPerLevel == statistics.rowsPerLevel)
            #expect(after.splitNodeCount == statistics.splitNodeCount)
            #expect(after.placeCount == statistics.placeCount && after.nameBytes == statistics.nameBytes)
            #expect(try everything(index) == before)
            try Self.expectBruteForce(index, before, queries: queries)
            try index.verifyIntegrity()
        }
    }

    @Test("A reader on another connection follows another writer's re-layout (its cached split nodes go stale)")
    func otherConnectionSeesNewLayout() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("shared.sqlite")
            let writer = try NearbyIndex(path: path)
            try writer.importPlaces(Self.generations[0])
            let reader = try NearbyIndex(path: path, configuration: .init(access: .readOnly, maximumIdleReaders: 1))
            var current = Self.generations[0]
            for (generation, update) in Self.generations.enumerated().dropFirst() {
                // The same queries before and after: the reader's connection keeps its split nodes
                // between them, so the second round must notice the commit.
                let queries = Self.queries(around: Self.generations[1], count: 200, seed: 40 + UInt64(generation))
                try Self.expectBruteForce(reader, current, queries: queries)
                try writer.importPlaces(update)
                current = Self.merged(current, update)
                try Self.expectBruteForce(reader, current, queries: queries)
            }
        }
    }

    /// The v1 schema as v1 locsim wrote it (frozen here; IndexSchema.migrations[0] must match it).
    static let v1Schema = """
        CREATE TABLE metadata(key TEXT PRIMARY KEY NOT NULL, value ANY) WITHOUT ROWID;
        CREATE TABLE placeKind(code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        INSERT INTO placeKind(code, name) VALUES (0, '');
        CREATE TABLE placeTile(key INTEGER PRIMARY KEY, count INTEGER NOT NULL, data BLOB NOT NULL);
        """

    /// Writes `places` in the v1 layout: every place in its level-0 tile, rows keyed `tile << 16 | part`.
    static func writeV1(_ places: [Place], to path: String, tileSizeE7: Int64) throws -> Int {
        let connection = try SQLiteConnection(path: path, readOnly: false, create: true)
        try connection.execute("PRAGMA page_size = 65536; PRAGMA journal_mode = WAL")
        try connection.execute(v1Schema)
        try connection.execute("PRAGMA application_id = \(0x4C53_4958); PRAGMA user_version = 1")
        try connection.execute(
            """
            INSERT INTO metadata(key, value) VALUES ('format', 'locsim-index'), ('tileSizeE7', \(tileSizeE7)),
              ('placeCount', \(places.count)), ('nameBytes', \(places.reduce(0) { $0 + $1.name.utf8.count }))
            """)
        let kinds = Array(Set(places.map(\.kind)).subtracting([""])).sorted()
        for (offset, kind) in kinds.enumerated() {
            try connection.execute("INSERT INTO placeKind(code, name) VALUES (\(offset + 1), '\(kind)')")
        }
        let grid = TileGrid(sizeE7: tileSizeE7)
        var tiles: [Int64: [PlaceRecord]] = [:]
        for place in places {
            let record = PlaceRecord(
                id: place.id, name: place.name, latitudeE7: PlaceRecord.latitudeE7(place.coordinate.latitude),
                longitudeE7: PlaceRecord.longitudeE7(place.coordinate.longitude),
                kindCode: UInt16((kinds.firstIndex(of: place.kind) ?? -1) + 1), level: place.level.map(Int32.init) ?? PlaceRecord.noLevel)
            tiles[grid.key(latitudeE7: record.latitudeE7, longitudeE7: record.longitudeE7), default: []].append(record)
        }
        let insert = try connection.cached("INSERT INTO placeTile(key, count, data) VALUES (?1, ?2, ?3)")
        var rows = 0
        for key in tiles.keys.sorted() {
            let records = tiles[key]!.sorted(by: IndexWriter.precedes)
            for (part, data) in PlaceTileCodec.encodeParts(records[...]).enumerated() {
                try insert.bind(key << 16 | Int64(part), at: 1)
                try insert.bind(Int64(PlaceTileView.count(of: data)), at: 2)
                try insert.bind(data, at: 3)
                try insert.run()
                rows += 1
            }
        }
        return rows
    }

    @Test("A v1 file (level-0 rows only) migrates to v2, answers like brute force, and takes re-imports")
    func v1FileMigrates() throws {
        #expect(IndexSchema.migrations[0].sql.trimmingCharacters(in: .whitespacesAndNewlines) == Self.v1Schema)
        let places = NearbyIndexQueryTests.places(seed: 50) + Self.dense
        try withTemporaryDirectory { directory in
            let path = directory.file("v1.sqlite")
            let rows = try Self.writeV1(places, to: path, tileSizeE7: 200_000)
            #expect(rows > 1_000)  // one row per non-empty tile: what v2 avoids
            // Read-only, it cannot migrate: the existing rule for older schemas.
            let readOnly = try #require(throws: IndexError.self) {
                try NearbyIndex(path: path, configuration: .init(access: .readOnly))
            }
            #expect(readOnly.code == .readOnly)

            let index = try NearbyIndex(path: path)
            var statistics = try index.statistics()
            #expect(statistics.schemaVersion == 2)
            #expect(statistics.rowsPerLevel == [rows, 0, 0, 0, 0, 0])
            #expect(statistics.splitNodeCount > 0)
            #expect(try everything(index) == places.sorted { $0.id < $1.id })
            let queries = NearbyIndexQueryTests.queries(seed: 51, places: places)
            #expect(try Self.expectBruteForce(index, places, queries: queries) > queries.count / 3)

            // A re-import rewrites the nodes it touches in the v2 layout, and leaves the rest.
            let update = Array(NearbyIndexQueryTests.places(seed: 52).prefix(500)).map {
                Place(id: $0.id, name: "moved", coordinate: $0.coordinate, kind: "moved", level: 1)
            }
            try index.importPlaces(update)
            let current = Self.merged(places, update)
            statistics = try index.statistics()
            #expect(statistics.rowsPerLevel[1...].reduce(0, +) > 0)
            #expect(statistics.tileRowCount < rows)
            #expect(try everything(index) == current)
            #expect(try Self.expectBruteForce(index, current, queries: queries) > queries.count / 3)
        }
    }
}
