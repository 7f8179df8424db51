// MapBenchmark: a 24-hour, 1 Hz walk through MapViewModel in virtual time against the 144k
// GeoNames places, 5 km radius. Target (issue 6): at most 1 s, that is at least 86,400× real time.
//
//   LOCSIM_BENCHMARKS=1 swift run -c release MapBenchmark [--runs 5] [--python-runs 3] [--output docs/benchmarks/map.md]
//       [--command .build-release/release/locsim [--baseline-command OTHER/locsim]] [--command-runs 10]
//
// Variants, measured side by side in the same run (median wall time of --runs):
//   replay + SQLite index      MapReplay (MapViewModel driven in virtual time) against LocationIndex's
//                              OfflineLocationRepository over the imported places: the target
//   replay + in-memory index   the same against InMemoryNearbyIndex (LocationTestSupport)
//   throttle loop + SQLite     FetchThrottle alone against the SQLite index: the floor, without the model
//   python + numpy             the same replay in Python (map_replay_reference.py), loading excluded
// All variants must make the same fetches and answer the same number of places.
//
// With --command, the same walk (written as a GPX file) and the same SQLite index go through the
// command itself, `locsim replay WALK.gpx --fast --format jsonl --db INDEX > OUT`, timed by
// hyperfine (wall time including process start, GPX read and index open; --command-runs runs
// after one warm-up). Its summary must count the library's fetches; with --baseline-command
// (another build, main's say) both are timed in the same hyperfine run and their outputs must be
// byte-identical.
//
// Then the encounter check (`locsim replay`'s, reach 40 m) over one replay's events (the replay
// untimed, the check timed): EncounterTracker measuring every place on the map at every fix
// (update(position:places:)) against the same tracker given the places when the map changes
// (places + update(position:)), for the GeoNames walk above and for the same meander from the
// Mission over geodata/sf-mission.csv (about 2,500 places in a few km²). Both must meet the same
// places at the same fixes, at the same distances.

import Foundation
import GPXFormat
import LocationCore
import LocationIndex
import LocationTestSupport
import MapFeature

// MARK: Options

struct Options {
    var runs = 5
    var pythonRuns = 3
    var output: String?
    var command: String?
    var baselineCommand: String?
    var commandRuns = 10
    var sharedData = ProcessInfo.processInfo.environment["LOCSIM_SHARED_DATA"] ?? "../shared/data"

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            func value() throws -> String {
                guard let value = iterator.next() else { throw BenchmarkError("\(argument) needs a value") }
                return value
            }
            switch argument {
            case "--runs": runs = try Int(value()).flatMap { $0 > 0 ? $0 : nil } ?? { throw BenchmarkError("--runs needs a positive integer") }()
            case "--python-runs": pythonRuns = try Int(value()).flatMap { $0 >= 0 ? $0 : nil } ?? { throw BenchmarkError("--python-runs needs an integer ≥ 0") }()
            case "--output": output = try value()
            case "--command": command = try value()
            case "--baseline-command": baselineCommand = try value()
            case "--command-runs": commandRuns = try Int(value()).flatMap { $0 > 0 ? $0 : nil } ?? { throw BenchmarkError("--command-runs needs a positive integer") }()
            case "--shared-data": sharedData = try value()
            default: throw BenchmarkError("unknown argument \(argument)")
            }
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: Inputs

/// GeoNames cities1000 (lat,lon,name,admin1,admin2,cc), ids `row<N>`.
func loadGeoNames(_ path: String) throws -> [Place] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var places: [Place] = []
    places.reserveCapacity(150_000)
    for (number, line) in text.split(whereSeparator: \.isNewline).enumerated().dropFirst() {
        // Only the first two fields are needed, and they are never quoted.
        let fields = line.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let latitude = Double(fields[0]), let longitude = Double(fields[1]) else {
            throw BenchmarkError("\(path):\(number + 1): expected lat,lon,…")
        }
        places.append(Place(id: "row\(number)", name: "", coordinate: try Coordinate(latitude: latitude, longitude: longitude)))
    }
    return places
}

/// A seeded meander from Zürich HB: 1.4 m/s, one fix a second for 24 hours, the heading drifting
/// by up to ±30° every minute.
func makeWalk(from origin: Coordinate = Coordinate(uncheckedLatitude: 47.3779, longitude: 8.5403)) -> [Fix] {
    var state: UInt64 = 20_261_121
    func unit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) * 0x1.0p-53
    }
    let script = FixScript(origin: origin)
    var position = script.origin, bearing = 200.0
    var fixes: [Fix] = []
    fixes.reserveCapacity(86_400)
    for second in 0..<86_400 {
        if second % 60 == 0 { bearing = (bearing + unit() * 60 - 30 + 360).truncatingRemainder(dividingBy: 360) }
        fixes.append(script.fix(at: Double(second), coordinate: position))
        position = position.destination(distance: 1.4, bearing: bearing)
    }
    return fixes
}

// MARK: Measuring

struct Outcome: Equatable {
    var fetches: Int
    var answered: Int
}

struct Measurement {
    var name: String
    var seconds: [Double]
    var outcome: Outcome
    var median: Double { seconds.sorted()[seconds.count / 2] }
}

func seconds(_ duration: Duration) -> Double {
    duration.fractionalSeconds
}

@MainActor
func measureReplay(_ name: String, runs: Int, repository: any LocationRepository, walk: [Fix]) async -> Measurement {
    var times: [Double] = []
    var outcome = Outcome(fetches: 0, answered: 0)
    for _ in 0..<runs {
        let clock = ContinuousClock()
        let start = clock.now
        let log = await MapReplay(repository: repository).run(fixes: walk)
        times.append(seconds(start.duration(to: clock.now)))
        outcome = Outcome(fetches: log.fetches.count, answered: log.answers.reduce(0) { $0 + $1.count })
    }
    return Measurement(name: name, seconds: times, outcome: outcome)
}

func measureThrottleLoop(_ name: String, runs: Int, index: NearbyIndex, walk: [Fix]) throws -> Measurement {
    var times: [Double] = []
    var outcome = Outcome(fetches: 0, answered: 0)
    for _ in 0..<runs {
        let clock = ContinuousClock()
        let start = clock.now
        var throttle = FetchThrottle()
        var fetches = 0, answered = 0
        for fix in walk {
            guard case .fetch = throttle.decision(for: fix), let center = fix.coordinate else { continue }
            throttle.recordFetch(center: center, at: fix.time)
            answered += try index.places(near: center, within: 5_000).count
            throttle.recordSuccess()
            fetches += 1
        }
        times.append(seconds(start.duration(to: clock.now)))
        outcome = Outcome(fetches: fetches, answered: answered)
    }
    return Measurement(name: name, seconds: times, outcome: outcome)
}

/// One run of the encounter check: what was met, as (fix number, place id) in order.
struct EncounterOutcome: Equatable {
    var fixes = 0
    var placesOnMap = 0
    var met: [(fix: Int, id: String, distanceBits: UInt64)] = []
    static func == (a: Self, b: Self) -> Bool {
        a.fixes == b.fixes && a.placesOnMap == b.placesOnMap
            && a.met.elementsEqual(b.met) { $0.fix == $1.fix && $0.id == $1.id && $0.distanceBits == $1.distanceBits }
    }
}

/// How the encounter check is done.
enum EncounterCheck {
    /// No check: the event loop and the map bookkeeping alone.
    case none
    /// `update(position:places:)` with every place on the map, at every fix.
    case everyPlace
    /// `places` set when the map changes, then `update(position:)`.
    case prefiltered
}

/// Feeds a replay's events to an EncounterTracker as `locsim replay` does.
func measureEncounters(runs: Int, events: [MapEvent], check: EncounterCheck) throws -> (seconds: [Double], outcome: EncounterOutcome) {
    var times: [Double] = []
    var outcome = EncounterOutcome()
    for _ in 0..<runs {
        let clock = ContinuousClock()
        let start = clock.now
        var tracker = try EncounterTracker(reach: 40)
        var onMap: [String: Place] = [:]
        var changed = false
        var run = EncounterOutcome()
        for event in events {
            switch event.kind {
            case .placesAppeared(let places):
                for place in places { onMap[place.id] = place }
                changed = true
            case .placesDisappeared(let places):
                for place in places { onMap.removeValue(forKey: place.id) }
                changed = true
            case .placesChanged(let places):
                for place in places { onMap[place.id] = place }
                changed = true
            case .fixAccepted(let fix):
                guard let position = fix.coordinate else { continue }
                let met: [EncounterTracker.Encounter]
                switch check {
                case .none:
                    met = []
                case .everyPlace:
                    met = tracker.update(position: position, places: onMap.values)
                case .prefiltered:
                    if changed {
                        tracker.places = Array(onMap.values)
                        changed = false
                    }
                    met = tracker.update(position: position)
                }
                run.placesOnMap += onMap.count
                for encounter in met { run.met.append((run.fixes, encounter.place.id, encounter.distance.bitPattern)) }
                run.fixes += 1
            default:
                continue
            }
        }
        times.append(seconds(start.duration(to: clock.now)))
        outcome = run
    }
    return (times, outcome)
}

func measurePython(runs: Int, walk: [Fix], placesPath: String) throws -> Measurement? {
    guard runs > 0 else { return nil }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("map-benchmark-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let walkPath = directory.appendingPathComponent("walk.csv").path
    let epoch = walk[0].time
    var csv = ""
    for fix in walk {
        guard let coordinate = fix.coordinate else { continue }
        csv += "\(fix.time.timeIntervalSince(epoch)),\(coordinate.latitude),\(coordinate.longitude)\n"
    }
    try csv.write(toFile: walkPath, atomically: true, encoding: .utf8)
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("map_replay_reference.py").path
    var times: [Double] = []
    var outcome = Outcome(fetches: 0, answered: 0)
    for _ in 0..<runs {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, walkPath, placesPath, "5000"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("\(script) exited with \(process.terminationStatus)") }
        struct Result: Decodable { var seconds: Double; var fetches: Int; var answered: Int }
        let result = try JSONDecoder().decode(Result.self, from: data)
        times.append(result.seconds)
        outcome = Outcome(fetches: result.fetches, answered: result.answered)
    }
    return Measurement(name: "python + numpy (loop only)", seconds: times, outcome: outcome)
}

// MARK: The command

/// One command measured by hyperfine.
struct CommandMeasurement {
    var name: String
    var commandLine: String
    var seconds: [Double]
    var user: Double
    var system: Double
    var output: Data
    var median: Double { seconds.sorted()[seconds.count / 2] }
}

/// Writes `walk` as a GPX track, then times `locsim replay WALK --fast --format jsonl --db INDEX > OUT`
/// with hyperfine for each binary, in one hyperfine run.
func measureCommands(_ binaries: [(name: String, path: String)], runs: Int, walk: [Fix], databasePath: String) throws -> [CommandMeasurement] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("map-benchmark-command-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let walkPath = directory.appendingPathComponent("walk.gpx").path
    let writer = try GPXWriter(path: walkPath, creator: "MapBenchmark")
    for fix in walk { try writer.write(fix) }
    try writer.finish()
    let commands = binaries.enumerated().map { index, binary in
        (binary.name, "\(binary.path) replay \(walkPath) --fast --format jsonl --db \(databasePath) > \(directory.path)/out\(index).jsonl")
    }
    let json = directory.appendingPathComponent("hyperfine.json").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["hyperfine", "--warmup", "1", "--runs", String(runs), "--export-json", json, "--style", "basic"]
        + commands.flatMap { ["--command-name", $0.0, $0.1] }
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkError("hyperfine exited with \(process.terminationStatus)") }
    struct Report: Decodable {
        struct Result: Decodable { var times: [Double]; var user: Double; var system: Double }
        var results: [Result]
    }
    let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
    return try zip(commands, report.results).enumerated().map { index, pair in
        let output = try Data(contentsOf: directory.appendingPathComponent("out\(index).jsonl"))
        return CommandMeasurement(name: pair.0.0, commandLine: pair.0.1, seconds: pair.1.times, user: pair.1.user,
                                  system: pair.1.system, output: output)
    }
}

/// The `fetches` of the command's jsonl summary (its last line).
func summaryFetches(_ output: Data) -> Int? {
    guard let last = String(decoding: output, as: UTF8.self).split(separator: "\n").last,
          let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
    else { return nil }
    return object["fetches"] as? Int
}

func hyperfineVersion() -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["hyperfine", "--version"]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return "" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "hyperfine ", with: "")
}

// MARK: Main

@MainActor
func main() async throws {
    let options = try Options(CommandLine.arguments)
    let placesPath = options.sharedData + "/places/geonames-cities1000.csv"
    guard FileManager.default.fileExists(atPath: placesPath) else {
        throw BenchmarkError("needs \(placesPath) (run from the package root, or pass --shared-data DIR)")
    }
    let clock = ContinuousClock()
    var start = clock.now
    let places = try loadGeoNames(placesPath)
    let memoryIndex = InMemoryNearbyIndex(places: places)
    let loadSeconds = seconds(start.duration(to: clock.now))
    start = clock.now
    let databasePath = FileManager.default.temporaryDirectory.appendingPathComponent("map-benchmark-\(getpid()).sqlite").path
    defer {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }
    let index = try NearbyIndex(path: databasePath)
    try index.importPlaces(fromFile: placesPath, options: ImportOptions(format: .geoNames))
    let importSeconds = seconds(start.duration(to: clock.now))
    start = clock.now
    let walk = makeWalk()
    let walkSeconds = seconds(start.duration(to: clock.now))
    print("loaded \(places.count) places in \(DecimalText.fixed(loadSeconds, decimals: 2)) s, imported them into SQLite in \(DecimalText.fixed(importSeconds, decimals: 2)) s; walk of \(walk.count) fixes in \(DecimalText.fixed(walkSeconds, decimals: 2)) s")

    var measurements: [Measurement] = []
    measurements.append(await measureReplay("MapViewModel replay + SQLite index", runs: options.runs,
                                            repository: OfflineLocationRepository(index: index), walk: walk))
    measurements.append(await measureReplay("MapViewModel replay + in-memory index", runs: options.runs, repository: memoryIndex, walk: walk))
    measurements.append(try measureThrottleLoop("FetchThrottle loop + SQLite index (floor)", runs: options.runs, index: index, walk: walk))
    if let python = try measurePython(runs: options.pythonRuns, walk: walk, placesPath: placesPath) { measurements.append(python) }
    var binaries: [(name: String, path: String)] = []
    if let baseline = options.baselineCommand { binaries.append(("locsim replay (baseline build)", baseline)) }
    if let command = options.command { binaries.append(("locsim replay (this build)", command)) }
    let commandMeasurements = binaries.isEmpty ? [] : try measureCommands(binaries, runs: options.commandRuns, walk: walk, databasePath: databasePath)

    // The encounter check, over the events of one replay per place set (not timed).
    let missionCSV = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../geodata/sf-mission.csv").standardized.path
    let missionDatabase = databasePath + "-mission"
    defer {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: missionDatabase + suffix) }
    }
    let missionIndex = try NearbyIndex(path: missionDatabase)
    try missionIndex.importPlaces(fromFile: missionCSV, options: ImportOptions(format: .csv))
    let missionWalk = makeWalk(from: Coordinate(uncheckedLatitude: 37.7599, longitude: -122.4148))
    let encounterInputs: [(name: String, events: [MapEvent])] = [
        ("GeoNames, Zürich walk", await MapReplay(repository: OfflineLocationRepository(index: index)).run(fixes: walk).events),
        ("geodata/sf-mission.csv, Mission walk", await MapReplay(repository: OfflineLocationRepository(index: missionIndex)).run(fixes: missionWalk).events),
    ]
    var encounterRows: [String] = []
    var encountersAgree = true
    for input in encounterInputs {
        let floor = try measureEncounters(runs: options.runs, events: input.events, check: .none)
        let every = try measureEncounters(runs: options.runs, events: input.events, check: .everyPlace)
        let filtered = try measureEncounters(runs: options.runs, events: input.events, check: .prefiltered)
        encountersAgree = encountersAgree && every.outcome == filtered.outcome
        for (variant, result) in [("no check (event loop alone)", floor), ("every place at every fix", every), ("prefiltered (cells)", filtered)] {
            let median = result.seconds.sorted()[result.seconds.count / 2]
            let everyMedian = every.seconds.sorted()[every.seconds.count / 2]
            let runs = result.seconds.map { DecimalText.fixed($0, decimals: 3) }.joined(separator: ", ")
            let meanOnMap = Double(result.outcome.placesOnMap) / Double(max(1, result.outcome.fixes))
            encounterRows.append("| \(input.name) | \(variant) | \(DecimalText.fixed(median, decimals: 3)) | \(runs) | \(result.outcome.fixes) | \(DecimalText.fixed(meanOnMap, decimals: 0)) | \(result.outcome.met.count) | \(DecimalText.fixed(median / everyMedian, decimals: 2))× |")
        }
    }

    let reference = measurements[0]
    var lines: [String] = []
    lines.append("# Map replay: 24 h at 1 Hz through MapViewModel")
    lines.append("")
    lines.append("Command: `LOCSIM_BENCHMARKS=1 swift run -c release MapBenchmark --runs \(options.runs) --python-runs \(options.pythonRuns)`")
    lines.append("(release build; median wall time of the runs; loading and importing the places and building the walk are not timed).")
    lines.append("")
    lines.append("Input: a seeded 24-hour walk from Zürich HB at 1.4 m/s, \(walk.count) fixes one second apart;")
    lines.append("\(places.count) GeoNames cities1000 places (`../shared/data/places`, imported into a temporary SQLite index with")
    lines.append("`NearbyIndex.importPlaces(fromFile:)`, and held in an `InMemoryNearbyIndex`); radius 5,000 m; the game's rule")
    lines.append("(first, > 100 m, > 30 s); an instant server (the harness's latency zero).")
    lines.append("")
    lines.append("Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, shared and noisy, so compare ratios.")
    lines.append("")
    lines.append("| variant | median (s) | runs (s) | fetches | places answered | × real time | vs. the replay |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for measurement in measurements {
        let runs = measurement.seconds.map { DecimalText.fixed($0, decimals: 3) }.joined(separator: ", ")
        let speedup = 86_400 / measurement.median
        let ratio = measurement.median / reference.median
        lines.append("| \(measurement.name) | \(DecimalText.fixed(measurement.median, decimals: 3)) | \(runs) | \(measurement.outcome.fetches) | \(measurement.outcome.answered) | \(DecimalText.fixed(speedup, decimals: 0))× | \(DecimalText.fixed(ratio, decimals: 2))× |")
    }
    let agree = measurements.allSatisfy { $0.outcome == reference.outcome }
    lines.append("")
    lines.append("What the replay adds over the floor: every fix goes through `MapViewModel` (the session, the")
    lines.append("observable properties, one `MapEvent` per fix kept in the log, 86,400 of them), and every fetch is")
    lines.append("an `async` call to the repository and back to the main actor. The Python loop does the rule and a")
    lines.append("vectorised scan per fetch, nothing else.")
    lines.append("")
    lines.append("All variants made the same fetches and answered the same places: \(agree ? "yes" : "NO").")
    lines.append("Target (issue 6): the MapViewModel replay in at most 1 s (≥ 86,400× real time): \(reference.median <= 1 ? "met" : "NOT met") (\(DecimalText.fixed(reference.median, decimals: 3)) s).")
    lines.append("")
    if !commandMeasurements.isEmpty {
        lines.append("## The command: `locsim replay` of the same walk")
        lines.append("")
        lines.append("Command: the above with `--command \(options.command ?? "-")\(options.baselineCommand.map { " --baseline-command \($0)" } ?? "") --command-runs \(options.commandRuns)`;")
        lines.append("hyperfine \(hyperfineVersion()) times `locsim replay WALK.gpx --fast --format jsonl --db INDEX > OUT.jsonl` (one warm-up,")
        lines.append("then \(options.commandRuns) runs; wall time including process start, reading the GPX file and opening the index), with the walk")
        lines.append("above written as GPX (`GPXWriter`) and the same SQLite index.")
        lines.append("")
        lines.append("| command | median (s) | runs (s) | user (s, mean) | system (s, mean) | fetches | output bytes | × real time | vs. the library replay |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for measurement in commandMeasurements {
            let runs = measurement.seconds.map { DecimalText.fixed($0, decimals: 3) }.joined(separator: ", ")
            let fetches = summaryFetches(measurement.output).map(String.init) ?? "?"
            lines.append("| \(measurement.name) | \(DecimalText.fixed(measurement.median, decimals: 3)) | \(runs) | \(DecimalText.fixed(measurement.user, decimals: 3)) | \(DecimalText.fixed(measurement.system, decimals: 3)) | \(fetches) | \(measurement.output.count) | \(DecimalText.fixed(86_400 / measurement.median, decimals: 0))× | \(DecimalText.fixed(measurement.median / reference.median, decimals: 2))× |")
        }
        let this = commandMeasurements.last!
        let fetchesAgree = commandMeasurements.allSatisfy { summaryFetches($0.output) == reference.outcome.fetches }
        let bytesAgree = commandMeasurements.allSatisfy { $0.output == commandMeasurements[0].output }
        lines.append("")
        lines.append("The command made the library's fetches: \(fetchesAgree ? "yes" : "NO").")
        if commandMeasurements.count > 1 { lines.append("Both builds wrote byte-identical output: \(bytesAgree ? "yes" : "NO").") }
        lines.append("Target (issue 17, item 6): the command in at most 1 s: \(this.median <= 1 ? "met" : "NOT met") (\(DecimalText.fixed(this.median, decimals: 3)) s).")
        lines.append("")
        guard fetchesAgree, bytesAgree else { throw BenchmarkError("the command's output disagrees (fetches or bytes)") }
    }
    lines.append("## The encounter check (`locsim replay`, reach 40 m)")
    lines.append("")
    lines.append("The replays above do not check encounters: `MapViewModel` has no tracker; `locsim replay`")
    lines.append("feeds each accepted fix and the places on the map to an `EncounterTracker`. Here the events of one")
    lines.append("replay (not timed) go through that check, either measuring every place on the map at every fix")
    lines.append("(`update(position:places:)`) or giving the tracker the places when the map changes (`places`, bucketed")
    lines.append("in cells of the reach) and checking only the nearby ones (`update(position:)`). The second walk is the")
    lines.append("same seeded meander from the middle of the Mission, over `geodata/sf-mission.csv`.")
    lines.append("")
    lines.append("| places | check | median (s) | runs (s) | fixes | places on the map (mean) | encounters | vs. every place |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|")
    lines += encounterRows
    lines.append("")
    lines.append("Both checks met the same places at the same fixes, at the same distances: \(encountersAgree ? "yes" : "NO").")
    let report = lines.joined(separator: "\n") + "\n"
    print(report)
    if let output = options.output { try report.write(toFile: output, atomically: true, encoding: .utf8) }
    guard agree else { throw BenchmarkError("the variants disagree: \(measurements.map { "\($0.name): \($0.outcome)" })") }
    guard encountersAgree else { throw BenchmarkError("the two encounter checks disagree") }
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("MapBenchmark: \(error)\n".utf8))
    exit(1)
}
