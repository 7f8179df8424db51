import ArgumentParser
import Foundation
import LocationSimulation

/// The kinds of file locsim reads walks from and records them to, chosen by the file's
/// extension (case does not matter): `.gpx` is GPX; `.nmea` is NMEA 0183 (what `locsim`
/// writes, and `gpspipe -r` output saved under that name), and on input `.log` too (gpsd's
/// receiver logs), `.geojson` and `.kml` (routes; read only). Anything else is a usage error that says
/// which extensions work.
enum FixFileFormat {
    /// The format of a file to read (``/LocationSimulation/RouteFileFormat``).
    ///
    /// - Throws: `ValidationError` (exit status 2) naming `what` and the extensions known.
    static func input(_ path: String, what: String) throws(ValidationError) -> RouteFileFormat {
        guard let format = RouteFileFormat(path: path) else {
            throw ValidationError("\(what) '\(path)' has \(RouteFileFormat.describeExtension(path)); locsim reads \(RouteFileFormat.known)")
        }
        return format
    }

    /// The route of a `.geojson` or `.kml` file (``/LocationSimulation/ReplayPath/init(geoJSONFile:)``,
    /// ``/LocationSimulation/ReplayPath/init(kmlFile:)``): the read-only route formats, which
    /// carry no warnings of their own.
    ///
    /// - Throws: `CommandFailure` naming the file and the member at fault (GeoJSON), or the KML
    ///   reader's error with its line and column.
    static func routePath(_ path: String, format: RouteFileFormat) throws -> ReplayPath {
        if format == .kml { return try ReplayPath(kmlFile: path) }
        return try explainingGeoJSON { try ReplayPath(geoJSONFile: path) }
    }

    /// `body`, a GeoJSON route's error (``/LocationSimulation/JSONFileError``) told with the
    /// shape such a route has, or as a file that cannot be read when it is one.
    static func explainingGeoJSON<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw explainedGeoJSON(error)
        }
    }

    /// `error`, a GeoJSON route's error told as ``explainingGeoJSON(_:)`` tells it; any other
    /// error as it is.
    private static func explainedGeoJSON(_ error: any Error) -> any Error {
        guard let error = error as? JSONFileError else { return error }
        if error.keyPath == nil, !FileManager.default.isReadableFile(atPath: error.source) {
            return CommandFailure(error.description, hint: ErrorReport.unreadableHint)
        }
        return CommandFailure(error.description, hint: "a GeoJSON route is a LineString or MultiLineString of [longitude, latitude] positions")
    }

    /// The route of a scenario file ready to play (``/LocationSimulation/Scenario/Route/playable(scenario:configuration:lenient:now:)``),
    /// an error of its route file told as the scenario's (``/LocationSimulation/Scenario/RouteFileError``):
    /// where it names the file (`walk.json: route.file: …`), the file's own error and status
    /// after it; for a file that cannot be read, that a relative path is the scenario's
    /// folder's; for a value the file cannot have (its extension), the scenario's hint.
    static func playable(
        _ route: Scenario.Route, of scenario: String, configuration: GPXReplay<ContinuousClock>.Configuration, lenient: Bool = false,
        now: @escaping @Sendable () -> Date
    ) throws -> Scenario.Route.Playable {
        do {
            return try route.playable(scenario: scenario, configuration: configuration, lenient: lenient, now: now)
        } catch let error as Scenario.RouteFileError {
            let inner = ErrorReport.make(for: explainedGeoJSON(error.underlying), arguments: [])
            let hint =
                if error.isUnreadable {
                    "\(Scenario.RouteFileError.relativePathNote); \(ErrorReport.unreadableHint)"
                } else if inner.status == 2 {
                    "the scenario file's keys are in docs/guides/scenarios.md"
                } else {
                    inner.hint
                }
            throw CommandFailure("\(error.scenario): route.file: \(inner.message)", hint: hint, status: inner.status)
        }
    }

    /// The kinds of file locsim records fixes to.
    enum Output: Equatable {
        case gpx, nmea
    }

    /// The format `path` names, checked before the run (status 2), or nil when `path` is an
    /// existing folder: the run's output check (``checkOutputPath(_:flag:apartFrom:)``) says so
    /// then, status 1, as for every output path.
    @discardableResult
    static func checkOutputName(_ path: String, flag: String) throws(ValidationError) -> Output? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return nil }
        return try output(path, flag: flag)
    }

    /// The format of a file to write.
    ///
    /// - Throws: `ValidationError` (exit status 2) naming `flag` and the extensions known.
    static func output(_ path: String, flag: String) throws(ValidationError) -> Output {
        switch RouteFileFormat.fileExtension(path) {
        case "gpx": return .gpx
        case "nmea": return .nmea
        default: throw ValidationError("\(flag) must end in .gpx or .nmea, got '\(path)' (\(RouteFileFormat.describeExtension(path)))")
        }
    }

}
