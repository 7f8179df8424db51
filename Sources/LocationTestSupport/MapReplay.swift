#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import GPXFormat
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
/// log.expectFetchReasons([.first, .moved, .moved, …])
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
    ///   - latency: Round-trip time for repositories that do not script one; ≥ 0. Default zero.
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
        if let failure { throw ReplayError(underlying: "\(failure)", log: log) }
        return log
    }

    /// The loop, with the events collected: returns the log, and the error `next` threw, if it did.
    private func replay<Failure: Error>(next: () async throws(Failure) -> Fix?) async -> (log: ReplayLog, failure: Failure?) {
        let recorder = EventRecorder()
        let loop = MapReplayLoop(repository: repository, configuration: configuration, latency: latency, ending: ending)
        let outcome = await loop.run(onEvent: { recorder.events.append($0) }, next: next)
        let log = ReplayLog(events: recorder.events, epoch: outcome.epoch, finalPlaces: outcome.finalPlaces,
                            finalFix: outcome.finalFix)
        return (log, outcome.failure)
    }
}

/// A provider failed during a replay.
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    /// The provider's error, described.
    public var underlying: String
    /// The log up to the failure.
    public var log: ReplayLog
    public var description: String { "replay stopped: \(underlying)" }
}

@MainActor
final class EventRecorder {
    var events: [MapEvent] = []
    var phone: [PhoneNote] = []
}

extension MapReplay {
    /// Replays the track points of a GPX file, in file order, streaming (flat memory).
    ///
    /// Every track point becomes a fix at its `<time>` (GPX carries no accuracy, so every
    /// positioned point is accepted; `<fix>none</fix>` points are reports without a position).
    /// Route points and waypoints are ignored.
    ///
    /// - Parameters:
    ///   - path: The GPX file.
    ///   - options: `.strict` (default) or `.lenient` (skip points with bad coordinates, drop
    ///     bad values, and leave out points whose `<time>` was dropped).
    /// - Throws: ``ReplayError`` when the file cannot be read (the message names file, line and
    ///   column) or, in strict mode, a track point has no time (the message names its index);
    ///   its ``ReplayError/log`` holds everything up to that point.
    public func run(gpxFile path: String, options: GPXReader.Options = .strict) async throws(ReplayError) -> ReplayLog {
        let reader: GPXReader
        do {
            reader = try GPXReader(contentsOfFile: path, options: options)
        } catch {
            throw ReplayError(underlying: "\(error)", log: ReplayLog())
        }
        var pointIndex = 0
        let (log, failure) = await replay { () async throws(any Error) -> Fix? in
            while let event = try reader.next() {
                guard case .point(let point, .trackPoint) = event else { continue }
                defer { pointIndex += 1 }
                guard let fix = point.fix() else {
                    // A lenient read drops a bad <time> but keeps the point: it cannot be placed in time.
                    if options.isLenient { continue }
                    throw GPXTimeMissing(path: path, index: pointIndex)
                }
                return fix
            }
            return nil
        }
        if let failure { throw ReplayError(underlying: "\(failure)", log: log) }
        return log
    }
}

/// A track point without a `<time>` cannot be placed in virtual time.
private struct GPXTimeMissing: Error, CustomStringConvertible {
    var path: String
    var index: Int
    var description: String { "\(path): track point #\(index) has no <time>, so it cannot be replayed in time" }
}
