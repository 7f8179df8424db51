// `IndexBenchmark floor DIR [RADIUS]`: a measured lower bound for any query that returns
// `[NearbyPlace]` from this storage, on the 1,000 queries of the clustered set (an index made by
// `run`). For each query it times, apart, three parts every such query must do, on exactly the
// rows it reads and the places it returns:
//
//   rows      SQLite reading the query's row ranges (one read transaction, every blob stepped
//             over and its pointer taken): what the storage costs before any test
//   distances the exact distances of the returned places only (the candidates outside the cap,
//             which the real query also measures, are left out), four at a time
//   build     the result array from the places' bytes: two Strings (id, name) and a Place each
//
// The box scan, the sort and the candidates that miss are not counted, and the bytes the last two
// parts read are put in the processor's caches first (as the query has them, just copied from the
// rows), so the sum is below what any implementation of `places(near:within:limit:)` over these
// rows can take.
import CSQLite
import Foundation
import LocationCore
@testable import LocationIndex

/// The text of the rows' places, laid out as the query keeps it before building the result.
struct ResultBytes {
    var text: [UInt8] = []
    var spans: [(start: Int32, idLength: UInt16, nameLength: UInt16)] = []
    var latitudes: [Double] = []
    var longitudes: [Double] = []
    var distances: [Double] = []
    var kinds: [UInt16] = []
    var levels: [Int32] = []

    /// Reads every byte, so that the timed parts find them in the processor's caches.
    @inline(never)
    func touch() -> Double {
        var total = Double(text.reduce(0) { $0 &+ Int($1) })
        for index in spans.indices {
            total += Double(spans[index].start) + latitudes[index] + longitudes[index] + distances[index]
                + Double(kinds[index]) + Double(levels[index])
        }
        return total
    }

    init(_ result: [NearbyPlace], kindCodes: [String: UInt16]) {
        for hit in result {
            let start = Int32(text.count)
            text += Array(hit.place.id.utf8)
            text += Array(hit.place.name.utf8)
            spans.append((start, UInt16(hit.place.id.utf8.count), UInt16(hit.place.name.utf8.count)))
            latitudes.append(hit.place.coordinate.latitude)
            longitudes.append(hit.place.coordinate.longitude)
            distances.append(hit.distance)
            kinds.append(kindCodes[hit.place.kind]!)
            levels.append(hit.place.level.map(Int32.init) ?? Int32.min)
        }
    }
}

@inline(never)
func buildResult(_ bytes: ResultBytes, kindNames: [String]) -> [NearbyPlace] {
    bytes.text.withUnsafeBufferPointer { text in
        [NearbyPlace](unsafeUninitializedCapacity: bytes.spans.count) { result, initialized in
            for position in 0..<bytes.spans.count {
                let span = bytes.spans[position]
                let idStart = Int(span.start), nameStart = idStart + Int(span.idLength)
                let place = Place(
                    id: String(decoding: UnsafeBufferPointer(rebasing: text[idStart..<nameStart]), as: UTF8.self),
                    name: String(
                        decoding: UnsafeBufferPointer(rebasing: text[nameStart..<(nameStart + Int(span.nameLength))]),
                        as: UTF8.self),
                    coordinate: Coordinate(uncheckedLatitude: bytes.latitudes[position], longitude: bytes.longitudes[position]),
                    kind: kindNames[Int(bytes.kinds[position])],
                    level: bytes.levels[position] == Int32.min ? nil : Int(bytes.levels[position]))
                (result.baseAddress! + position).initialize(to: NearbyPlace(place: place, distance: bytes.distances[position]))
            }
            initialized = bytes.spans.count
        }
    }
}

@inline(never)
func measureDistances(_ origin: HaversineOrigin, _ bytes: ResultBytes) -> Double {
    var total = 0.0
    var position = 0
    let count = bytes.latitudes.count
    while position + 4 <= count {
        let latitudes = SIMD4(
            bytes.latitudes[position], bytes.latitudes[position + 1], bytes.latitudes[position + 2],
            bytes.latitudes[position + 3])
        let longitudes = SIMD4(
            bytes.longitudes[position], bytes.longitudes[position + 1], bytes.longitudes[position + 2],
            bytes.longitudes[position + 3])
        total += origin.distances(toLatitudes: latitudes, longitudes: longitudes).sum()
        position += 4
    }
    while position < count {
        total += origin.distance(toLatitude: bytes.latitudes[position], longitude: bytes.longitudes[position])
        position += 1
    }
    return total
}

/// One read-only connection with the settings of the index's own readers.
final class RowReader {
    private var database: OpaquePointer?
    private var statement: OpaquePointer?

    init(path: String) {
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fatalError("cannot open \(path)") }
        for pragma in ["PRAGMA mmap_size = 4294967296", "PRAGMA cache_size = -16384", "PRAGMA query_only = 1"] {
            guard sqlite3_exec(database, pragma, nil, nil, nil) == SQLITE_OK else { fatalError("\(pragma) failed") }
        }
        guard sqlite3_prepare_v2(database, "SELECT data FROM placeTile WHERE key BETWEEN ?1 AND ?2", -1, &statement, nil)
            == SQLITE_OK
        else { fatalError("prepare failed") }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(database)
    }

    /// Steps over every row of `ranges` in one read transaction; returns the bytes seen.
    @inline(never)
    func read(_ ranges: [(Int64, Int64)]) -> Int {
        var bytes = 0
        if ranges.count > 1 { sqlite3_exec(database, "BEGIN", nil, nil, nil) }
        for range in ranges {
            sqlite3_bind_int64(statement, 1, range.0)
            sqlite3_bind_int64(statement, 2, range.1)
            while sqlite3_step(statement) == SQLITE_ROW {
                if let blob = sqlite3_column_blob(statement, 0) {
                    bytes += Int(sqlite3_column_bytes(statement, 0)) + Int(blob.load(as: UInt8.self))
                }
            }
            sqlite3_reset(statement)
        }
        if ranges.count > 1 { sqlite3_exec(database, "COMMIT", nil, nil, nil) }
        return bytes
    }
}

func measureFloor(directory: String, radius: Double) throws {
    let path = directory + "/clustered-1m.sqlite"
    let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
    let queries = try loadQueries(directory: directory)
    let reader = RowReader(path: path)
    var kindNames: [String] = []
    var kindCodes: [String: UInt16] = [:]
    var prepared: [(ranges: [(Int64, Int64)], bytes: ResultBytes)] = []
    for center in queries {
        let result = try index.places(near: center, within: radius)
        for hit in result where kindCodes[hit.place.kind] == nil {
            kindCodes[hit.place.kind] = UInt16(kindNames.count)
            kindNames.append(hit.place.kind)
        }
        prepared.append((try index.rowRanges(near: center, within: radius), ResultBytes(result, kindCodes: kindCodes)))
    }
    let clock = ContinuousClock()
    var query = [Double](repeating: .infinity, count: queries.count)
    var rows = query, distances = query, build = query, sum = query
    var sink = 0.0
    for _ in 0..<repetitions {
        for (number, center) in queries.enumerated() {
            query[number] = min(query[number], try timedQuery(index, center, radius, clock).microseconds)

            var start = clock.now
            sink += Double(reader.read(prepared[number].ranges))
            var end = clock.now
            let rowTime = microseconds(end - start)
            rows[number] = min(rows[number], rowTime)

            // The real query has these bytes in cache, just copied from the rows: so here too.
            sink += prepared[number].bytes.touch()
            start = clock.now
            sink += measureDistances(HaversineOrigin(center), prepared[number].bytes)
            end = clock.now
            let distanceTime = microseconds(end - start)
            distances[number] = min(distances[number], distanceTime)

            sink += prepared[number].bytes.touch()
            start = clock.now
            let built = buildResult(prepared[number].bytes, kindNames: kindNames)
            end = withExtendedLifetime(built) { clock.now }
            let buildTime = microseconds(end - start)
            build[number] = min(build[number], buildTime)
            sum[number] = min(sum[number], rowTime + distanceTime + buildTime)
        }
    }
    func median(_ values: [Double]) -> String { DecimalText.fixed(percentile(values.sorted(), 0.5), decimals: 1) }
    print("radius \(Int(radius)) m, \(queries.count) queries, fastest of \(repetitions) each, p50 µs (sink \(sink > 0)):")
    print("| part | p50 µs |")
    print("|---|---:|")
    print("| the query (`places(near:within:)`) | \(median(query)) |")
    print("| rows: SQLite reading the query's row ranges | \(median(rows)) |")
    print("| distances of the returned places only | \(median(distances)) |")
    print("| build: the `[NearbyPlace]` from the places' bytes | \(median(build)) |")
    print("| floor: rows + distances + build, per query | \(median(sum)) |")
}
