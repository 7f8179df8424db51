import LocationCore
import Testing
import LocSimTestHelpers

/// The package's one FNV-1a (``FNV1a64``): the published test vectors, and the values its users
/// keep (place ids and the cache fingerprint are pinned by LocationIndexTests' StableIDTests; a
/// feed player's seed and a token client's name by the command's and the server's tests).
@Suite(.ownThread) struct FNV1a64Tests {
    @Test("The published 64-bit FNV-1a values, whole or fed in pieces", arguments: [
        ("", 0xcbf2_9ce4_8422_2325 as UInt64), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
    ])
    func vectors(text: String, hash: UInt64) {
        #expect(FNV1a64.hash(text.utf8) == hash)
        var pieces = FNV1a64()
        for character in text { pieces.combine(String(character).utf8) }
        #expect(pieces.value == hash)
    }
}
