#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// A location provider that delivers given fixes at their own times on a clock: the test's
/// stand-in for a phone's GPS.
///
/// Each fix is delivered when the clock has advanced by `fix.time − epoch` since iteration began
/// (the epoch defaults to the first fix's time, so the first fix comes at once). Fixes are
/// delivered in the given order; a fix whose time is not after the previous one comes without
/// waiting. After the last fix the sequence finishes, throws, or stays open until the consuming
/// task is cancelled, as ``Ending`` says.
///
/// ```swift
/// let clock = VirtualClock()
/// let provider = ScriptedProvider(fixes: fixes, clock: clock, then: .waitForCancellation)
/// ```
///
/// - Important: One consumer per iteration; iterate again for another pass.
public struct ScriptedProvider<C: Clock>: LocationProvider where C.Duration == Duration {
    /// What happens after the last fix.
    public enum Ending: Sendable {
        /// The sequence ends (`nil`), like a replay reaching its end.
        case finish
        /// `next()` throws the error, like a receiver going away.
        case fail(any Error & Sendable)
        /// `next()` waits until the consuming task is cancelled, then throws `CancellationError`,
        /// like a live provider with nothing new to say.
        case waitForCancellation
    }

    public typealias Element = Fix

    /// The fixes, in delivery order.
    public let fixes: [Fix]
    /// The clock the provider waits on.
    public let clock: C
    /// The fix time that corresponds to the moment iteration begins.
    public let epoch: Date
    /// What happens after the last fix.
    public let ending: Ending

    /// Creates a provider.
    ///
    /// - Parameters:
    ///   - fixes: The fixes to deliver, in order.
    ///   - clock: The clock to wait on (a `VirtualClock` in tests).
    ///   - epoch: The fix time delivered at once; defaults to the first fix's time.
    ///   - ending: What follows the last fix; ``Ending/finish`` by default.
    public init(fixes: [Fix], clock: C, epoch: Date? = nil, then ending: Ending = .finish) {
        self.fixes = fixes
        self.clock = clock
        self.epoch = epoch ?? fixes.first?.time ?? Date(timeIntervalSinceReferenceDate: 0)
        self.ending = ending
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(provider: self)
    }

    /// Delivers the fixes one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let provider: ScriptedProvider
        private var index = 0
        private var start: C.Instant?
        private var ended = false

        init(provider: ScriptedProvider) { self.provider = provider }

        /// The next fix once the clock reaches its time; then the ending.
        public mutating func next() async throws -> Fix? {
            guard !ended else { return nil }
            let start = self.start ?? provider.clock.now
            self.start = start
            guard index < provider.fixes.count else {
                ended = true
                switch provider.ending {
                case .finish: return nil
                case .fail(let error): throw error
                case .waitForCancellation:
                    await waitUntilCancelled()
                    throw CancellationError()
                }
            }
            let fix = provider.fixes[index]
            let offset = VirtualTime.duration(from: provider.epoch, to: fix.time)
            if offset > .zero {
                do {
                    try await provider.clock.sleep(until: start.advanced(by: offset), tolerance: nil)
                } catch {
                    ended = true
                    throw error
                }
            }
            index += 1
            return fix
        }
    }
}

@available(*, unavailable)
extension ScriptedProvider.AsyncIterator: Sendable {}

/// Suspends until the current task is cancelled (without polling or sleeping on any clock).
func waitUntilCancelled() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    await withTaskCancellationHandler {
        for await _ in stream {}
    } onCancel: {
        continuation.finish()
    }
}

/// Conversions between fix time (`Date`) and virtual time (`Duration`) at microsecond resolution,
/// the resolution `FetchThrottle` compares times at.
public enum VirtualTime {
    /// `to − from`, rounded to whole microseconds.
    public static func duration(from: Date, to: Date) -> Duration {
        .microseconds(microseconds(to) - microseconds(from))
    }

    /// `date + duration`, at microsecond resolution.
    public static func date(_ date: Date, plus duration: Duration) -> Date {
        let added = microseconds(date) + duration.wholeMicroseconds
        return Date(timeIntervalSinceReferenceDate: Double(added) / 1_000_000)
    }

    /// Whole microseconds since the reference date (2001-01-01), rounded: the resolution at
    /// which `FetchThrottle` compares times.
    public static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(max(-4e18, min(4e18, value)))
    }
}
