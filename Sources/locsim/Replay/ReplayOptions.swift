import ArgumentParser
import Foundation
import LocationCore
import LocationIndex
import LocationSimulation
import MapFeature

/// Where places come from: the default offline index, another index, or the game server.
struct PlaceSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Use this offline index (see 'locsim index import') instead of the default one.", valueName: "path"))
    var db: String?

    @Option(help: ArgumentHelp("Use the game's server: GET {URL}/locations/nearby?lat=&lng=&radius=.", valueName: "url"))
    var online: String?

    @Option(help: ArgumentHelp("Bearer token for --online.", valueName: "token"))
    var token: String?

    @Option(
        help: ArgumentHelp(
            "Place CSVs for the default index, used without --db or --online (default: $LOCSIM_GEODATA, ./geodata, or the source tree's).",
            valueName: "dir"))
    var geodata: String?

    func validate() throws {
        if db != nil && online != nil { throw ValidationError("give either --db or --online, not both") }
        if token != nil && online == nil { throw ValidationError("--token only applies with --online") }
        if let online, URL(string: online)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--online needs an http:// or https:// URL, got '\(online)'")
        }
    }

    func repository() throws -> any LocationRepository {
        if let online, let url = URL(string: online) {
            return try HTTPLocationRepository(baseURL: url, token: token)
        }
        if let db {
            return OfflineLocationRepository(index: try NearbyIndex(path: db, configuration: .init(access: .readOnly)))
        }
        return OfflineLocationRepository(index: try DefaultPlaceDatabase.open(geodataDirectory: geodataDirectory))
    }

    var geodataDirectory: String { resolvedGeodataDirectory(geodata) }
}

/// How fast, from where and how often fixes are played.
struct TimingOptions: ParsableArguments {
    @Option(help: "Play at this multiple of real time (0.1...1000). Default: real time.")
    var speed: Double?

    @Flag(help: "Virtual time: as fast as possible, fix times unchanged; the jsonl log is reproducible byte for byte.")
    var fast = false

    @Option(help: ArgumentHelp("Resample at this rate in Hz (1 Hz is what CoreLocation delivers). Default: the recorded points.", valueName: "hz"))
    var rate: Double?

    @Flag(help: "Play lap after lap until interrupted; time keeps running forward.")
    var loop = false

    @Option(help: ArgumentHelp("Start this far into the walk: seconds, m:ss or h:mm:ss.", valueName: "offset"))
    var start: String?

    @Option(help: ArgumentHelp("Add seeded GPS-like noise: per-axis sigma in metres.", valueName: "sigma"))
    var noise: Double?

    @Option(help: "Seed of the noise.")
    var seed: UInt64 = 1

    func validate() throws {
        if let speed { try validateSpeed(speed) }
        if fast && speed != nil { throw ValidationError("--fast and --speed exclude each other") }
        if let rate, !(rate.isFinite && rate >= 0.001 && rate <= 100) {
            throw ValidationError("--rate must be between 0.001 and 100 Hz, got \(rate)")
        }
        if let noise, !(noise.isFinite && noise >= 0) {
            throw ValidationError("--noise must be a sigma in metres ≥ 0, got \(noise)")
        }
        if let start, parseOffset(start) == nil {
            throw ValidationError("--start must be seconds, m:ss or h:mm:ss, got '\(start)'")
        }
    }

    func replayConfiguration(pacing: Pacing) -> GPXReplay<ContinuousClock>.Configuration {
        GPXReplay<ContinuousClock>.Configuration(
            pacing: pacing, rate: rate, startOffset: start.flatMap(parseOffset) ?? 0, loops: loop,
            noise: noise.map { NoiseModel(seed: seed, sigma: $0) })
    }
}

/// Parses `90`, `1:30`, `1:02:03` or `90.5` into seconds.
func parseOffset(_ text: String) -> Double? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var total = 0.0
    for (i, part) in parts.enumerated() {
        guard let value = Double(part), value.isFinite, value >= 0 else { return nil }
        if i > 0 && value >= 60 { return nil }
        total = total * 60 + value
    }
    return total
}

/// The map rule's numbers.
struct MapLogicOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Fetch radius in metres.", valueName: "m"))
    var radius: Double = 5000

    @Option(help: ArgumentHelp("Fetch when the player moved more than this many metres since the last fetch.", valueName: "m"))
    var throttleDistance: Double = 100

    @Option(help: ArgumentHelp("Fetch when more than this many seconds passed since the last fetch.", valueName: "s"))
    var throttleInterval: Double = 30

    @Option(help: ArgumentHelp("Ignore fixes whose horizontal accuracy is worse than this many metres.", valueName: "m"))
    var minAccuracy: Double = 100

    @Option(help: ArgumentHelp("Encounter distance in metres.", valueName: "m"))
    var reach: Double = 40

    func validate() throws {
        guard radius.isFinite, radius > 0 else { throw ValidationError("--radius must be > 0 metres, got \(radius)") }
        guard throttleDistance.isFinite, throttleDistance >= 0 else {
            throw ValidationError("--throttle-distance must be ≥ 0 metres, got \(throttleDistance)")
        }
        guard throttleInterval.isFinite, throttleInterval >= 0 else {
            throw ValidationError("--throttle-interval must be ≥ 0 seconds, got \(throttleInterval)")
        }
        guard minAccuracy > 0 else { throw ValidationError("--min-accuracy must be > 0 metres, got \(minAccuracy)") }
        guard reach.isFinite, reach > 0 else { throw ValidationError("--reach must be > 0 metres, got \(reach)") }
    }

    func throttleConfiguration() throws -> FetchThrottle.Configuration {
        try FetchThrottle.Configuration(
            minimumDistance: throttleDistance, minimumInterval: .milliseconds(Int64((throttleInterval * 1000).rounded())),
            radius: radius, maximumHorizontalAccuracy: minAccuracy)
    }
}
