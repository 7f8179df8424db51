/// The 64-bit FNV-1a hash (Fowler–Noll–Vo), the package's one hash of bytes: the index's derived
/// place ids and the default database's cache fingerprint, a feed player's seed from its name,
/// and the nearby server's name for a client known by its token.
///
/// Not cryptographic: it only has to be fast, dependency-free and the same on every platform and
/// in every release, because its values are stored or shown (place ids in user databases, cache
/// file names, players' motion, log lines). Changing it changes those; the reference values are
/// pinned by `Tests/LocationIndexTests/StableIDTests.swift` and `Tests/LocationCoreTests/FNV1a64Tests.swift`.
package struct FNV1a64 {
    /// The hash of everything combined so far (the FNV offset basis before any byte).
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// Feeds `bytes`, in order: combining `a` then `b` equals combining `a + b`.
    package mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    /// The hash of `bytes` alone.
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hasher = FNV1a64()
        hasher.combine(bytes)
        return hasher.value
    }
}
