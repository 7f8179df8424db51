import ArgumentParser
import Foundation
import LocationSimulation

/// The kinds of file locsim reads walks from and records them to, chosen by the file's
/// extension (case does not matter): `.gpx` is GPX; `.nmea` is NMEA 0183 (what `locsim`
/// writes, and `gpspipe -r` output saved under that name), and on input `.log` too (gpsd's
/// receiver logs) and `.geojson` (a route; read only). Anything else is a usage error that says
/// which extensions work.
enum FixFileFormat: Equatable {
    /// GPX, an NMEA 0183 log, or (to read only) a GeoJSON route.
    case gpx, nmea, geojson

    /// The format of a file to read.
    ///
    /// - Throws: `ValidationError` (exit status 2) naming `what` and the extensions known.
    static func input(_ path: String, what: String) throws(ValidationError) -> FixFileFormat {
        // A directory is no walk whatever its name: the GPX reader says so (exit 1), as before.
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return .gpx }
        switch fileExtension(path) {
        case "gpx": return .gpx
        case "nmea", "log": return .nmea
        case "geojson": return .geojson
        default:
            throw ValidationError(
                "\(what) '\(path)' has \(describe(path)); locsim reads .gpx (GPX), .nmea or .log (NMEA 0183, such as gpspipe -r "
                    + "output) and .geojson (a GeoJSON LineString route)")
        }
    }

    /// The route of a `.geojson` file (``/LocationSimulation/ReplayPath/init(geoJSON:source:)``).
    ///
    /// - Throws: `CommandFailure` naming the file and the member at fault.
    static func geoJSONPath(_ path: String) throws -> ReplayPath {
        do {
            return try ReplayPath(geoJSONFile: path)
        } catch {
            throw CommandFailure(error.description, hint: "a GeoJSON route is a LineString or MultiLineString of [longitude, latitude] positions")
        }
    }

    /// The kinds of file locsim records fixes to.
    enum Output: Equatable {
        case gpx, nmea
    }

    /// The format of a file to write.
    ///
    /// - Throws: `ValidationError` (exit status 2) naming `flag` and the extensions known.
    static func output(_ path: String, flag: String) throws(ValidationError) -> Output {
        switch fileExtension(path) {
        case "gpx": return .gpx
        case "nmea": return .nmea
        default: throw ValidationError("\(flag) must end in .gpx or .nmea, got '\(path)' (\(describe(path)))")
        }
    }

    /// The lower-cased extension of the file name, or nil.
    private static func fileExtension(_ path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    private static func describe(_ path: String) -> String {
        fileExtension(path).map { "an unknown extension '.\($0)'" } ?? "no extension"
    }
}
