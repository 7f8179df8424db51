import ArgumentParser
import LocationCore
import LocationSimulation

/// Refuses a `--speed` outside ``LocationSimulation/Pacing/speedFactorRange`` (the library's own
/// limit, checked up front so the message names the option; NaN and infinities are outside too).
func validateSpeed(_ speed: Double) throws(ValidationError) {
    guard Pacing.speedFactorRange.contains(speed) else {
        throw ValidationError(
            "--speed must be between \(formatRangeBound(Pacing.speedFactorRange.lowerBound)) and "
                + "\(formatRangeBound(Pacing.speedFactorRange.upperBound)), got \(speed)")
    }
}

/// `text` as a plain decimal number, the syntax place files are read with (``LocationCore/DecimalNumber``):
/// no `nan`, `inf` or hexadecimal, unlike `Double(String)`. Nil when it is not one.
func decimalValue(_ text: some StringProtocol) -> Double? {
    var copy = String(text)
    return copy.withUTF8 { DecimalNumber(parsing: $0)?.value }
}

private func formatRangeBound(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
