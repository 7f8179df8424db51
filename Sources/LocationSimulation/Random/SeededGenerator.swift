#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// A small, fast, seeded pseudo-random generator: xoshiro256** seeded through SplitMix64.
///
/// The same seed always yields the same sequence, on every platform and Swift version, because
/// every derived value (uniform doubles, Gaussians) is computed here rather than by the standard
/// library's `random(in:using:)`, whose algorithm is not promised to stay the same.
///
/// Not for cryptography.
///
/// ```swift
/// var a = SeededGenerator(seed: 42), b = SeededGenerator(seed: 42)
/// a.next() == b.next()   // true, forever
/// ```
///
/// Package access: the random source behind `SyntheticMotion` and `NoiseModel` (apps choose a seed, not a generator).
package struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Creates a generator whose whole future is determined by `seed`.
    ///
    /// The four words of state are filled by SplitMix64 from `seed` (as the xoshiro authors
    /// recommend), so seeds 0, 1, 2… give unrelated streams and the state is never all zero.
    package init(seed: UInt64) {
        var splitMix = SplitMix64(seed: seed)
        s0 = splitMix.next()
        s1 = splitMix.next()
        s2 = splitMix.next()
        s3 = splitMix.next()
    }

    /// The next 64 random bits (xoshiro256**).
    package mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// Derives an independent generator for a sub-stream (noise vs. motion), so adding draws to one
    /// does not shift the other.
    package mutating func split() -> SeededGenerator {
        SeededGenerator(seed: next())
    }
}

@inline(__always) private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
    (x << k) | (x >> (64 - k))
}

/// The derived values of every seeded generator (``SeededGenerator`` here, the swarm's 8-byte
/// `SplitMix64`), computed here rather than by the standard library's `random(in:using:)`, whose
/// algorithm is not promised to stay the same.
extension RandomNumberGenerator {
    /// A uniform double in [0, 1): the top 53 bits scaled by 2⁻⁵³.
    @inlinable package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform double in `range`.
    @inlinable package mutating func nextDouble(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A standard normal deviate (mean 0, standard deviation 1) by the Box–Muller transform.
    ///
    /// Each call consumes two 64-bit words and uses the cosine branch only, so the stream position
    /// never depends on a cached second value.
    @inlinable package mutating func nextGaussian() -> Double {
        // 1 - u lies in (0, 1], so the logarithm is finite.
        let u1 = 1 - nextUnit()
        return boxMuller(u1, nextUnit())
    }
}

@usableFromInline func boxMuller(_ u1: Double, _ u2: Double) -> Double {
    (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
}
