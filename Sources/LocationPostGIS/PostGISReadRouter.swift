package import LocationCore
package import Places
package import Logging

/// Reads spread over PostgreSQL streaming replicas, round robin, falling back to the primary:
/// what `locsim serve --postgres PRIMARY --replica URL …` answers from.
///
/// A read that fails because its backend cannot be reached (``PostGISError/Code/unavailable``)
/// or passed its deadline (``PostGISError/Code/timedOut``: each store's `queryTimeout`, after
/// which its query is cancelled) is retried at once on the next backend (the next replica that
/// is up, then the primary), and the backend is marked down, unless it answered other reads
/// while this one waited (then it is busy, not down, and stays in the rotation). So a read waits
/// at most one deadline for each backend it tries, and a frozen or locked backend costs that once,
/// not on every request. Requests skip a backend that is down; ``run()`` checks it again (the
/// store's ``PostGISPlaceStore/checkHealth()``, a real read) after each of LocationCore's
/// ``/LocationCore/Backoff`` delays and marks it up when it answers, so the process recovers
/// without a restart. When every backend is down, a read
/// throws ``PostGISError/Code/unavailable`` at once, naming each of them, and the server answers
/// 503 with `Retry-After`.
///
/// Backends are named by role and `host:port` (`primary 127.0.0.1:5432`, `replica 2
/// 10.0.0.7:5432`), never by URL, so no message carries a password.
///
/// ```swift
/// let router = try PostGISReadRouter(primary: primaryStore, replicas: [replicaStore], clock: ContinuousClock(), logger: logger)
/// // keep `await router.run()` running in a task (it drives every store's pool), then:
/// let places = try await router.places(near: center, within: 5_000, limit: nil)
/// ```
package final class PostGISReadRouter: Sendable {
    /// Which server of the set a backend is.
    package enum Role: Sendable, Hashable, CustomStringConvertible {
        case primary
        /// The n-th `--replica`, from 1.
        case replica(Int)

        package var description: String {
            switch self {
            case .primary: "primary"
            case .replica(let number): "replica \(number)"
            }
        }
    }

    /// What the router knows about one backend.
    package struct BackendStatus: Sendable, Hashable, CustomStringConvertible {
        package var role: Role
        /// `host:port`.
        package var endpoint: String
        /// Whether reads are sent to it.
        package var isUp: Bool
        /// Checks that failed since it went down (0 while up).
        package var failedChecks: Int
        /// Why it is down (nil while up).
        package var reason: String?
        /// Reads it answered since the router was made.
        package var reads: Int

        /// `postgres 127.0.0.1:5433 (replica 1) is down: …` or `… is up`.
        package var description: String {
            let name = "postgres \(endpoint) (\(role))"
            guard !isUp else { return name + " is up" }
            let checks = failedChecks == 0 ? "" : " (\(failedChecks) failed check\(failedChecks == 1 ? "" : "s") since)"
            return name + " is down\(checks): " + (reason ?? "no answer")
        }
    }

    /// The primary: imports go there, and reads when no replica is up.
    package let primary: PostGISPlaceStore
    /// The replicas, in the order given (`replica 1` first).
    package let replicas: [PostGISPlaceStore]
    /// The delays between checks of a backend that is down.
    package let backoff: Backoff
    let clock: any Clock<Duration>
    let logger: Logger
    private let stores: [PostGISPlaceStore]
    private let roles: [Role]
    private let state: Locked<State>
    private let downEvents: AsyncStream<Int>
    private let downContinuation: AsyncStream<Int>.Continuation

    private struct Backend {
        var isUp = true
        var recovering = false
        var failedChecks = 0
        var reason: String?
        var reads = 0
    }

    private struct State {
        var backends: [Backend]
        var next = 0
    }

    /// 250 ms doubling to 4 s, shortened by up to 20 % jitter: a database that is back is used
    /// again within about 4 s, and a down one costs one check (a 1 m read) per 4 s.
    package static let standardBackoff: Backoff = {
        do {
            return try Backoff(initialDelay: .milliseconds(250), multiplier: 2, maximumDelay: .seconds(4), jitter: 0.2, seed: 0)
        } catch {
            preconditionFailure("the standard back-off is valid: \(error)")
        }
    }()

    /// - Parameters:
    ///   - primary: The primary's store.
    ///   - replicas: The replicas' stores (may be empty: then every read goes to the primary, with
    ///     the same down/up tracking).
    ///   - backoff: Delays between checks of a backend that is down (its `maximumAttempts` is not
    ///     used: a backend is checked until it answers).
    ///   - clock: The clock the delays are slept on.
    ///   - logger: A warning when a backend goes down, a notice when it is back.
    package init(
        primary: PostGISPlaceStore, replicas: [PostGISPlaceStore], backoff: Backoff = standardBackoff,
        clock: any Clock<Duration>, logger: Logger
    ) {
        self.primary = primary
        self.replicas = replicas
        self.backoff = backoff
        self.clock = clock
        self.logger = logger
        stores = replicas + [primary]
        roles = replicas.indices.map { Role.replica($0 + 1) } + [.primary]
        state = Locked(State(backends: Array(repeating: Backend(), count: replicas.count + 1)))
        (downEvents, downContinuation) = AsyncStream.makeStream(of: Int.self)
    }

    /// Drives every store's connection pool, and checks backends that went down until they are
    /// back, until the calling task is cancelled.
    package func run() async {
        await withTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { await store.run() } }
            for await index in downEvents {
                group.addTask { await self.recover(index) }
            }
            group.cancelAll()
        }
    }

    /// Every backend: role, `host:port`, up or down and why, reads answered. Replicas first,
    /// in order, then the primary.
    package func status() -> [BackendStatus] {
        state.withLock { state in
            state.backends.indices.map { index in
                let backend = state.backends[index]
                return BackendStatus(
                    role: roles[index], endpoint: stores[index].url.endpoint, isUp: backend.isUp,
                    failedChecks: backend.failedChecks, reason: backend.reason, reads: backend.reads)
            }
        }
    }

    /// Checks now (``PostGISPlaceStore/checkHealth()``: a real read, concurrently, each within
    /// its deadline) every backend that is believed up, marks the ones that fail down, and
    /// returns ``status()``. Backends already down are left to ``run()``'s checks.
    package func checkHealth() async -> [BackendStatus] {
        let up = state.withLock { state in state.backends.indices.filter { state.backends[$0].isUp } }
        await withTaskGroup(of: Void.self) { group in
            for index in up {
                group.addTask {
                    do {
                        try await self.stores[index].checkHealth()
                    } catch {
                        self.markDown(index, error)
                    }
                }
            }
        }
        return status()
    }

    /// A backend that ``checkAtStart()`` found refusing: which one, and the server's reason.
    package struct StartRefusal: Error, Sendable {
        package var role: Role
        /// The backend's URL (its ``PostgresURL/textWithoutPassword`` is safe to show).
        package var url: PostgresURL
        /// Why (``PostGISError/isRefusal``).
        package var error: PostGISError
    }

    /// The check before a server listens: every backend's ``PostGISPlaceStore/checkReadable()``
    /// (a login and a 1 m read on a connection of its own), concurrently, each within its deadline.
    /// A backend that the server refuses for a reason only a change of configuration mends
    /// (``PostGISError/isRefusal``: the password, the user, the database, the place tables, the
    /// grant to read them, TLS) throws ``StartRefusal``, the primary's first: a server started so
    /// would answer 503 to every request it sends there. A backend that cannot be reached (or is
    /// starting, or answered too late) is marked down, so requests skip it at once rather than
    /// after a deadline, and ``run()`` checks it until it answers. Returns ``status()``.
    package func checkAtStart() async throws(StartRefusal) -> [BackendStatus] {
        let failures = await withTaskGroup(of: (Int, (any Error)?).self) { group in
            for index in stores.indices {
                group.addTask {
                    do {
                        try await self.stores[index].checkReadable()
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            var failures: [(Int, any Error)] = []
            for await (index, error) in group {
                if let error { failures.append((index, error)) }
            }
            // The primary (the last store) first, then replica 1, 2…
            let primary = stores.count - 1
            return failures.sorted { ($0.0 == primary ? -1 : $0.0) < ($1.0 == primary ? -1 : $1.0) }
        }
        for (index, error) in failures {
            if let refusal = error as? PostGISError, refusal.isRefusal {
                throw StartRefusal(role: roles[index], url: stores[index].url, error: refusal)
            }
        }
        for (index, error) in failures { markDown(index, error) }
        return status()
    }

    /// Places within `radius` metres of `center`, nearest first, ties by id: the answer of
    /// ``PostGISPlaceStore/places(near:within:limit:)`` from the next replica that is up (round
    /// robin), else from the primary.
    ///
    /// - Throws: ``PostGISError/Code/unavailable`` naming every backend when none could answer
    ///   (down, or past its deadline); other ``PostGISError``s (a bad argument, a server error)
    ///   unchanged, without fail-over.
    package func places(near center: Coordinate, within radius: Double, limit: Int? = nil) async throws -> [NearbyPlace] {
        try PostGISPlaceStore.check(radius: radius, limit: limit)
        return try await read { store in try await store.places(near: center, within: radius, limit: limit) }
    }

    /// ``places(near:within:limit:)`` read in place (``PostGISPlaceStore/withNearbyRows(near:within:limit:_:)``),
    /// with the same choice of backend and fail-over.
    package func withNearbyRows<Answer: Sendable>(
        near center: Coordinate, within radius: Double, limit: Int? = nil, _ body: @Sendable (PackedHits) -> Answer
    ) async throws -> Answer {
        try PostGISPlaceStore.check(radius: radius, limit: limit)
        return try await read { store in try await store.withNearbyRows(near: center, within: radius, limit: limit, body) }
    }

    /// `read` on the next replica that is up (round robin), else on the primary; a backend that
    /// cannot be reached or passed its deadline is marked down and the next one asked.
    private func read<Answer: Sendable>(_ read: (PostGISPlaceStore) async throws -> Answer) async throws -> Answer {
        for index in candidates() {
            let answeredBefore = state.withLock { $0.backends[index].reads }
            do {
                let answer = try await read(stores[index])
                state.withLock { $0.backends[index].reads += 1 }
                return answer
            } catch let error as PostGISError where error.code == .unavailable || error.code == .timedOut {
                // A backend that answered other reads while this one waited is busy, not down:
                // this read tries the next one, and the backend stays in the rotation.
                let answeredMeanwhile = state.withLock { $0.backends[index].reads } > answeredBefore
                if !answeredMeanwhile { markDown(index, error) }
            }
        }
        throw PostGISError(
            .unavailable, "no database can answer: " + status().map(\.description).joined(separator: "; "))
    }

    /// The backends to try, in order: the replicas that are up, starting with the next one in
    /// turn, then the primary if it is up.
    private func candidates() -> [Int] {
        state.withLock { state in
            let replicaCount = stores.count - 1
            var order: [Int] = []
            if replicaCount > 0 {
                let start = state.next % replicaCount
                state.next = (state.next + 1) % replicaCount
                for offset in 0..<replicaCount {
                    let index = (start + offset) % replicaCount
                    if state.backends[index].isUp { order.append(index) }
                }
            }
            if state.backends[replicaCount].isUp { order.append(replicaCount) }
            return order
        }
    }

    private func markDown(_ index: Int, _ error: any Error) {
        let (wentDown, startRecovery) = state.withLock { state in
            let wasUp = state.backends[index].isUp
            state.backends[index].isUp = false
            state.backends[index].reason = Self.reason(error)
            let start = !state.backends[index].recovering
            state.backends[index].recovering = true
            return (wasUp, start)
        }
        if wentDown {
            logger.warning(
                "\(roles[index]) postgres \(stores[index].url.endpoint) is down; \(stores.count == 1 ? "reads get 503" : "reads go elsewhere") until it answers again",
                metadata: ["reason": .string(Self.reason(error))])
        }
        if startRecovery { downContinuation.yield(index) }
    }

    /// Checks a down backend after each back-off delay until it answers, then marks it up.
    private func recover(_ index: Int) async {
        var random = SplitMix64(seed: backoff.seed &+ UInt64(index))
        var failures = 0
        while true {
            failures += 1
            let unit = Double(random.next() >> 11) * 0x1p-53
            do {
                try await clock.sleep(for: backoff.delay(afterFailures: failures, randomUnit: unit))
            } catch {
                return  // cancelled: the router is stopping
            }
            do {
                try await stores[index].checkHealth()
            } catch {
                guard !Task.isCancelled else { return }
                state.withLock { state in
                    state.backends[index].failedChecks = failures
                    state.backends[index].reason = Self.reason(error)
                }
                continue
            }
            state.withLock { state in
                state.backends[index] = Backend(
                    isUp: true, recovering: false, failedChecks: 0, reason: nil, reads: state.backends[index].reads)
            }
            logger.notice("\(roles[index]) postgres \(stores[index].url.endpoint) answers again; reads go to it")
            return
        }
    }

    /// The error without the endpoint prefix (the status names the backend already).
    private static func reason(_ error: any Error) -> String {
        if let error = error as? PostGISError { return error.message }
        return "\(error)"
    }
}
