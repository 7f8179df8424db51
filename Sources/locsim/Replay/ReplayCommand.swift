import ArgumentParser
import Foundation
import GPXFormat
import LocationCore
import LocationGPSD
import LocationIndex
import LocationSimulation
import MapFeature

/// `locsim replay`: a walk through the game's map logic, showing what a player would see.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a GPX walk (or a live gpsd receiver) through the map logic and show what spawns, when and why.",
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
            """
    )

    @Argument(help: "The GPX walk to replay (tracks; a route or waypoints are walked as a path). Omit with --gpsd.")
    var track: String?

    @OptionGroup var source: PlaceSourceOptions
    @OptionGroup var timing: TimingOptions
    @OptionGroup var map: MapLogicOptions

    @Option(help: ArgumentHelp("Read live fixes from gpsd instead of a file (a USB receiver, field test).", valueName: "host:port"))
    var gpsd: String?

    @Option(help: "Output: text (a readable timeline) or jsonl (one JSON object per line).")
    var format: TimelineFormat = .text

    @Option(help: ArgumentHelp("Also write a self-contained HTML report (SVG map, timeline, summary).", valueName: "file.html"))
    var report: String?

    @Flag(help: "Never show the progress line, even on a terminal.")
    var noProgress = false

    func validate() throws {
        if track == nil && gpsd == nil {
            throw ValidationError("give a GPX file to replay, or --gpsd HOST:PORT for a live receiver")
        }
        if track != nil && gpsd != nil {
            throw ValidationError("give either a GPX file or --gpsd, not both")
        }
        if gpsd != nil && (timing.fast || timing.speed != nil || timing.loop || timing.start != nil || timing.rate != nil) {
            throw ValidationError("--fast, --speed, --rate, --loop and --start apply to GPX replays, not to a live --gpsd source")
        }
        if timing.fast && timing.loop {
            throw ValidationError("--loop never ends; it cannot be combined with --fast")
        }
        try timing.validate()
        try map.validate()
        try source.validate()
    }

    @MainActor
    func run() async throws {
        let configuration = try map.throttleConfiguration()
        let repository = try source.repository()
        let write: (String) -> Void
        let progress = Progress(enabled: !noProgress && Terminal.isTerminal(2))
        write = { line in progress.printAbove(line) }
        let recorder = ReplayRecorder(format: format == .jsonl ? .jsonl : .text, reach: map.reach, write: write)

        if let gpsd {
            let (host, port) = try parseHostPort(gpsd)
            let provider = try GPSDProvider(host: host, port: port, configuration: .resilient)
            progress.total = nil
            let model = MapViewModel(repository: repository, configuration: configuration, clock: ContinuousClock(),
                                     onEvent: { event in
                                         recorder.record(event)
                                         progress.update(recorder: recorder, latest: event.time)
                                     })
            _ = try await runUntilInterrupted { await model.run(provider) }
            model.stop()
            progress.clear()
            recorder.finish()
            try writeReport(recorder, title: "gpsd \(host):\(port)")
            if case .failed(let error) = model.providerState { throw CommandFailure("live source failed: \(error)") }
            return
        }

        guard let track else { return }
        let path = try ReplayPath(document: GPXDocument(contentsOfFile: track))
        if timing.fast {
            let replay = try GPXReplay(
                path: path, configuration: timing.replayConfiguration(pacing: .virtual), clock: ContinuousClock(),
                now: { Date() })
            try await runVirtual(replay, repository: repository, configuration: configuration, recorder: recorder)
        } else {
            let replay = try GPXReplay(
                path: path, configuration: timing.replayConfiguration(pacing: .timed(speedFactor: timing.speed ?? 1)),
                clock: ContinuousClock(), now: { Date() })
            progress.total = replay.analysis.duration
            progress.speed = timing.speed ?? 1
            let model = MapViewModel(repository: repository, configuration: configuration, clock: ContinuousClock(),
                                     onEvent: { event in
                                         recorder.record(event)
                                         progress.update(recorder: recorder, latest: event.time)
                                     })
            _ = try await runUntilInterrupted { await model.run(replay) }
            model.stop()
            progress.clear()
            recorder.finish()
            if case .failed(let error) = model.providerState { throw CommandFailure("replay failed: \(error)") }
        }
        try writeReport(recorder, title: track)
    }

    /// Virtual time: each fix is handed to the model as soon as the previous one is dealt with;
    /// fetches answer at the fix's own time (zero latency), so the log depends only on the inputs.
    @MainActor
    private func runVirtual(
        _ replay: some LocationProvider, repository: any LocationRepository, configuration: FetchThrottle.Configuration,
        recorder: ReplayRecorder
    ) async throws {
        let model = MapViewModel(repository: repository, configuration: configuration, clock: ContinuousClock(),
                                 onEvent: { recorder.record($0) })
        for try await fix in replay {
            var request = model.receive(fix)
            while let current = request {
                let result: Result<[Place], AppError>
                do {
                    result = .success(try await repository.fetchNearby(center: current.center, radius: current.radius))
                } catch {
                    result = .failure(AppError.from(error))
                }
                request = model.complete(current, with: result, at: current.time)
            }
        }
        model.stop()
        recorder.finish()
    }

    @MainActor
    private func writeReport(_ recorder: ReplayRecorder, title: String) throws {
        guard let report else { return }
        let html = HTMLReport(title: title, recorder: recorder).render()
        do {
            try html.write(toFile: report, atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure("cannot write the report to \(report): \(error.localizedDescription)")
        }
        Terminal.err("report written to \(report)")
    }
}

/// `--format text|jsonl`.
enum TimelineFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}

/// A runtime failure with a message that says what to do (exit status 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Splits `host:port` (IPv6 in brackets) with the port checked.
func parseHostPort(_ text: String, defaultPort: Int = 2947) throws -> (String, Int) {
    var host = text
    var port = defaultPort
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
        host = String(text[text.index(after: text.startIndex)..<close])
        let rest = text[text.index(after: close)...]
        if rest.hasPrefix(":") { port = Int(rest.dropFirst()) ?? -1 }
    } else if let colon = text.lastIndex(of: ":") {
        host = String(text[..<colon])
        port = Int(text[text.index(after: colon)...]) ?? -1
    }
    if host.isEmpty { host = "127.0.0.1" }
    guard (1...65_535).contains(port) else {
        throw ValidationError("'\(text)' is not host:port with a port in 1...65535")
    }
    return (host, port)
}
