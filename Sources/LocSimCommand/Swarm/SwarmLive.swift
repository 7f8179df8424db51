#if Server
import Dispatch
import Foundation
import GPXFormat
import LocationCore
import NearbyServer
import Swarm
import SwarmHTTP

extension SwarmCommand {
    /// `locsim swarm --server URL`: the players against a real server, in real time.
    func runLive(_ motion: VirtualSwarm.Configuration) async throws {
        guard let server else { return }
        let endpoint = try SwarmHTTPClient.Endpoint(url: server)
        let paths = try tracks.map(Self.loadTracks) ?? []
        let scenario = try scenario.map { try MapPipeline.loadScenario($0) }
        let swarm = LiveSwarm(
            configuration: try LiveSwarm.Configuration(
                motion: motion, misbehaviour: misbehave, tracks: paths, scenario: scenario,
                scenarioShare: scenario == nil ? 0 : scenarioShare ?? 1))
        let limit = timeout.duration
        let client = SwarmHTTPClient(
            configuration: try SwarmHTTPClient.Configuration(
                endpoint: endpoint, token: try bearerToken(flag: token, file: tokenFile), threads: threads ?? 1, connectionsPerThread: connections, timeout: limit),
            now: { DispatchTime.now().uptimeNanoseconds })
        let runner = try LiveSwarmRunner(clock: ContinuousClock(), speed: speed, drainTimeout: limit + .seconds(1))
        let progress = Terminal.showsProgress(2)
        let jsonl = format == .jsonl
        let result = Locked<LiveSwarmStats?>(nil)
        if progress {
            Terminal.errRaw(
                "swarm: \(PeopleText.count(motion.players, "player")) against \(endpoint), \(SwarmLoad.clock(motion.durationSeconds)) of game time at speed \(speed)\n")
        }
        // Before anything is sent: a report path that cannot be written fails now, not after the run.
        if let report {
            try checkOutputPath(
                report, flag: "--report",
                apartFrom: [(self.scenario, "the scenario"), (tokenFile, "the token file"), (db, "the place index")]
                    + paths.map { ($0.name, "a track of --tracks") })
        }
        let players = motion.players
        // A server never reached in the first seconds (a wrong port or host) stops the run, as a
        // first connection that fails stops 'replay --gpsd': not a silent --duration of retries.
        let unreachable = ChangeSignal()
        let gaveUp = Locked(false)
        _ = try await runUntilInterrupted {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    let stats = await runner.run(swarm, transport: client) { second, totals in
                        if jsonl { Terminal.out(second.line) }
                        if progress { Terminal.redraw(Self.progressLine(second, totals: totals, players: players)) }
                        if second.second + 1 >= Self.reachWithin, totals.neverReached {
                            gaveUp.withLock { $0 = true }
                            unreachable.bump()
                        }
                    }
                    result.withLock { $0 = stats }
                }
                group.addTask { await unreachable.wait(after: 0) }
                _ = await group.next()
                group.cancelAll()
            }
        }
        if progress { Terminal.redraw("") }
        if gaveUp.withLock({ $0 }) {
            Terminal.err("locsim swarm: stopping: no request reached \(endpoint) in \(Self.reachWithin) s, every one failed to connect")
        }
        try await client.shutdown()
        guard let stats = result.withLock({ $0 }) else { return }
        let name = endpoint.description
        let summary = stats.text(
            server: name, speed: speed, configuration: motion, playersByKind: swarm.playersByKind, tracks: paths.count, scenario: self.scenario)
        Terminal.out(jsonl ? SwarmSummaryRecord(stats: stats, server: name, speed: speed).line : summary)
        if let report {
            try HTMLReport.write(stats.htmlReport(server: name, summary: summary), to: report)
            if progress { Terminal.err("report written to \(report)") }
        }
        // None answered is a failure when requests ended without an answer; a run stopped while
        // its first requests were in flight has no verdict on the server.
        if stats.totalRequests > 0, stats.answered == 0, !stats.interrupted || stats.failed > 0 {
            let first = stats.errors.sorted { $0.value > $1.value }.first.flatMap { stats.firstErrors[$0.key] } ?? "no answer"
            throw CommandFailure("no request to \(name) was answered with 200 (\(first))", hint: Self.noAnswerHint(first, timeout: timeout.text))
        }
    }

    /// Wall-clock seconds within which some request must reach the server (any answer, even an
    /// error status), or the run stops.
    static let reachWithin = 5

    /// What to check when no request was answered with 200, from the commonest failure's message.
    static func noAnswerHint(_ failure: String, timeout: String) -> String {
        if failure.hasSuffix(": no such host") { return "check the host name in --server, or give an address such as 127.0.0.1" }
        switch failure {
        case "HTTP 401", "HTTP 403": return "the server refused the token: check --token, --token-file or LOCSIM_TOKEN"
        case "HTTP 404":
            return "the server has no such route: --server is the base URL, to which the swarm adds /locations/nearby (check the path after the port)"
        case "timed out":
            return "no answer came within --timeout \(timeout): give a longer --timeout, or fewer --players or a lower --speed for a slow server"
        default: return "is the server running there ('locsim serve --port …'), and is --token right?"
        }
    }

    /// Every `.gpx` file of `directory` (sorted by name), resampled at 1 Hz; each file's track
    /// segments, one after another.
    static func loadTracks(_ directory: String) throws -> [SwarmTrack] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.lowercased().hasSuffix(".gpx") }.sorted()
        } catch {
            throw CommandFailure("--tracks \(directory): cannot list the folder", hint: "give a folder of .gpx files")
        }
        guard !names.isEmpty else {
            throw CommandFailure("--tracks \(directory): no .gpx file there", hint: "give a folder of .gpx files (locsim simulate --gpx writes some)")
        }
        return try names.map { name in
            let path = directory + "/" + name
            let document = try GPXDocument(contentsOfFile: path)
            let points = document.tracks.flatMap { $0.segments.joined() }.compactMap { point in
                point.time.map { (time: $0, coordinate: point.coordinate) }
            }
            do {
                return try SwarmTrack(name: path, points: points)
            } catch let error as ConfigurationError {
                throw CommandFailure("--tracks: \(error.message)", hint: "every file needs a track with timed points (<trkpt> with <time>)")
            }
        }
    }

    /// `12s  players 180/200  req/s 41  p50 1.2 ms  p99 4.0 ms  errors 0  requests 500`
    static func progressLine(_ second: LiveSwarmStats.Second, totals: LiveSwarmStats, players: Int) -> String {
        "\(second.second + 1)s  players \(second.activePlayers)/\(players)"
            + "  req/s \(second.total)  p50 \(LiveSwarmStats.milliseconds(second.p50Micros))"
            + "  p99 \(LiveSwarmStats.milliseconds(second.p99Micros))  errors \(totals.failed)"
            + "  requests \(totals.totalRequests)"
    }
}
#endif  // Server
