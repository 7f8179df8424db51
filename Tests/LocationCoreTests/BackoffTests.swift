import LocationCore
import Testing
import LocSimTestHelpers

@Suite(.ownThread) struct BackoffTests {
    @Test("Delays grow by the multiplier from the initial delay until the cap, then stay there", arguments: [
        (Duration.seconds(1), 2.0, Duration.seconds(30)), (.milliseconds(100), 3, .seconds(5)), (.milliseconds(250), 2, .seconds(8)),
    ])
    func growsThenCaps(initial: Duration, multiplier: Double, cap: Duration) throws {
        let backoff = try Backoff(initialDelay: initial, multiplier: multiplier, maximumDelay: cap)
        let delays = (1...20).map { backoff.delay(afterFailures: $0) }
        #expect(delays[0] == initial)
        for (earlier, later) in zip(delays, delays.dropFirst()) {
            #expect(later <= cap)
            // The multipliers here are whole numbers, so each delay is exactly the last one times it.
            #expect(later == min(cap, .microseconds(earlier.wholeMicroseconds * Int64(multiplier))))
        }
        #expect(delays.last == cap)
    }

    @Test("Failures below 1 count as the first; a multiplier of 1 never grows")
    func edges() throws {
        let backoff = try Backoff(initialDelay: .seconds(1), multiplier: 1, maximumDelay: .seconds(4))
        #expect(backoff.delay(afterFailures: 0) == .seconds(1))
        #expect(backoff.delay(afterFailures: -3) == .seconds(1))
        #expect(backoff.delay(afterFailures: .max) == .seconds(1))
    }

    @Test("Long outages reach the cap without overflow, however long the cap")
    func longOutages() throws {
        // About 31,700 years: past whole nanoseconds in an Int64 (about 292 years).
        let huge = try Backoff(initialDelay: .seconds(1), multiplier: 10, maximumDelay: .seconds(1e12))
        #expect(huge.delay(afterFailures: 12) == .seconds(1e11))
        #expect(huge.delay(afterFailures: 40) == .seconds(1e12))
        #expect(huge.delay(afterFailures: .max) == .seconds(1e12))
        // A cap beyond about 126,000 years is clamped there, not trapped on.
        let beyond = try Backoff(initialDelay: .seconds(1), multiplier: 1e300, maximumDelay: .seconds(1e17))
        #expect(beyond.delay(afterFailures: 3) == .microseconds(4_000_000_000_000_000_000))
    }

    @Test("Jitter only shortens, by at most its fraction; a unit outside 0...1 is clamped")
    func jitter() throws {
        let backoff = try Backoff(initialDelay: .seconds(2), maximumDelay: .seconds(8), jitter: 0.25)
        #expect(backoff.delay(afterFailures: 1, randomUnit: 0) == .seconds(2))
        #expect(backoff.delay(afterFailures: 1, randomUnit: 1) == .milliseconds(1500))
        #expect(backoff.delay(afterFailures: 3, randomUnit: 0.5) == .seconds(7))
        #expect(backoff.delay(afterFailures: 1, randomUnit: -4) == .seconds(2))
        #expect(backoff.delay(afterFailures: 1, randomUnit: 9) == .milliseconds(1500))
        #expect(backoff.delay(afterFailures: 1, randomUnit: .nan) == .seconds(2))
        #expect(backoff.delayMicroseconds(afterFailures: 2, randomUnit: 0.5) == backoff.delay(afterFailures: 2, randomUnit: 0.5).wholeMicroseconds)
    }

    @Test("maximumAttempts bounds the retries in a row; nil never gives up")
    func attempts() throws {
        let three = try Backoff(maximumAttempts: 3)
        #expect((0...4).map(three.allowsRetry(after:)) == [true, true, true, false, false])
        #expect(try Backoff(maximumAttempts: 0).allowsRetry(after: 0) == false)
        #expect(try Backoff().allowsRetry(after: .max))
    }

    /// One set of `Backoff.init` arguments.
    struct Values: Sendable, CustomTestStringConvertible {
        var initialDelay: Duration = .seconds(1), multiplier = 2.0, maximumDelay: Duration = .seconds(30)
        var jitter = 0.0, maximumAttempts: Int? = nil
        var testDescription: String { "\(initialDelay) ×\(multiplier) ≤ \(maximumDelay) jitter \(jitter) attempts \(String(describing: maximumAttempts))" }
    }

    @Test("A value out of range is refused at construction, naming the parameter", arguments: [
        ("initialDelay", Values(initialDelay: .zero)),
        ("initialDelay", Values(initialDelay: .milliseconds(-5))),
        ("multiplier", Values(multiplier: .nan)),
        ("multiplier", Values(multiplier: .infinity)),
        ("multiplier", Values(multiplier: 0.5)),
        ("maximumDelay", Values(initialDelay: .seconds(2), maximumDelay: .seconds(1))),
        ("jitter", Values(jitter: 1)),
        ("jitter", Values(jitter: -0.1)),
        ("jitter", Values(jitter: .nan)),
        ("maximumAttempts", Values(maximumAttempts: -1)),
    ])
    func refused(parameter: String, values: Values) {
        let error = #expect(throws: ConfigurationError.self) {
            try Backoff(
                initialDelay: values.initialDelay, multiplier: values.multiplier, maximumDelay: values.maximumDelay,
                jitter: values.jitter, maximumAttempts: values.maximumAttempts)
        }
        #expect(error?.parameter == parameter)
        #expect(error?.description.hasPrefix("\(parameter): ") == true)
    }
}
