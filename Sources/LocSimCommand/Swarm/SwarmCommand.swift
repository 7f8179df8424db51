import ArgumentParser
import Foundation
import LocationCore
import LocationIndex
import Swarm
#if Server
import SwarmHTTP
#endif

/// `locsim swarm`: many players running the game's fetch rule, and the load it puts on a backend.
struct SwarmCommand: AsyncParsableCommand, Interruption.Command {
    static let configuration = CommandConfiguration(
        commandName: "swarm",
        abstract: "Simulate many players running the game's fetch rule, against a server or in virtual time.",
        discussion: """
            With --server URL, every player runs the app's map session (the fetch rule, one request \
            at a time, the back-off after a failure) in real time (--speed scales it) and sends its \
            real GET /locations/nearby with X-Player-ID: swarm-K. A terminal shows live progress; at \
            the end a summary (requests per second by reason, latency percentiles, status codes, \
            errors, places per answer, the interval between a player's requests), --format jsonl \
            for one line per second and a summary line, --report FILE.html for a page with charts. \
            --misbehave P makes that share of players ignore the rule, for testing a server's audit. \
            --scenario FILE (with --scenario-share P, every player by default) puts that share of the \
            players following the rule on a scenario's phone: its GPS trouble, delivery rules, app moves \
            and game.maximumFixAge, with the player's own motion as the route (docs/guides/scenarios.md).

            --virtual runs every player's fix stream (1 Hz) and the game's fetch rule (first fix, then \
            more than 100 m or more than 30 s) in virtual time, in-process, and prints the request rate \
            the backend would see by reason: mean, busiest second and busiest minute. Nothing is sent. \
            The same options and --seed give the same bytes.

            Players move as seeded random walks (legs of 10–60 s with turns and stops) with the speed \
            profiles of 'locsim simulate': --mix walk=0.7,cycle=0.2,drive=0.1. They start anywhere in \
            --area LAT,LNG,RADIUS, or at random places of an index (--db) within it, and open the app \
            at random seconds over --ramp.
            """
    )

    @Flag(help: "Run in virtual time and print the load; nothing is sent.")
    var virtual = false

    @Option(help: ArgumentHelp("Send the players' requests to this server: http://HOST[:PORT][/PATH].", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("With --server: send Authorization: Bearer TOKEN (or use --token-file, or $LOCSIM_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("With --server: read --token from this file.", valueName: "path"))
    var tokenFile: String?

    @Option(number: ArgumentHelp("With --server: game seconds per wall-clock second (0.01…1000).", valueName: "x"))
    var speed: Double = 1

    @Option(number: ArgumentHelp("With --server: the share of players that ignore the fetch rule (0…1).", valueName: "fraction"))
    var misbehave: Double = 0

    @Option(
        help: ArgumentHelp(
            "With --server: players' fixes go through this scenario's phone (its trouble, delivery rules, app moves; their own motion is the route).",
            valueName: "file.json"))
    var scenario: String?

    @Option(number: ArgumentHelp("With --scenario: the share of the players following the rule that run it (0…1, default 1).", valueName: "fraction"))
    var scenarioShare: Double?

    @Option(help: ArgumentHelp("With --server: write an HTML report with charts to this file.", valueName: "file.html"))
    var report: String?

    @Option(help: ArgumentHelp("With --server: players follow the GPX tracks of this folder (each a random one, from a random offset, looping) instead of random walks.", valueName: "dir"))
    var tracks: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --server: keep-alive connections per thread at most.", valueName: "n"))
    var connections: Int = 64

    @Option(duration: "With --server: a request unanswered after this long fails (wall-clock; default 10s).")
    var timeout: DurationArgument = .seconds(10)

    @Option(parsing: .unconditional, help: ArgumentHelp("How many players (required).", valueName: "n"))
    var players: Int

    @Option(duration: "Game time to simulate, in whole seconds, up to 7 days (default 1h).")
    var duration: DurationArgument = DurationArgument(.seconds(3600), text: "1h")

    @Option(seed: "Seed of everything random.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Kinds of movers and their shares: walk, run, cycle, drive.", valueName: "kind=share,…"))
    var mix: String = "walk=0.7,cycle=0.2,drive=0.1"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Where players move: a centre and a radius in metres.", valueName: "lat,lng,radius"))
    var area: String = "35.6812,139.7671,3000"

    @Option(help: ArgumentHelp("Start players at random places of this index within --area.", valueName: "path"))
    var db: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --db: answer every fetch of the first N players from the index, to report places per answer.", valueName: "n"))
    var sampleAnswers: Int = 20

    @Option(duration: "Players open the app at random seconds over this long (0: all at once; default 60s, or --duration when shorter).")
    var ramp: DurationArgument?

    /// `--ramp`, else 60 s, or the whole run when that is shorter (`--duration 30s` alone is a run).
    private var rampSeconds: Double { ramp?.seconds ?? min(60, duration.seconds) }

    /// `--fail-rate`, as `serve` names its share of failed requests.
    @Option(name: .customLong("fail-rate"), number: ArgumentHelp("With --virtual: the share of fetches that fail, so back-off and retries show, 0...1.", valueName: "p"))
    var failureRate: Double = 0

    @Flag(help: "With --virtual: evaluate the rule at every fix, not only where it can hold (the same numbers, slower).")
    var everyFix = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Threads to run on (--virtual: default one per core, the numbers do not depend on it; --server: the client's event loops, default 1).", valueName: "n"))
    var threads: Int?

    @Option(help: "Output: text, json (--virtual) or jsonl (--server).")
    var format: DataFormat = .text

    func validate() throws {
        if virtual {
            guard server == nil else { throw ValidationError("--server and --virtual exclude each other: --virtual sends nothing") }
            for (flag, given) in [
                ("--report", report != nil), ("--misbehave", misbehave != 0), ("--tracks", tracks != nil), ("--token", token != nil),
                ("--scenario", scenario != nil),
                ("--token-file", tokenFile != nil), ("--speed", speed != 1),
                ("--format jsonl", format == .jsonl), ("--scenario-share", scenarioShare != nil), ("--connections", connections != 64),
                ("--timeout", timeout.seconds != 10),
            ] where given {
                throw ValidationError("\(flag) is for runs against --server, not --virtual")
            }
        } else {
            guard let server else {
                throw ValidationError("say where to send the requests with --server URL, or add --virtual to compute the load without sending")
            }
            try BuildTraits.requireServer(for: "--server \(server)")
            _ = try validateBearerToken(flag: token, file: tokenFile)
            #if Server
            do {
                _ = try SwarmHTTPClient.Endpoint(url: server)
            } catch {
                throw ValidationError("--server: \(error.message)")
            }
            #endif
            if failureRate != 0 {
                throw ValidationError("--fail-rate is for --virtual (against a server, failures are the server's)")
            }
            for (flag, given) in [("--every-fix", everyFix), ("--format json", format == .json)] where given {
                let instead = flag == "--format json" ? ": give --format jsonl, a line a second and the summary" : ""
                throw ValidationError("\(flag) is for --virtual (against a server, each request is reported as it is made)\(instead)")
            }
            try checkOption(speed, in: 0.01...1000, flag: "--speed", unit: "")
            try checkOption(misbehave, in: 0...1, flag: "--misbehave", unit: "")
            if let scenarioShare {
                guard scenario != nil else { throw ValidationError("--scenario-share needs --scenario FILE") }
                try checkOption(scenarioShare, in: 0...1, flag: "--scenario-share", unit: "")
            }
            try checkOption(connections, in: 1...100_000, flag: "--connections")
            try checkOption(timeout, in: 0.001...3600, flag: "--timeout")
        }
        try checkOption(players, in: 1...VirtualSwarm.Configuration.maximumPlayers, flag: "--players")
        try checkOption(duration, in: 1...Double(VirtualSwarm.Configuration.maximumDurationSeconds), flag: "--duration")
        for (value, flag) in [(duration, "--duration"), (ramp, "--ramp")] {
            guard let value, value.seconds != value.seconds.rounded() else { continue }
            throw ValidationError("\(flag) is in whole seconds of game time, got \(value.text)")
        }
        if let ramp, ramp.seconds > duration.seconds {
            throw ValidationError("--ramp must not be longer than --duration \(duration.text), got \(ramp.text)")
        }
        try checkOption(failureRate, in: 0...1, flag: "--fail-rate", unit: "")
        if let threads { try checkOption(threads, in: 1...256, flag: "--threads") }
        try checkOption(sampleAnswers, in: 0...VirtualSwarm.Configuration.maximumPlayers, flag: "--sample-answers")
        if sampleAnswers != 20, db == nil { throw ValidationError("--sample-answers needs --db PATH: the answers come from that index") }
        do {
            _ = try SwarmMix(parsing: mix)
        } catch {
            throw ValidationError("--mix '\(mix)': \(error.message)")
        }
        _ = try parsedArea()
    }

    func run() async throws {
        let (configuration, answers) = try swarmConfiguration()
        #if Server
        guard virtual else { return try await runLive(configuration) }
        #endif
        // Ctrl-C (or SIGTERM, SIGHUP) stops the run between two stretches of game time and prints
        // the load of the seconds done, saying so.
        let progress = Terminal.showsProgress(2)
        let total = SwarmLoad.clock(configuration.durationSeconds)
        let result = Locked<SwarmLoad?>(nil)
        let shards = threads ?? ProcessInfo.processInfo.activeProcessorCount
        try await runUntilInterrupted {
            let load = try await VirtualSwarm(configuration: configuration).run(shards: shards, answers: answers) { done in
                if progress { Terminal.redraw("swarm: \(SwarmLoad.clock(done)) of \(total) of game time") }
            }
            result.withLock { $0 = load }
        }
        if progress { Terminal.redraw("") }
        guard let load = result.withLock({ $0 }) else { return }
        switch format {
        case .text, .jsonl: Terminal.out(String(load.text(configuration: configuration).dropLast()))
        case .json: Terminal.out(String(load.json(configuration: configuration).dropLast()))
        }
    }

    /// The players (both modes), and with --db in virtual mode, the sampled answers.
    private func swarmConfiguration() throws -> (VirtualSwarm.Configuration, VirtualSwarm.AnswerSample?) {
        let (center, radius) = try parsedArea()
        let area = try SwarmArea(center: center, radius: radius)
        var starts: [Coordinate] = []
        var answers: VirtualSwarm.AnswerSample?
        if let db {
            let index = try NearbyIndex(path: db, configuration: .init(access: .readOnly))
            answers = sampleAnswers > 0 && virtual ? VirtualSwarm.AnswerSample(index: index, players: sampleAnswers) : nil
            starts = try index.places(near: center, within: radius).map(\.place.coordinate)
            guard !starts.isEmpty else {
                throw CommandFailure(
                    "no places of \(db) within \(Int(radius)) m of \(center)",
                    hint: "move --area to where the index has places ('locsim index stats --db \(db)')")
            }
        }
        let configuration = try VirtualSwarm.Configuration(
            players: players, durationSeconds: Int(duration.seconds), seed: seed, mix: SwarmMix(parsing: mix), area: area,
            starts: starts, rampSeconds: Int(rampSeconds), failureRate: failureRate, evaluatesEveryFix: everyFix)
        return (configuration, answers)
    }

    /// `--area LAT,LNG,RADIUS`, checked.
    private func parsedArea() throws(ValidationError) -> (Coordinate, Double) {
        let parts = area.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3, let radius = decimalValue(parts[2].filter { $0 != " " }) else {
            throw ValidationError("--area must be LAT,LNG,RADIUS in degrees and metres, such as 35.6812,139.7671,3000; got '\(area)'")
        }
        let point: Coordinate
        switch Coordinate.parse(latitudeLongitude: parts[0] + "," + parts[1]) {
        case .success(let coordinate): point = coordinate
        case .failure(let problem): throw ValidationError("--area: \(problem); got '\(area)'")
        }
        try checkOption(radius, in: OptionRange.radius, flag: "--area radius", unit: "metres")
        return (point, radius)
    }
}

