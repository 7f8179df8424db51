#if Server
import ArgumentParser
import Foundation
import GPXFormat
import LocationCore
import LocationFeed
import LocationSimulation
import MapPages
import NearbyServer
import ServiceLifecycle

/// The feed side of `locsim serve`: the players, their control API and live map on the HTTP
/// server, the gpsd protocol server and the emulator bridges, as services of the same group as the HTTP server (one
/// runtime, one shutdown).
struct FeedRuntime {
    /// The release named in `VERSION`.
    static let release = "locsim-\(LocSim.configuration.version)"

    let hub: PlayerHub
    let api: PlayerControlAPI
    /// The players that walk a scenario, by name: their phones run on their map sessions.
    let scenarios: [String: Scenario]
    /// The hub, and the gpsd protocol server with --gpsd-port.
    let services: [any Service]

    /// A start-up line for each player: its device, what it plays, at what pace, its seed.
    let playerLines: [String]

    /// - Parameters:
    ///   - specs: `options.specs()`, read once by the caller.
    ///   - onGPSDListening: Given the start-up line of the gpsd protocol server once it listens
    ///     (with --gpsd-port).
    init(_ options: FeedOptions, specs: [PlayerSpec], host: String, onGPSDListening: @escaping @Sendable (String) -> Void) throws {
        let bridges = try options.bridges(players: Set(specs.map(\.name)))
        // Ready to run in real time under control; prints what a track file dropped. A scenario's
        // trouble is told on its player's event stream, once the hub is there to tell it.
        let troubleNotes = TroubleNotes(now: { Date() })
        let players = try specs.map { spec in
            do {
                return try spec.makePlayer(onTrouble: troubleNotes.handler(player: spec.name))
            } catch let error as ValidationError {
                throw error  // makePlayer's own checks name the player already
            } catch {
                // Which --player a file that cannot be read belongs to, its hint and status kept.
                let report = ErrorReport.make(for: error, arguments: ["serve"])
                throw CommandFailure("--player \(spec.name): \(report.message)", hint: report.hint, status: report.status)
            }
        }
        playerLines = players.map { player in
            "  \(player.devicePath): \(player.summary) \(player.isControllable ? "at \(player.speedFactor)×" : "live"), seed \(player.seed)"
        }
        var scenarios: [String: Scenario] = [:]
        // Scenarios whose route is legs: where it ends is known once it is walked, so what they
        // set past the end is said then (a route file's is said at start, by makePlayer).
        var walkedRoutes: [String: (file: String, scenario: Scenario)] = [:]
        for spec in specs {
            guard case .scenario(let file, let scenario) = spec.source else { continue }
            scenarios[spec.name] = scenario
            if case .legs? = scenario.route { walkedRoutes[spec.name] = (file, scenario) }
        }
        self.scenarios = scenarios
        let ended = Locked<PlayerHub?>(nil)
        let walked = walkedRoutes
        let hub = try PlayerHub(players: players, now: { Date() }) { name, error in
            if let error {
                Terminal.err("locsim serve: player \(name) failed: \(error)")
                return
            }
            Terminal.err("locsim serve: player \(name) reached the end of its path (its device stays, silent)")
            if let (file, scenario) = walked[name], let end = ended.withLock({ $0 })?.info(name)?.status.offset {
                for line in scenario.unreached(routeEnd: end, in: file) { Terminal.err(line) }
            }
        }
        ended.withLock { $0 = hub }
        self.hub = hub
        troubleNotes.attach(hub)
        let defaultSpeed = options.playerSpeed
        api = PlayerControlAPI(hub: hub) { creation throws(ConfigurationError) in
            try Self.makePlayer(creation, defaultSpeed: defaultSpeed)
        }
        let bridged = try Self.bridgeServices(bridges, hub: hub, tokenFile: options.androidTokenFile)
        let heartbeat = EventHeartbeat(api: api, interval: options.eventHeartbeat.duration)
        let traced: [any Service] = FixTrace.fromEnvironment(hub: hub).map { [$0] } ?? []
        guard let gpsdPort = options.gpsdPort else {
            services = [hub, heartbeat] + traced + bridged
            return
        }
        let gpsd = GPSDFeedServer(
            configuration: .init(host: host, port: gpsdPort, release: Self.release), hub: hub, now: { Date() },
            onListening: { host, port in
                let shown = NearbyServer.Configuration.isLoopback(host) ? host : "127.0.0.1"
                onGPSDListening("locsim serve: gpsd protocol on \(shown):\(port) (gpspipe -w \(shown):\(port))")
            })
        services = [hub, heartbeat] + traced + bridged + [gpsd]
    }

    /// The Android console and iOS Simulator bridges: each retries for as long as the server runs
    /// (back-off up to 30 s), saying on standard error when it connects and when it fails.
    static func bridgeServices(_ bridges: FeedOptions.Bridges, hub: PlayerHub, tokenFile: String?) throws -> [any Service] {
        let backoff = try Backoff(initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(30))
        let tokenFile =
            tokenFile ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.emulator_console_auth_token")
        var sinks: [(player: String, sink: any FixSink, interval: Duration)] = []
        for (player, port) in bridges.android {
            sinks.append((player, EmulatorConsole(configuration: try .init(port: port, tokenFile: tokenFile)), .milliseconds(200)))
        }
        for (player, device) in bridges.simulators {
            sinks.append((player, SimulatorLocation(configuration: try .init(device: device), clock: ContinuousClock()), .seconds(1)))
        }
        return try sinks.map { player, sink, interval in
            let forwarder = try FixForwarder(
                sink: sink, minimumInterval: interval, backoff: backoff, clock: ContinuousClock(),
                onEvent: { event in
                    switch event {
                    case .opened(let destination):
                        Terminal.err("locsim serve: player \(player) → \(destination): connected")
                    case .failed(let destination, let error, let retry):
                        let next = retry.map { "; trying again in \(DecimalText.fixed($0.fractionalSeconds, decimals: 1)) s" } ?? ""
                        Terminal.err("locsim serve: player \(player) → \(destination): \(error)\(next)")
                    case .sent:
                        break
                    }
                })
            return try PlayerBridge(player: player, hub: hub, forwarder: forwarder)
        }
    }

    /// A player asked for by `POST /players`.
    static func makePlayer(_ creation: PlayerControlAPI.Creation, defaultSpeed: Double) throws(ConfigurationError) -> FeedPlayer {
        let speed = creation.speed ?? defaultSpeed
        guard speed.isFinite, Pacing.speedFactorRange.contains(speed) else {
            throw ConfigurationError(parameter: "speed", "must be within 0.1...1000 (times real time), got \(PeopleText.number(speed))")
        }
        switch creation.source {
        case .spec(let text):
            // Refused before the spec is parsed, which reads a scenario file: a caller must not
            // learn whether a file exists on the server, or what it holds.
            if PlayerSpec.fileSpec(text.trimmingCharacters(in: .whitespaces)) != nil {
                throw ConfigurationError(
                    parameter: "spec", "a file on the server is not read over HTTP: send the GPX document as the body")
            }
            let spec: PlayerSpec
            do {
                spec = try PlayerSpec("\(creation.name)=\(text)", defaultSpeed: speed)
            } catch {
                throw ConfigurationError(parameter: "spec", error.message.replacingOccurrences(of: "--player ", with: ""))
            }
            if let asked = creation.speed, let own = spec.ownSpeed, own != asked {
                // Shown to three decimals, unless that makes two different speeds read alike.
                var (ownText, askedText) = (PeopleText.number(own, decimals: 3), PeopleText.number(asked, decimals: 3))
                if ownText == askedText { (ownText, askedText) = ("\(own)", "\(asked)") }
                throw ConfigurationError(parameter: "speed", "the spec says --speed \(ownText) and 'speed' is \(askedText): give one")
            }
            switch spec.source {
            case .track, .scenario:
                throw ConfigurationError(
                    parameter: "spec", "a file on the server is not read over HTTP: send the GPX document as the body")
            case .receiver:
                throw ConfigurationError(
                    parameter: "spec",
                    "the server does not connect to other hosts for callers: relay a receiver with --player NAME=gpsd://HOST")
            case .motion:
                break
            }
            do {
                return try spec.makePlayer(loops: creation.loops)
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError(parameter: "spec", "\(error)")
            }
        case .gpx(let bytes):
            let document: GPXDocument
            do {
                document = try GPXDocument(string: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw ConfigurationError(parameter: "body", "not a GPX document: \(error)")
            }
            let replay: GPXReplay<ContinuousClock>
            do {
                replay = try GPXReplay(
                    path: try ReplayPath(document: document),
                    configuration: .init(
                        pacing: .virtual, timestamps: .rebased, horizontalAccuracyPerHDOP: NMEALog.horizontalAccuracyPerHDOP))
            } catch {
                throw ConfigurationError(parameter: "body", "\(error.message)")
            }
            let points = replay.analysis.pointCount
            // Points a replay drops (their time goes backwards) are said in the answer and on
            // standard error, as a file player's are when the server starts.
            let dropped = replay.analysis.droppedBackwardsPoints.count
            let droppedText =
                dropped == 0
                ? "" : "; dropped \(PeopleText.count(dropped, "point")) whose time goes backwards (a replay never reorders)"
            if dropped > 0 { Terminal.err("locsim serve: player \(creation.name) (GPX body)\(droppedText)") }
            return try PlayerSpec.player(
                name: creation.name, seed: PlayerSpec.seed(of: creation.name), speed: speed,
                summary: "GPX body, \(PeopleText.count(points, "point"))\(droppedText)", loops: creation.loops, path: replay,
                end: .after(seconds: replay.analysis.duration))
        }
    }
}

/// A comment frame on every open event stream every `interval` (`serve --event-heartbeat`, 15 s
/// unless told; `PlayerControlAPI.sendHeartbeats`), so proxies keep quiet streams open and a
/// client gone unseen is found by the next write.
struct EventHeartbeat: Service, CustomStringConvertible {
    let api: PlayerControlAPI
    let interval: Duration
    var description: String { "EventHeartbeat(every \(interval))" }

    func run() async {
        await cancelWhenGracefulShutdown { [api, interval] in await api.sendHeartbeats(every: interval, clock: ContinuousClock()) }
    }
}

extension FeedRuntime {
    /// The control API and the live map as routes of the nearby server.
    var routes: AddedRoutes {
        AddedRoutes(
            register: { [api] open, guarded in api.addRoutes(open: open, guarded: guarded) },
            beginShutdown: { [api] in api.finishStreams() })
    }
}
#endif  // Server
