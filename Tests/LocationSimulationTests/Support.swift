import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import LocSimTestHelpers
import LocationTestSupport
import Testing

/// Files next to the tests, located through `#filePath` (no bundle needed).
enum TestFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static func fixture(_ name: String) -> URL { directory.appendingPathComponent("Fixtures/\(name)") }
}

/// A fixed wall clock for rebasing and synthetic start times.
let wallStart = Date(timeIntervalSince1970: 1_700_000_000)
let fixedNow: @Sendable () -> Date = { wallStart }

func coordinate(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: longitude)
}

/// A track point `seconds` after `base`, walking north-east from Tokyo station by `step` metres per point.
func point(_ index: Int, at seconds: Double?, base: Date = Date(timeIntervalSince1970: 1_543_456_138)) -> GPXPoint {
    let origin = coordinate(35.6812, 139.7671)
    return GPXPoint(
        coordinate: origin.destination(distance: Double(index) * 10, bearing: 45), elevation: 20 + Double(index),
        time: seconds.map { base.addingTimeInterval($0) })
}

/// A one-segment track whose points are at the given offsets (seconds).
func track(_ offsets: [Double?]) -> ReplayPath {
    ReplayPath(track: GPXTrack(segments: [offsets.enumerated().map { point($0.offset, at: $0.element) }]))
}

/// One delivered fix and the virtual time at which it was delivered.
struct Delivery: Sendable {
    var fix: Fix
    var at: Duration
}

/// Drains `provider`, noting `clock.now` after each fix.
func collect<P: LocationProvider>(_ provider: P, on clock: VirtualClock, limit: Int = .max) async throws -> [Delivery] {
    var out: [Delivery] = []
    var iterator = provider.makeAsyncIterator()
    while out.count < limit, let fix = try await iterator.next() {
        out.append(Delivery(fix: fix, at: clock.now.offset))
    }
    return out
}

/// Collects events from a replay's `onEvent` and lets a test wait for one.
final class EventLog: Sendable {
    private struct State {
        var events: [ReplayEvent] = []
        var waiters: [(predicate: @Sendable (ReplayEvent) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Locked(State())

    var events: [ReplayEvent] { state.withLock { $0.events } }

    var handler: @Sendable (ReplayEvent) -> Void {
        { [self] event in
            let ready = state.withLock { state in
                state.events.append(event)
                var ready: [CheckedContinuation<Void, Never>] = []
                state.waiters.removeAll { waiter in
                    guard waiter.predicate(event) else { return false }
                    ready.append(waiter.continuation)
                    return true
                }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// Returns once an event matching `predicate` has been logged (including earlier ones).
    func wait(for predicate: @escaping @Sendable (ReplayEvent) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.events.contains(where: predicate) { return true }
                state.waiters.append((predicate, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    var gaps: [ReplayGap] {
        events.compactMap { if case .gap(let gap) = $0 { gap } else { nil } }
    }
}

/// Reads a small JSON fixture.
func loadJSON<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(contentsOf: TestFiles.fixture(name)))
}

extension Duration {
    /// Seconds as a `Double` (attosecond precision lost beyond 2⁻⁵²).
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// Expects `body` to throw a ``SimulationError`` with `code`, and returns it.
@discardableResult
func expectError<R>(
    _ code: SimulationError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> SimulationError? {
    let error = #expect(throws: SimulationError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
    return error
}
