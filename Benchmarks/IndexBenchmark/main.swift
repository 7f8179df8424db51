// IndexBenchmark: radius-query latency, import time and size of the locsim NearbyIndex, with the
// inputs and the comparison against PostGIS that scripts/bench-index.sh runs in the same session.
//
//   IndexBenchmark generate DIR      seeded data: clustered-1m.csv and queries-*.csv
//   IndexBenchmark run DIR [GEONAMES] import, query, write ours-*.tsv and the PostGIS load files
//   IndexBenchmark report DIR        compare with postgis-*.tsv, print the Markdown tables
//   IndexBenchmark floor DIR [RADIUS] a measured lower bound for the query (Floor.swift)
//
// Build: LOCSIM_BENCHMARKS=1 swift build -c release --product IndexBenchmark
import Foundation
import LocationCore
@testable import LocationIndex

#if canImport(Glibc)
import Glibc
#endif

func gaussian(_ random: inout SplitMix64) -> Double {
    let u = Double.random(in: Double.ulpOfOne..<1, using: &random)
    let v = Double.random(in: 0..<1, using: &random)
    return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
}

func fixed7(_ value: Double) -> String { DecimalText.fixed(value, decimals: 7) }

let radii: [Double] = [100, 5_000, 50_000]
let queryCount = 1_000
let sampleCount = 50  // queries per radius whose ids are compared with PostGIS

func write(_ text: String, to path: String) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// 1M places: 20 Gaussian clusters (σ 10 km) holding 90%, a uniform background 10%. Seed 2026.
func generate(directory: String) throws {
    var random = SplitMix64(seed: 2026)
    let kinds = ["shrine", "cafe", "park", "station", "shop", "museum", "gym", "landmark"]
    let centers = (0..<20).map { _ in
        (Double.random(in: -60...60, using: &random), Double.random(in: -180..<180, using: &random))
    }
    var csv = "id,name,lat,lon,kind,level\n"
    csv.reserveCapacity(60_000_000)
    for number in 0..<1_000_000 {
        var latitude: Double, longitude: Double
        if number % 10 != 9 {
            let (clusterLatitude, clusterLongitude) = centers[number % 20]
            let north = gaussian(&random) * 10_000, east = gaussian(&random) * 10_000
            latitude = clusterLatitude + north / 111_194.93
            longitude = clusterLongitude + east / (111_194.93 * cos(clusterLatitude * .pi / 180))
        } else {
            latitude = asin(Double.random(in: -1...1, using: &random)) * 180 / .pi
            longitude = Double.random(in: -180..<180, using: &random)
        }
        longitude = normalizedLongitude(longitude)
        csv += "c\(number),Place \(number),\(fixed7(latitude)),\(fixed7(longitude)),\(kinds[number % 8]),\(number % 10 + 1)\n"
    }
    try write(csv, to: directory + "/clustered-1m.csv")
}

/// Query centres: existing places (where players are), nudged up to 200 m. Seeded per data set.
func makeQueries(_ places: [Place], seed: UInt64) -> [Coordinate] {
    var random = SplitMix64(seed: seed)
    return (0..<queryCount).map { _ in
        let place = places[Int.random(in: 0..<places.count, using: &random)].coordinate
        let moved = place.destination(distance: Double.random(in: 0...200, using: &random), bearing: Double.random(in: 0..<360, using: &random))
        return Coordinate(uncheckedLatitude: (moved.latitude * 1e7).rounded() / 1e7, longitude: (moved.longitude * 1e7).rounded() / 1e7)
    }
}

/// The clustered set's query centres, as `run` wrote them.
func loadQueries(directory: String) throws -> [Coordinate] {
    try String(contentsOfFile: directory + "/clustered-1m-queries.tsv", encoding: .utf8)
        .split(separator: "\n").map { line in
            let parts = line.split(separator: "\t")
            return Coordinate(uncheckedLatitude: Double(parts[0])!, longitude: Double(parts[1])!)
        }
}

/// One query's result and its latency in µs. The clock stops with the result in hand; freeing it
/// is the caller's later work (without this, the optimiser may free it before or after the
/// clock, run to run).
func timedQuery(_ index: NearbyIndex, _ center: Coordinate, _ radius: Double, _ clock: ContinuousClock) throws
    -> (result: [NearbyPlace], microseconds: Double)
{
    let start = clock.now
    let result = try index.places(near: center, within: radius)
    let end = withExtendedLifetime(result) { clock.now }
    return (result, microseconds(end - start))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func microseconds(_ duration: Duration) -> Double {
    duration.fractionalSeconds * 1e6
}

struct Measurement {
    var dataset: String
    var radius: Double
    var p50: Double
    var p99: Double
    var qps: Double
    var meanHits: Double
}

/// The machine is shared (2 cores, other jobs compiling), so each query runs `REPS` (default 3)
/// times after a warm-up pass and its fastest run counts; QPS is queries / Σ fastest latencies.
/// scripts/bench-index.sh does the same for PostGIS.
let repetitions = Int(ProcessInfo.processInfo.environment["REPS"] ?? "") ?? 3

func measure(_ index: NearbyIndex, _ queries: [Coordinate], radius: Double, dataset: String) throws -> (Measurement, [[String]]) {
    for center in queries { _ = try index.places(near: center, within: radius) }
    let clock = ContinuousClock()
    var best = [Double](repeating: .infinity, count: queries.count)
    var hits = 0
    var samples: [[String]] = []
    for repetition in 0..<repetitions {
        for (number, center) in queries.enumerated() {
            let (result, latency) = try timedQuery(index, center, radius, clock)
            best[number] = min(best[number], latency)
            if repetition == 0 {
                hits += result.count
                if number < sampleCount { samples.append(result.map(\.place.id)) }
            }
        }
    }
    best.sort()
    return (
        Measurement(
            dataset: dataset, radius: radius, p50: percentile(best, 0.5), p99: percentile(best, 0.99),
            qps: Double(queries.count) / (best.reduce(0, +) / 1e6), meanHits: Double(hits) / Double(queries.count)),
        samples
    )
}

func run(directory: String, geoNames: String?) throws {
    var datasets: [(name: String, file: String, format: ImportFormat)] = [("clustered-1m", directory + "/clustered-1m.csv", .csv)]
    if let geoNames { datasets.append(("geonames", geoNames, .geoNames)) }
    var lines = ["dataset\tradius\tp50_us\tp99_us\tqps\tmean_hits"]
    var notes: [String] = []
    for (setNumber, dataset) in datasets.enumerated() {
        let path = directory + "/\(dataset.name).sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let clock = ContinuousClock()
        let start = clock.now
        let report: ImportReport
        do {
            let index = try NearbyIndex(path: path)
            report = try index.importPlaces(fromFile: dataset.file, options: .init(format: dataset.format))
        }
        let importSeconds = microseconds(clock.now - start) / 1e6
        let index = try NearbyIndex(path: path)
        let statistics = try index.statistics()
        notes.append(
            "\(dataset.name)\timport_s=\(DecimalText.fixed(importSeconds, decimals: 2))\tplaces=\(report.placeCount)"
                + "\tfile_bytes=\(statistics.fileBytes)\tname_bytes=\(statistics.nameBytes)"
                + "\tbytes_per_place_beyond_names=\(DecimalText.fixed(statistics.bytesPerPlaceBeyondNames ?? 0, decimals: 1))"
                + "\ttile_rows=\(statistics.tileRowCount)\trows_per_level=\(statistics.rowsPerLevel.map(String.init).joined(separator: ","))"
                + "\tsplit_nodes=\(statistics.splitNodeCount)")
        // Everything, for PostGIS to load exactly the same stored coordinates and ids.
        let all = try index.places(near: Coordinate(latitude: 0, longitude: 0), within: Sphere.halfCircumference)
        var export = ""
        export.reserveCapacity(all.count * 48)
        for hit in all {
            let name = hit.place.name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: " ")
                .replacingOccurrences(of: "\n", with: " ")
            export += "\(hit.place.id)\t\(name)\t\(fixed7(hit.place.coordinate.latitude))\t\(fixed7(hit.place.coordinate.longitude))\n"
        }
        try write(export, to: directory + "/\(dataset.name).tsv")
        let queries = makeQueries(all.map(\.place), seed: 100 + UInt64(setNumber))
        try write(queries.map { "\(fixed7($0.latitude))\t\(fixed7($0.longitude))" }.joined(separator: "\n") + "\n",
            to: directory + "/\(dataset.name)-queries.tsv")
        for radius in radii {
            let (measurement, samples) = try measure(index, queries, radius: radius, dataset: dataset.name)
            lines.append(
                "\(dataset.name)\t\(Int(radius))\t\(DecimalText.fixed(measurement.p50, decimals: 1))\t\(DecimalText.fixed(measurement.p99, decimals: 1))"
                    + "\t\(DecimalText.fixed(measurement.qps, decimals: 0))\t\(DecimalText.fixed(measurement.meanHits, decimals: 1))")
            try write(samples.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n",
                to: directory + "/ours-ids-\(dataset.name)-\(Int(radius)).txt")
            print(lines.last!)
        }
    }
    try write(lines.joined(separator: "\n") + "\n", to: directory + "/ours.tsv")
    try write(notes.joined(separator: "\n") + "\n", to: directory + "/ours-notes.tsv")
    print(notes.joined(separator: "\n"))
}

/// Tile-size sweep on the clustered set: the measurement behind the default tile size.
func sweep(directory: String) throws {
    let source = directory + "/clustered-1m.csv"
    var queries: [Coordinate] = []
    print("tile_deg\timport_s\tbytes_per_place\t100m_p50\t5km_p50\t5km_p99\t50km_p50")
    for size in [0.005, 0.01, 0.02, 0.05] {
        let path = directory + "/sweep.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let clock = ContinuousClock()
        let start = clock.now
        let index = try NearbyIndex(path: path, configuration: .init(tileSize: size))
        try index.importPlaces(fromFile: source)
        let seconds = microseconds(clock.now - start) / 1e6
        if queries.isEmpty {
            queries = makeQueries(try index.places(near: Coordinate(latitude: 0, longitude: 0), within: Sphere.halfCircumference).map(\.place), seed: 100)
        }
        let results = try radii.map { try measure(index, queries, radius: $0, dataset: "sweep").0 }
        let statistics = try index.statistics()
        print(
            "\(size)\t\(DecimalText.fixed(seconds, decimals: 2))\t\(DecimalText.fixed(statistics.bytesPerPlaceBeyondNames ?? 0, decimals: 1))"
                + "\t\(DecimalText.fixed(results[0].p50, decimals: 1))\t\(DecimalText.fixed(results[1].p50, decimals: 1))"
                + "\t\(DecimalText.fixed(results[1].p99, decimals: 1))\t\(DecimalText.fixed(results[2].p50, decimals: 1))")
    }
}

/// Reads postgis.tsv and postgis-ids-*.txt and prints the comparison.
func report(directory: String) throws {
    func table(_ file: String) throws -> [[String]] {
        try String(contentsOfFile: directory + "/" + file, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
    let ours = try table("ours.tsv")
    let theirs = try table("postgis.tsv")
    print("| data | radius | mean hits | ours p50 µs | ours p99 µs | ours QPS | PostGIS p50 µs | PostGIS p99 µs | PostGIS QPS | p50 ratio | sample ids equal |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in ours {
        guard let other = theirs.first(where: { $0[0] == row[0] && $0[1] == row[1] }) else { continue }
        func lines(_ file: String) throws -> [Substring] {
            var lines = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last == "" { lines.removeLast() }
            return lines
        }
        let ourIDs = try lines("ours-ids-\(row[0])-\(row[1]).txt")
        let theirIDs = try lines("postgis-ids-\(row[0])-\(row[1]).txt")
        let compared = min(ourIDs.count, theirIDs.count)
        let equal = (0..<compared).filter { ourIDs[$0] == theirIDs[$0] }.count
        let ratio = (Double(other[2]) ?? 0) / max(Double(row[2]) ?? 1, 0.001)
        print(
            "| \(row[0]) | \(row[1]) m | \(row[5]) | \(row[2]) | \(row[3]) | \(row[4]) | \(other[2]) | \(other[3]) | \(other[4]) | "
                + "\(DecimalText.fixed(ratio, decimals: 0))× | \(equal)/\(compared) |")
    }
}

/// The other storage option, measured on the same data and queries: one row per place in
/// an `rtree_i32` on 1e-7° integers with the id and name as auxiliary columns (so no join back
/// to a place table), refined with the same exact distance and sorted by (distance, id).
func rtree(directory: String) throws {
    let path = directory + "/rtree.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let lines = try String(contentsOfFile: directory + "/clustered-1m.tsv", encoding: .utf8).split(separator: "\n")
    let clock = ContinuousClock()
    let start = clock.now
    let database = try RawSQLiteConnection(path: path)
    try database.execute("PRAGMA journal_mode = WAL")
    try database.execute("CREATE VIRTUAL TABLE placeBox USING rtree_i32(rid, minLat, maxLat, minLon, maxLon, +placeID TEXT, +name TEXT)")
    try database.execute("BEGIN")
    var rows: [[RawSQLiteValue]] = []
    var nameBytes = 0
    for (number, line) in lines.enumerated() {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        let latitude = Int64((Double(fields[2])! * 1e7).rounded()), longitude = Int64((Double(fields[3])! * 1e7).rounded())
        nameBytes += fields[1].utf8.count
        rows.append([.integer(Int64(number + 1)), .integer(latitude), .integer(latitude), .integer(longitude), .integer(longitude),
            .text(String(fields[0])), .text(String(fields[1]))])
        if rows.count == 10_000 {
            try database.insertRows("INSERT INTO placeBox VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", rows)
            rows.removeAll(keepingCapacity: true)
        }
    }
    try database.insertRows("INSERT INTO placeBox VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", rows)
    try database.execute("COMMIT")
    try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let importSeconds = microseconds(clock.now - start) / 1e6
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    try database.execute("PRAGMA mmap_size = 4294967296")
    let queries = try loadQueries(directory: directory)
    func query(_ center: Coordinate, _ radius: Double) throws -> [NearbyPlace] {
        let cap = SearchCap(center: center, radius: radius)
        var hits: [NearbyPlace] = []
        for range in cap.longitudeE7 {
            try database.forEachRow(
                "SELECT placeID, name, minLat, minLon FROM placeBox WHERE minLat >= ?1 AND maxLat <= ?2 AND minLon >= ?3 AND maxLon <= ?4",
                bindings: [cap.latitudeE7.lowerBound, cap.latitudeE7.upperBound, range.lowerBound, range.upperBound]
            ) { row throws(IndexError) in
                let coordinate = Coordinate(uncheckedLatitude: Double(row.integer(2)) / 1e7, longitude: Double(row.integer(3)) / 1e7)
                let distance = center.distance(to: coordinate)
                if distance <= radius {
                    hits.append(NearbyPlace(place: Place(id: row.text(0), name: row.text(1), coordinate: coordinate), distance: distance))
                }
            }
        }
        hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.place.id < $1.place.id) }
        return hits
    }
    print("rtree_i32 (one row per place, id and name as auxiliary columns), 1M clustered places")
    print("import_s=\(DecimalText.fixed(importSeconds, decimals: 2)) bytes_per_place_beyond_names=\(DecimalText.fixed(Double(size - nameBytes) / Double(lines.count), decimals: 1))")
    print("radius\tp50_us\tp99_us\tmean_hits")
    for radius in radii {
        for center in queries { _ = try query(center, radius) }
        var best = [Double](repeating: .infinity, count: queries.count)
        var hits = 0
        for repetition in 0..<repetitions {
            for (number, center) in queries.enumerated() {
                let begin = clock.now
                let result = try query(center, radius)
                best[number] = min(best[number], microseconds(clock.now - begin))
                if repetition == 0 { hits += result.count }
            }
        }
        best.sort()
        print("\(Int(radius))\t\(DecimalText.fixed(percentile(best, 0.5), decimals: 1))\t\(DecimalText.fixed(percentile(best, 0.99), decimals: 1))\t\(DecimalText.fixed(Double(hits) / Double(queries.count), decimals: 1))")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: IndexBenchmark generate|run|sweep|report DIR [GEONAMES.csv]\n".utf8))
    exit(2)
}
switch arguments[1] {
case "generate": try generate(directory: arguments[2])
case "run": try run(directory: arguments[2], geoNames: arguments.count > 3 ? arguments[3] : nil)
case "sweep": try sweep(directory: arguments[2])
case "rtree": try rtree(directory: arguments[2])
case "report": try report(directory: arguments[2])
case "import":
    // Imports the clustered set into a fresh index, for `perf record`.
    let path = arguments[2] + "/import-profile.sqlite"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let clock = ContinuousClock()
    let start = clock.now
    try NearbyIndex(path: path).importPlaces(fromFile: arguments[2] + "/clustered-1m.csv")
    print("import \(clock.now - start)")
case "floor":
    // A measured lower bound for the query (Floor.swift), on an index made by `run`.
    try measureFloor(directory: arguments[2], radius: arguments.count > 3 ? Double(arguments[3])! : 5_000)
case "ranges":
    // The level walk alone (SearchCap → row-id ranges) on an index made by `run`: seeks per query
    // and the walk's share of the query time.
    let index = try NearbyIndex(path: arguments[2] + "/clustered-1m.sqlite")
    let queries = try loadQueries(directory: arguments[2])
    let clock = ContinuousClock()
    for radius in radii {
        var ranges = 0
        var best = Double.infinity
        for _ in 0..<5 {
            ranges = 0
            let start = clock.now
            for center in queries { ranges += try index.rowRanges(near: center, within: radius).count }
            best = min(best, microseconds(clock.now - start) / Double(queries.count))
        }
        print("radius \(Int(radius)) m: \(Double(ranges) / Double(queries.count)) ranges per query, walk \(DecimalText.fixed(best, decimals: 2)) µs per query")
    }
case "profile":
    // Repeats the 5 km queries on an index made by `run`, for `perf record`.
    let index = try NearbyIndex(path: arguments[2] + "/clustered-1m.sqlite")
    let queries = try loadQueries(directory: arguments[2])
    let radius = arguments.count > 3 ? Double(arguments[3])! : 5_000
    for _ in 0..<5 {
        let (m, _) = try measure(index, queries, radius: radius, dataset: "profile")
        print("p50 \(m.p50) p99 \(m.p99) qps \(m.qps) hits \(m.meanHits)")
    }
default:
    FileHandle.standardError.write(Data("unknown command \(arguments[1])\n".utf8))
    exit(2)
}
