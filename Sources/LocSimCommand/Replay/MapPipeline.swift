import Foundation
import LocationCore
import LocationSimulation
import MapFeature
#if Server
import NearbyServer
#endif

/// Fixes → ``MapFeature/MapViewModel`` → what the player sees: the pipeline behind
/// `locsim replay` and `locsim simulate --map`.
@MainActor
struct MapPipeline {
    let source: PlaceSourceOptions
    let repository: any LocationRepository
    let configuration: FetchThrottle.Configuration
    let recorder: ReplayRecorder
    let progress: Progress
    let output: LineOutput

    /// Places from `source`, the rule of `map`, the timeline in `format` on standard output (each
    /// line at once with `flush`, or on a terminal), and with `showsProgress` a progress line when
    /// standard error is a terminal.
    /// `maximumFixAge` is a scenario's `game.maximumFixAge`.
    init(
        source: PlaceSourceOptions, map: MapLogicOptions, format: TimelineFormat, flush: Bool, showsProgress: Bool,
        maximumFixAge: Duration? = nil
    ) throws {
        let output = LineOutput(flushesEachLine: flush || Terminal.isTerminal(1))
        let progress = Progress(enabled: showsProgress && Terminal.showsProgress(2), output: output)
        recorder = try ReplayRecorder(format: format, reach: map.reach) { progress.printAbove($0) }
        (self.source, self.output, self.progress) = (source, output, progress)
        repository = try source.repository()
        configuration = try map.throttleConfiguration(maximumFixAge: maximumFixAge)
    }

    /// In virtual time without `speedFactor` (``runVirtual(_:)``), else in real time at that
    /// factor, the progress line counting down `total` (the fix time the run covers, when known).
    func run(_ provider: some LocationProvider, speedFactor: Double?, total: Double?) async throws {
        guard let speedFactor else { return try await runVirtual(provider) }
        progress.total = total
        progress.speed = speedFactor
        try await runRealTime(provider, speedFactor: speedFactor)
    }

    /// The scenario file at `path` (`--scenario`). Its `server` list is checked as `serve` reads
    /// it, though only `serve` plays it: the same file is refused by both or by neither (a build
    /// without the Server trait has no `serve`, and leaves the list alone).
    ///
    /// - Throws: ``CommandFailure`` naming the file and the key path: status 1 for a file that
    ///   cannot be read, 2 (a usage error, as `serve --player` says it) for a bad value in it.
    nonisolated static func loadScenario(_ path: String) throws -> Scenario {
        let scenario: Scenario
        do {
            scenario = try Scenario.load(path: path)
        } catch {
            // A folder is "readable" to FileManager, but no file: a missing file too (status 1).
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            if !exists || isFolder.boolValue || !FileManager.default.isReadableFile(atPath: path) {
                throw CommandFailure("\(error)", hint: ErrorReport.unreadableHint)
            }
            throw CommandFailure("\(error)", hint: "the scenario file's keys are in docs/guides/scenarios.md", status: 2)
        }
        #if Server
        if let list = scenario.server {
            do {
                _ = try FaultScript.parse(list, source: path, keyPath: "server")
            } catch {
                throw CommandFailure(
                    error.message, hint: "a scenario's server list is what 'locsim serve --script' takes (docs/guides/serve.md)", status: 2)
            }
        }
        #endif
        return scenario
    }

    /// The summary, then a warning on standard error when every fix was rejected, or when every
    /// answer was empty (a run that ran to its end; a signal's stop says nothing of the rest).
    private func finishRecording() {
        recorder.finish()
        guard !recorder.interrupted,
            let warning = recorder.rejectionWarning(limit: configuration.maximumHorizontalAccuracy)
                ?? recorder.emptyAnswersWarning(radius: configuration.radius)
        else { return }
        output.flush()
        Terminal.err(warning)
    }

    /// Writes `--report` (titled `title`), then ends an `--online` run that never got an answer
    /// (``PlaceSourceOptions/requireAnAnswer(_:)``).
    func finish(report: String?, title: String) throws {
        if let report { try HTMLReport(title: title, recorder: recorder).write(to: report) }
        try source.requireAnAnswer(recorder)
    }

    /// Virtual time: MapFeature's discrete-event loop (``MapFeature/MapReplayLoop``, the one the
    /// test harness runs), all on the main actor: the provider delivers on it
    /// (`next(isolation:)`), the offline index answers at once, and fetches answer at the
    /// requesting fix's own time (zero latency), so what happens depends only on the inputs: the
    /// same inputs give a byte-identical log. SIGINT/SIGTERM/SIGHUP stop it after the current fix, with
    /// the summary.
    ///
    /// - Throws: What the provider threw (a malformed file, say), after writing what came before.
    func runVirtual(_ provider: some LocationProvider) async throws {
        let signal = try await runUntilInterrupted { @MainActor in
            var iterator = provider.makeAsyncIterator()
            let loop = MapReplayLoop(repository: repository, configuration: configuration)
            let outcome = await loop.run(onEvent: { recorder.record($0) }) { () async throws(any Error) -> Fix? in
                try await iterator.next(isolation: MainActor.shared)
            }
            if let failure = outcome.failure {
                output.flush()
                throw failure
            }
        }
        recorder.interrupted = signal != nil
        finishRecording()
        output.flush()
    }

    /// Through a scenario's phone (``LocationSimulation/ScenarioPhone``): each fix of `provider`
    /// goes through GPS trouble and the OS's delivery rules before the map logic, which counts on
    /// the delivery clock; what was withheld or changed on the way is logged in time order with
    /// the map's events. In virtual time without `speedFactor` (the same inputs give a
    /// byte-identical log), else in real time at that factor, as ``run(_:speedFactor:total:)``.
    ///
    /// When the route ends, what the scenario (the file `scenarioFile`) set beyond its end is a
    /// warning on standard error (``LocationSimulation/ScenarioPhone/unreached(in:)``).
    ///
    /// - Throws: What the provider threw, after writing what came before.
    func runScenario(
        _ provider: some LocationProvider, phone: ScenarioPhone, scenarioFile: String, speedFactor: Double?, total: Double?
    ) async throws {
        recorder.phone = PhoneSummary()
        if let speedFactor {
            progress.total = total
            progress.speed = speedFactor
            let recorder = recorder, progress = progress
            let deliveries = PhoneDeliveries(provider, phone: phone, onEnd: { phone in
                let lines = phone.unreached(in: scenarioFile)
                if !lines.isEmpty { progress.clear() }
                for line in lines { Terminal.err(line) }
            }) { recorder.record($0, at: $1) }
            return try await runRealTime(speedFactor: speedFactor) { model in await model.run(deliveries: deliveries) }
        }
        let signal = try await runUntilInterrupted { @MainActor in
            var iterator = provider.makeAsyncIterator()
            var phone = phone
            let loop = MapReplayLoop(repository: repository, configuration: configuration)
            let outcome = await loop.run(
                onEvent: { recorder.record($0) }, onNote: { recorder.record($0, at: $1) }
            ) { () async throws(any Error) -> ScenarioPhone.Input? in
                try await phone.next { () async throws(any Error) -> Fix? in try await iterator.next(isolation: MainActor.shared) }
            }
            if let failure = outcome.failure {
                output.flush()
                throw failure
            }
            // A signal ends the loop before the route's end: nothing is known to be unreached then.
            if !Task.isCancelled {
                for line in phone.unreached(in: scenarioFile) { Terminal.err(line) }
            }
        }
        recorder.interrupted = signal != nil
        finishRecording()
        output.flush()
    }

    /// Real time: the model consumes the provider on the continuous clock until the provider
    /// ends or SIGINT/SIGTERM/SIGHUP arrives; either way the summary is printed.
    ///
    /// - Parameter speedFactor: Fix time per second of real time (`--speed`), so answers are
    ///   stamped in the fixes' time base.
    /// - Throws: ``CommandFailure`` when the provider failed.
    func runRealTime(_ provider: some LocationProvider, speedFactor: Double = 1) async throws {
        try await runRealTime(speedFactor: speedFactor) { model in await model.run(provider) }
    }

    /// Real time: `consume` drives the model (on the continuous clock) until its fixes end or
    /// SIGINT/SIGTERM/SIGHUP arrives; either way the summary is printed. A source that failed before its
    /// first fix (nothing listening at the gpsd address) has no summary, only the error.
    private func runRealTime(speedFactor: Double, _ consume: @escaping @MainActor (MapViewModel) async -> Void) async throws {
        let recorder = recorder, progress = progress
        let model = MapViewModel(
            repository: repository, configuration: configuration, clock: ContinuousClock(), speedFactor: speedFactor,
            onEvent: { event in
                recorder.record(event)
                progress.update(recorder: recorder, event: event)
            })
        let signal = try await runUntilInterrupted { await consume(model) }
        let finalState = model.providerState
        model.stop()
        progress.clear()
        recorder.interrupted = signal != nil
        guard case .failed(let error) = finalState else {
            finishRecording()
            output.flush()
            return
        }
        if recorder.hasFixes { finishRecording() }
        output.flush()
        throw CommandFailure("the location source failed: \(error.message)")
    }
}
