#if Server
import ArgumentParser
import Foundation
import LocationCore
import LocationFeed
import LocationIndex
#if PostGIS
import LocationPostGIS
#endif
import Logging
import MapFeature
import NearbyServer
import ServiceLifecycle

extension PlaceIDFormat: ExpressibleByArgument {}

/// `locsim serve`: the game's `GET /locations/nearby` over HTTP, so the real app can be pointed
/// at locsim. A thin shell: it parses options, opens the index and runs a ``NearbyServer``.
struct Serve: AsyncParsableCommand, Interruption.Command {
    static let configuration = CommandConfiguration(
        abstract: "Serve the game's GET /locations/nearby from the offline index, for the real app to test against.",
        discussion: """
            Answers GET /locations/nearby?lat=&lng=&radius=[&limit=] with {"locations":[...]}, nearest \
            first, from the default offline index or --db. Also GET /healthz, GET /metrics (Prometheus \
            text) and GET /audit (each client's requests checked against the game's fetch rule). \
            Listens on 127.0.0.1 unless --host says otherwise; any other host needs --token or \
            --allow-anonymous. SIGTERM, SIGINT or SIGHUP stop it gracefully: no new connection is \
            accepted, every request in flight is answered, each open connection's next answer within \
            --drain-period says 'Connection: close', then it exits 0 (1 with --audit-strict and a \
            violation); a second signal stops at once, cutting off what is in flight (exit 128 + its \
            number). See docs/guides/serve.md.

            --player NAME=SPEC (repeatable) runs simulated players in real time, steered through the \
            control API (GET/POST /players, POST /players/NAME/control, Server-Sent Events on \
            /players/events) and shown on the live map at /; with --gpsd-port PORT each is also a gpsd \
            device, /dev/locsim/NAME, for gpspipe, libgps or 'locsim gpsd' (see docs/guides/feeds.md).
            """
    )

    @Option(help: ArgumentHelp("Serve from this index (see 'locsim index import') instead of the default one.", valueName: "path"))
    var db: String?

    @Option(
        help: ArgumentHelp(
            "Serve from this PostGIS database instead (see 'locsim index import --postgres'; docs/guides/postgis.md).",
            valueName: "url"))
    var postgres: String?

    @Option(
        help: ArgumentHelp(
            "With --postgres: a streaming replica to read from (repeatable; round robin, failing over to the primary; docs/guides/scale-out.md).",
            valueName: "url"))
    var replica: [String] = []

    @Option(
        help: ArgumentHelp(
            "Place CSVs for the default index, used without --db (default: \(DefaultIndex.geodataSearch)).",
            valueName: "dir"))
    var geodata: String?

    @Option(
        help: "Address to listen on (IPv6 as ::1 or [::1]). Anything but loopback needs --token or --allow-anonymous.",
        transform: HostArgument.parse)
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "Port to listen on; 0 picks a free one (printed at startup).")
    var port = 8080

    @Option(help: ArgumentHelp(
        "Require 'Authorization: Bearer <token>' on every route but /healthz and the live map page /. A flag shows in 'ps': prefer --token-file or $LOCSIM_TOKEN.",
        valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("Read --token from this file (surrounding white space trimmed).", valueName: "path"))
    var tokenFile: String?

    @Flag(help: "Admit any well-formed bearer token (the app's real one passes unchanged); none is still a 401.")
    var acceptAnyToken = false

    @Flag(help: "Allow a non-loopback --host without a token (anyone on the network may call).")
    var allowAnonymous = false

    @Option(number: ArgumentHelp("Largest radius answered, in metres; a larger one is a 400.", valueName: "m"))
    var maxRadius: Double = 50_000

    @Option(
        help: ArgumentHelp(
            "Place ids as stored, or uuid: each id that is not a UUID as its stable name-based UUID (the game's Location.id is a UUID; docs/guides/serve.md).",
            valueName: "format"))
    var idFormat: PlaceIDFormat = .stored

    @Option(duration: "Delay every answer by this much (800ms, 1.5s).")
    var latency: DurationArgument?

    @Option(duration: "Spread the latency uniformly by ± this much (at most --latency).")
    var latencyJitter: DurationArgument?

    @Option(number: ArgumentHelp("Answer this share of requests (of those --timeout-rate does not hold) with 500 or 503 (Retry-After: 1), 0...1.", valueName: "p"))
    var failRate: Double = 0

    @Option(number: ArgumentHelp("Never answer this share of requests (the client times out), 0...1.", valueName: "p"))
    var timeoutRate: Double = 0

    @Option(seed: "Seed of the fault draws.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("A JSON list of outcomes for the first requests, then real answers (see docs/guides/serve.md).", valueName: "file.json"))
    var script: String?

    @Option(number: ArgumentHelp("The audited rule: a fetch is due after more than this many metres.", valueName: "m"))
    var throttleDistance: Double = 100

    @Option(duration: "The audited rule: a fetch is due after more than this long (default 30s).")
    var throttleInterval: DurationArgument = .seconds(30)

    @Option(duration: "Slack on the audited interval for network jitter (default 1s).")
    var auditTolerance: DurationArgument = .seconds(1)

    @Option(number: ArgumentHelp(
        "Game seconds per wall-clock second of the audited clients (a swarm's --speed): the interval and back-off are divided by it (0.01…1000).",
        valueName: "x"))
    var auditSpeed: Double = 1

    @Option(help: ArgumentHelp(
        "A header of the app's own that names the audited client when X-Player-ID is absent (a device id).", valueName: "name"))
    var auditClientHeader: String?

    @Option(help: ArgumentHelp("At shutdown, write the audit as an HTML page (map, timeline, counts).", valueName: "file.html"))
    var auditReport: String?

    @Flag(help: "Exit with status 1 at shutdown if the audit saw any violation.")
    var auditStrict = false

    @Option(help: "Access log: text or json, one line per request on standard output.")
    var logFormat: ReportFormat = .text

    @Option(help: "The server's own log on standard error: notice (start, stop, failures), debug adds each request as it arrives.")
    var logLevel: LogLevel = .notice

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Close a connection whose request head is not complete this long after its first byte (408).", valueName: "duration"),
        transform: DurationArgument.parse)
    var headerTimeout: DurationArgument = .seconds(10)

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Close a connection with no request for this long.", valueName: "duration"),
        transform: DurationArgument.parse)
    var idleTimeout: DurationArgument = .seconds(60)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Connections served at once; more are answered 503 and closed (default: the open-file limit less 128).", valueName: "n"))
    var maxConnections: Int?

    @Option(duration: "At a stop, how long open connections are drained: each one's next answer says 'Connection: close', and one still idle at the end is closed (default 1s; 0s...1h).")
    var drainPeriod: DurationArgument = .seconds(1)

    @OptionGroup(title: "Simulated players") var feed: FeedOptions

    func validate() throws {
        if let postgres {
            guard db == nil else { throw ValidationError("give one of --db PATH and --postgres URL, not both") }
            try PostgresTarget.validate(postgres)
        }
        if !replica.isEmpty, postgres == nil { throw ValidationError("--replica needs --postgres URL (the primary)") }
        for url in replica { try PostgresTarget.validate(url, flag: "--replica") }
        if let latency { try checkOption(latency, in: 0...86_400, flag: "--latency") }
        if let latencyJitter { try checkOption(latencyJitter, in: 0...86_400, flag: "--latency-jitter") }
        // The jitter against the latency, and the rates, are the fault plan's own checks (run()).
        // The same ranges as replay's rule options: these are the rule the audit applies.
        try checkOption(throttleDistance, in: OptionRange.throttleDistance, flag: "--throttle-distance", unit: "metres")
        try checkOption(throttleInterval, in: OptionRange.throttleInterval, flag: "--throttle-interval")
        try checkOption(auditTolerance, in: OptionRange.throttleInterval, flag: "--audit-tolerance")
        try checkOption(auditSpeed, in: 0.01...1000, flag: "--audit-speed", unit: "")
        // The port, the radius cap, the timeouts, the connection cap and the host's token rule are
        // the server's own checks (`NearbyServer.Configuration`, first thing in run()).
        if readsToken { _ = try validateBearerToken(flag: token, file: tokenFile) }
        if let gpsdPort = feed.gpsdPort, gpsdPort != 0, gpsdPort == port {
            throw ValidationError("--gpsd-port \(gpsdPort) is --port's too: the HTTP server and the gpsd feed need a port each")
        }
        // Only the relayed receivers' specs: the others (scenario files among them) are read once, by the feed.
        let receivers = try feed.players.filter(PlayerSpec.isReceiver).map { try PlayerSpec($0, defaultSpeed: 1) }
        try FeedOptions.refuseSelfRelay(receivers, gpsdPort: feed.gpsdPort, host: host)
        // The gpsd protocol has no token: on the network only with --allow-anonymous.
        if feed.gpsdPort != nil, !allowAnonymous, !NearbyServer.Configuration.isLoopback(host) {
            throw ValidationError(
                "--gpsd-port on --host \(host) lets other machines watch the players, and gpsd's protocol has no "
                    + "token: add --allow-anonymous, or serve on 127.0.0.1")
        }
    }

    /// The one token the server requires: `--token`, `--token-file` or `$LOCSIM_TOKEN`. With
    /// `--accept-any-token` the environment is not read (a shell that exports a token for `swarm`
    /// or `replay --online` still serves any token); a flag or file beside it is refused.
    private func serverToken() throws -> String? {
        readsToken ? try bearerToken(flag: token, file: tokenFile) : nil
    }

    /// Where the token came from, for the start-up line that tells the app how to send it.
    private var tokenSource: String { token != nil ? "--token" : tokenFile != nil ? "--token-file" : "$LOCSIM_TOKEN" }

    /// Whether a token is read at all: `--accept-any-token` alone reads none, not even `$LOCSIM_TOKEN`.
    private var readsToken: Bool { !(acceptAnyToken && token == nil && tokenFile == nil) }

    /// The server's configuration without its faults, refused as the option it names says
    /// (`--max-radius: …`). An unreadable `--token-file` is a run-time failure (status 1).
    private func serverConfiguration() throws -> NearbyServer.Configuration {
        let token = try serverToken()
        do {
            let rule = try FetchThrottle.Configuration(minimumDistance: throttleDistance, minimumInterval: throttleInterval.duration)
            return try NearbyServer.Configuration(
                host: host, port: port, token: token, allowAnonymous: allowAnonymous, maximumRadius: maxRadius,
                audit: FetchAudit.Configuration(rule: rule, tolerance: auditTolerance.duration, speed: auditSpeed),
                headerTimeout: headerTimeout.duration, idleTimeout: idleTimeout.duration,
                maximumConnections: maxConnections ?? NearbyServer.Configuration.defaultMaximumConnections,
                acceptAnyToken: acceptAnyToken, auditClientHeader: auditClientHeader, drainPeriod: drainPeriod.duration)
        } catch let error as ServerConfigurationError {
            throw ValidationError("--\(error.option): \(error.message)")
        }
    }

    /// The injected faults: the rates, the latency and the per-request outcomes of `--script`
    /// or of a player's scenario (its `server` list).
    private func faultPlan(for specs: [PlayerSpec]) throws -> FaultPlan.Configuration {
        do {
            var steps = try script.map { path throws(FaultError) in try FaultScript.load(path: path) } ?? []
            if let (file, list) = try FeedOptions.scenarioServerScript(of: specs) {
                guard script == nil else {
                    throw ValidationError("--script and the scenario \(file) (its \"server\" list) both give the server's outcomes: give one")
                }
                steps = try FaultScript.parse(list, source: file, keyPath: "server")
            }
            return try FaultPlan.Configuration(
                latency: latency?.duration ?? .zero, latencyJitter: latencyJitter?.duration ?? .zero,
                failRate: failRate, timeoutRate: timeoutRate, seed: seed, script: steps)
        } catch let error as FaultError {
            // A script file that cannot be read (not there, a folder) is a run-time failure
            // (status 1), as any input file; a script that says something wrong is a usage error.
            if error.isUnreadableFile { throw CommandFailure(error.message, hint: ErrorReport.unreadableHint) }
            throw ValidationError((error.parameter.map { "--\($0): " } ?? "") + error.message)
        }
    }

    func run() async throws {
        // The server's own checks (the port, the radius cap, the timeouts, the connection cap,
        // the host's token rule) before any file is read or anything starts.
        var settings = try serverConfiguration()
        // The players, each scenario file read once: for the server's script and for the feed.
        let specs = try feed.specs()
        // A report path that cannot be written, or that names a file the server reads, fails
        // now, not at shutdown after the whole run.
        if let auditReport {
            let players: [(path: String?, role: String)] = specs.map { spec in
                switch spec.source {
                case .track(let path), .scenario(let path, _): (path, "player \(spec.name)'s file")
                case .motion, .receiver: (nil, "")
                }
            }
            let files: [(path: String?, role: String)] = [(db, "the place index"), (script, "the --script file"), (tokenFile, "the token file")]
            try checkOutputPath(
                auditReport, flag: "--audit-report", apartFrom: players + files)
        }
        settings.faults = try faultPlan(for: specs)
        let configuration = settings
        var repository: any LocationRepository
        var noPlaces: NoPlaceData?
        var backends: [any Service] = []
        if let postgres {
            #if PostGIS
            let logger = PostgresTarget.logger("locsim.serve.postgres", level: .notice)
            let primary = try PostGISPlaceStore(url: try PostgresTarget.url(postgres), clock: ContinuousClock(), logger: logger)
            let replicas = try replica.map { url in
                try PostGISPlaceStore(url: try PostgresTarget.url(url, flag: "--replica"), clock: ContinuousClock(), logger: logger)
            }
            let router = PostGISReadRouter(primary: primary, replicas: replicas, clock: ContinuousClock(), logger: logger)
            do {
                // A database that refuses the login or has no places would get every request a
                // 503: said now, as 'index stats' says it. One that is down is logged, and served
                // when it answers.
                _ = try await router.checkAtStart()
            } catch {
                let failure = PostgresTarget.failure(error.error, url: error.url)
                let flag = error.role == .primary ? "--postgres" : "--replica (\(error.role))"
                throw CommandFailure("\(flag): \(failure.description)", hint: failure.hint)
            }
            repository = PostGISRepository(router: router)
            backends.append(PostGISPoolService(router: router))
            #else
            throw BuildTraits.missing("PostGIS", for: "--postgres \(postgres)")
            #endif
        } else if db == nil, geodata == nil, !specs.isEmpty, let looked = DefaultIndex.missingGeodata() {
            // Players want no places: without any, the feeds still run (the nearby route says why not).
            let missing = NoPlaceData(looked: looked)
            noPlaces = missing
            repository = missing
        } else {
            repository = OfflineLocationRepository(index: try DefaultIndex.open(db: db, geodata: geodata))
        }
        if idFormat == .uuid { repository = UUIDIdentifiedRepository(base: repository) }
        var logger = Logger(label: "locsim.serve", factory: { label in StreamLogHandler.standardError(label: label) })
        logger.logLevel = logLevel.level
        // Lines go out in batches (one write per 64 KiB or 100 ms), not one system call per request.
        let accessLog = AccessLog(format: logFormat == .text ? .text : .json, buffer: AccessLogBuffer { Terminal.writeAll(1, $0) })
        let boundPort = Locked(port)
        // With --log-format json, standard output carries JSON lines only: the start-up lines
        // for people go to standard error.
        let say: @Sendable (String) -> Void = logFormat == .json ? Terminal.err : Terminal.out
        // Said together once every listener is bound, so a start that then fails (the gpsd port
        // in use) never says "listening on" first: a script waiting for it is not misled.
        let startup = StartupLines(parts: feed.gpsdPort == nil ? 1 : 2)
        let feedRuntime = try FeedRuntime(feed, specs: specs, host: host) { line in
            startup.add(part: 1, [line]).map { $0.forEach(say) }
        }
        startup.setTrailer(feedRuntime.playerLines)
        let placesMissing = noPlaces?.reason
        let server = NearbyServer(
            configuration: configuration, repository: repository,
            time: ServerTime(clock: ContinuousClock(), now: { Date() }), accessLog: accessLog, logger: logger,
            addedRoutes: feedRuntime.routes,
            onListening: { host, port in
                boundPort.withLock { $0 = port }
                // `http://[::1]:8080`: an IPv6 address goes in brackets in a URL.
                let base = "http://" + HostPort(host: NearbyServer.Configuration.isLoopback(host) ? host : "127.0.0.1", port: port).description
                var line = "locsim serve: listening on \(base)"
                if !NearbyServer.Configuration.isLoopback(host) { line += " (and this machine's LAN address, port \(port))" }
                var lines = [line]
                // Without places the nearby route answers 503: no advice to point the app at it.
                if placesMissing == nil {
                    lines.append(
                        "  set the app's server base URL to \(base); it calls GET /locations/nearby"
                            + (configuration.token == nil ? "" : " with 'Authorization: Bearer <the token of \(tokenSource)>'"))
                }
                lines.append("  players: \(base)/players (control API), live map \(base)/")
                if let reason = placesMissing { lines.append("  \(reason)") }
                startup.add(part: 0, lines).map { $0.forEach(say) }
            })
        // The fetches and places of each player's map screen, for the live map (none without places).
        let feedServices =
            feedRuntime.services
            + (noPlaces != nil
                ? []
                : [
                    PlayerMapSessions(
                        hub: feedRuntime.hub, repository: repository, rule: configuration.audit.rule, scenarios: feedRuntime.scenarios)
                ])
        // A service that fails (a port in use, say) shuts the others down gracefully: the HTTP
        // server drains instead of being cancelled mid-start, which Hummingbird logs as an error
        // before the one that matters.
        // Last in the list, so the first told of a stop (the group tells services in reverse).
        let notice = StoppingNotice(connections: server.state.connections, startup: startup)
        // The signals are the command's own (Interruption, as every command's): the group traps none.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: (backends + [server] + feedServices).map {
                    ServiceGroupConfiguration.ServiceConfiguration(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup)
                } + [.init(service: notice, successTerminationBehavior: .ignore)],
                logger: logger))
        let connections = server.state.connections
        var forced: SecondSignal?
        do {
            defer { accessLog.flush() }
            // The first signal begins the drain; a second stops at once (SecondSignal).
            try await runHandlingSignals {
                try await group.run()
            } handle: { number, count in
                if count == 1 {
                    await group.triggerGracefulShutdown()
                } else {
                    throw SecondSignal(signal: number, connections: connections.current)
                }
            }
        } catch let error as ListenError {
            let flag = error.clients == .http ? "--port" : "--gpsd-port"
            // Below 1024 a port is the system's: binding one takes root or CAP_NET_BIND_SERVICE.
            if error.errno == EACCES, (1..<1024).contains(error.address.port) {
                throw CommandFailure(
                    error.description,
                    hint: "ports below 1024 need root or CAP_NET_BIND_SERVICE: choose \(flag) \(error.clients == .http ? 8080 : 2947) "
                        + "(0 picks a free one), or put a proxy in front")
            }
            throw CommandFailure(
                error.description, hint: "choose another \(flag) (0 picks a free one), or a --host of this machine such as 127.0.0.1")
        } catch let stop as SecondSignal {
            forced = stop  // the audit so far is still said and written below
        }

        let audit = server.state.audit
        // A report that cannot be written (its folder removed during the run) is an error, but
        // after the audit's own lines: the verdict is never lost with the page.
        var reportFailure: CommandFailure?
        if let auditReport {
            let page = AuditReport(audit: audit, title: "http://\(HostPort(host: host, port: boundPort.withLock { $0 })), \(Date())").render()
            do {
                try HTMLReport.write(page, to: auditReport, what: "the audit report")
                Terminal.err("audit report written to \(auditReport)")
            } catch {
                reportFailure = error
            }
        }
        Terminal.err(
            "locsim serve: stopped; audit: \(PeopleText.count(audit.requestCount, "request")) from \(PeopleText.count(audit.clientCount, "client")), "
                + PeopleText.count(audit.violationCount, "violation"))
        let failsStrict = auditStrict && audit.violationCount > 0
        if failsStrict {
            for record in audit.records where record.violations > 0 {
                Terminal.err("  \(record.client): \(record.violations) of \(PeopleText.count(record.requests, "request")) broke the fetch rule")
            }
            if audit.evictedViolations > 0 {
                Terminal.err(
                    "  \(PeopleText.count(audit.evictedClients, "idle client")) dropped from the audit: \(PeopleText.count(audit.evictedViolations, "violation"))")
            }
        }
        if let forced {
            // Not a clean stop: the status a signal's default action gives, whatever the audit says.
            Terminal.err("locsim serve: \(forced)")
            throw ExitCode(128 + forced.signal)
        }
        if let reportFailure { throw reportFailure }
        if failsStrict { throw ExitCode(1) }
    }
}

/// `serve --log-level`: swift-log's levels, from the most said to the least.
enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

#endif  // Server

#if Server
/// A second SIGINT, SIGTERM or SIGHUP during the drain stops `serve` at once: the requests still
/// in flight (one held by `--latency 8s`) are cut off rather than waited for, and the access log,
/// the audit's lines and its report are still written. Without it the second Ctrl-C changed
/// nothing and only SIGKILL, which loses all three, ended a long drain.
struct SecondSignal: Error, CustomStringConvertible {
    let signal: Int32
    let connections: Int
    var description: String {
        "stopped at a second \(Interruption.name(of: signal)), cutting the drain short; connections closed unanswered: \(connections)"
    }
}

/// Says on standard error that `serve` is stopping, the moment a signal begins the drain: the
/// requests in flight are answered first, and one held by `--latency` or a script's delay kept a
/// Ctrl-C silent for seconds, with nothing to tell a stop under way from a hang.
struct StoppingNotice: Service, CustomStringConvertible {
    let connections: ConnectionLimit
    /// Said only once the server has said it listens: a start that failed (a port in use, a
    /// port below 1024 without the right) stops with nothing to drain, and its error says why.
    let startup: StartupLines
    var description: String { "StoppingNotice" }

    func run() async {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group is ending some other way, which says why itself
        }
        guard startup.said else { return }
        let open = connections.current
        Terminal.err(
            "locsim serve: stopping: no new connections; the requests in flight are answered first ("
                + PeopleText.count(open, "connection") + " open; a second signal stops at once)")
    }
}
#endif
