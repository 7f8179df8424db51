#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationSimulation
public import LocationCore
public import MapFeature

/// Runs fixes through a ``/MapFeature/MapViewModel`` in virtual time and returns the event log.
///
/// The harness is MapFeature's discrete-event loop (``/MapFeature/MapReplayLoop``, the same one
/// `locsim replay --fast` runs) with the events collected into a ``ReplayLog`` to assert on:
/// fixes happen at their own timestamps, and each request's answer happens at the request's time
/// plus its latency (scripted per call by a ``RecordingRepository``, which reports it through
/// ``/LocationCore/LocationRepository/respond(center:radius:at:)``, or ``latency`` for any other repository such as an
/// offline index). Events are processed in time order, answers before fixes at the same
/// microsecond, through the model's own entry points, so the log is what the app would have done
/// on the phone, with no threads racing: the same input always gives the same log, and a 24-hour
/// walk replays in well under a second.
///
/// ```swift
/// let replay = MapReplay(repository: RecordingRepository(clock: VirtualClock(), places: shrines, latency: .seconds(2)))
/// let log = await replay.run(fixes: FixScript(origin: tokyo).walk(count: 600, speed: 1.4))
/// log.expectAtMostOneFetchInFlight()
/// // At 1.4 m/s, 30 s pass before 100 m are walked: every fetch after the first is `elapsed`.
/// log.expectFetchReasons([.first] + Array(repeating: .elapsed, count: 19))
/// ```
///
/// To replay a provider (a GPX replay, synthetic motion), give it a `VirtualClock(autoAdvance: true)`
/// so it delivers at once with exact fix times, and call ``run(_:)``.
@MainActor
public struct MapReplay {
    /// What happens to a request still in flight when the fixes run out.
    public typealias Ending = MapReplayLoop.Ending

    /// The repository the model fetches from.
    public let repository: any LocationRepository
    /// The fetch rule's thresholds.
    public let configuration: FetchThrottle.Configuration
    /// How long each request takes, for repositories other than ``RecordingRepository`` (which
    /// scripts its own).
    public let latency: Duration
    /// What happens at the end.
    public let ending: Ending

    /// Creates a harness.
    ///
    /// - Parameters:
    ///   - repository: Where places come from: a ``RecordingRepository``, an offline index, …
    ///   - configuration: The rule; the game's by default.
    ///   - latency: Round-trip time for repositories that do not script one; a negative value
    ///     counts as zero, as a clock's `sleep(for:)` does (``/MapFeature/MapReplayLoop``). Default zero.
    ///   - ending: ``/MapFeature/MapReplayLoop/Ending/drain`` by default.
    public init(repository: any LocationRepository, configuration: FetchThrottle.Configuration = .game,
                latency: Duration = .zero, ending: Ending = .drain) {
        self.repository = repository
        self.configuration = configuration
        self.latency = max(.zero, latency)
        self.ending = ending
    }

    /// Replays `fixes`, in the order given.
    public func run(fixes: some Sequence<Fix>) async -> ReplayLog {
        var iterator = fixes.makeIterator()
        return await replay { () async throws(Never) -> Fix? in iterator.next() }.log
    }

    /// Replays every fix `provider` delivers until it ends.
    ///
    /// - Throws: Whatever the provider throws, as a ``ReplayError`` whose ``ReplayError/log``
    ///   holds everything up to that point.
    public func run(_ provider: some LocationProvider) async throws(ReplayError) -> ReplayLog {
        var iterator = provider.makeAsyncIterator()
        let (log, failure) = await replay { () async throws(any Error) -> Fix? in
            try await iterator.next(isolation: MainActor.shared)
        }
        if let failure { throw ReplayError(underlying: failure, log: log) }
        return log
    }

    /// The loop, with the events collected: returns the log, and the error `next` threw, if it did.
    private func replay<Failure: Error>(next: () async throws(Failure) -> Fix?) async -> (log: ReplayLog, failure: Failure?) {
        let recorder = EventRecorder(repository: repository)
        let loop = MapReplayLoop(repository: repository, configuration: configuration, latency: latency, ending: ending)
        let outcome = await loop.run(onEvent: { recorder.append($0) }, next: next)
        let log = ReplayLog(events: recorder.events, epoch: outcome.epoch, finalPlaces: outcome.finalPlaces,
                            finalFix: outcome.finalFix, configuration: configuration)
        return (log, outcome.failure)
    }
}

/// A provider failed during a replay.
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    /// The error as thrown: the provider's (your own provider's error keeps its type, to match
    /// with `as?`), or the file's reader's.
    public var underlying: any Error
    /// The log up to the failure.
    public var log: ReplayLog
    public var description: String { "replay stopped: \(underlying)" }
}

/// Collects a replay's events and notes, and keeps a ``RecordingRepository``'s calls in step with
/// them: a request the model cancels before its answer was due ends as cancelled there too.
@MainActor
final class EventRecorder {
    private(set) var events: [MapEvent] = []
    var phone: [PhoneNote] = []
    private let recording: RecordingRepository?
    /// The repository's call index of each request in flight, by request id.
    private var callIndex: [Int: Int] = [:]

    init(repository: any LocationRepository) {
        recording = repository as? RecordingRepository
    }

    func append(_ event: MapEvent) {
        events.append(event)
        guard let recording else { return }
        switch event.kind {
        // The loop asks the repository right after the model starts a request, on this actor
        // with no suspension in between: the call it records is the next one.
        case .fetchStarted(let request): callIndex[request.id] = recording.calls.count
        case .fetchSucceeded(let request, _), .fetchFailed(let request, _, _): callIndex[request.id] = nil
        case .fetchCancelled(let request):
            if let index = callIndex.removeValue(forKey: request.id) { recording.cancelledByHarness(index) }
        default: break
        }
    }
}

extension MapReplay {
    /// Replays the walk in a file as `locsim replay` reads it: a GPX file's track (or, without
    /// one, its route or waypoints), an NMEA log, a GeoJSON or KML route; by the file's
    /// extension. Fixes happen at their recorded times, with the speed and course derived from
    /// the points where the file has none; a route without times starts at `Date.distantPast`
    /// and is walked at 1.4 m/s, as a scenario's route is.
    ///
    /// A GPX point's `<hdop>` is its accuracy by gpsd's model (19 m per HDOP), as the command
    /// reads it: a point worse than the rule's accuracy limit is rejected here as there.
    ///
    /// It is the one reading every user of a walk file shares (the command, `nmea serve`,
    /// `serve --player`, ``run(scenarioFile:)``): a point whose time goes backwards is dropped
    /// (a replay never reorders), and what was skipped or dropped is in the log's
    /// ``ReplayLog/warnings``, in the words `locsim replay` prints.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - lenient: Read a GPX file leniently: skip points with bad coordinates, drop bad
    ///     values alone, and leave out points whose `<time>` was dropped (each listed in the
    ///     warnings). Default: any problem throws.
    /// - Throws: ``ReplayError`` when the file cannot be read (the message names the file and the
    ///   line and column, or the member, at fault) or its path cannot be replayed; its
    ///   ``ReplayError/log`` holds everything up to that point.
    public func run(routeFile path: String, lenient: Bool = false) async throws(ReplayError) -> ReplayLog {
        let read: (replay: GPXReplay<VirtualClock>, warnings: [String])
        do {
            read = try GPXReplay.reading(
                routeFile: path, lenient: lenient,
                configuration: .init(pacing: .virtual, horizontalAccuracyPerHDOP: NMEALog.horizontalAccuracyPerHDOP),
                clock: VirtualClock(autoAdvance: true),
                now: { .distantPast })
        } catch {
            throw ReplayError(underlying: error, log: ReplayLog())
        }
        do {
            var log = try await run(read.replay)
            log.warnings = read.warnings
            return log
        } catch {
            var failure = error
            failure.log.warnings = read.warnings
            throw failure
        }
    }
}
