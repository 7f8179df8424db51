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
/// does not decode: GSV, GLL, TXT, proprietary ones), with gpsd's accuracy model, so HDOP
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
    /// Everything the reader saw and skipped.
    package let statistics: NMEAReader.Statistics

    /// The points as a track for ``GPXReplay``.
    package var replayPath: ReplayPath { ReplayPath(kind: .track, segments: segments) }

    /// Reads the whole log.
    ///
    /// - Throws: ``NMEAFormat/NMEAError`` when the file cannot be opened or read (it names the file).
    package init(path: String) throws(NMEAError) {
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

extension GPXReplay {
    /// The replay of the walk in `path` (``RouteFileFormat``): a GPX file read strictly, an NMEA
    /// log with its accuracy coming back from HDOP (``NMEALog``), or a GeoJSON route.
    ///
    /// - Throws: The reader's error, naming the file (and line, column or member); a
    ///   ``SimulationError`` for an extension no reader takes or a configuration out of range.
    package init(
        routeFile path: String, configuration: Configuration, clock: C, now: @escaping @Sendable () -> Date
    ) throws {
        var configuration = configuration
        let route: ReplayPath
        switch RouteFileFormat(path: path) {
        case .gpx?: route = try ReplayPath(document: GPXDocument(reader: GPXReader(contentsOfFile: path)))
        case .nmea?:
            route = try NMEALog(path: path).replayPath
            configuration.horizontalAccuracyPerHDOP = NMEALog.horizontalAccuracyPerHDOP
        case .geojson?: route = try ReplayPath(geoJSONFile: path)
        case .kml?: route = try ReplayPath(kmlFile: path)
        case nil:
            throw SimulationError(
                .invalidParameter, parameter: "path",
                message: "'\(path)' has \(RouteFileFormat.describeExtension(path)); a walk is read from \(RouteFileFormat.known)")
        }
        try self.init(path: route, configuration: configuration, control: nil, clock: clock, now: now)
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
