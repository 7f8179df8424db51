import LocationCore
import Testing
import LocSimTestHelpers

@Suite(.ownThread) struct PartitionTests {
    @Test("partitioningIndex is the first index that belongs, as a linear scan finds it, for every split of sorted arrays of 0 to 40 elements")
    func matchesLinearScan() {
        var random = SplitMix64(seed: 5)
        for count in 0...40 {
            let values = (0..<count).map { _ in Int(random.next() % 20) }.sorted()
            for bound in -1...21 {
                let expected = values.firstIndex { $0 > bound } ?? values.endIndex
                #expect(values.partitioningIndex { $0 > bound } == expected, "\(values) > \(bound)")
                // A slice keeps its own indices.
                let slice = values.dropFirst(count / 3)
                #expect(slice.partitioningIndex { $0 > bound } == (slice.firstIndex { $0 > bound } ?? slice.endIndex))
            }
        }
    }
}
