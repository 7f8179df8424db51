#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore
public import Observation

/// The game's map screen, headless: consumes a location provider, decides when to fetch nearby
/// places, and publishes what a view shows.
///
/// A SwiftUI view runs it with `.task { await model.run(provider) }`; a test runs it with a
/// `VirtualClock` and a scripted provider, or through the replay harness in `LocationTestSupport`.
/// The decisions are made by a pure ``MapSession`` (and its ``FetchThrottle``); this class is the
/// async shell that feeds it, performs the requests, and mirrors its state into observable
/// properties.
///
/// The game's rule is kept: fetch on the first accepted fix, then when the user is more than
/// 100 m from the last fetch or more than 30 s after it (fix time), radius 5,000 m. The seed's
/// defects are fixed: one request in flight at a time (qualifying fixes are coalesced into one
/// follow-up with the newest position), older answers never overwrite newer ones, failures back
/// off exponentially, places stay on the map while refreshing and after a failure, poor fixes are
/// ignored, and stopping cancels the request in flight and freezes the state.
///
/// ```swift
/// let model = MapViewModel(repository: try HTTPLocationRepository(baseURL: url, token: token))
/// // In a view: .task { await model.run(provider) }
/// // Then read model.userLocation, model.nearbyLocations.value, model.lastFetch.
/// ```
@MainActor
@Observable
public final class MapViewModel {
    /// The latest accepted fix (poor fixes are not accepted).
    public private(set) var latestFix: Fix?
    /// Nearby places: the seed's `nearbyLocations`, now keeping the previous places while
    /// refreshing and after a failure.
    public private(set) var nearbyLocations: Loadable<[Place]> = .idle
    /// Whether the provider is being consumed, has ended, or failed.
    public private(set) var providerState: ProviderState = .idle
    /// The latest request sent: where (``FetchRequest/center``), when (``FetchRequest/time``, fix
    /// time) and why (``FetchRequest/reason``).
    public private(set) var lastFetch: FetchRequest?

    /// The user's position: ``latestFix``'s coordinate (the seed's `userLocation`).
    public var userLocation: Coordinate? { latestFix?.coordinate }

    /// Called on the main actor with every event, in order, as it happens.
    @ObservationIgnored public var onEvent: (@MainActor (MapEvent) -> Void)?

    /// The thresholds in use.
    @ObservationIgnored public let configuration: FetchThrottle.Configuration

    @ObservationIgnored private var session: MapSession
    @ObservationIgnored private var mirroredRevision = -1
    @ObservationIgnored private let repository: any LocationRepository
    @ObservationIgnored private let elapsed: @Sendable () -> Duration
    @ObservationIgnored private let speedFactor: Double
    @ObservationIgnored private let provider: (any LocationProvider)?

    /// Creates a model.
    ///
    /// - Parameters:
    ///   - repository: Where nearby places come from (``HTTPLocationRepository``, an offline index,
    ///     a test double).
    ///   - configuration: The fetch rule's thresholds; the game's by default.
    ///   - clock: Measures how long each request takes, to time-stamp answers in fix time (the
    ///     model never sleeps). Tests pass a `VirtualClock`.
    ///   - speedFactor: Seconds of fix time per second on `clock`: 1 for live fixes, 10 for a
    ///     replay played at 10× real time, so an answer that took 2 s is stamped 20 s of fix time
    ///     after its request, like the fixes that arrived meanwhile. Values that are not finite
    ///     and positive count as 1.
    ///   - provider: The fixes ``task()`` consumes; ``run(_:)`` takes its own.
    ///   - onEvent: An observer for every ``MapEvent`` (logging, tests).
    public init(
        repository: any LocationRepository,
        configuration: FetchThrottle.Configuration = .game,
        clock: some Clock<Duration>,
        speedFactor: Double = 1,
        provider: (any LocationProvider)? = nil,
        onEvent: (@MainActor (MapEvent) -> Void)? = nil
    ) {
        self.repository = repository
        self.configuration = configuration
        self.session = MapSession(configuration: configuration)
        self.elapsed = Self.stopwatch(clock)
        self.speedFactor = speedFactor.isFinite && speedFactor > 0 ? speedFactor : 1
        self.provider = provider
        self.onEvent = onEvent
    }

    /// Creates a model that times requests with the `ContinuousClock`.
    public convenience init(
        repository: any LocationRepository,
        configuration: FetchThrottle.Configuration = .game,
        provider: (any LocationProvider)? = nil,
        onEvent: (@MainActor (MapEvent) -> Void)? = nil
    ) {
        self.init(repository: repository, configuration: configuration, clock: ContinuousClock(),
                  provider: provider, onEvent: onEvent)
    }

    /// The current state of the pure session (throttle memory, in-flight request, follow-up).
    public var sessionState: MapSession { session }

    // MARK: Running

    /// Consumes the provider given at initialisation until it ends or the task is cancelled.
    ///
    /// Without a provider, sets ``providerState`` to ``ProviderState/failed(_:)`` and returns.
    public func task() async {
        guard let provider else {
            setProviderState(.failed(.locationUnavailable("MapViewModel.task() needs a provider; pass one to init or call run(_:)")))
            return
        }
        await run(provider)
    }

    /// Consumes `provider` until it ends or the calling task is cancelled.
    ///
    /// Each fix goes through the fetch rule; a request runs in a child task while fixes keep
    /// coming. When the provider ends, a request in flight is allowed to answer and
    /// ``providerState`` becomes ``ProviderState/finished``; when it throws,
    /// ``ProviderState/failed(_:)``. When the task is cancelled (the view disappears), the request
    /// in flight is cancelled, ``providerState`` returns to ``ProviderState/idle``, and from then
    /// on nothing changes: late answers are dropped.
    ///
    /// - Important: Run one `run` at a time per model.
    public func run(_ provider: some LocationProvider) async {
        await run(deliveries: provider.map { fix in (fix: fix, deliveredAt: fix.time) })
    }

    /// Consumes fixes as a phone hands them to the app, each with its delivery time (the clock
    /// the fetch rule counts on; a cached fix handed back on returning from the background
    /// carries an older time of its own), as ``run(_:)`` does a provider's.
    package func run<Deliveries: AsyncSequence>(deliveries: Deliveries) async
    where Deliveries.Element == (fix: Fix, deliveredAt: Date) {
        guard !Task.isCancelled else { return }
        session.resume()
        setProviderState(.running)
        var ending: ProviderState = .finished
        await withDiscardingTaskGroup { group in
            do {
                for try await (fix, time) in deliveries {
                    // A fix the provider has delivered is the app's, even when the task was
                    // cancelled meanwhile: dropping it here would lose a fix a recording of the
                    // provider holds (`replay --gpsd --record`, Ctrl-C).
                    if let request = apply(session.receive(fix, deliveredAt: time)) {
                        startWorker(for: request, in: &group)
                    }
                    if Task.isCancelled { break }
                }
            } catch is CancellationError {
                // Stopping: handled below.
            } catch {
                if !Task.isCancelled { ending = .failed(Self.providerError(error)) }
            }
        }
        if Task.isCancelled || session.isStopped {
            stop()
        } else {
            setProviderState(ending)
        }
    }

    // MARK: Driving by hand (replay harness, custom shells)

    /// Feeds one fix, as ``run(_:)`` does for each fix from the provider.
    ///
    /// - Returns: A request the caller must perform and answer with ``complete(_:with:at:)``.
    @discardableResult
    public func receive(_ fix: Fix) -> FetchRequest? {
        apply(session.receive(fix))
    }

    /// Feeds one fix the phone handed to the app at `time` (``MapSession/receive(_:deliveredAt:)``).
    @discardableResult
    package func receive(_ fix: Fix, deliveredAt time: Date) -> FetchRequest? {
        apply(session.receive(fix, deliveredAt: time))
    }

    /// Feeds the answer to `request`, received at `time` in fix time.
    ///
    /// - Returns: A coalesced follow-up request the caller must perform, if one is due.
    @discardableResult
    public func complete(_ request: FetchRequest, with result: Result<[Place], AppError>, at time: Date) -> FetchRequest? {
        apply(session.complete(request, with: result, at: time))
    }

    /// Stops: cancels the request in flight, sets ``providerState`` to ``ProviderState/idle``, and
    /// ignores everything until the next ``run(_:)``.
    ///
    /// A `run` in progress keeps reading its provider but changes nothing; cancel its task to end
    /// it (which stops the model the same way).
    public func stop() {
        let output = session.stop()
        mirror()
        // Order: the cancelled request, the provider going idle, and `stopped` last.
        for event in output.events where event.kind != .stopped { emit(event) }
        setProviderState(.idle)
        for event in output.events where event.kind == .stopped { emit(event) }
    }

    // MARK: Internals

    private func startWorker(for first: FetchRequest, in group: inout DiscardingTaskGroup) {
        let repository = self.repository
        let elapsed = self.elapsed
        group.addTask { [weak self] in
            var request = first
            while true {
                let started = elapsed()
                let result: Result<[Place], AppError>
                do {
                    result = .success(try await repository.fetchNearby(center: request.center, radius: request.radius))
                } catch {
                    if Task.isCancelled { return }
                    result = .failure(AppError.from(error))
                }
                let took = elapsed() - started
                guard let next = await self?.deliver(request, result, took: took) else { return }
                request = next
            }
        }
    }

    /// Applies an answer on the main actor, unless the run was cancelled meanwhile.
    ///
    /// The answer is stamped at the request's time plus how long it took, scaled to fix time;
    /// never before the latest fix already received, since it arrived after that fix did.
    private func deliver(_ request: FetchRequest, _ result: Result<[Place], AppError>, took: Duration) -> FetchRequest? {
        guard !Task.isCancelled else { return nil }
        var time = request.time.addingTimeInterval(took.fractionalSeconds * speedFactor)
        if let latest = session.latestTime, latest > time { time = latest }
        return apply(session.complete(request, with: result, at: time))
    }

    private func apply(_ output: MapSession.Output) -> FetchRequest? {
        mirror()
        for event in output.events { emit(event) }
        return output.request
    }

    /// Copies the session's state into the observable properties, touching only what changed.
    private func mirror() {
        if latestFix != session.latestFix { latestFix = session.latestFix }
        if mirroredRevision != session.placesRevision {
            mirroredRevision = session.placesRevision
            nearbyLocations = session.places
        }
        if lastFetch != session.lastFetch { lastFetch = session.lastFetch }
    }

    private func setProviderState(_ state: ProviderState) {
        guard providerState != state else { return }
        providerState = state
        emit(MapEvent(time: session.latestTime ?? MapEvent.noFixTime, kind: .providerStateChanged(state)))
    }

    private func emit(_ event: MapEvent) {
        onEvent?(event)
    }

    /// An error that describes itself keeps its own words; any other is named by its type too,
    /// so nothing is lost from logs.
    private static func providerError(_ error: any Error) -> AppError {
        if let error = error as? AppError { return error }
        if type(of: error) is any CustomStringConvertible.Type { return .locationUnavailable("\(error)") }
        return .locationUnavailable("\(type(of: error)): \(error)")
    }

    /// A closure returning the time elapsed on `clock` since it was made.
    private nonisolated static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
