import ArgumentParser

/// A `--seed` on the command line: a whole number 0...2⁶⁴−1. Every seed flag takes it, declared
/// with `@Option(seed:)`, so a bad value says why (`-1`: "must not be negative") instead of
/// ArgumentParser's bare "is invalid".
enum SeedArgument {
    /// Why a text is not a seed.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The seed `argument` says, or why it says none (shown after the flag's name).
    static func parse(_ argument: String) throws(Problem) -> UInt64 {
        if let seed = UInt64(argument) { return seed }
        if argument.hasPrefix("-"), UInt64(argument.dropFirst()) != nil { throw Problem(description: "must not be negative") }
        throw Problem(description: "must be a whole number 0...\(UInt64.max)")
    }
}

extension Option where Value == UInt64 {
    /// A seed flag, `<seed>` in help with its default. Its value is parsed unconditionally, so
    /// that `-1` reaches ``SeedArgument/parse(_:)`` rather than reading as another flag.
    init(wrappedValue: UInt64, seed help: String) {
        // A transform hides the default from ArgumentParser's help: say it as it would.
        self.init(
            wrappedValue: wrappedValue, parsing: .unconditional, help: ArgumentHelp("\(help) (default: \(wrappedValue))", valueName: "seed"),
            transform: SeedArgument.parse)
    }
}

extension Option where Value == UInt64? {
    /// A seed flag as ``init(wrappedValue:seed:)``, nil when not given (then `defaultSeed`, which
    /// help shows): for a command that refuses the flag where it would do nothing.
    init(seed help: String, default defaultSeed: UInt64) {
        self.init(
            parsing: .unconditional, help: ArgumentHelp("\(help) (default: \(defaultSeed))", valueName: "seed"),
            transform: SeedArgument.parse)
    }
}
