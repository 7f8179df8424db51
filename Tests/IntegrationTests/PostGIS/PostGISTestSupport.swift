import Foundation
import LocSimTestHelpers
import LocationCore
import LocationIndex
import LocationPostGIS
import Logging
import Testing

/// Skips (with the reason) where PostgreSQL cannot run, else runs `body` with a fresh server and
/// a running store on it; both are stopped afterwards, even when `body` throws.
func withPostGIS(
    queryTimeout: Duration = .seconds(5), _ body: (PostgresServer, PostGISPlaceStore) async throws -> Void
) async throws {
    if let reason = PostgresServer.unavailableReason {
        print("skipped: \(reason)")
        return
    }
    try await PostgresServer.with { server in
        let store = try PostGISPlaceStore(
            url: try PostgresURL(parsing: server.url), queryTimeout: queryTimeout, clock: ContinuousClock(), logger: quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            do {
                try await body(server, store)
            } catch {
                print("PostgreSQL log (last 2,000 bytes):\n\(server.log.suffix(2_000))")
                throw error
            }
        }
    }
}

/// Checks `condition` every 100 ms for up to `limit`, for what a PostgreSQL server does in its
/// own time (a cancelled statement ends, a replica replays an import, a backend is checked again
/// after its back-off): the server tells no one. A thrown error counts as "not yet" and the last
/// one is reported if time runs out. It never times what it waits for.
func eventually(_ what: String, within limit: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    var lastError: (any Error)?
    while ContinuousClock.now < deadline {
        do {
            if try await condition() { return }
        } catch {
            lastError = error
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("not within \(limit): \(what); last error: \(lastError.map { "\($0)" } ?? "none")")
    throw CancellationError()
}

let quietLogger: Logger = {
    var logger = Logger(label: "locsim.test.postgis", factory: { _ in SwiftLogNoOpLogHandler() })
    logger.logLevel = .critical
    return logger
}()

/// An SQLite index at `directory/x.sqlite` holding `files` (in `directory`), imported in turn: what a
/// PostGIS store that imported the same files must answer.
func sqliteIndex(in directory: String, importing files: [String]) throws -> NearbyIndex {
    let index = try NearbyIndex(path: directory + "/x.sqlite")
    for file in files { try index.importPlaces(fromFile: directory + "/" + file) }
    return index
}

/// A CSV of places that stresses the edge cases: clusters at both poles and across ±180°, a
/// dense city, points spread over the globe, and groups at identical coordinates (ties by id).
func writeTestPlaces(to path: String, seed: UInt64) throws -> Int {
    var random = SplitMix64(seed: seed)
    var lines = ["id,name,lat,lon,kind,level"]
    func add(_ latitude: Double, _ longitude: Double) {
        let number = lines.count
        var lon = longitude
        if lon >= 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        let kind = ["", "shop", "park", "stop"][number % 4]
        let level = number % 3 == 0 ? "" : String(number % 7)
        lines.append(
            "p\(String(number, radix: 36)),\"Place \(number), \"\"q\"\"\",\(String(format: "%.7f", max(-90, min(90, latitude)))),"
                + "\(String(format: "%.7f", lon)),\(kind),\(level)")
    }
    for _ in 0..<1_500 { add(random.uniform(-90...90), random.uniform(-180...180)) }
    for _ in 0..<600 { add(random.uniform(88.5...90), random.uniform(-180...180)) }
    for _ in 0..<600 { add(random.uniform(-90 ... -88.5), random.uniform(-180...180)) }
    for _ in 0..<1_000 { add(random.uniform(-30...30), random.uniform(178.5...181.5)) }
    for _ in 0..<2_000 { add(35.68 + random.uniform(-0.1...0.1), 139.76 + random.uniform(-0.1...0.1)) }
    for group in 0..<100 {
        let latitude = random.uniform(-80...80)
        let longitude = random.uniform(-180...180)
        for _ in 0..<(2 + group % 4) { add(latitude, longitude) }
    }
    // Exactly at the poles and on the antimeridian.
    for _ in 0..<5 {
        add(90, random.uniform(-180...180))
        add(-90, random.uniform(-180...180))
        add(random.uniform(-60...60), 180)
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return lines.count - 1
}
