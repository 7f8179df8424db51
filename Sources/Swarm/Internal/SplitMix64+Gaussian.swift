#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

extension SplitMix64 {
    /// A uniform double in [0, 1) from the top 53 bits.
    @inline(__always)
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A standard normal deviate by Box–Muller (cosine branch only, two draws per call), as
    /// LocationSimulation's `SeededGenerator` does on its own, larger generator; a swarm player
    /// keeps the 8-byte SplitMix64 to stay small.
    mutating func gaussian() -> Double {
        let u1 = 1 - unit()
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
