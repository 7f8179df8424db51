import GPXFormat

extension ReplayPath {
    /// The path without the points that have no `<time>`, when other points have one, and
    /// where the removed points were.
    ///
    /// A replay in time cannot place an untimed point among timed ones (``GPXReplay`` refuses
    /// such a path with ``SimulationError/Code/missingTimestamp``). A lenient GPX read makes such
    /// points: it drops a `<time>` it cannot parse and keeps the point. This removes them, so
    /// the rest plays; `locsim replay --lenient` reports each one. A path where no point or
    /// every point has a time is returned unchanged.
    ///
    /// ```swift
    /// let reader = try GPXReader(contentsOfFile: "walk.gpx", options: .lenient)
    /// let (path, removed) = try ReplayPath(document: GPXDocument(reader: reader)).removingUntimedPoints()
    /// ```
    package func removingUntimedPoints() -> (path: ReplayPath, removed: [ReplayPointPosition]) {
        var timed = 0
        var total = 0
        for segment in segments {
            total += segment.count
            for point in segment where point.time != nil { timed += 1 }
        }
        guard timed > 0, timed < total else { return (self, []) }
        var removed: [ReplayPointPosition] = []
        var kept: [[GPXPoint]] = []
        kept.reserveCapacity(segments.count)
        for (s, segment) in segments.enumerated() {
            var points: [GPXPoint] = []
            points.reserveCapacity(segment.count)
            for (i, point) in segment.enumerated() {
                if point.time == nil {
                    removed.append(ReplayPointPosition(kind: kind, segment: s, index: i))
                } else {
                    points.append(point)
                }
            }
            kept.append(points)
        }
        return (ReplayPath(kind: kind, segments: kept), removed)
    }
}
