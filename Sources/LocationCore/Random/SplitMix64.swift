/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, seeded random number generator.
///
/// The project's one seeded source of randomness for small jobs: back-off jitter in the fetch
/// throttle, expanding a seed into `SeededGenerator`'s xoshiro state, and seeded test and
/// benchmark data. The same seed always gives the same sequence, on every platform. Not for
/// cryptography.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let jitter = random.uniform(0...1)
/// let bearing = Double.random(in: 0..<360, using: &random)
/// ```
@frozen
package struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    @usableFromInline var state: UInt64

    /// A generator whose sequence is fixed by `seed` (any value, 0 included).
    @inlinable
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @inlinable
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `range` from 53 random bits: `lowerBound + width × u` with u in 0..<1
    /// (cheaper than `Double.random(in:using:)`, and the same on every platform).
    @inlinable
    package mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * (Double(next() >> 11) * 0x1p-53)
    }
}
