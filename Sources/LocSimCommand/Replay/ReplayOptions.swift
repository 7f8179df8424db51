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

    @Option(help: ArgumentHelp("Bearer token for --online (or use --token-file, or $LOCSIM_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("Read the --online bearer token from this file.", valueName: "path"))
    var tokenFile: String?

    @Option(
        help: ArgumentHelp(
            "Place CSVs for the default index, used without --db or --online (default: \(DefaultIndex.geodataSearch)).",
            valueName: "dir"))
    var geodata: String?

    func validate() throws {
        if db != nil && online != nil { throw ValidationError("give either --db or --online, not both") }
        if geodata != nil && (db != nil || online != nil) {
            throw ValidationError("--geodata builds the default index, which \(db != nil ? "--db" : "--online") replaces: give one of them")
        }
        if (token != nil || tokenFile != nil) && online == nil {
            throw ValidationError("\(token != nil ? "--token" : "--token-file") only applies with --online")
        }
        if online != nil { _ = try validateBearerToken(flag: token, file: tokenFile) }
        if let online, URL(string: online)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--online needs an http:// or https:// URL, got '\(online)'")
        }
    }

    /// The flags given, for a command that uses places only in one mode (`simulate` without `--map`).
    var given: [String] {
        [("--db", db), ("--online", online), ("--token", token), ("--token-file", tokenFile), ("--geodata", geodata)]
            .compactMap { flag, value in value.map { _ in flag } }
    }

    func repository() throws -> any LocationRepository {
        if let online, let url = URL(string: online) {
            return try HTTPLocationRepository(baseURL: url, token: try bearerToken(flag: token, file: tokenFile))
        }
        return OfflineLocationRepository(index: try DefaultIndex.open(db: db, geodata: geodata))
    }

    /// Ends an `--online` run that never got an answer with exit status 1, as docs/reference/command.md
    /// promises for a server that is down: the timeline and summary are printed (each failure
    /// with its reason) before this says so.
    ///
    /// - Throws: ``CommandFailure`` when there were fetches and every one failed.
    @MainActor
    func requireAnAnswer(_ recorder: ReplayRecorder) throws(CommandFailure) {
        guard let online else { return }
        let failures = recorder.trace.failures
        guard recorder.answers == 0, let last = failures.last else { return }
        throw CommandFailure(
            "every fetch from \(online) failed (\(failures.count) attempt\(failures.count == 1 ? "" : "s")); the last: \(last.error)",
            hint: "check that the server is up and answers GET \(online)/locations/nearby, or leave out --online for the offline index")
    }
}

/// How fast, from where and how often fixes are played.
struct TimingOptions: ParsableArguments {
    @Option(number: "Play at this multiple of real time (0.1...1000). Default: real time.")
    var speed: Double?

    @Flag(help: "Virtual time: as fast as possible, fix times unchanged; the jsonl log is reproducible byte for byte.")
    var fast = false

    @Option(number: ArgumentHelp("Resample at this rate in Hz (1 Hz is what CoreLocation delivers). Default: the recorded points.", valueName: "hz"))
    var rate: Double?

    @Flag(help: "Play lap after lap until interrupted; time keeps running forward.")
    var loop = false

    @Option(duration: "Start this far into the walk: 90, 49:00, 1:02:03, 5m.")
    var start: DurationArgument?

    @Option(number: ArgumentHelp("Add seeded GPS-like noise: per-axis sigma in metres.", valueName: "sigma"))
    var noise: Double?

    @Option(seed: "Seed of the noise.", default: TimingOptions.defaultSeed)
    var seed: UInt64?

    static let defaultSeed: UInt64 = 1

    /// The file-only options given (`--fast`, `--speed`, … `--noise`, `--seed`), for a live
    /// source that would ignore them.
    var given: [String] {
        [
            ("--fast", fast), ("--speed", speed != nil), ("--rate", rate != nil), ("--loop", loop), ("--start", start != nil),
            ("--noise", noise != nil), ("--seed", seed != nil),
        ].compactMap { flag, given in given ? flag : nil }
    }

    func validate() throws {
        if let speed { try validateSpeed(speed) }
        if fast && speed != nil { throw ValidationError("--fast and --speed exclude each other") }
        if let rate { try checkOption(rate, in: OptionRange.rate, flag: "--rate", unit: "Hz") }
        if let noise { try checkOption(noise, in: OptionRange.noise, flag: "--noise", unit: "metres") }
    }

    /// A GPX point's `<hdop>` is its accuracy by gpsd's model (19 m per HDOP), as an NMEA log's
    /// HDOP is and as `locsim gpsd --record` writes it: a recording replays with the accuracy it
    /// was made with, whatever its format.
    func replayConfiguration(pacing: Pacing) -> GPXReplay<ContinuousClock>.Configuration {
        GPXReplay<ContinuousClock>.Configuration(
            pacing: pacing, rate: rate, startOffset: start?.seconds ?? 0, loops: loop,
            noise: noiseModel(sigma: noise, seed: seed ?? Self.defaultSeed), horizontalAccuracyPerHDOP: NMEALog.horizontalAccuracyPerHDOP)
    }
}

/// The receiver model for `--noise SIGMA --seed N`: none without `--noise` and for `--noise 0`
/// (no noise at all, not a zero-sigma receiver that still warms up from 50 m).
func noiseModel(sigma: Double?, seed: UInt64) -> NoiseModel? {
    guard let sigma, sigma > 0 else { return nil }
    return NoiseModel(seed: seed, sigma: sigma)
}

/// The map rule's numbers.
struct MapLogicOptions: ParsableArguments {
    @Option(number: ArgumentHelp("Fetch radius in metres.", valueName: "m"))
    var radius: Double = Defaults.radius

    @Option(number: ArgumentHelp("Fetch when the player moved more than this many metres since the last fetch.", valueName: "m"))
    var throttleDistance: Double = Defaults.throttleDistance

    @Option(duration: "Fetch when more than this long passed since the last fetch (default 30s).")
    var throttleInterval: DurationArgument = .seconds(Defaults.throttleIntervalSeconds)

    @Option(number: ArgumentHelp("Ignore fixes whose horizontal accuracy is worse than this many metres (inf: keep every fix).", valueName: "m"), infinity: true)
    var minAccuracy: Double = Defaults.minAccuracy

    @Option(number: ArgumentHelp("Encounter distance in metres.", valueName: "m"))
    var reach: Double = Defaults.reach

    func validate() throws {
        try checkOption(radius, in: OptionRange.radius, flag: "--radius", unit: "metres")
        try checkOption(throttleDistance, in: OptionRange.throttleDistance, flag: "--throttle-distance", unit: "metres")
        try checkOption(throttleInterval, in: OptionRange.throttleInterval, flag: "--throttle-interval")
        // Infinity is allowed: accept every fix, whatever its accuracy.
        guard minAccuracy > 0 else { throw ValidationError("--min-accuracy must be > 0 metres (inf accepts every fix), got \(PeopleText.number(minAccuracy))") }
        try checkOption(reach, in: OptionRange.reach, flag: "--reach", unit: "metres")
    }

    /// The flags whose values differ from their defaults, for a command that runs the map logic
    /// only in one mode (`simulate` without `--map`).
    var changed: [String] {
        [
            ("--radius", radius != Defaults.radius), ("--throttle-distance", throttleDistance != Defaults.throttleDistance),
            ("--throttle-interval", throttleInterval.duration != .seconds(Defaults.throttleIntervalSeconds)),
            ("--min-accuracy", minAccuracy != Defaults.minAccuracy), ("--reach", reach != Defaults.reach),
        ].compactMap { flag, changed in changed ? flag : nil }
    }

    /// The game's rule (the seed's MapViewModel) and the encounter distance.
    private enum Defaults {
        static let radius = 5000.0, throttleDistance = 100.0, throttleIntervalSeconds = 30, minAccuracy = 100.0, reach = 40.0
    }

    /// The rule's configuration, with a scenario's `game.maximumFixAge` when given; call after
    /// ``validate()``.
    func throttleConfiguration(maximumFixAge: Duration? = nil) throws -> FetchThrottle.Configuration {
        try FetchThrottle.Configuration(
            minimumDistance: throttleDistance, minimumInterval: throttleInterval.duration,
            radius: radius, maximumHorizontalAccuracy: minAccuracy, maximumFixAge: maximumFixAge)
    }
}
