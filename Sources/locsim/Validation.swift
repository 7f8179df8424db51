import LocationSimulation

/// The usage error for a `--speed` outside ``LocationSimulation/Pacing/speedFactorRange`` (the
/// library's own limit, checked up front so the message names the option).
func speedError(_ speed: Double) -> String {
    "--speed must be between \(formatRangeBound(Pacing.speedFactorRange.lowerBound)) and "
        + "\(formatRangeBound(Pacing.speedFactorRange.upperBound)), got \(speed)"
}

private func formatRangeBound(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
