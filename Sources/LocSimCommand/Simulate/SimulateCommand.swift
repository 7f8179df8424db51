import ArgumentParser
import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import MapFeature
import NMEAFormat

/// `locsim simulate`: seeded synthetic motion, printed, written to a file, or fed to the map logic.
struct Simulate: AsyncParsableCommand, Interruption.Command {
    static let configuration = CommandConfiguration(
        abstract: "Generate seeded synthetic motion: print fixes, write GPX/NMEA, or feed the map logic.",
        discussion: """
            Paths: stationary (--at), line (--from --to), route (--from --via … --to), circle \
            (--center --circle-radius), random-walk (--from [--within M]). Speed profiles walk, run, \
            cycle and drive vary the speed around a mean and add stops; --mps sets a constant speed. \
            The same --seed gives the same fixes bit for bit.

            By default fixes are generated in virtual time (instantly, with their own timestamps); \
            --speed X plays them in real time scaled by X. --out FILE.gpx or FILE.nmea writes a file \
            (--xcode writes GPX <wpt> elements with <time>, the form the iOS Simulator replays); --map \
            runs them through the map logic exactly as 'locsim replay' does.
            """
    )

    enum PathKind: String, ExpressibleByArgument, CaseIterable {
        case stationary, line, route, circle, randomWalk = "random-walk"
    }

    enum Profile: String, ExpressibleByArgument, CaseIterable {
        case walk, run, cycle, drive
    }

    @Argument(help: "The path: stationary, line, route, circle or random-walk.")
    var path: PathKind

    @Option(coordinate: "Where a stationary receiver stands.")
    var at: CoordinateArgument?
    @Option(coordinate: "Start of a line, route or random walk.")
    var from: CoordinateArgument?
    @Option(coordinate: "End of a line or route.")
    var to: CoordinateArgument?
    @Option(coordinates: "A route's intermediate point (repeat for more).")
    var via: [CoordinateArgument] = []
    @Option(coordinate: "Centre of a circle.")
    var center: CoordinateArgument?
    @Option(number: ArgumentHelp("Radius of a circle in metres (default 200).", valueName: "m"))
    var circleRadius: Double?
    @Option(number: ArgumentHelp("Turn a random walk back towards its start once it is this many metres away (it may overshoot by a few steps' length).", valueName: "m"))
    var within: Double?

    @Option(help: "Speed profile: walk, run, cycle or drive.")
    var profile: Profile = .walk
    @Option(number: ArgumentHelp("Constant speed in metres per second instead of a profile.", valueName: "m/s"))
    var mps: Double?
    @Option(duration: "How long the motion lasts (required for stationary, circle and random-walk).")
    var duration: DurationArgument?
    @Option(number: ArgumentHelp("Fixes per second.", valueName: "hz"))
    var rate: Double = 1
    @Option(number: ArgumentHelp("Add seeded GPS-like noise: per-axis sigma in metres.", valueName: "sigma"))
    var noise: Double?
    @Option(seed: "Seed of the motion and the noise.")
    var seed: UInt64 = 1
    @Option(help: ArgumentHelp("Time of the first fix, ISO 8601 with Z or an offset (2024-05-01T12:00:00Z, ...+09:00). Default: now.", valueName: "time"))
    var startTime: String?
    @Option(number: "Play in real time scaled by this factor (0.1...1000) instead of virtual time.")
    var speed: Double?

    @Option(help: ArgumentHelp("Write the fixes to a .gpx or .nmea file instead of printing them.", valueName: "file"))
    var out: String?
    @Flag(help: "With --out FILE.gpx: write <wpt> elements with <time>, the form Xcode's iOS Simulator replays.")
    var xcode = false
    @Flag(help: "Run the fixes through the map logic, as 'locsim replay' does.")
    var map = false

    @OptionGroup var source: PlaceSourceOptions
    @OptionGroup var mapLogic: MapLogicOptions

    @Option(
        help: ArgumentHelp(
            "With --map: run the motion through a scenario's phone (its delivery rules, GPS trouble and the app's lifecycle; docs/guides/scenarios.md). The motion replaces the scenario's route.",
            valueName: "file.json"))
    var scenario: String?

    @Option(help: "Output: text or jsonl.")
    var format: TimelineFormat = .text

    @Option(help: ArgumentHelp("With --map: also write a self-contained HTML report.", valueName: "file.html"))
    var report: String?

    @Flag(help: "With --map: write each line at once even when standard output is not a terminal. Default: in blocks.")
    var flush = false

    func validate() throws {
        switch path {
        case .stationary:
            guard at != nil else { throw ValidationError("stationary needs --at LAT,LON") }
        case .line:
            guard from != nil, to != nil else { throw ValidationError("line needs --from LAT,LON and --to LAT,LON") }
        case .route:
            guard from != nil, to != nil else { throw ValidationError("route needs --from, any number of --via, and --to") }
        case .circle:
            guard center != nil else { throw ValidationError("circle needs --center LAT,LON") }
            try checkOption(circleRadius ?? Self.defaultCircleRadius, in: OptionRange.circleRadius, flag: "--circle-radius", unit: "metres")
        case .randomWalk:
            guard from != nil else { throw ValidationError("random-walk needs --from LAT,LON") }
        }
        if [.stationary, .circle, .randomWalk].contains(path) && duration == nil {
            throw ValidationError("\(path.rawValue) never ends by itself: give --duration, such as 10m")
        }
        if let (flag, kinds) = placesGiven.first(where: { !$0.kinds.contains(path) }) {
            let names = kinds.map(\.rawValue)
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
            throw ValidationError("\(flag) applies to \(list), not \(path.rawValue)")
        }
        if let within { try checkOption(within, in: OptionRange.within, flag: "--within", unit: "metres") }
        if path == .stationary, let flag = mps != nil ? "--mps" : profile != .walk ? "--profile" : nil {
            throw ValidationError("\(flag) applies to a path that moves (line, route, circle, random-walk): stationary stands still")
        }
        if mps != nil && profile != .walk {
            throw ValidationError("--mps sets a constant speed in place of --profile \(profile.rawValue): give one of them")
        }
        if let duration { try checkOption(duration, in: OptionRange.duration, flag: "--duration") }
        if let mps { try checkOption(mps, in: OptionRange.metresPerSecond, flag: "--mps", unit: "m/s") }
        try checkOption(rate, in: OptionRange.rate, flag: "--rate", unit: "Hz")
        if let speed { try validateSpeed(speed) }
        if let noise { try checkOption(noise, in: OptionRange.noise, flag: "--noise", unit: "metres") }
        if let startTime {
            guard let (start, hasZone) = UTCTimestamp.parseZoned(startTime) else {
                throw ValidationError("--start-time must be an ISO-8601 time such as 2024-05-01T12:00:00Z")
            }
            guard hasZone else {
                throw ValidationError(
                    "--start-time \(startTime) has no zone: add Z for UTC (\(startTime)Z) or the offset meant, such as +09:00")
            }
            // Times that the outputs can write, checked now rather than part-way through the walk.
            let year = NMEADate.year(of: start)
            if let out, try FixFileFormat.checkOutputName(out, flag: "--out") == .nmea {
                let end = NMEADate.year(of: start.addingTimeInterval(duration?.seconds ?? 0))
                guard NMEADate.writableYears.contains(year), NMEADate.writableYears.contains(end) else {
                    throw ValidationError(
                        "--start-time \(startTime): an .nmea file carries years \(NMEADate.writableYears.lowerBound)…\(NMEADate.writableYears.upperBound) (RMC's two-digit year)")
                }
            } else if year > 9_998 {
                throw ValidationError("--start-time \(startTime): a walk must end by 9999-12-31, the last year ISO-8601 times (GPX, jsonl) write")
            }
        }
        if let out {
            let written = try FixFileFormat.checkOutputName(out, flag: "--out")
            if xcode, written == .nmea { throw ValidationError("--xcode applies to --out FILE.gpx") }
            if map { throw ValidationError("--out and --map exclude each other") }
            if format != .text {
                throw ValidationError("--format applies to what is printed; with --out the fixes go to the file, in the format its extension names")
            }
        }
        if xcode && out == nil { throw ValidationError("--xcode applies to --out FILE.gpx") }
        let mapOnly = (flush ? ["--flush"] : []) + (report != nil ? ["--report"] : []) + mapLogic.changed + source.given
        if !map, let flag = mapOnly.first {
            throw ValidationError("\(flag) applies with --map (the map logic), which is not given")
        }
        if scenario != nil && !map { throw ValidationError("--scenario needs --map: the phone hands its fixes to the map logic") }
        // The path's own checks (a leg between antipodes has no one way) are about the options
        // given, so they are usage errors, found before anything runs.
        do {
            _ = try makeMotion(pacing: .virtual)
        } catch {
            let place = error.parameter.contains(" ") ? " (\(error.parameter))" : ""
            throw ValidationError(error.message + place)
        }
    }

    /// Each place option given, with the paths it applies to.
    private var placesGiven: [(flag: String, kinds: [PathKind])] {
        [
            ("--at", at != nil, [.stationary]), ("--from", from != nil, [.line, .route, .randomWalk]),
            ("--to", to != nil, [.line, .route]), ("--via", !via.isEmpty, [.route]), ("--center", center != nil, [.circle]),
            ("--circle-radius", circleRadius != nil, [.circle]), ("--within", within != nil, [.randomWalk]),
        ].compactMap { flag, given, kinds in given ? (flag, kinds) : nil }
    }

    private static let defaultCircleRadius = 200.0

    @MainActor
    func run() async throws {
        if out != nil || report != nil {
            // Only with an output: the default index's files are found by reading its CSVs.
            let inputs: [(path: String?, role: String)] =
                [(scenario, "the scenario"), (source.db, "the place index")] + DefaultIndex.files(db: source.db, geodata: source.geodata)
            if let out { try checkOutputPath(out, flag: "--out", apartFrom: inputs) }
            if let report { try checkOutputPath(report, flag: "--report", apartFrom: inputs + [(out, "the --out file")]) }
        }
        let motion = try makeMotion(pacing: speed.map { .timed(speedFactor: $0) } ?? .virtual)

        if let out {
            // Ctrl-C, SIGTERM or SIGHUP ends the walk there: the file is still written whole (the writer
            // renames it into place only when complete), with the fixes up to the signal.
            let written = Locked(0)
            let form: GPXExportForm = xcode ? .xcodeSimulator : .track
            let pace = speed
            let signal = try await runUntilInterrupted {
                // In real time the file can take as long as the walk: say so, and how to stop it.
                if let pace {
                    Terminal.err("writing \(out) in real time at \(PeopleText.number(pace, decimals: 3))×; Ctrl-C stops the walk there and keeps it")
                }
                let count: Int
                if try FixFileFormat.output(out, flag: "--out") == .nmea {
                    do {
                        count = try await motion.writeNMEA(toFile: out, options: .gpsd())
                    } catch let error as NMEAError where error.code == .invalidValue {
                        // validate() refused a --start-time whose walk's end, when known, NMEA
                        // cannot date; a walk whose length only its speed profile sets gets here.
                        throw CommandFailure(
                            "\(out) not written: the walk has a fix NMEA cannot write (\(error.message))",
                            hint: "an .nmea file carries years \(NMEADate.writableYears.lowerBound)…\(NMEADate.writableYears.upperBound): "
                                + "give an earlier --start-time, a --duration that ends in time, or --out FILE.gpx")
                    }
                } else {
                    count = try await motion.writeGPX(toFile: out, form: form)
                }
                written.withLock { $0 = count }
            }
            let count = written.withLock { $0 }
            if signal != nil, count == 0 {
                Terminal.err("locsim: interrupted before the first fix: \(out) not written")
            } else if signal != nil {
                Terminal.err("locsim: interrupted: wrote \(out) with the walk up to the signal (\(PeopleText.count(count, "fix", "fixes")))")
            } else {
                Terminal.err("wrote \(out)")
            }
            return
        }
        if map {
            let scenario = try scenario.map { try MapPipeline.loadScenario($0) }
            let pipeline = try MapPipeline(
                source: source, map: mapLogic, format: format, flush: flush, showsProgress: speed != nil,
                maximumFixAge: scenario?.maximumFixAge)
            defer { pipeline.output.flush() }
            if let scenario, let file = self.scenario {
                try await pipeline.runScenario(
                    motion, phone: try ScenarioPhone(scenario: scenario), scenarioFile: file, speedFactor: speed, total: duration?.seconds)
            } else {
                try await pipeline.run(motion, speedFactor: speed, total: duration?.seconds)
            }
            return try pipeline.finish(report: report, title: "simulated \(path.rawValue)")
        }
        _ = try await runUntilInterrupted {
            for try await fix in motion { Terminal.out(Self.line(for: fix, format: format)) }
        }
    }

    /// The motion these options describe, paced by `pacing`: `simulate` itself and `serve
    /// --player NAME=line …` (a player is a simulate command line) both build it here.
    func makeMotion(pacing: Pacing) throws(SimulationError) -> SyntheticMotion<ContinuousClock> {
        let motionPath: MotionPath =
            switch path {
            case .stationary: .stationary(at: at!.coordinate)
            case .line: .line(from: from!.coordinate, to: to!.coordinate)
            case .route: .route(through: [from!.coordinate] + via.map(\.coordinate) + [to!.coordinate])
            case .circle: .circle(center: center!.coordinate, radius: circleRadius ?? Self.defaultCircleRadius)
            case .randomWalk: .randomWalk(from: from!.coordinate, within: within)
            }
        let speedProfile: SpeedProfile =
            if let mps { .constant(mps) } else {
                switch profile {
                case .walk: .walk
                case .run: .run
                case .cycle: .cycle
                case .drive: .drive
                }
            }
        let configuration = SyntheticMotion<ContinuousClock>.Configuration(
            rate: rate, pacing: pacing, duration: duration?.seconds,
            startTime: startTime.flatMap { UTCTimestamp.parse($0) },
            noise: noiseModel(sigma: noise, seed: seed))
        return try SyntheticMotion(path: motionPath, speed: speedProfile, seed: seed, configuration: configuration)
    }

    static func line(for fix: Fix, format: TimelineFormat) -> String {
        guard format == .text else { return FixRecord(fix: fix).line }
        let position = fix.coordinate?.description ?? "no fix"
        let accuracy = fix.horizontalAccuracy.map { " ±\(DecimalText.fixed($0, decimals: 1)) m" } ?? ""
        let speed = fix.speed.map { " \(DecimalText.fixed($0, decimals: 2)) m/s" } ?? ""
        return "\(UTCTimestamp.format(fix.time, fractionDigits: 3))  \(position)\(accuracy)\(speed)"
    }
}
