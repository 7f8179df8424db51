extension RandomAccessCollection {
    /// The first index whose element satisfies `belongs`, for a collection partitioned by it
    /// (every element that does not belong before every one that does: a sorted timeline asked
    /// "later than t?"). Bisection: O(log n) calls of `belongs`; `endIndex` when none belongs.
    package func partitioningIndex(where belongs: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
