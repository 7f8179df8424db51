/// Counts of non-negative integers (latencies in microseconds, intervals in milliseconds) in
/// logarithmic buckets with 128 sub-buckets per power of two: any value is reported within
/// 1/128 (0.8 %) of itself, in at most 64 × 128 counters (64 KiB), whatever the number of values.
///
/// This is the idea of HdrHistogram at two significant digits, in 80 lines: the swarm needs
/// percentiles of a few million latencies and per-second windows for the progress line, not
/// HdrHistogram's configurable precision, iteration API or serialization, so a package (and its
/// cold-build cost) is not worth it. Values below 128 are kept exactly.
///
/// ```swift
/// var histogram = LogHistogram()
/// histogram.record(1_234)
/// histogram.percentile(0.99)   // 1_234 … 1_243
/// ```
package struct LogHistogram: Sendable, Hashable {
    /// Sub-buckets per power of two (a power of two itself).
    static let subBuckets = 128
    static let subBucketBits = 7

    private var counts: [UInt64]
    /// Values recorded.
    package private(set) var count: UInt64 = 0
    /// Their sum (for the mean), saturating.
    package private(set) var sum: UInt64 = 0
    /// The smallest and largest values recorded (exact); 0 when empty.
    package private(set) var minimum: UInt64 = 0
    package private(set) var maximum: UInt64 = 0

    /// An empty histogram.
    package init() {
        counts = [UInt64](repeating: 0, count: (64 - Self.subBucketBits + 1) * Self.subBuckets)
    }

    /// The bucket of `value`: exact below 128; above, the power of two and the top 7 bits below it.
    @inline(__always)
    static func index(of value: UInt64) -> Int {
        guard value >= UInt64(subBuckets) else { return Int(value) }
        let magnitude = 63 - value.leadingZeroBitCount  // ≥ 7
        let shift = magnitude - subBucketBits
        let sub = Int((value >> UInt64(shift)) & UInt64(subBuckets - 1))
        return (shift + 1) * subBuckets + sub
    }

    /// The largest value that falls in bucket `index` (reported for the bucket, so a percentile
    /// is never below the true value).
    static func highest(in index: Int) -> UInt64 {
        guard index >= subBuckets else { return UInt64(index) }
        let shift = index / subBuckets - 1
        let sub = UInt64(index % subBuckets)
        let low = (UInt64(subBuckets) | sub) << UInt64(shift)
        return low + ((1 << UInt64(shift)) - 1)
    }

    /// Counts one value.
    @inline(__always)
    package mutating func record(_ value: UInt64) {
        counts[Self.index(of: value)] &+= 1
        if count == 0 || value < minimum { minimum = value }
        if value > maximum { maximum = value }
        count &+= 1
        let (total, overflow) = sum.addingReportingOverflow(value)
        sum = overflow ? .max : total
    }

    /// Adds every value of `other`.
    package mutating func add(_ other: LogHistogram) {
        guard other.count > 0 else { return }
        for index in counts.indices where other.counts[index] != 0 { counts[index] &+= other.counts[index] }
        minimum = count == 0 ? other.minimum : min(minimum, other.minimum)
        maximum = max(maximum, other.maximum)
        count &+= other.count
        let (total, overflow) = sum.addingReportingOverflow(other.sum)
        sum = overflow ? .max : total
    }

    /// The value at `fraction` (0…1) by nearest rank: the top of the bucket holding the
    /// ⌈fraction × count⌉-th smallest value, capped at the maximum; 0 when empty.
    package func percentile(_ fraction: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let target = max(1, UInt64((min(1, max(0, fraction)) * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucket) in counts.enumerated() where bucket != 0 {
            seen += bucket
            if seen >= target { return min(maximum, max(minimum, Self.highest(in: index))) }
        }
        return maximum
    }

    /// The mean, 0 when empty.
    package var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

    /// (bucket's highest value, count) for every non-empty bucket, ascending.
    package var buckets: [(value: UInt64, count: UInt64)] {
        counts.indices.compactMap { counts[$0] == 0 ? nil : (Self.highest(in: $0), counts[$0]) }
    }
}
