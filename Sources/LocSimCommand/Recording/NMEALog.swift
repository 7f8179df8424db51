import Foundation
import LocationCore
import LocationSimulation

/// How the command replays a walk file (``/LocationSimulation/GPXReplay/reading(routeFile:lenient:configuration:clock:now:)``).
extension NMEALog {
    /// A GPX file, an NMEA log or a route replayed with `configuration`, and the lines to print
    /// about what the read skipped and the replay dropped (`replay`, `nmea serve`,
    /// `serve --player NAME=walk.gpx`).
    ///
    /// - Throws: `ValidationError` naming `what` for an extension no reader takes; the reader's
    ///   error otherwise (a GeoJSON one with the shape such a route has).
    ///
    /// A file without times is walked from `untimedStart`, or from the wall clock's now when it
    /// is nil (a real-time replay); `replay --fast` gives a fixed instant, so its log is the same
    /// on every run.
    static func replay(
        _ track: String, what: String, lenient: Bool = false, configuration: GPXReplay<ContinuousClock>.Configuration,
        untimedStart: Date? = nil
    ) throws -> (GPXReplay<ContinuousClock>, [String]) {
        _ = try FixFileFormat.input(track, what: what)
        do {
            return try FixFileFormat.explainingGeoJSON {
                try GPXReplay.reading(
                    routeFile: track, lenient: lenient, configuration: configuration, clock: ContinuousClock(),
                    now: { untimedStart ?? Date() })
            }
        } catch let error as SimulationError where error.code == .missingTimestamp {
            // The library's remedies are its own settings: say the command's, and which file.
            throw CommandFailure(
                "\(error.location ?? track): \(error.message) (\(error.parameter))",
                hint: "give every point a <time>, or none (then it is walked at constant speed); replay --lenient leaves the points without one out, each listed")
        } catch let error as SimulationError where error.code == .emptyPath {
            throw CommandFailure(
                "\(track): \(error.message)", hint: "a walk needs at least one point with a position; 'locsim track stats \(track)' shows what the file holds")
        }
    }
}
