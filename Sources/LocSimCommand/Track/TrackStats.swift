import ArgumentParser
import GPXFormat
import LocationCore
import LocationSimulation

struct TrackStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print counts, geodesic length, duration and bounds of a walk: GPX, NMEA, GeoJSON or KML.",
        discussion: """
            distance_m is the WGS-84 geodesic length summed between consecutive track points of \
            each segment, never across a segment break. duration_s is the last track-point time \
            minus the first (null without times, or when the last time is before the first). bbox covers track points, route points and \
            waypoints. The file is streamed, so any size works (one text or tag is limited to \
            16 MiB). UTF-8, UTF-16, ISO-8859-1 and windows-1252 files are read. Track points \
            whose time goes backwards are counted in file order and listed on standard error.

            An NMEA 0183 log (.nmea or .log: gpspipe -r output, a receiver's log, a locsim \
            recording) is read as one track of its fixes with a position; an epoch without a \
            position (the fix was lost) starts a new segment. Sentences that are not RMC, GGA, \
            VTG or GSA are skipped; damaged ones are skipped and reported. A file with no NMEA \
            sentence at all (empty, or a GPX file named .nmea), or only damaged ones, is an \
            error; one without a fix is no track.
            """
    )

    @Argument(help: "The GPX file (1.0 or 1.1), an NMEA log (.nmea, .log), a GeoJSON route (.geojson) or KML lines (.kml).")
    var file: String

    @Option(help: "Output format: text or json.")
    var format: ReportFormat = .text

    @Flag(help: "Skip points with bad coordinates and drop bad values (a bad <ele>, <time>, <fix>…; the point is kept) and read a file cut off mid-write up to the cut, instead of failing; report them.")
    var lenient = false

    func validate() throws {
        _ = try FixFileFormat.input(file, what: "the file")
    }

    func run() async throws {
        let stats: GPXStatistics
        let warnings: [String]
        var skippedSentences = 0
        let kind = try FixFileFormat.input(file, what: "the file")
        if kind == .geojson || kind == .kml {
            stats = GPXStatistics(trackSegments: try FixFileFormat.routePath(file, format: kind).segments)
            warnings = []
        } else if kind == .nmea {
            let log = try NMEALog(path: file)
            stats = GPXStatistics(trackSegments: log.segments)
            // The fixes a replay would drop are the ones counted out of order here.
            let reversals =
                stats.timeReversals > 0
                ? try GPXReplay(path: log.replayPath, configuration: .init(pacing: .virtual)).analysis.droppedBackwardsPoints : []
            warnings = log.warnings + log.reversalWarnings(reversals, dropped: false)
            skippedSentences = log.badSentences.values.reduce(0, +)
        } else {
            let reader = try GPXReader(contentsOfFile: file, options: lenient ? .lenient : .strict)
            stats = try GPXStatistics(reader: reader)
            warnings = GPXReadReport.lenientProblems(reader) + GPXReadReport.reversalsKept(reader, trackPoints: stats.timeReversals)
        }
        Terminal.out(format == .json ? TrackStatsRecord(statistics: stats, skippedSentences: skippedSentences).line : Self.text(stats, file: file))
        for line in warnings { Terminal.err(line) }
    }

    static func text(_ stats: GPXStatistics, file: String) -> String {
        func place(_ point: GPXPoint?) -> String {
            guard let point else { return "-" }
            let time = point.time.map { " at " + UTCTimestamp.format($0, fractionDigits: 3) } ?? ""
            return point.coordinate.description + time
        }
        var lines = [
            "File:          \(file)",
            "Tracks:        \(stats.tracks)",
            "Segments:      \(stats.segments)",
            "Points:        \(stats.points)",
            "Route points:  \(stats.routePoints)",
            "Waypoints:     \(stats.waypoints)",
            "Distance:      \(DecimalText.fixed(stats.distance / 1000, decimals: 3)) km (\(DecimalText.fixed(stats.distance, decimals: 3)) m, WGS-84 geodesic)",
        ]
        if let duration = stats.duration {
            lines.append("Duration:      \(DurationText.clockText(duration)) (\(DecimalText.fixed(duration, decimals: 3)) s)")
        } else if stats.timeReversals > 0 {
            lines.append("Duration:      - (the last time is before the first: the clock went back; see the warnings)")
        } else {
            lines.append("Duration:      - (no times)")
        }
        lines.append("Start:         \(place(stats.start))")
        lines.append("End:           \(place(stats.end))")
        if let box = stats.bounds {
            lines.append(
                "Bounds:        lat \(DecimalText.fixed(box.minLatitude, decimals: 7))...\(DecimalText.fixed(box.maxLatitude, decimals: 7)), lon \(DecimalText.fixed(box.minLongitude, decimals: 7))...\(DecimalText.fixed(box.maxLongitude, decimals: 7))"
            )
        } else {
            lines.append("Bounds:        -")
        }
        return lines.joined(separator: "\n")
    }
}
