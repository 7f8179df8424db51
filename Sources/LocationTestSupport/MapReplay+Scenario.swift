#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import LocationCore
import LocationSimulation
import MapFeature

extension MapReplay {
    /// Replays a scenario file (docs/guides/scenarios.md) as `locsim replay --scenario FILE
    /// --fast` does: its route's fixes go through its GPS trouble, the phone's delivery rules and
    /// the app's moves between foreground and background, and the map logic sees only what is
    /// delivered, when it is delivered (the clock its 30 s counts on). The log's
    /// ``ReplayLog/phone`` says what happened on the way. A scenario's `game.maximumFixAge`
    /// replaces ``configuration``'s; its `server` key is for `locsim serve` and not applied here.
    ///
    /// ```swift
    /// let log = try await MapReplay(repository: index).run(scenarioFile: "tracks/scenarios/background-walk.json")
    /// // The app's minutes in the background withheld fixes (its distance filter others).
    /// #expect(log.withheldFixes.contains { if case .inBackground = $0.reason { true } else { false } })
    /// ```
    ///
    /// - Throws: ``ReplayError`` naming the file and the key path when the scenario is wrong, the
    ///   route file's reader's error, or the provider's; its ``ReplayError/log`` holds everything
    ///   up to that point.
    public func run(scenarioFile path: String) async throws(ReplayError) -> ReplayLog {
        try await runScenario(path, fixes: nil as [Fix]?)
    }

    /// Replays `fixes` (in place of the scenario's route, as a track argument does on the command
    /// line) through the phone of the scenario file at `path` (``run(scenarioFile:)``).
    public func run(scenarioFile path: String, fixes: some Sequence<Fix>) async throws(ReplayError) -> ReplayLog {
        try await runScenario(path, fixes: Array(fixes))
    }

    private func runScenario(_ path: String, fixes: [Fix]?) async throws(ReplayError) -> ReplayLog {
        let scenario: Scenario
        var phone: ScenarioPhone
        var configuration = configuration
        var warnings: [String] = []
        var next: () async throws -> Fix?
        do {
            scenario = try Scenario.load(path: path)
            phone = try ScenarioPhone(scenario: scenario)
            configuration = try configuration.with(maximumFixAge: scenario.maximumFixAge)
            if let fixes {
                var iterator = fixes.makeIterator()
                next = { iterator.next() }
            } else {
                guard let route = scenario.route else { throw ScenarioWithoutRoute(path: path) }
                let reading = GPXReplay<ContinuousClock>.Configuration(
                    pacing: .virtual, horizontalAccuracyPerHDOP: NMEALog.horizontalAccuracyPerHDOP)
                switch try route.playable(scenario: path, configuration: reading, now: { .distantPast }) {
                case .path(let replay, let read):
                    warnings = read
                    var iterator = replay.makeAsyncIterator()
                    next = { try await iterator.next(isolation: MainActor.shared) }
                case .motion(let motion):
                    var iterator = motion.makeAsyncIterator()
                    next = { try await iterator.next(isolation: MainActor.shared) }
                }
            }
        } catch {
            throw ReplayError(underlying: error, log: ReplayLog())
        }
        let recorder = EventRecorder(repository: repository)
        let loop = MapReplayLoop(repository: repository, configuration: configuration, latency: latency, ending: ending)
        let outcome = await loop.run(
            onEvent: { recorder.append($0) },
            onNote: { note, time in recorder.phone.append(PhoneNote(time: time, kind: PhoneNote.Kind(note), eventsBefore: recorder.events.count)) }
        ) { () async throws(any Error) -> ScenarioPhone.Input? in
            try await phone.next { () async throws(any Error) -> Fix? in try await next() }
        }
        // What the scenario set past the route's end (a trouble window, an app move) is a warning.
        if outcome.failure == nil { warnings += phone.unreached(in: path) }
        let log = ReplayLog(
            events: recorder.events, epoch: outcome.epoch, finalPlaces: outcome.finalPlaces, finalFix: outcome.finalFix,
            phone: recorder.phone, warnings: warnings, configuration: configuration)
        if let failure = outcome.failure { throw ReplayError(underlying: failure, log: log) }
        return log
    }
}

extension PhoneNote.Kind {
    init(_ note: ScenarioPhone.Note) {
        switch note {
        case .withheld(let fix, let reason): self = .withheld(fix, reason)
        case .trouble(let original, let reported, let effects): self = .trouble(original: original, reported: reported, effects: effects.map(\.description))
        case .app(.background): self = .movedToBackground
        case .app(.foreground): self = .movedToForeground
        case .batch(let fixes): self = .batch(fixes)
        }
    }
}

/// A scenario with no `route` run without fixes.
private struct ScenarioWithoutRoute: Error, CustomStringConvertible {
    var path: String
    var description: String {
        "\(path) has no route: give the fixes (run(scenarioFile:fixes:)), or a \"route\" ({\"file\": …} or {\"polyline\": …}) in the scenario"
    }
}
