import GPXFormat
import LocationSimulation

/// What reading a GPX file skipped, dropped or found out of order, said on standard error by
/// `track stats` and `replay` (the same words for both), first five of each with file:line:column.
enum GPXReadReport {
    static let shown = 5

    /// `1 point`, `2 points`.
    static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// Points skipped and values dropped by a lenient read, with the first problems.
    static func lenientProblems(_ reader: GPXReader) -> [String] {
        guard reader.skippedPoints > 0 || reader.droppedValues > 0 else { return [] }
        var parts: [String] = []
        if reader.skippedPoints > 0 {
            parts.append("skipped \(count(reader.skippedPoints, "point")) with a bad position")
        }
        if reader.droppedValues > 0 {
            parts.append("dropped \(count(reader.droppedValues, "bad value")) (\(reader.droppedValues == 1 ? "its point is" : "their points are") kept)")
        }
        return ["locsim: warning: " + parts.joined(separator: " and ") + "; first problems:"]
            + reader.problems.prefix(shown).map { "  \($0)" }
    }

    /// Track points whose time goes backwards, kept in file order (`track stats`).
    static func reversalsKept(_ reader: GPXReader, trackPoints: Int) -> [String] {
        guard trackPoints > 0 else { return [] }
        return [
            "locsim: warning: \(count(trackPoints, "track point")) \(trackPoints == 1 ? "has" : "have") a time earlier than "
                + "a point before \(trackPoints == 1 ? "it" : "them") (counted in file order; duration is last minus first); first:"
        ] + reader.timeReversals.filter { $0.kind == .trackPoint }.prefix(shown).map { "  \($0)" }
    }

    /// Points a replay dropped because their time goes backwards (`replay`).
    static func reversalsDropped(_ reader: GPXReader, analysis: ReplayAnalysis, kind: ReplayPath.Kind) -> [String] {
        let dropped = analysis.droppedBackwardsPoints.count
        guard dropped > 0 else { return [] }
        let pointKind: GPXPointKind =
            switch kind {
            case .track: .trackPoint
            case .route: .routePoint
            case .waypoints: .waypoint
            }
        return [
            "locsim: warning: dropped \(count(dropped, "point")) whose time goes backwards (a replay never reorders); first:"
        ] + reader.timeReversals.filter { $0.kind == pointKind }.prefix(shown).map { "  \($0)" }
    }

    /// Points a lenient replay left out because their `<time>` was dropped.
    static func untimedRemoved(_ removed: [ReplayPointPosition]) -> [String] {
        guard !removed.isEmpty else { return [] }
        let listed = removed.prefix(shown).map(\.description).joined(separator: "; ")
        return [
            "locsim: warning: left \(count(removed.count, "point")) without a usable <time> out of the replay: "
                + listed + (removed.count > shown ? "; …" : "")
        ]
    }
}
