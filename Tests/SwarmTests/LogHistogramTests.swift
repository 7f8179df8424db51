import Foundation
import LocationCore
import Swarm
import Testing
import LocSimTestHelpers

@Suite("LogHistogram", .ownThread)
struct LogHistogramTests {
    /// Nearest-rank percentile of sorted values: the independent path.
    static func exact(_ sorted: [UInt64], _ fraction: Double) -> UInt64 {
        let rank = max(1, Int((fraction * Double(sorted.count)).rounded(.up)))
        return sorted[rank - 1]
    }

    @Test("percentiles are the exact nearest-rank value or at most 1/128 above it; count, min, max and mean are exact")
    func percentilesWithinBucketError() {
        var random = SplitMix64(seed: 11)
        var histogram = LogHistogram()
        var values: [UInt64] = []
        for _ in 0..<20_000 {
            // Latency-like: log-uniform from 1 µs to about 20 s.
            let value = UInt64(exp(random.uniform(0...16.8)))
            values.append(value)
            histogram.record(value)
        }
        values.sort()
        for fraction in [0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let exact = Self.exact(values, fraction)
            let reported = histogram.percentile(fraction)
            #expect(reported >= exact, "p\(fraction)")
            #expect(Double(reported) <= Double(exact) * (1 + 1.0 / 128) + 1, "p\(fraction): \(reported) vs \(exact)")
        }
        #expect(histogram.count == UInt64(values.count))
        #expect(histogram.minimum == values.first)
        #expect(histogram.maximum == values.last)
        #expect(histogram.sum == values.reduce(0, +))
    }

    @Test("values below 128 are exact, and adding histograms equals recording everything in one")
    func smallValuesAndAdding() {
        var a = LogHistogram(), b = LogHistogram(), all = LogHistogram()
        for value in UInt64(0)..<300 {
            if value % 2 == 0 { a.record(value) } else { b.record(value * 1_000) }
            all.record(value % 2 == 0 ? value : value * 1_000)
        }
        var sum = a
        sum.add(b)
        #expect(sum == all)
        var small = LogHistogram()
        for value in UInt64(0)..<128 { small.record(value) }
        for value in UInt64(1)...128 { #expect(small.percentile(Double(value) / 128) == value - 1) }
        #expect(LogHistogram().percentile(0.5) == 0)
    }
}
