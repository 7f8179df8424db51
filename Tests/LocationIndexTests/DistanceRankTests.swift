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
                // Ids Swift holds equal but spelled otherwise (NFC and NFD) go by their bytes.
                let expected = a != b ? a < b : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
                #expect(byBytes == expected, "\(a.debugDescription) < \(b.debugDescription)")
            }
        }
    }

    @Test("Two places at one point whose ids are café in NFC and in NFD come back in one order, whichever was imported first")
    func canonicallyEquivalentIDs() throws {
        try withTemporaryDirectory { directory in
            let spot = try Coordinate(latitude: 10, longitude: 20)
            let nfc = Place(id: "caf\u{E9}", name: "NFC", coordinate: spot), nfd = Place(id: "cafe\u{301}", name: "NFD", coordinate: spot)
            var answers: [[String]] = []
            for (number, places) in [[nfc, nfd], [nfd, nfc]].enumerated() {
                let index = try NearbyIndex(path: directory.file("order\(number).sqlite"))
                try index.importPlaces(places)
                answers.append(try index.places(near: spot, within: 10).map(\.place.name))
            }
            // By their bytes: "cafe" + U+0301 before "caf" + U+00E9 ("e" is 0x65, U+00E9 starts 0xC3).
            #expect(answers == [["NFD", "NFC"], ["NFD", "NFC"]])
        }
    }
}
