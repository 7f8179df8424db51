/// Orders a nearby answer's hits by distance (then by the caller's tie-break), in about linear
/// time, reusing its buffers from one query to the next: the SQLite index's read connections
/// and the PostGIS store's packed tiles both rank with it.
///
/// Each hit gets a key: its distance as a 22-bit fraction of the radius (monotone in the
/// distance, so it never reverses two hits) above its index. A two-pass LSD radix sort (11 bits
/// each) orders the keys; hits whose fractions are equal (distances within radius / 2²² of each
/// other: about one pair per query at 5 km) are then ordered by `precedes`. Only the 8-byte keys
/// move; a comparison sort of a few thousand hits, with its unpredictable branches, cost more
/// than reading them.
package struct DistanceRank {
    /// Keys, the other half of the ping-pong, two 2,048-bucket counts.
    private var keys: [UInt64] = []
    private var spare: [UInt64] = []
    private var counts: [Int32] = []

    package init() {}

    /// The tie-break both rankings use on equal distances: ids in Swift `String` order, given
    /// as UTF-8 bytes, and two ids Swift holds equal (canonically equivalent: `café` in NFC and
    /// in NFD, which the index keeps as two places) by their bytes, so that no two places tie and
    /// both databases answer in one order. Two ASCII ids compare as bytes (the same order,
    /// without building `String`s).
    package static func idPrecedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        if isASCII(a), isASCII(b) { return a.lexicographicallyPrecedes(b) }
        let (left, right) = (String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
        if left != right { return left < right }
        return a.lexicographicallyPrecedes(b)
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var any: UInt8 = 0
        for byte in bytes { any |= byte }
        return any < 0x80
    }

    private mutating func prepare(count: Int) {
        if keys.count < count {
            let size = max(count, 2 * keys.count)
            keys = [UInt64](repeating: 0, count: size)
            spare = [UInt64](repeating: 0, count: size)
        }
        if counts.isEmpty { counts = [Int32](repeating: 0, count: 2 * 2_048) }
    }

    /// Puts the indices `0..<count` into `order` (grown if needed; only its first `count`
    /// entries are written) sorted by `precedes`, which must order by `distance` first.
    ///
    /// - Parameters:
    ///   - count: How many hits.
    ///   - radius: The query's radius: every `distance(i)` is in 0...radius.
    ///   - distance: The distance of hit `i`, metres.
    ///   - precedes: The exact order (distance, then the tie-break).
    package mutating func rank(
        count: Int, radius: Double, distance: (Int) -> Double, into order: inout [Int32], by precedes: (Int32, Int32) -> Bool
    ) {
        if order.count < count { order = [Int32](repeating: 0, count: max(count, 2 * order.count)) }
        guard count > 64 else {
            order.withUnsafeMutableBufferPointer { order in
                for index in 0..<count { order[index] = Int32(index) }
                var all = UnsafeMutableBufferPointer(rebasing: order[..<count])
                all.sort(by: precedes)
            }
            return
        }
        prepare(count: count)
        let top = Double(1 << 22 - 1)
        let scale = top / radius
        order.withUnsafeMutableBufferPointer { order in
            keys.withUnsafeMutableBufferPointer { keys in
                spare.withUnsafeMutableBufferPointer { sorted in
                    counts.withUnsafeMutableBufferPointer { counts in
                        counts.update(repeating: 0)
                        for index in 0..<count {
                            let fraction = UInt64(min(distance(index) * scale, top))
                            keys[index] = fraction << 32 | UInt64(index)
                            counts[Int(fraction & 0x7FF)] += 1
                            counts[2_048 + Int(fraction >> 11)] += 1
                        }
                        for digit in 0..<2 {
                            var total: Int32 = 0
                            for bucket in (digit * 2_048)..<(digit * 2_048 + 2_048) {
                                let size = counts[bucket]
                                counts[bucket] = total
                                total += size
                            }
                        }
                        for key in keys[..<count] {
                            let bucket = Int(key >> 32 & 0x7FF)
                            sorted[Int(counts[bucket])] = key
                            counts[bucket] += 1
                        }
                        for key in sorted[..<count] {
                            let bucket = 2_048 + Int(key >> 43)
                            keys[Int(counts[bucket])] = key
                            counts[bucket] += 1
                        }
                        for position in 0..<count { order[position] = Int32(truncatingIfNeeded: keys[position]) }
                        // Runs of equal fractions: exact order.
                        var runStart = 0
                        while runStart < count {
                            var runEnd = runStart + 1
                            while runEnd < count && keys[runEnd] >> 32 == keys[runStart] >> 32 { runEnd += 1 }
                            if runEnd - runStart > 1 {
                                var run = UnsafeMutableBufferPointer(rebasing: order[runStart..<runEnd])
                                run.sort(by: precedes)
                            }
                            runStart = runEnd
                        }
                    }
                }
            }
        }
    }
}
