#if Server
import ArgumentParser
import Foundation
import LocationCore
import LocationFeed
import LocationGPSD
import LocationSimulation
import NearbyServer

/// `serve --player NAME=SPEC … --player-speed X --gpsd-port PORT`: simulated players served as
/// gpsd devices, in the same runtime as the HTTP server (docs/guides/feeds.md).
struct FeedOptions: ParsableArguments {
    @Option(
        name: .customLong("player"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A simulated player: NAME=FILE.gpx|.nmea (a replayed walk; '--speed 3 --loop --start 5m' may follow), "
                + "NAME=SCENARIO.json (its route with its GPS trouble, its phone on the live map, its server outcomes; the same options), "
                + "NAME=PATH (a 'locsim simulate' path: "
                + "line:LAT,LON:LAT,LON, route:A:B:…, circle:CENTER[:RADIUS], stationary:AT, random-walk:FROM, "
                + "then any simulate options such as '--profile run --seed 7', and '--loop') or NAME=gpsd://HOST[:PORT][/DEVICE] "
                + "(a real receiver behind gpsd, relayed live). Repeat for more.",
            valueName: "name=spec"))
    var players: [String] = []

    @Option(number: ArgumentHelp("Real-time speed factor of every player without its own --speed (0.1...1000).", valueName: "x"))
    var playerSpeed: Double = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Serve the players over gpsd's JSON protocol on this port (0: a free one).", valueName: "port"))
    var gpsdPort: Int?

    @Option(
        duration: "How often each open player event stream gets a ': keep-alive' comment, so a proxy's idle timeout "
            + "does not close a quiet stream (default 15s; 0.1s...1h).")
    var eventHeartbeat: DurationArgument = .seconds(15)

    @Option(
        name: .customLong("android-console"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Send a player's fixes to an Android emulator's console as 'geo fix': NAME=PORT (5554 is the first "
                + "emulator's), at most 5 a second. Repeat for more.",
            valueName: "name=port"))
    var androidConsoles: [String] = []

    @Option(
        help: ArgumentHelp(
            "The emulator console's auth token file (default: ~/.emulator_console_auth_token).", valueName: "path"))
    var androidTokenFile: String?

    @Option(
        name: .customLong("simctl"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "macOS with Xcode: send a player's fixes to an iOS Simulator with 'xcrun simctl location': NAME=DEVICE "
                + "(a UDID, a name, or booted), at most one a second. Repeat for more.",
            valueName: "name=device"))
    var simulators: [String] = []

    /// Where fixes go besides gpsd clients: (player, destination) for each bridge option.
    struct Bridges {
        var android: [(player: String, port: Int)] = []
        var simulators: [(player: String, device: String)] = []
    }

    func validate() throws {
        try checkOption(playerSpeed, in: Pacing.speedFactorRange, flag: "--player-speed", unit: "(times real time)")
        if let gpsdPort { try checkOption(gpsdPort, in: 0...65_535, flag: "--gpsd-port") }
        try checkOption(eventHeartbeat, in: 0.1...3_600, flag: "--event-heartbeat")
        var names = Set<String>()
        let specs: [PlayerSpec]
        do {
            specs = try self.specs()
        } catch is CommandFailure {
            // A player's scenario file that cannot be read is a missing file, not a usage error:
            // `run` reads the specs first and says so with status 1 (ArgumentParser would wrap
            // any error thrown here as a usage error).
            return
        }
        for spec in specs {
            guard names.insert(spec.name).inserted else { throw ValidationError("--player \(spec.name): two players have that name") }
        }
        _ = try bridges(players: names)
        _ = try Self.scenarioServerScript(of: specs)
        if androidTokenFile != nil, androidConsoles.isEmpty {
            throw ValidationError("--android-token-file is for --android-console")
        }
    }

    /// Refuses a relayed receiver that is this feed itself: `gpsd://` at the feed's own
    /// `--gpsd-port` on the address it listens on (a loopback name when it listens on loopback or
    /// every address). That player would watch every device, its own included, and publish each
    /// fix it reads again: a loop that grows without end. A free port (0) is not known yet.
    static func refuseSelfRelay(_ specs: [PlayerSpec], gpsdPort: Int?, host: String) throws(ValidationError) {
        guard let gpsdPort, gpsdPort != 0 else { return }
        let loopback = NearbyServer.Configuration.isLoopback
        let everyAddress = ["0.0.0.0", "::", "[::]"].contains(host)
        for spec in specs {
            guard case .receiver(let address, _) = spec.source, address.port == gpsdPort else { continue }
            let same = address.host == host || (loopback(address.host) && (loopback(host) || everyAddress))
            guard same else { continue }
            throw ValidationError(
                "--player \(spec.name): gpsd://\(address) is this server's own --gpsd-port: the player would read every "
                    + "player's fixes, its own included, and publish them again without end; relay the receiver's gpsd "
                    + "(port 2947 unless it was started with another -S), or give --gpsd-port another port")
        }
    }

    /// The bridge options, checked: each names a player given with --player.
    func bridges(players names: Set<String>) throws(ValidationError) -> Bridges {
        var bridges = Bridges()
        func split(_ text: String, flag: String, example: String) throws(ValidationError) -> (String, String) {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex
            else { throw ValidationError("\(flag) must be NAME=\(example), got '\(text)'") }
            let name = String(text[..<equals])
            guard names.contains(name) else {
                throw ValidationError(
                    "\(flag) \(text): no --player is named '\(name)'"
                        + (names.isEmpty ? "" : " (players: \(names.sorted().joined(separator: ", ")))"))
            }
            return (name, String(text[text.index(after: equals)...]))
        }
        for text in androidConsoles {
            let (name, value) = try split(text, flag: "--android-console", example: "PORT (alice=5554)")
            guard let port = Int(value), (1...65_535).contains(port) else {
                throw ValidationError("--android-console \(text): the port must be within 1...65535, got '\(value)'")
            }
            bridges.android.append((name, port))
        }
        for text in simulators {
            let (name, device) = try split(text, flag: "--simctl", example: "DEVICE (alice=booted)")
            let configuration: SimulatorLocation.Configuration
            do {
                configuration = try SimulatorLocation.Configuration(device: device)
            } catch {
                throw ValidationError("--simctl \(text): \(error.message)")
            }
            // Not on Linux (or a Mac without Xcode): say so now rather than retry forever.
            guard FileManager.default.isExecutableFile(atPath: configuration.executable) else {
                throw ValidationError("--simctl \(text): needs macOS with Xcode (\(configuration.executable) is not on this machine)")
            }
            bridges.simulators.append((name, device))
        }
        return bridges
    }

    /// The server's outcomes a player's scenario gives (its `server` list), with the scenario
    /// file: at most one player's scenario may give them.
    static func scenarioServerScript(of specs: [PlayerSpec]) throws(ValidationError) -> (file: String, steps: JSONValue)? {
        var found: (file: String, steps: JSONValue)?
        for spec in specs {
            guard case .scenario(let file, let scenario) = spec.source, let steps = scenario.server else { continue }
            if let first = found {
                throw ValidationError(
                    "--player \(spec.name): \(file) gives the server's outcomes (\"server\"), and so does \(first.file): the server takes one list")
            }
            found = (file, steps)
        }
        return found
    }

    /// Every `--player`, parsed and checked.
    /// - Throws: `ValidationError` for a bad spec or a bad value in a player's scenario (a usage
    ///   error), ``CommandFailure`` for a scenario file that cannot be read (a missing file, as in
    ///   every command).
    func specs() throws -> [PlayerSpec] {
        try players.map { text in
            do throws(ValidationError) {
                return try PlayerSpec(text, defaultSpeed: playerSpeed)
            } catch {
                if let equals = text.firstIndex(of: "="),
                    let (path, _) = PlayerSpec.fileSpec(text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)),
                    path.lowercased().hasSuffix(".json"), !FileManager.default.isReadableFile(atPath: path)
                {
                    throw CommandFailure(error.message, hint: ErrorReport.unreadableHint)
                }
                throw error
            }
        }
    }
}

/// One `--player NAME=SPEC`.
struct PlayerSpec {
    enum Source {
        case track(String)
        /// A scenario file (docs/guides/scenarios.md): its route played with its GPS trouble; its
        /// phone (delivery rules, the app's moves, `game`) runs on the player's map session, and
        /// its `server` outcomes are the server's script.
        case scenario(String, Scenario)
        case motion(Simulate, [String])
        /// A receiver behind gpsd, relayed as it reports (self-paced: no speed, no controls).
        case receiver(HostPort, device: String?)
    }

    let name: String
    let source: Source
    let speed: Double
    /// The spec's own `--speed`, when it gives one.
    let ownSpeed: Double?
    /// Whether the spec asks for `--loop` (a file's path starts again at its end).
    let loops: Bool
    /// Seconds into a file's path to start at (`--start`), 0 by default.
    let start: Double
    let seed: UInt64

    /// Parses and checks a spec (a track's existence is checked when it is read).
    init(_ text: String, defaultSpeed: Double) throws(ValidationError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ValidationError("--player must be NAME=SPEC (alice=walk.gpx, bob=line:35.68,139.76:35.69,139.75), got '\(text)'")
        }
        name = String(text[..<equals])
        do {
            try FeedPlayer.validate(name: name)
        } catch {
            throw ValidationError("--player: \(error.message)")
        }
        let spec = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if Self.isReceiver(text) {
            let (address, device) = try Self.receiver(spec, player: name)
            (source, speed, ownSpeed, loops, seed) = (.receiver(address, device: device), 1, nil, false, Self.seed(of: name))
            start = 0
            return
        }
        if let (path, options) = Self.fileSpec(spec) {
            (ownSpeed, loops, start) = try Self.fileOptions(options, player: name)
            speed = ownSpeed ?? defaultSpeed
            guard path.lowercased().hasSuffix(".json") else {
                (source, seed) = (.track(path), Self.seed(of: name))
                return
            }
            let scenario: Scenario
            do {
                scenario = try Scenario.load(path: path)
            } catch {
                throw ValidationError("--player \(name): \(error)")
            }
            guard scenario.route != nil else {
                throw ValidationError(
                    "--player \(name): \(path) has no route: a player walks the scenario's \"route\" ({\"file\": …}, {\"polyline\": …} or {\"legs\": […]})")
            }
            // One seed for all the player does, shown as its seed: the scenario's (its trouble
            // draws, as `replay --scenario` makes them) for its sky too.
            (source, seed) = (.scenario(path, scenario), scenario.seed)
            return
        }
        // `--loop` starts the motion again at its end, as the control API's `"loop": true` does;
        // `simulate` itself has no such option.
        let allArguments = Self.simulateArguments(spec)
        if let first = allArguments.first, !first.hasPrefix("-"), first.contains("/") || first.contains("."),
            !Self.motionKinds.contains(where: { first.lowercased().hasPrefix($0) })
        {
            throw ValidationError(
                "--player \(name): '\(TextExcerpt.render(first, limit: 200))' is not a file a player plays: a walk is a .gpx, .nmea or .log file, "
                    + "a scenario a .json file; synthetic motion starts with one of \(Self.motionKinds.joined(separator: ", "))")
        }
        let arguments = allArguments.filter { $0 != "--loop" }
        let motionLoops = arguments.count != allArguments.count
        // What only `simulate` itself does (a file, the map logic and its place source): a
        // player's map screen is the server's, with the server's rule and places.
        let given = Set(arguments.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 })
        for flag in Self.simulateOnlyFlags where given.contains(flag) {
            throw ValidationError("--player \(name): \(flag) does not apply to a player")
        }
        // A player's fixes carry the wall-clock time they are sent at, as a receiver's do.
        if given.contains("--start-time") {
            throw ValidationError(
                "--player \(name): --start-time does not apply to a player: its fixes carry the wall-clock time they are sent at, as a receiver's do")
        }
        // What a file player takes, not a synthetic one (whose motion starts at its own start).
        for flag in ["--start"] where given.contains(flag) {
            throw ValidationError("--player \(name): \(flag) applies to a file player (NAME=walk.gpx \(flag) …), not to synthetic motion")
        }
        if given.contains("--help") || given.contains("-h") {
            throw ValidationError("--player \(name): a spec takes simulate's options; 'locsim simulate --help' lists them")
        }
        let simulate: Simulate
        do {
            simulate = try Simulate.parse(arguments)
        } catch {
            throw ValidationError("--player \(name): \(Self.withoutRefusedSuggestion(Simulate.message(for: error)))")
        }
        // A player's own --seed, else one from its name: every player moves (and sees its sky) its own way.
        seed = arguments.contains("--seed") ? simulate.seed : Self.seed(of: name)
        (source, speed, ownSpeed, loops, start) = (.motion(simulate, arguments), simulate.speed ?? defaultSpeed, simulate.speed, motionLoops, 0)
    }

    /// ArgumentParser's message for a mistyped option without its suggestion when that names an
    /// option a player refuses (`--start-tim`: "Did you mean '--start-time'?"), which would send
    /// the user from one refusal to another.
    static func withoutRefusedSuggestion(_ message: String) -> String {
        let refused = Set(simulateOnlyFlags + ["--start-time", "--start"])
        guard let suggestion = message.firstMatch(of: /\s*Did you mean '(--[A-Za-z0-9-]+)'\?/), refused.contains(String(suggestion.1)) else {
            return message
        }
        return message.replacingCharacters(in: suggestion.range, with: "") + " ('locsim simulate --help' lists a player's options)"
    }

    /// The words a synthetic player's spec starts with (`simulate`'s kinds of path).
    static let motionKinds = Simulate.PathKind.allCases.map(\.rawValue)

    /// `simulate` options a synthetic player refuses, naming the flag.
    static let simulateOnlyFlags = [
        "--out", "--xcode", "--map", "--report", "--flush", "--format", "--scenario", "--db", "--online", "--token",
        "--token-file", "--geodata", "--radius", "--throttle-distance", "--throttle-interval", "--min-accuracy", "--reach",
    ]

    /// A file's spec: the path (which may hold spaces) and the options after it, or nil when the
    /// spec names no GPX or NMEA file or scenario (`walk.gpx`, `walk.gpx --speed 3 --loop`, `tunnel.json`).
    /// The path is what comes before the first ` --`: a synthetic spec whose last option names a
    /// file (`line:… --out x.gpx`) is no file spec.
    static func fileSpec(_ spec: String) -> (path: String, options: [Substring])? {
        func isFile(_ path: some StringProtocol) -> Bool {
            let lower = path.lowercased()
            return lower.hasSuffix(".gpx") || lower.hasSuffix(".nmea") || lower.hasSuffix(".log") || lower.hasSuffix(".json")
        }
        guard let dashes = spec.range(of: " --") else { return isFile(spec) ? (spec, []) : nil }
        let path = spec[..<dashes.lowerBound].trimmingCharacters(in: .whitespaces)
        guard isFile(path) else { return nil }
        return (path, spec[dashes.lowerBound...].split(whereSeparator: { $0 == " " || $0 == "\t" }))
    }

    /// A file player's options: `--speed X` (0.1...1000), `--loop` and `--start DURATION` (into
    /// the path; checked against the path's length when the file is read).
    static func fileOptions(_ options: [Substring], player: String) throws(ValidationError) -> (
        speed: Double?, loops: Bool, start: Double
    ) {
        var speed: Double?
        var loops = false
        var start = 0.0
        var rest = options[...]
        while let option = rest.popFirst() {
            switch option {
            case "--loop":
                loops = true
            case "--start":
                guard let text = rest.popFirst() else {
                    throw ValidationError("--player \(player): --start takes a duration into the path (90s, 5m, 1:30:00)")
                }
                do {
                    start = try DurationArgument.parse(String(text)).seconds
                } catch {
                    throw ValidationError("--player \(player): --start \(error.description), got '\(text)'")
                }
            case "--speed":
                guard let text = rest.popFirst(), let value = decimalValue(text) else {
                    throw ValidationError("--player \(player): --speed takes a number of times real time (0.1...1000)")
                }
                guard Pacing.speedFactorRange.contains(value) else {
                    throw ValidationError("--player \(player): --speed must be within 0.1...1000 (times real time), got \(text)")
                }
                speed = value
            default:
                throw ValidationError("--player \(player): a file player takes --speed X, --loop and --start DURATION, got '\(option)'")
            }
        }
        return (speed, loops, start)
    }

    /// The player: its path read unpaced and played in real time at its speed, under control
    /// (pause, speed, seek, teleport, loop through the control API). A scenario's trouble effects
    /// go to `onTrouble` as its fixes are read.
    func makePlayer(loops: Bool = false, onTrouble: GPSTrouble.EffectsHandler? = nil) throws -> FeedPlayer {
        let loops = loops || self.loops
        switch source {
        case .track(let path):
            let (replay, warnings) = try NMEAServe.trackReplay(path, speed: speed, originalTimes: false, pacing: .virtual)
            for line in warnings { Terminal.err(line) }
            return try startingAt(
                Self.player(
                    name: name, seed: seed, speed: speed, summary: path, loops: loops, path: replay,
                    end: .after(seconds: replay.analysis.duration)))
        case .scenario(let file, let scenario):
            guard let route = scenario.route else { throw ValidationError("--player \(name): \(file) has no route") }
            let summary = "\(file) (a scenario)"
            let configuration = NMEAServe.trackConfiguration(speed: speed, originalTimes: false, pacing: .virtual)
            let playable = try FixFileFormat.playable(route, of: file, configuration: configuration, now: { Date() })
            func play(_ path: some LocationProvider, end: PathEnd) throws -> FeedPlayer {
                try startingAt(
                    Self.player(
                        name: name, seed: seed, speed: speed, summary: summary, loops: loops,
                        path: TroubledFixes(path, windows: scenario.trouble, seed: scenario.seed, onEffects: onTrouble), end: end))
            }
            switch playable {
            case .path(let replay, let warnings):
                // The route's end is known before it plays: what the scenario sets past it is
                // said now (a leg route's end is known only once it is walked).
                for line in warnings + scenario.unreached(routeEnd: replay.analysis.duration, in: file) { Terminal.err(line) }
                return try play(replay, end: .after(seconds: replay.analysis.duration))
            case .motion(let motion):
                // Synthetic motion: its end is not known before it is played.
                return try play(motion, end: .unknown)
            }
        case .motion(var simulate, let arguments):
            simulate.seed = seed
            let motion = try simulate.makeMotion(pacing: .virtual)
            return try Self.player(
                name: name, seed: seed, speed: speed, summary: arguments.joined(separator: " "), loops: loops, path: motion,
                end: motion.isEndless ? .never : motion.knownDuration.map { .after(seconds: $0) } ?? .unknown)
        case .receiver(let address, let device):
            let (name, endpoint) = (name, address.description)
            // Waits for gpsd and reconnects after it goes away, for as long as the server runs;
            // the connection's story goes to standard error, the receiver's own reports to the
            // player's watchers (no status of locsim's making for a gap: gpsd sends no TPV for
            // a receiver it cannot read, and the player shows `waiting` until the first position).
            var configuration = GPSDProvider<ContinuousClock>.Configuration.resilient
            configuration.marksGaps = false
            let provider = try GPSDProvider(
                host: address.host, port: address.port, device: device, configuration: configuration, clock: ContinuousClock(),
                now: { Date() })
                .reportingEvents { event in
                    Terminal.err("locsim serve: player \(name) ← \(GPSDRecord(event: event, endpoint: endpoint).text.drop { $0 == "#" || $0 == " " })")
                }
            return try FeedPlayer(
                name: name, seed: seed, summary: "gpsd \(address)" + (device.map { " \($0)" } ?? " (every device)"),
                provider: provider)
        }
    }

    /// `player`, moved to `--start` when the spec gives one.
    private func startingAt(_ player: FeedPlayer) throws -> FeedPlayer {
        guard start > 0 else { return player }
        do {
            try player.apply(.seek(offset: start))
        } catch {
            // As the flag takes it (100h), not as the control API's seconds.
            if let duration = player.pathDuration, start > duration {
                throw ValidationError(
                    "--player \(name): --start \(DurationText.clockText(start)) is past the end of the path, which lasts \(DurationText.clockText(duration))")
            }
            throw ValidationError("--player \(name): --start \(error.problem.message)")
        }
        return player
    }

    /// How a relayed receiver's spec starts.
    static let receiverScheme = "gpsd://"

    /// Whether `text` (`NAME=SPEC`) gives a relayed receiver: checked without reading any file.
    static func isReceiver(_ text: String) -> Bool {
        guard let equals = text.firstIndex(of: "=") else { return false }
        return text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces).lowercased().hasPrefix(receiverScheme)
    }

    /// `gpsd://HOST[:PORT][/DEVICE]`: host (default 127.0.0.1; an IPv6 address in brackets), port
    /// (default 2947), device path (default every device gpsd has).
    static func receiver(_ spec: String, player: String) throws(ValidationError) -> (HostPort, device: String?) {
        let example = "gpsd://127.0.0.1:2947/dev/ttyACM0"
        func failure(_ problem: String) -> ValidationError {
            ValidationError("--player \(player): \(problem) (a relayed receiver is \(example), port and device optional)")
        }
        let rest = spec.dropFirst(receiverScheme.count)
        guard !rest.contains(where: { $0 == " " || $0 == "\t" }) else {
            throw failure("a relayed receiver takes no options: it plays as gpsd reports, in real time, got '\(spec)'")
        }
        let authority = rest.prefix { $0 != "/" }
        let device = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : nil
        if let device, device.count < 2 { throw failure("the device path after the address is empty") }
        do {
            let address = try HostPort(parsing: authority, parameter: "--player \(player)", defaultHost: "127.0.0.1", defaultPort: 2947)
            return (address, device)
        } catch {
            throw failure(error.message)
        }
    }

    /// A player on the continuous clock.
    static func player(
        name: String, seed: UInt64, speed: Double, summary: String, loops: Bool, path: some LocationProvider,
        end: PathEnd = .unknown
    ) throws(ConfigurationError) -> FeedPlayer {
        try FeedPlayer(
            name: name, seed: seed, speedFactor: speed, summary: summary, loops: loops, path: path, end: end,
            clock: ContinuousClock(), origin: Date())
    }

    /// `line:A:B --profile run` → `line --from A --to B --profile run` (simulate's own options);
    /// a spec that starts with a bare path kind is passed on as it is.
    static func simulateArguments(_ spec: String) -> [String] {
        var words = spec.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first, first.contains(":") else { return words }
        let parts = first.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let kind = parts[0]
        let points = Array(parts.dropFirst())
        var expanded = [kind]
        switch kind {
        case "stationary":
            expanded += points.flatMap { ["--at", $0] }
        case "line", "route":
            if let start = points.first { expanded += ["--from", start] }
            if points.count > 2 { expanded += points.dropFirst().dropLast().flatMap { ["--via", $0] } }
            if points.count > 1, let end = points.last { expanded += ["--to", end] }
        case "circle":
            if let center = points.first { expanded += ["--center", center] }
            if points.count > 1 { expanded += ["--circle-radius"] + points.dropFirst() }
        case "random-walk":
            if let start = points.first { expanded += ["--from", start] }
            if points.count > 1 { expanded += ["--within"] + points.dropFirst() }
        default:
            expanded = parts
        }
        words.removeFirst()
        return expanded + words
    }

    /// A stable seed from the name (FNV-1a, 64 bits).
    static func seed(of name: String) -> UInt64 {
        FNV1a64.hash(name.utf8)
    }
}
#endif  // Server
