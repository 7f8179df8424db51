package import GPXFormat
import LocationCore

/// What reading a GPX file skipped, dropped or found out of order, said on standard error by
/// `track stats` and `replay` (the same words for both), first five of each with file:line:column.
package enum GPXReadReport {
    package static let shown = 5

    /// How a warning's first line ends before its list of `total` problems: `:` when the list
    /// is all of them, `; the first 5:` when it is not.
    package static func listEnd(_ total: Int) -> String { total > shown ? "; the first \(shown):" : ":" }

    /// Where a lenient read found the file cut off, then points skipped and values dropped, with
    /// the first problems.
    package static func lenientProblems(_ reader: GPXReader) -> [String] {
        truncation(reader) + skippedAndDropped(reader)
    }

    /// `FILE:LINE:COLUMN: warning:` and what a lenient read did where the input ended early.
    static func truncation(_ reader: GPXReader) -> [String] {
        guard let cut = reader.truncation else { return [] }
        return [
            "\(cut.file ?? "input"):\(cut.line):\(cut.column): warning: \(cut.message): the file ends early (a recording "
                + "cut off?); read up to there, the point cut off left out"
        ]
    }

    private static func skippedAndDropped(_ reader: GPXReader) -> [String] {
        guard reader.skippedPoints > 0 || reader.droppedValues > 0 else { return [] }
        var parts: [String] = []
        if reader.skippedPoints > 0 {
            parts.append("skipped \(PeopleText.count(reader.skippedPoints, "point")) with a bad position")
        }
        if reader.droppedValues > 0 {
            parts.append("dropped \(PeopleText.count(reader.droppedValues, "bad value")) (\(reader.droppedValues == 1 ? "its point is" : "their points are") kept)")
        }
        return ["locsim: warning: " + parts.joined(separator: " and ") + listEnd(reader.skippedPoints + reader.droppedValues)]
            + reader.problems.prefix(shown).map { "  \($0)" }
    }

    /// The line above the first points whose time goes backwards, GPX's or NMEA's: `dropped` by a
    /// replay (which never reorders), or kept in file order (`track stats`).
    package static func reversalHead(_ n: Int, _ singular: String, _ plural: String? = nil, before: String, dropped: Bool) -> String {
        dropped
            ? "locsim: warning: dropped \(PeopleText.count(n, singular, plural)) whose time goes backwards (a replay never reorders)\(listEnd(n))"
            : "locsim: warning: \(PeopleText.count(n, singular, plural)) \(n == 1 ? "has" : "have") a time earlier than a \(before) before "
                + "\(n == 1 ? "it" : "them") (counted in file order; duration is last minus first)\(listEnd(n))"
    }

    /// Track points whose time goes backwards, kept in file order (`track stats`).
    package static func reversalsKept(_ reader: GPXReader, trackPoints: Int) -> [String] {
        guard trackPoints > 0 else { return [] }
        return [reversalHead(trackPoints, "track point", before: "point", dropped: false)] + reader.timeReversals.filter { $0.kind == .trackPoint }.prefix(shown).map { "  \($0)" }
    }

    /// Points a replay dropped because their time goes backwards (`replay`).
    package static func reversalsDropped(_ reader: GPXReader, analysis: ReplayAnalysis, kind: ReplayPath.Kind) -> [String] {
        let dropped = analysis.droppedBackwardsPoints.count
        guard dropped > 0 else { return [] }
        return [reversalHead(dropped, "point", before: "point", dropped: true)] + reader.timeReversals.filter { $0.kind == kind.pointKind }.prefix(shown).map { "  \($0)" }
    }

    /// Points a lenient replay left out because they have no `<time>` (none, or a bad one
    /// dropped), each named by where it starts in the file, as every other problem is.
    package static func untimedRemoved(_ removed: [ReplayPointPosition], reader: GPXReader, kind: ReplayPath.Kind) -> [String] {
        guard !removed.isEmpty else { return [] }
        let located = reader.untimedPoints(kind.pointKind)
        let listed = removed.prefix(shown).enumerated().map { index, position in
            index < located.count ? "\(reader.file ?? "input"):\(located[index].line):\(located[index].column) (\(position))" : "\(position)"
        }
        return ["locsim: warning: left \(PeopleText.count(removed.count, "point")) without a usable <time> out of the replay\(listEnd(removed.count))"]
            + listed.map { "  \($0)" }
    }
}
