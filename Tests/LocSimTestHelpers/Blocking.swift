public import Foundation
import LocationCore

/// Runs blocking work (accept, connect, waitpid, paced writes) on its own thread, never on
/// Swift's cooperative pool, and awaits its result.
public func onThread<T: Sendable>(
    _ name: String = "locsim.test", _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = name
        thread.start()
    }
}

/// A failure in the test harness itself (not in the code under test).
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Duration {
    /// The duration in seconds, for APIs that take a `TimeInterval` or a `Date` deadline.
    public var timeInterval: TimeInterval {
        fractionalSeconds
    }
}
