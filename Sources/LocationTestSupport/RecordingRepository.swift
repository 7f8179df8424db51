public import LocationCore
public import MapFeature

/// A nearby-places repository for tests: answers from a script, takes scripted time to answer on
/// a clock, and records every call.
///
/// Each call consumes the next scripted ``Response`` (and, once the script is used up, the
/// fallback answer; without one the call fails loudly with an ``/MapFeature/AppError`` saying
/// the script ran out). A response waits its ``Response/latency`` on the clock, then returns
/// places or throws. Every call is recorded with its time, centre and radius, and how it ended
/// (answered, failed, or cancelled while waiting).
///
/// ```swift
/// let clock = VirtualClock()
/// let repository = RecordingRepository(clock: clock, script: [
///     .failure(.networkUnavailable("down"), after: .seconds(2)),
///     .places(shrines, after: .seconds(2)),
/// ])
/// // … run the model …
/// #expect(repository.calls.map(\.time) == [.seconds(0), .seconds(3)])
/// ```
///
/// The replay harness (``MapReplay``, through ``/MapFeature/MapReplayLoop``) asks it for answers
/// without waiting (``respond(center:radius:at:)``) and places them in virtual time itself.
public final class RecordingRepository: LocationRepository, Sendable {
    /// A scripted answer: what, and how long it takes.
    public struct Response: Sendable {
        /// How long the call takes on the clock.
        public var latency: Duration
        /// What the call returns.
        public var outcome: @Sendable (Call) async -> Result<[Place], AppError>

        /// An answer computed from the call (its index, centre, radius) after `latency`.
        public init(latency: Duration = .zero, outcome: @escaping @Sendable (Call) async -> Result<[Place], AppError>) {
            self.latency = latency
            self.outcome = outcome
        }

        /// Answers `places` after `latency`.
        public static func places(_ places: [Place], after latency: Duration = .zero) -> Response {
            Response(latency: latency) { _ in .success(places) }
        }

        /// Fails with `error` after `latency`.
        public static func failure(_ error: AppError, after latency: Duration = .zero) -> Response {
            Response(latency: latency) { _ in .failure(error) }
        }

        /// Answers the places of `source` within the call's radius, after `latency`: a
        /// latency-free offline index becomes a server with a round-trip time.
        public static func forward(to source: any LocationRepository, after latency: Duration = .zero) -> Response {
            Response(latency: latency) { call in
                do {
                    return .success(try await source.fetchNearby(center: call.center, radius: call.radius))
                } catch {
                    return .failure(AppError.from(error))
                }
            }
        }
    }

    /// How a call ended.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// Still waiting (or the harness has not delivered it yet).
        case pending
        /// Returned this many places.
        case answered(count: Int)
        /// Threw this error.
        case failed(AppError)
        /// The caller was cancelled while the call waited; under ``MapReplay``, the model
        /// cancelled the request before its answer arrived (the replay stopped, or the app went
        /// to the background).
        case cancelled

        /// `answered 3 places`, `failed: …`, `cancelled`, `pending`.
        public var description: String {
            switch self {
            case .pending: "pending"
            case .answered(let count): "answered \(count) place\(count == 1 ? "" : "s")"
            case .failed(let error): "failed: \(error)"
            case .cancelled: "cancelled"
            }
        }
    }

    /// One recorded call.
    public struct Call: Sendable, Hashable {
        /// 0 for the first call.
        public var index: Int
        /// When it was made: time since the repository was created on its clock (or, under
        /// ``MapReplay``, since the replay's epoch).
        public var time: Duration
        /// The query centre.
        public var center: Coordinate
        /// The query radius in metres.
        public var radius: Double
        /// The scripted latency.
        public var latency: Duration
        /// How it ended.
        public var outcome: Outcome
    }

    private struct State {
        var script: [Response]
        /// Answers scripted in all (given at creation and enqueued), used or not.
        var scripted: Int
        var calls: [Call] = []
    }

    private let state: Locked<State>
    private let fallback: Response?
    private let elapsed: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a repository that answers from `script` in order, then with `fallback`.
    ///
    /// - Parameters:
    ///   - clock: The clock latencies elapse on, and calls are timed with.
    ///   - script: Answers for the first calls, in order.
    ///   - fallback: The answer for every call after the script; `nil` makes such calls fail with
    ///     a validation error naming the call (a test that did not expect them fails loudly).
    public init<C: Clock>(clock: C, script: [Response] = [], otherwise fallback: Response? = nil) where C.Duration == Duration {
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
        self.sleep = { duration in
            if duration > .zero { try await clock.sleep(for: duration, tolerance: nil) }
        }
        self.state = Locked(State(script: script, scripted: script.count))
        self.fallback = fallback
    }

    /// Creates a repository that answers every call with `places` after `latency`.
    public convenience init<C: Clock>(clock: C, places: [Place], latency: Duration = .zero) where C.Duration == Duration {
        self.init(clock: clock, otherwise: .places(places, after: latency))
    }

    /// Every call so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Appends answers to the script.
    public func enqueue(_ responses: Response...) {
        state.withLock { state in
            state.script.append(contentsOf: responses)
            state.scripted += responses.count
        }
    }

    /// Records a call, waits its latency on the clock, and answers it.
    ///
    /// - Throws: The scripted ``/MapFeature/AppError``, or `CancellationError` when the caller is
    ///   cancelled while waiting.
    public func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
        let (call, response) = record(center: center, radius: radius, at: elapsed())
        let index = call.index
        do {
            try await sleep(response.latency)
        } catch {
            finish(index, .cancelled)
            throw error
        }
        let result = await response.outcome(call)
        if Task.isCancelled {
            finish(index, .cancelled)
            throw CancellationError()
        }
        switch result {
        case .success(let places):
            finish(index, .answered(count: places.count))
            return places
        case .failure(let error):
            finish(index, .failed(error))
            throw error
        }
    }

    /// Records a call made at virtual time `time` and returns its scripted answer and latency
    /// without waiting: the replay harness places the answer in virtual time itself.
    public nonisolated(nonsending) func respond(center: Coordinate, radius: Double, at time: Duration)
        async -> (result: Result<[Place], any Error>, latency: Duration?)
    {
        let (call, response) = record(center: center, radius: radius, at: time)
        let index = call.index
        let result = await response.outcome(call)
        switch result {
        case .success(let places): finish(index, .answered(count: places.count))
        case .failure(let error): finish(index, .failed(error))
        }
        return (result.mapError { $0 }, response.latency)
    }

    /// Appends the call and returns it with its scripted answer (the caller keeps the value,
    /// rather than copying ``calls`` under the lock to read one element back).
    private func record(center: Coordinate, radius: Double, at time: Duration) -> (Call, Response) {
        state.withLock { state in
            let index = state.calls.count
            let response: Response
            if !state.script.isEmpty {
                response = state.script.removeFirst()
            } else if let fallback {
                response = fallback
            } else {
                response = .failure(.validation(
                    "RecordingRepository has no scripted answer for call \(index + 1) (calls[\(index)]: centre \(center), "
                        + "radius \(DecimalText.fixed(radius, decimals: 1)) m): the script has \(PeopleText.count(state.scripted, "answer")) "
                        + "and no fallback (otherwise:)",
                    parameter: "script"))
            }
            let call = Call(index: index, time: time, center: center, radius: radius, latency: response.latency, outcome: .pending)
            state.calls.append(call)
            return (call, response)
        }
    }

    /// The replay harness cancelled the request call `index` answered before the answer was due:
    /// the call ends as ``Outcome/cancelled``, as the log's `fetchCancelled` says.
    func cancelledByHarness(_ index: Int) {
        state.withLock { state in
            guard state.calls.indices.contains(index) else { return }
            state.calls[index].outcome = .cancelled
        }
    }

    private func finish(_ index: Int, _ outcome: Outcome) {
        state.withLock { $0.calls[index].outcome = outcome }
    }
}
