/// Conversions from `Duration` to the plain numbers that C APIs, Foundation and wire formats take.
///
/// `Duration` stores attoseconds in 128 bits; its `components` are two `Int64`s, whole seconds
/// and the remaining attoseconds, both truncated toward zero (so they share the sign of the
/// duration: −1.5 s is `(-1, -500_000_000_000_000_000)`). Both conversions here work from those
/// components, so each is defined for every `Duration` and never traps.
extension Duration {
    /// The duration in seconds as a `Double` (what Foundation calls a `TimeInterval`).
    ///
    /// Whole seconds and the fraction are converted separately and added, so the result is within
    /// one unit in the last place of the exact value: `.milliseconds(1500)` is exactly `1.5`,
    /// `.milliseconds(-250)` is exactly `-0.25`. Every `Duration` converts to a finite value
    /// (at most about 9.2 × 10¹⁸ s in magnitude).
    package var fractionalSeconds: Double {
        let (seconds, attoseconds) = components
        // 1e18 is exact in a Double, so the division rounds the fraction once.
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole microseconds, truncated toward zero and saturated to `Int64`.
    ///
    /// `.nanoseconds(1_999)` is `1`, `.nanoseconds(-1_999)` is `-1`. A duration beyond
    /// `Int64.max` µs (about 292,000 years) gives `Int64.max`, one below `Int64.min` µs gives
    /// `Int64.min`: the value is clamped, never wrapped, and never traps. Narrow it further with
    /// `Int32(clamping:)` where a C API takes 32 bits.
    package var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let saturated: Int64 = seconds < 0 ? .min : .max
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return saturated }
        // Both components share the duration's sign, so the sum only overflows when the exact
        // value is out of range on the same side.
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        return sumOverflow ? saturated : sum
    }
}
