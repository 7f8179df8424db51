import Foundation
import GPXFormat
import LocationCore
import LocationSimulation
import NMEAFormat

/// An NMEA 0183 log read for `replay`, `track stats` and `nmea serve`: a receiver's log (gpsd's
/// regression logs, `gpspipe -r` output) or locsim's own `.nmea`.
///
/// Read by ``NMEAFormat/NMEAFileReader`` in lenient mode (real logs always hold sentences it
/// does not decode: GSV, GLL, TXT, proprietary ones), with gpsd's accuracy model, so HDOP
/// becomes the horizontal accuracy gpsd would report. The fixes with a position become one
/// track; an epoch without a position (the receiver lost its fix) starts a new segment, as in
/// a GPX recording. Each point keeps its accuracy as `<hdop>` (accuracy / 19 m), which a replay
/// configured with ``horizontalAccuracyPerHDOP`` turns back into the accuracy.
struct NMEALog {
    /// Metres per unit of HDOP: gpsd's model, used both ways (writing: ``/NMEAFormat/NMEAWriter/Options/gpsd(satellitesInUse:)``).
    static let horizontalAccuracyPerHDOP = NMEAAccuracyModel.gpsd.userEquivalentRangeError

    let path: String
    /// Segments of points with a position, in file order.
    let segments: [[GPXPoint]]
    /// Everything the reader saw and skipped.
    let statistics: NMEAReader.Statistics

    /// The points as a track for ``LocationSimulation/GPXReplay``.
    var replayPath: ReplayPath { ReplayPath(kind: .track, segments: segments) }

    /// Reads the whole log.
    ///
    /// - Throws: ``NMEAFormat/NMEAError`` when the file cannot be opened or read (it names the file).
    init(path: String) throws(NMEAError) {
        var options = NMEAReader.Options.lenient
        options.accuracyModel = .gpsd
        var file = try NMEAFileReader(path: path, options: options)
        var segments: [[GPXPoint]] = []
        var current: [GPXPoint] = []
        while let fix = try file.next() {
            guard fix.hasPosition, let point = GPXPoint(fix: fix, horizontalAccuracyPerHDOP: Self.horizontalAccuracyPerHDOP) else {
                if !current.isEmpty { segments.append(current) }
                current = []
                continue
            }
            current.append(point)
        }
        if !current.isEmpty { segments.append(current) }
        self.path = path
        self.segments = segments
        self.statistics = file.statistics
    }

    /// What the lenient read skipped, apart from the sentence types it does not decode (every
    /// real log has them): one warning line and the first problems, or nothing.
    var warnings: [String] {
        var skipped = statistics.skipped
        skipped[.unsupportedSentence] = nil
        let total = skipped.values.reduce(0, +)
        guard total > 0 else { return [] }
        let counts = skipped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let shown = statistics.firstErrors.filter { $0.code != .unsupportedSentence }.prefix(GPXReadReport.shown)
        return ["locsim: warning: skipped \(GPXReadReport.count(total, "bad sentence")) in \(path) (\(counts)); first problems:"]
            + shown.map { "  \($0)" }
    }

    /// Points whose time is earlier than the latest before them, in file order, as
    /// `file: warning: fix N …` lines: the first five, after one summary line; empty when none.
    ///
    /// - Parameter dropped: `true` for a replay (which drops them), `false` for `track stats`
    ///   (which counts them in file order).
    func reversalWarnings(dropped: Bool) -> [String] {
        var found: [String] = []
        var count = 0
        var latest: (time: Double, index: Int)?
        var index = 0
        for segment in segments {
            for point in segment {
                index += 1
                guard let time = point.time?.timeIntervalSince1970 else { continue }
                if let latest, time < latest.time {
                    count += 1
                    if found.count < GPXReadReport.shown {
                        let back = latest.time - time
                        let seconds = back == back.rounded() && back < 1e15 ? String(Int64(back)) : String(back)
                        found.append(
                            "  \(path): warning: fix \(index) at \(UTCTimestamp.format(point.time!, fractionDigits: 3)) is "
                                + "\(seconds) s before fix \(latest.index), the latest time before it")
                    }
                } else {
                    latest = (time, index)
                }
            }
        }
        guard count > 0 else { return [] }
        let head =
            dropped
            ? "locsim: warning: dropped \(GPXReadReport.count(count, "fix", "fixes")) whose time goes backwards (a replay never reorders); first:"
            : "locsim: warning: \(GPXReadReport.count(count, "fix", "fixes")) \(count == 1 ? "has" : "have") a time earlier than a fix "
                + "before \(count == 1 ? "it" : "them") (counted in file order; duration is last minus first); first:"
        return [head] + found
    }
}
