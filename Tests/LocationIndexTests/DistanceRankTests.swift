import LocationCore
import LocationIndex
import LocSimTestHelpers
import Testing

/// The ranking both nearby backends share (the SQLite index and the PostGIS tiles).
@Suite(.ownThread) struct DistanceRankTests {
    /// On equal distances ids go in Swift `String` order, whichever path compares them: bytes for
    /// two ASCII ids, `String`s otherwise (where byte order and `String` order differ: canonical
    /// equivalents such as "é" and "e" + U+0301, and scalars above U+FFFF against ones below).
    @Test func idTieBreakIsStringOrder() {
        let pieces = ["a", "b", "Z", "0", "-", "é", "e\u{301}", "日", "𝒜", "ﬀ", "~", "\u{7F}", ""]
        var random = SplitMix64(seed: 42)
        var ids = pieces
        for _ in 0..<400 {
            let length = Int(random.next() % 4) + 1
            ids.append((0..<length).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined())
        }
        for a in ids {
            for b in ids.prefix(120) {
                let byBytes = Array(a.utf8).withUnsafeBytes { left in
                    Array(b.utf8).withUnsafeBytes { right in DistanceRank.idPrecedes(left, right) }
                }
                #expect(byBytes == (a < b), "\(a.debugDescription) < \(b.debugDescription)")
            }
        }
    }
}
