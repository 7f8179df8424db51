import ArgumentParser

/// Why a number flag's value is none: named after the flag by ArgumentParser ("The value '0x10'
/// is invalid for '--radius <m>': …").
struct NotADecimal: Error, CustomStringConvertible {
    let allowsInfinity: Bool
    var description: String {
        "not a plain decimal number such as 5000, 0.5 or 1e3" + (allowsInfinity ? " (or inf)" : "")
    }
}

extension Option {
    /// A number flag, read as locsim reads every number people write (``decimalValue(_:)``: no
    /// hexadecimal, `nan` or `inf`, which `Double(String)` would take); `inf` too where
    /// `infinity` says it means something. Parsed unconditionally, so `-5` reaches the flag's
    /// range check instead of "Missing value".
    init(wrappedValue: Double, name: NameSpecification = .long, number help: ArgumentHelp, infinity: Bool = false)
    where Value == Double {
        // A transform hides the default from --help: it is said here, as a person writes it.
        var help = help
        help.abstract += " (default: \(formatRangeBound(wrappedValue)))"
        self.init(
            wrappedValue: wrappedValue, name: name, parsing: .unconditional, help: help,
            transform: { text throws(NotADecimal) in try readDecimal(text, infinity: infinity) })
    }

    /// An optional number flag (see ``init(wrappedValue:name:number:infinity:)``).
    init(name: NameSpecification = .long, number help: ArgumentHelp) where Value == Double? {
        self.init(name: name, parsing: .unconditional, help: help, transform: { text throws(NotADecimal) in try readDecimal(text, infinity: false) })
    }
}

/// `text` as a number flag's value; `inf` only when `infinity`.
private func readDecimal(_ text: String, infinity: Bool) throws(NotADecimal) -> Double {
    if let value = decimalValue(text) { return value }
    if infinity, ["inf", "+inf", "infinity", "+infinity"].contains(text.lowercased()) { return .infinity }
    throw NotADecimal(allowsInfinity: infinity)
}
