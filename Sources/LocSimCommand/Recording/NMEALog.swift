import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import NMEAFormat

/// What `replay`, `track stats` and `nmea serve` print about an NMEA log
/// (``/LocationSimulation/NMEALog``) and replay it with.
extension NMEALog {
    /// What the lenient read skipped, apart from the sentence types it does not decode (every
    /// real log has them): one warning line and the first problems, or nothing.
    var warnings: [String] {
        var skipped = statistics.skipped
        skipped[.unsupportedSentence] = nil
        let total = skipped.values.reduce(0, +)
        guard total > 0 else { return [] }
        let counts = skipped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let shown = statistics.firstErrors.filter { $0.code != .unsupportedSentence }.prefix(GPXReadReport.shown)
        return ["locsim: warning: skipped \(PeopleText.count(total, "bad sentence")) in \(path) (\(counts)); first problems:"]
            + shown.map { "  \($0)" }
    }

    /// Fixes whose time is earlier than the latest before them (what ``LocationSimulation/ReplayAnalysis``
    /// lists as dropped), as `file: warning: fix N …` lines under ``GPXReadReport/reversalHead(_:_:_:before:dropped:)``.
    ///
    /// - Parameter dropped: `true` for a replay (which drops them), `false` for `track stats`
    ///   (which counts them in file order).
    func reversalWarnings(_ reversals: [ReplayAnomaly], dropped: Bool) -> [String] {
        guard !reversals.isEmpty else { return [] }
        return [GPXReadReport.reversalHead(reversals.count, "fix", "fixes", before: "fix", dropped: dropped)]
            + reversals.prefix(GPXReadReport.shown).map { reversal in
                let fix = segments[..<reversal.position.segment].reduce(reversal.position.index + 1) { $0 + $1.count }
                let back = reversal.latestTime.timeIntervalSince(reversal.time)
                let seconds = back == back.rounded() && back < 1e15 ? String(Int64(back)) : String(back)
                return "  \(path): warning: fix \(fix) at \(UTCTimestamp.format(reversal.time, fractionDigits: 3)) is \(seconds) s "
                    + "before \(UTCTimestamp.format(reversal.latestTime, fractionDigits: 3)), the latest time before it"
            }
    }

    /// A GPX file or an NMEA log replayed with `configuration`, and the lines to print about what
    /// the read skipped and the replay dropped (`replay`, `nmea serve`, `serve --player NAME=walk.gpx`).
    /// An NMEA log's accuracy comes back from its HDOP; `lenient` reads a GPX file leniently and
    /// leaves its untimed points out.
    static func replay(
        _ track: String, what: String, lenient: Bool = false, configuration: GPXReplay<ContinuousClock>.Configuration
    ) throws -> (GPXReplay<ContinuousClock>, [String]) {
        let format = try FixFileFormat.input(track, what: what)
        if format == .geojson || format == .kml {
            return (try GPXReplay(path: try FixFileFormat.routePath(track, format: format), configuration: configuration), [])
        }
        if format == .nmea {
            let log = try NMEALog(path: track)
            var configuration = configuration
            configuration.horizontalAccuracyPerHDOP = horizontalAccuracyPerHDOP
            let replay = try GPXReplay(path: log.replayPath, configuration: configuration)
            return (replay, log.warnings + log.reversalWarnings(replay.analysis.droppedBackwardsPoints, dropped: true))
        }
        let reader = try GPXReader(contentsOfFile: track, options: lenient ? .lenient : .strict)
        var path = try ReplayPath(document: GPXDocument(reader: reader))
        var untimed: [ReplayPointPosition] = []
        if lenient { (path, untimed) = path.removingUntimedPoints() }
        let replay = try GPXReplay(path: path, configuration: configuration)
        return (
            replay,
            GPXReadReport.lenientProblems(reader) + GPXReadReport.untimedRemoved(untimed)
                + GPXReadReport.reversalsDropped(reader, analysis: replay.analysis, kind: path.kind)
        )
    }
}
