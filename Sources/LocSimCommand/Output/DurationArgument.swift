import ArgumentParser
import LocationCore

/// A length of time on the command line, written as every locsim duration is
/// (``LocationCore/DurationText``): `500ms`, `30s`, `5m`, `2h`, `1d`, `1h30m`, `1:30:00` or bare
/// seconds. Every duration flag takes it, declared with `@Option(duration:)`:
///
/// ```swift
/// @Option(duration: "Delay every answer by this much (800ms, 1.5s).")
/// var latency: DurationArgument?
/// ```
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    let duration: Duration
    /// As written (or as the default is shown in help).
    let text: String

    init(_ duration: Duration, text: String) {
        self.duration = duration
        self.text = text
    }

    init?(argument: String) {
        guard case .success(let duration) = DurationText.parse(argument) else { return nil }
        self.init(duration, text: argument)
    }

    /// The value of a duration flag, or why `argument` is none (shown after the flag's name).
    static func parse(_ argument: String) throws(DurationText.Problem) -> DurationArgument {
        DurationArgument(try DurationText.parse(argument).get(), text: argument)
    }

    static func seconds(_ seconds: Int) -> DurationArgument { DurationArgument(.seconds(seconds), text: "\(seconds)s") }

    var seconds: Double { duration.fractionalSeconds }
    var description: String { text }
    var defaultValueDescription: String { text }
}

/// Checks that a duration flag's value is within `range` (in seconds).
///
/// - Throws: `ValidationError` naming `flag`, the range and the value given.
func checkOption(_ value: DurationArgument, in range: ClosedRange<Double>, flag: String) throws(ValidationError) {
    guard range.contains(value.seconds) else {
        throw ValidationError(
            "\(flag) must be between \(formatRangeBound(range.lowerBound)) and \(formatRangeBound(range.upperBound)) seconds, got \(value.text)")
    }
}

extension Option {
    /// A duration flag, `<duration>` in help. Its value is parsed unconditionally, so that `-5s`
    /// reaches ``DurationArgument/parse(_:)`` and the message names the flag and says "must not
    /// be negative" rather than "Missing value".
    init(wrappedValue: DurationArgument, duration help: String) where Value == DurationArgument {
        self.init(
            wrappedValue: wrappedValue, parsing: .unconditional, help: ArgumentHelp(help, valueName: "duration"),
            transform: DurationArgument.parse)
    }

    /// An optional duration flag (see ``init(wrappedValue:duration:)``).
    init(duration help: String) where Value == DurationArgument? {
        self.init(parsing: .unconditional, help: ArgumentHelp(help, valueName: "duration"), transform: DurationArgument.parse)
    }
}
