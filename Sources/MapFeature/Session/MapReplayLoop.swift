#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// Drives a ``MapViewModel`` through fixes in virtual time: the one discrete-event loop behind
/// `LocationTestSupport`'s `MapReplay` and `locsim replay --fast`.
///
/// Fixes happen at their own timestamps, and each request's answer happens at the request's time
/// plus its latency: the one the repository reports for it
/// (``/LocationCore/LocationRepository/respond(center:radius:at:)``: a scripted test server), or
/// ``latency`` for any other repository (an offline index answers at once). Events are
/// processed in time order, answers before fixes at the same microsecond, through the model's
/// own entry points (``MapViewModel/receive(_:)`` and ``MapViewModel/complete(_:with:at:)``), so
/// what the observer sees is what the app would have done, with no threads racing: the same input
/// always gives the same events.
///
/// The loop runs on the main actor and never leaves it on its own: a fix source that can deliver
/// on the caller's executor (an iterator's `next(isolation:)`) and an offline index cost no thread
/// hop per fix, so a 24-hour walk at 1 Hz replays in a fraction of a second.
///
/// ```swift
/// var fixes = walk.makeIterator()
/// // Any LocationRepository: the app's server client, LocationTestSupport's InMemoryNearbyIndex, …
/// let loop = MapReplayLoop(repository: repository)
/// let outcome = await loop.run(onEvent: { print($0) }) { () throws(Never) -> Fix? in fixes.next() }
/// print(outcome.finalPlaces)
/// ```
@MainActor
public struct MapReplayLoop {
    /// What happens to a request still in flight when the fixes run out.
    public enum Ending: Sendable, Hashable {
        /// Deliver it (and any follow-up) at its time, as if the app stayed open.
        case drain
        /// Stop the model at the last fix's time: the request is cancelled.
        case stop
    }

    /// How a run ended.
    public struct Outcome<Failure: Error> {
        /// The delivery time of the first input (a fix, a note) with a valid time, if there was one.
        public var epoch: Date?
        /// The model's places at the end.
        public var finalPlaces: Loadable<[Place]>
        /// The model's latest accepted fix at the end.
        public var finalFix: Fix?
        /// What the fix source threw, if it did (the run stopped there).
        public var failure: Failure?
        /// Whether the run stopped early because its task was cancelled (the model is stopped).
        public var wasCancelled: Bool
    }

    /// The repository the model fetches from.
    public let repository: any LocationRepository
    /// The fetch rule's thresholds.
    public let configuration: FetchThrottle.Configuration
    /// How long each request takes, for repositories that report no latency of their own.
    public let latency: Duration
    /// What happens at the end.
    public let ending: Ending

    /// Creates a loop.
    ///
    /// - Parameters:
    ///   - repository: Where places come from: an offline index, a scripted server, …
    ///   - configuration: The rule; the game's by default.
    ///   - latency: Round-trip time for repositories that do not report one; negative values
    ///     count as zero. Default zero.
    ///   - ending: ``Ending/drain`` by default.
    public init(
        repository: any LocationRepository, configuration: FetchThrottle.Configuration = .game,
        latency: Duration = .zero, ending: Ending = .drain
    ) {
        self.repository = repository
        self.configuration = configuration
        self.latency = max(.zero, latency)
        self.ending = ending
    }

    /// Runs fixes from `next` until it returns `nil`, throws, or the task is cancelled, handing
    /// every event to `onEvent` as it happens.
    ///
    /// When the task is cancelled (SIGINT in the command), the loop stops before the next fix
    /// and stops the model, so the observer sees a complete, consistent log up to there.
    ///
    /// - Parameters:
    ///   - onEvent: Called with each event, in order.
    ///   - next: The next fix in time order, or `nil` at the end. Called on the main actor.
    /// - Returns: The end state, and the error `next` threw, if it did.
    public func run<Failure: Error>(
        onEvent: @escaping @MainActor (MapEvent) -> Void, next: () async throws(Failure) -> Fix?
    ) async -> Outcome<Failure> {
        await run(onEvent: onEvent, onNote: { (_: Never, _) in }) { () async throws(Failure) -> MapReplayInput<Never>? in
            guard let fix = try await next() else { return nil }
            return .fix(fix, deliveredAt: fix.time)
        }
    }

    /// Runs inputs from `next`: fixes as the phone delivers them (each at its delivery time,
    /// the clock the fetch rule counts on) and notes of what happened on the way (a fix withheld,
    /// GPS trouble), each handed to `onNote` in time order with the map's events: answers due by
    /// an input's time come before it.
    ///
    /// - Parameters:
    ///   - onEvent: Called with each event of the map logic, in order.
    ///   - onNote: Called with each note and its time, in order.
    ///   - next: The next input in time order, or `nil` at the end. Called on the main actor.
    /// - Returns: The end state, and the error `next` threw, if it did.
    package func run<Failure: Error, Note>(
        onEvent: @escaping @MainActor (MapEvent) -> Void, onNote: @MainActor (Note, Date) -> Void,
        next: () async throws(Failure) -> MapReplayInput<Note>?
    ) async -> Outcome<Failure> {
        // The model never waits for or times anything here: answers are stamped by the loop.
        let model = MapViewModel(repository: repository, configuration: configuration, clock: ContinuousClock(), onEvent: onEvent)
        var scheduled: [ScheduledAnswer] = []
        var sequence = 0
        var epoch: Date?

        func schedule(_ request: FetchRequest?) async {
            guard let request else { return }
            let answer = await repository.respond(
                center: request.center, radius: request.radius,
                at: .microseconds(FetchThrottle.micros(request.time) - FetchThrottle.micros(epoch ?? request.time)))
            scheduled.append(ScheduledAnswer(
                micros: Self.adding(max(.zero, answer.latency ?? latency), to: request.time), sequence: sequence,
                request: request, result: answer.result.mapError(AppError.from)))
            sequence += 1
        }

        func deliverAnswers(upTo limit: Int64) async {
            while let index = Self.earliest(in: scheduled), scheduled[index].micros <= limit {
                let answer = scheduled.remove(at: index)
                await schedule(model.complete(answer.request, with: answer.result, at: FetchThrottle.date(micros: answer.micros)))
            }
        }

        func outcome(_ failure: Failure?, cancelled: Bool = false) -> Outcome<Failure> {
            Outcome(epoch: epoch, finalPlaces: model.nearbyLocations, finalFix: model.latestFix, failure: failure,
                    wasCancelled: cancelled)
        }

        do {
            while true {
                if Task.isCancelled {
                    model.stop()
                    return outcome(nil, cancelled: true)
                }
                guard let input = try await next() else { break }
                switch input {
                case .fix(let fix, let time):
                    if epoch == nil, time.timeIntervalSinceReferenceDate.isFinite { epoch = time }
                    await deliverAnswers(upTo: FetchThrottle.micros(time))
                    await schedule(model.receive(fix, deliveredAt: time))
                case .note(let note, let time):
                    if epoch == nil, time.timeIntervalSinceReferenceDate.isFinite { epoch = time }
                    await deliverAnswers(upTo: FetchThrottle.micros(time))
                    onNote(note, time)
                }
            }
        } catch {
            return outcome(error)
        }
        switch ending {
        case .drain: await deliverAnswers(upTo: .max)
        case .stop: model.stop()
        }
        return outcome(nil)
    }

    /// `time + latency` in whole microseconds, saturating.
    private static func adding(_ latency: Duration, to time: Date) -> Int64 {
        let (sum, overflow) = FetchThrottle.micros(time).addingReportingOverflow(latency.wholeMicroseconds)
        return overflow ? .max : sum
    }

    private static func earliest(in answers: [ScheduledAnswer]) -> Int? {
        answers.indices.min { a, b in
            let ta = answers[a].micros, tb = answers[b].micros
            return ta != tb ? ta < tb : answers[a].sequence < answers[b].sequence
        }
    }
}

extension MapReplayLoop.Outcome: Sendable where Failure: Sendable {}

/// One input of a ``MapReplayLoop`` run that models the phone between the receiver and the app.
package enum MapReplayInput<Note> {
    /// The phone hands `fix` to the app at `deliveredAt` (the delivery clock).
    case fix(Fix, deliveredAt: Date)
    /// Something that happened at `at` on the way (a fix withheld, GPS trouble), for the log.
    case note(Note, at: Date)
}

extension MapReplayInput: Sendable where Note: Sendable {}

private struct ScheduledAnswer {
    var micros: Int64
    var sequence: Int
    var request: FetchRequest
    var result: Result<[Place], AppError>
}
