package import Foundation
package import GPXFormat
package import NMEAFormat
package import LocationCore

/// The kinds of file a walk is read from, by the file's extension (case does not matter):
/// `.gpx` (GPX), `.nmea` or `.log` (an NMEA 0183 log: locsim's own, `gpspipe -r` output, gpsd's
/// receiver logs), `.geojson` (a GeoJSON route) and `.kml` (KML lines: a `LineString` route or
/// a timed `gx:Track`). The one place that decides it, for the
/// command and for ``Scenario`` routes in the test harness alike.
package enum RouteFileFormat: Sendable, Hashable {
    case gpx, nmea, geojson, kml

    /// The format of `path`, or `nil` for an extension no reader takes. A directory is taken as
    /// GPX, so the GPX reader says what is wrong with it.
    package init?(path: String) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            self = .gpx
            return
        }
        switch Self.fileExtension(path) {
        case "gpx": self = .gpx
        case "nmea", "log": self = .nmea
        case "geojson": self = .geojson
        case "kml": self = .kml
        default: return nil
        }
    }

    /// What the readers take, for messages.
    package static let known =
        ".gpx (GPX), .nmea or .log (NMEA 0183, such as gpspipe -r output), .geojson (a GeoJSON LineString route) and .kml (KML lines)"

    /// The lower-cased extension of the file name, or nil.
    package static func fileExtension(_ path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    /// `an unknown extension '.txt'` or `no extension`.
    package static func describeExtension(_ path: String) -> String {
        fileExtension(path).map { "an unknown extension '.\($0)'" } ?? "no extension"
    }
}

/// An NMEA 0183 log read for a replay: a receiver's log (gpsd's regression logs, `gpspipe -r`
/// output) or locsim's own `.nmea`.
///
/// Read by ``NMEAFormat/NMEAFileReader`` in lenient mode (real logs always hold sentences it
/// does not decode: GLL, TXT, proprietary ones), with gpsd's accuracy model, so HDOP
/// becomes the horizontal accuracy gpsd would report. The fixes with a position become one
/// track; an epoch without a position (the receiver lost its fix) starts a new segment, as in
/// a GPX recording. Each point keeps its accuracy as `<hdop>` (accuracy / 19 m), which a replay
/// configured with ``horizontalAccuracyPerHDOP`` turns back into the accuracy.
package struct NMEALog: Sendable {
    /// Metres per unit of HDOP: gpsd's model, used both ways (writing: ``/NMEAFormat/NMEAWriter/Options/gpsd(satellitesInUse:)``).
    package static let horizontalAccuracyPerHDOP = NMEAAccuracyModel.gpsd.userEquivalentRangeError

    package let path: String
    /// Segments of points with a position, in file order.
    package let segments: [[GPXPoint]]
    /// The receiver's sky beside each point (``/NMEAFormat/NMEAReader`` reads it from GSV and
    /// GSA), as ``segments``; `nil` for a point before the log's first whole GSV group.
    package let receivers: [[ReceiverReport?]]
    /// Everything the reader saw and skipped.
    package let statistics: NMEAReader.Statistics
    /// The line of the sentence that opened each point's epoch (its first RMC or GGA), as ``segments``.
    package let lines: [[Int]]

    /// The points as a track for ``GPXReplay``.
    package var replayPath: ReplayPath { ReplayPath(kind: .track, segments: segments, receivers: receivers) }

    /// Reads the whole log.
    ///
    /// - Throws: ``NMEAFormat/NMEAError`` when the file cannot be opened or read, or holds no
    ///   NMEA sentence at all, or only damaged ones (it names the file).
    package init(path: String) throws(NMEAError) {
        var options = NMEAReader.Options.lenient
        options.accuracyModel = .gpsd
        var file = try NMEAFileReader(path: path, options: options)
        var segments: [[GPXPoint]] = []
        var receivers: [[ReceiverReport?]] = []
        var lines: [[Int]] = []
        var current: [GPXPoint] = []
        var currentReceivers: [ReceiverReport?] = []
        var currentLines: [Int] = []
        while let fix = try file.next() {
            guard fix.hasPosition, let point = GPXPoint(fix: fix, horizontalAccuracyPerHDOP: Self.horizontalAccuracyPerHDOP) else {
                if !current.isEmpty {
                    segments.append(current)
                    receivers.append(currentReceivers)
                    lines.append(currentLines)
                }
                current = []
                currentReceivers = []
                currentLines = []
                continue
            }
            current.append(point)
            currentReceivers.append(fix.receiver)
            currentLines.append(file.lineOfLastFix ?? 0)
        }
        if !current.isEmpty {
            segments.append(current)
            receivers.append(currentReceivers)
            lines.append(currentLines)
        }
        try file.requireSentences()
        try file.requireReadSentence()
        self.path = path
        self.segments = segments
        self.receivers = receivers
        self.lines = lines
        self.statistics = file.statistics
    }
}

extension ReplayPath {
    /// The lines of a KML file (``/GPXFormat/KMLLines``): `gx:Track`s as a timed track, else
    /// `LineString`s as an untimed route (walked at the replay's untimed speed), as GeoJSON's.
    ///
    /// - Throws: ``/GPXFormat/GPXParseError`` naming the file, line and column.
    package init(kmlFile path: String) throws(GPXParseError) {
        let lines = try KMLLines(contentsOfFile: path)
        self.init(kind: lines.isTimed ? .track : .route, segments: lines.segments)
    }
}

extension NMEALog {
    /// The sentences the lenient read skipped as bad, by reason: not those of a type it does not
    /// decode (every real log has them).
    package var badSentences: [NMEAError.Code: Int] { statistics.damaged }

    /// What the lenient read skipped, apart from the sentence types it does not decode (every
    /// real log has them): one warning line and the first problems, or nothing.
    package var warnings: [String] {
        let skipped = badSentences
        let total = skipped.values.reduce(0, +)
        guard total > 0 else { return [] }
        let counts = skipped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let shown = statistics.firstErrors.filter { $0.code != .unsupportedSentence }.prefix(GPXReadReport.shown)
        return ["locsim: warning: skipped \(PeopleText.count(total, "bad sentence")) in \(path) (\(counts))\(GPXReadReport.listEnd(total))"]
            + shown.map { "  \($0)" }
    }

    /// Fixes whose time is earlier than the latest before them (what ``ReplayAnalysis`` lists as
    /// dropped), as `file: warning: fix N …` lines under ``GPXReadReport/reversalHead(_:_:_:before:dropped:)``.
    ///
    /// - Parameter dropped: `true` for a replay (which drops them), `false` for `track stats`
    ///   (which counts them in file order).
    package func reversalWarnings(_ reversals: [ReplayAnomaly], dropped: Bool) -> [String] {
        guard !reversals.isEmpty else { return [] }
        return [GPXReadReport.reversalHead(reversals.count, "fix", "fixes", before: "fix", dropped: dropped)]
            + reversals.prefix(GPXReadReport.shown).map { reversal in
                let fix = segments[..<reversal.position.segment].reduce(reversal.position.index + 1) { $0 + $1.count }
                let back = reversal.latestTime.timeIntervalSince(reversal.time)
                let seconds = back == back.rounded() && back < 1e15 ? String(Int64(back)) : String(back)
                let line = lines[reversal.position.segment][reversal.position.index]
                return "  \(path):\(line): warning: fix \(fix) at \(UTCTimestamp.format(reversal.time, fractionDigits: 3)) is \(seconds) s "
                    + "before \(UTCTimestamp.format(reversal.latestTime, fractionDigits: 3)), the latest time before it"
            }
    }
}

extension GPXReplay {
    /// The replay of the walk in `path` (``RouteFileFormat``), and the lines to tell its reader
    /// about what the read skipped and the replay dropped (``GPXReadReport``; none for the route
    /// formats): the one way every user of a walk file reads it (`replay`, `nmea serve`,
    /// `serve --player NAME=walk.gpx`, ``Scenario`` routes).
    ///
    /// A GPX file is read strictly unless `lenient` (then its untimed points are left out); an
    /// NMEA log's accuracy comes back from its HDOP (``NMEALog``); a GeoJSON or KML route is
    /// walked at `configuration.untimedSpeed` when it has no times.
    ///
    /// - Throws: The reader's error, naming the file (and line, column or member); a
    ///   ``SimulationError`` for an extension no reader takes or a configuration out of range.
    package static func reading(
        routeFile path: String, lenient: Bool = false, configuration: Configuration, clock: C,
        now: @escaping @Sendable () -> Date
    ) throws -> (replay: GPXReplay, warnings: [String]) {
        var configuration = configuration
        func replay(_ route: ReplayPath) throws -> GPXReplay {
            try GPXReplay(path: route, configuration: configuration, control: nil, clock: clock, now: now)
        }
        switch RouteFileFormat(path: path) {
        case .gpx?:
            let reader = try GPXReader(contentsOfFile: path, options: lenient ? .lenient : .strict)
            var route = try ReplayPath(document: GPXDocument(reader: reader))
            var untimed: [ReplayPointPosition] = []
            if lenient { (route, untimed) = route.removingUntimedPoints() }
            let walk: GPXReplay
            do {
                walk = try replay(route)
            } catch let error as SimulationError where error.code == .missingTimestamp {
                // The first untimed point of the path's kind, in file order: the one the replay names.
                guard let at = reader.firstUntimedPoint(route.kind.pointKind) else { throw error }
                throw error.located("\(path):\(at.line):\(at.column)")
            }
            return (
                walk,
                GPXReadReport.lenientProblems(reader) + GPXReadReport.untimedRemoved(untimed, reader: reader, kind: route.kind)
                    + GPXReadReport.reversalsDropped(reader, analysis: walk.analysis, kind: route.kind)
            )
        case .nmea?:
            let log = try NMEALog(path: path)
            configuration.horizontalAccuracyPerHDOP = NMEALog.horizontalAccuracyPerHDOP
            let replay = try replay(log.replayPath)
            return (replay, log.warnings + log.reversalWarnings(replay.analysis.droppedBackwardsPoints, dropped: true))
        case .geojson?: return (try replay(ReplayPath(geoJSONFile: path)), [])
        case .kml?: return (try replay(ReplayPath(kmlFile: path)), [])
        case nil:
            throw SimulationError(
                .invalidParameter, parameter: "path",
                message: "'\(path)' has \(RouteFileFormat.describeExtension(path)); a walk is read from \(RouteFileFormat.known)")
        }
    }

    /// A route without times (a scenario's `route.polyline`) walked at `speed` metres a second
    /// from `start`, the first fix's time, a fix a second between its points unless
    /// `configuration.rate` says otherwise.
    package init(
        untimedRoute points: [Coordinate], speed: Double, start: Date, configuration: Configuration, clock: C
    ) throws(SimulationError) {
        var configuration = configuration
        configuration.untimedSpeed = speed
        configuration.rate = configuration.rate ?? 1
        try self.init(
            path: ReplayPath(kind: .route, segments: [points.map { GPXPoint(coordinate: $0) }]), configuration: configuration,
            control: nil, clock: clock, now: { start })
    }
}
