import ArgumentParser
import Foundation
import GPXFormat
import LocationCore
import LocationGPSD
import LocationIndex
import LocationSimulation
import MapFeature

/// `locsim replay`: a walk through the game's map logic, showing what a player would see.
struct Replay: AsyncParsableCommand, Interruption.Command {
    static let configuration = CommandConfiguration(
        abstract: "Replay a walk (GPX, an NMEA log, a route, or a live gpsd receiver) through the map logic and show what spawns, when and why.",
        discussion: """
            Each fix goes through MapViewModel's rule: fetch nearby places on the first fix, when the \
            player moved more than --throttle-distance metres or more than --throttle-interval seconds \
            passed since the last fetch. Places come from the default offline index (built from \
            geodata/ on first use and cached in $LOCSIM_CACHE_DIR, $XDG_CACHE_HOME/locsim or \
            ~/.cache/locsim), from --db, or from the game server with --online. An encounter is the \
            player coming within --reach metres of a place on the map; it is reported once per \
            approach and re-armed beyond twice the reach.

            Timing is real time by default; --speed scales it and --fast runs in virtual time (a \
            walk takes milliseconds; the same inputs give a byte-identical --format jsonl log).

            The walk is a GPX file (.gpx) or an NMEA 0183 log (.nmea or .log: gpspipe -r output, a \
            receiver's log, or a recording made with --record), paced by its own times, or a GeoJSON \
            route (.geojson) or KML lines (.kml), walked at 1.4 m/s when untimed. With \
            --gpsd, --record FILE.gpx|FILE.nmea also writes the fixes received, as they come.
            """
    )

    @Argument(
        help: "The walk to replay: GPX (tracks; a route or waypoints are walked as a path), an NMEA log (.nmea, .log), a GeoJSON LineString route (.geojson, walked as a path), or KML lines (.kml: a LineString walked as a path, a gx:Track by its times). Omit with --gpsd.")
    var track: String?

    @OptionGroup var source: PlaceSourceOptions
    @OptionGroup var timing: TimingOptions
    @OptionGroup var map: MapLogicOptions

    @Option(help: ArgumentHelp("Read live fixes from gpsd instead of a file (a USB receiver, field test).", valueName: "host:port"))
    var gpsd: String?

    @Option(help: "With --gpsd: watch only this device (as gpsd names it, e.g. /dev/ttyACM0); without it, every device gpsd has, as one walk.")
    var device: String?

    @Option(help: "Output: text (a readable timeline) or jsonl (one JSON object per line).")
    var format: TimelineFormat = .text

    @Option(help: ArgumentHelp("Also write a self-contained HTML report (SVG map, timeline, summary).", valueName: "file.html"))
    var report: String?

    @Flag(help: "Never show the progress line, even on a terminal.")
    var noProgress = false

    @Flag(help: "Skip points with bad coordinates and drop bad values (a bad <ele>, <fix>…; a point whose <time> is bad is left out) and read a file cut off mid-write up to the cut, instead of failing; report them.")
    var lenient = false

    @Flag(help: "Write each line at once even when standard output is not a terminal (a live pipe). Default: in blocks.")
    var flush = false

    @Option(help: ArgumentHelp("With --gpsd: also record the fixes received to a .gpx or .nmea file, as they come.", valueName: "file"))
    var record: String?

    @Option(
        help: ArgumentHelp(
            "Run a scenario (JSON): its route, the phone's delivery rules, GPS trouble and the app's lifecycle (docs/guides/scenarios.md), in real time or with --fast; a track argument overrides its route.",
            valueName: "file.json"))
    var scenario: String?

    func validate() throws {
        if track == nil && gpsd == nil && scenario == nil {
            throw ValidationError("give a walk to replay (GPX, NMEA, GeoJSON or KML), a --scenario, or --gpsd HOST:PORT for a live receiver")
        }
        if scenario != nil && gpsd != nil {
            throw ValidationError("--scenario replays its route or a track file, not a live --gpsd source")
        }
        if scenario != nil && timing.loop {
            throw ValidationError("--scenario and --loop exclude each other")
        }
        if track != nil && gpsd != nil {
            throw ValidationError("give either a walk file (GPX, NMEA, GeoJSON or KML) or --gpsd, not both")
        }
        if gpsd != nil {
            // Each would be ignored: gpsd's fixes come at their own pace, with the receiver's own
            // errors, and are never read from a file.
            let given = timing.given + (lenient ? ["--lenient"] : [])
            if let flag = given.first {
                throw ValidationError(
                    "\(flag) applies to a replayed file, not to a live --gpsd source "
                        + "(--fast, --speed, --rate, --loop, --start, --noise, --seed and --lenient replay files only)")
            }
        }
        if timing.seed != nil, timing.noise == nil { throw ValidationError("--seed seeds the noise: add --noise SIGMA, or leave --seed out") }
        if let track { _ = try FixFileFormat.input(track, what: "the walk") }
        if let record {
            guard gpsd != nil else { throw ValidationError("--record applies to a live --gpsd source") }
            try FixFileFormat.checkOutputName(record, flag: "--record")
        }
        if timing.fast && timing.loop {
            throw ValidationError("--loop never ends; it cannot be combined with --fast")
        }
        if let gpsd { _ = try Self.gpsdAddress(gpsd) }
        if let device {
            guard gpsd != nil else { throw ValidationError("--device picks one of a live --gpsd source's devices: give --gpsd HOST:PORT too") }
            guard !device.isEmpty else { throw ValidationError("--device must not be empty") }
        }
    }

    @MainActor
    func run() async throws {
        if report != nil || record != nil {
            // Computed once: the default index's files are found by reading its CSVs.
            let inputs = self.inputs
            if let report { try checkOutputPath(report, flag: "--report", apartFrom: inputs + [(record, "the --record file")]) }
            if let record { try checkOutputPath(record, flag: "--record", apartFrom: inputs) }
        }
        if let scenario { return try await runScenario(scenario) }
        let pipeline = try MapPipeline(source: source, map: map, format: format, flush: flush, showsProgress: !noProgress)
        defer { pipeline.output.flush() }

        if let gpsd {
            let address = try Self.gpsdAddress(gpsd)
            // Fail at once when nothing listens at host:port (a typo); once connected, ride out
            // gpsd restarts and unplugged receivers with capped back-off, saying so as
            // 'locsim gpsd' does.
            var resilience = GPSDProvider<ContinuousClock>.Configuration.resilient
            resilience.waitForDaemon = false
            // A recording keeps every epoch while it writes; the map alone wants the newest fix.
            if record != nil { resilience = resilience.recording }
            let (format, endpoint, progress) = (format, address.description, pipeline.progress)
            let feed = try GPSDProvider(
                host: address.host, port: address.port, device: device, configuration: resilience, clock: ContinuousClock(), now: { Date() }
            ).reportingEvents { event in
                let line = GPSDRecord(event: event, endpoint: endpoint).line(format)
                await MainActor.run { progress.printAbove(line) }
            }
            let recording = try record.map { try FixRecording(path: $0) }
            let feedFailure = Locked<(any Error)?>(nil)
            do {
                // The map logic sees one fix per epoch, as the app would (gpsd may report each
                // several times); the recording takes every report, so Ctrl-C loses none.
                try await pipeline.runRealTime(GPSDEpochProvider(RecordedProvider(base: feed, recording: recording, failure: feedFailure)))
            } catch let failure as CommandFailure {
                // Says what the recording holds, or that an existing file was left as it was.
                try recording?.finishSaying(beforeError: true)
                // The feed's own error, reported as `locsim gpsd` reports it, with the hint for its
                // kind (a host name that does not resolve is not a gpsd that is not running).
                if let original = feedFailure.withLock({ $0 }) as? GPSDError { throw original }
                throw CommandFailure(
                    failure.description,
                    hint: "is gpsd running at \(address)? Start it with 'gpsd -N -n /dev/ttyACM0' (docs/guides/gps-dongle.md)")
            }
            try recording?.finishSaying()
            return try pipeline.finish(report: report, title: "gpsd at \(address)")
        }
        guard let track else { return }
        let speedFactor = timing.fast ? nil : timing.speed ?? 1
        let (replay, warnings) = try makeReplay(track, pacing: speedFactor.map { .timed(speedFactor: $0) } ?? .virtual)
        for line in warnings { Terminal.err(line) }
        // The fix time this run covers: from the start offset to the end (unknown when looping).
        let total = timing.loop ? nil : replay.analysis.duration - replay.configuration.startOffset
        try await pipeline.run(replay, speedFactor: speedFactor, total: total)
        try pipeline.finish(report: report, title: track)
    }

    /// The files the replay reads, which its outputs must not replace.
    private var inputs: [(path: String?, role: String)] {
        [(track, "the track to replay"), (scenario, "the scenario"), (source.db, "the place index")]
            + DefaultIndex.files(db: source.db, geodata: source.geodata)
    }

    /// `--scenario FILE`: the scenario's route (or the track argument) through its phone
    /// (trouble, delivery rules, the app's lifecycle) and the map logic, in real time at
    /// `--speed`, or in virtual time with `--fast`.
    @MainActor
    private func runScenario(_ path: String) async throws {
        let scenario = try MapPipeline.loadScenario(path)
        let phone = try ScenarioPhone(scenario: scenario)
        let speedFactor = timing.fast ? nil : timing.speed ?? 1
        let pacing: Pacing = speedFactor.map { .timed(speedFactor: $0) } ?? .virtual
        // The walk is read before the place data is opened: what is wrong with the scenario's
        // own route is said first, not hidden behind a missing --geodata.
        let walk = try scenarioWalk(path, scenario: scenario, pacing: pacing)
        let pipeline = try MapPipeline(
            source: source, map: map, format: format, flush: flush, showsProgress: !noProgress, maximumFixAge: scenario.maximumFixAge)
        defer { pipeline.output.flush() }
        switch walk {
        case .path(let replay, let title):
            try await pipeline.runScenario(
                replay, phone: phone, scenarioFile: path, speedFactor: speedFactor, total: replay.analysis.duration - replay.configuration.startOffset)
            try pipeline.finish(report: report, title: title)
        case .legs(let motion):
            try await pipeline.runScenario(motion, phone: phone, scenarioFile: path, speedFactor: speedFactor, total: nil)
            try pipeline.finish(report: report, title: "\(path) (its legs)")
        }
    }

    /// What a scenario walks: a path to replay (the track argument, or its route file or
    /// polyline), with the report's title, or its legs as synthetic motion.
    private enum ScenarioWalk {
        case path(GPXReplay<ContinuousClock>, title: String)
        case legs(RouteLegs.Motion<ContinuousClock>)
    }

    /// Reads the walk of the scenario `path` (its warnings on standard error).
    @MainActor
    private func scenarioWalk(_ path: String, scenario: Scenario, pacing: Pacing) throws -> ScenarioWalk {
        if let track {
            let (replay, warnings) = try makeReplay(track, pacing: pacing)
            for line in warnings { Terminal.err(line) }
            return .path(replay, title: "\(path) with the track \(track)")
        }
        guard let route = scenario.route else {
            throw ValidationError(
                "\(path) has no route: give a track to replay, or a \"route\" ({\"file\": …}, {\"polyline\": …} or {\"legs\": […]}) in the scenario")
        }
        // What the messages name, and the report's title: the scenario, and its route file
        // when it is one.
        let what: String, routeTitle: String
        if case .file(let file) = route {
            (what, routeTitle) = (file, "\(path) (its route: \(file))")
        } else {
            what = "\(path) (its route)"
            routeTitle = what
        }
        let start = untimedStart
        let playable = try startChecked(what, pacing: pacing) { configuration in
            try FixFileFormat.playable(route, of: path, configuration: configuration, lenient: lenient, now: { start ?? Date() })
        } length: { playable in
            if case .path(let replay, _) = playable { replay.analysis.duration } else { nil }
        }
        switch playable {
        case .path(let routeReplay, let warnings):
            // An untimed route is walked at its speed from its start (no wall clock: the
            // same file gives the same output).
            for line in warnings { Terminal.err(line) }
            return .path(routeReplay, title: routeTitle)
        case .motion(let motion):
            // Legs are synthetic motion, not a path to replay: --start and --noise do not
            // apply, and are refused rather than ignored.
            for (flag, given) in [("--start", timing.start != nil), ("--noise", timing.noise != nil)] where given {
                throw ValidationError(
                    "\(flag) applies to a route file or a polyline; \(path)'s route is legs, walked from their start as the scenario says"
                        + (flag == "--noise" ? " (a trouble window gives a receiver's errors)" : ""))
            }
            return .legs(motion)
        }
    }

    /// `--gpsd HOST[:PORT]` (default 127.0.0.1:2947).
    static func gpsdAddress(_ text: String) throws(ValidationError) -> HostPort {
        do {
            return try HostPort(parsing: text, parameter: "--gpsd", defaultHost: "127.0.0.1", defaultPort: 2947)
        } catch {
            throw ValidationError("\(error) (expected HOST[:PORT], e.g. 127.0.0.1:2947 or [::1]:2947)")
        }
    }

    /// Where a walk without times starts: with `--fast`, the instant a scenario's untimed route
    /// starts at (``/LocationSimulation/Scenario/defaultRouteStart``, 2000-01-01T00:00:00Z), so
    /// the same file gives the same log on every run; in real time, now.
    private var untimedStart: Date? { timing.fast ? Scenario.defaultRouteStart : nil }

    /// The replay of `track`; a `--start` beyond its end is a usage error that names the flag.
    private func makeReplay(_ track: String, pacing: Pacing) throws -> (GPXReplay<ContinuousClock>, [String]) {
        try startChecked(track, pacing: pacing) { configuration in
            try NMEALog.replay(track, what: "the walk", lenient: lenient, configuration: configuration, untimedStart: untimedStart)
        } length: { $0.0.analysis.duration }
    }

    /// `read` with the timing options' configuration. A `--start` beyond the end of what it
    /// reads is a usage error that names the flag and the length of `what` (only the walk can say
    /// how far --start may go: `read` again from its start to learn it; `length` nil when it has
    /// no end known before it plays).
    private func startChecked<T>(
        _ what: String, pacing: Pacing, _ read: (GPXReplay<ContinuousClock>.Configuration) throws -> T, length: (T) -> Double?
    ) throws -> T {
        do {
            return try read(timing.replayConfiguration(pacing: pacing))
        } catch let error as SimulationError where error.code == .offsetOutOfRange {
            guard let length = length(try read(.init(pacing: .virtual))) else { throw error }
            throw ValidationError(
                "--start \(timing.start?.text ?? "") is beyond the end of \(what), which lasts \(DurationText.clockText(length)) "
                    + "(\(DecimalText.fixed(length, decimals: 3)) s)")
        } catch let error as SimulationError where error.code == .zeroLengthLoop {
            // The walk and --loop cannot go together: a usage error, as --start past its end is.
            throw ValidationError("--loop: \(what): \(error.message); give a walk that takes time, or leave out --loop")
        }
    }
}
