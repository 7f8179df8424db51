import ArgumentParser
import Foundation
import LocationCore
import LocationSimulation

/// The documented range of every numeric option, in one place: each is checked when the
/// arguments are parsed (in `validate()`), so a value outside it stops the command with exit
/// status 2 and a message naming the flag, before anything runs. The ranges are those the
/// libraries accept, narrowed where a larger value means nothing on Earth.
enum OptionRange {
    /// Radii and distances on the ground: 1 m up to half the Earth's circumference
    /// (20,015,114 m), beyond which every point of the planet is already inside.
    static let radius = 1.0...Sphere.halfCircumference
    /// `--throttle-distance`: 0 (fetch on any movement) up to half the circumference.
    static let throttleDistance = 0.0...Sphere.halfCircumference
    /// `--throttle-interval` in seconds: 0 up to 10⁹ s (about 31 years).
    static let throttleInterval = 0.0...1_000_000_000
    /// `--reach` (encounter distance): 1 cm up to half the circumference.
    static let reach = 0.01...Sphere.halfCircumference
    /// `--noise` sigma in metres (``LocationSimulation/NoiseModel``'s own limit).
    static let noise = 0.0...1_000_000
    /// `--rate` in Hz (``LocationSimulation/GPXReplay``'s and ``LocationSimulation/SyntheticMotion``'s limit).
    static let rate = 0.001...100.0
    /// `simulate --duration` in seconds: up to 366 days of motion (``LocationSimulation/Scenario/longestDuration``).
    static let duration = 0.0...Scenario.longestDuration.fractionalSeconds
    /// `--mps` and `nmea serve --mps`, in metres per second (``LocationSimulation/SpeedProfile``'s limit).
    static let metresPerSecond = 0.001...1000.0
    /// `--circle-radius` in metres (``LocationSimulation/MotionPath``'s limit).
    static let circleRadius = 0.001...10_000_000.0
    /// `--within` in metres (``LocationSimulation/MotionPath``'s limit for a random walk's boundary).
    static let within = 0.001...20_000_000.0
    /// `--altitude` in metres above mean sea level (``LocationSimulation/SyntheticMotion``'s limit).
    static let altitude = -12_000.0...100_000
    /// `--bearing` in degrees.
    static let bearing = -360.0...360
    /// `nmea serve --interval` in seconds.
    static let interval = 0.01...1000.0
    /// `nmea serve --count`.
    static let count = 1...100_000_000
    /// TCP ports.
    static let port = 1...65_535
}

/// Checks that `value` is a finite number within `range`.
///
/// - Throws: `ValidationError` naming `flag`, the range with its unit, and the value given.
func checkOption(_ value: Double, in range: ClosedRange<Double>, flag: String, unit: String) throws(ValidationError) {
    guard value.isFinite, range.contains(value) else {
        throw ValidationError(
            "\(flag) must be between \(formatRangeBound(range.lowerBound)) and \(formatRangeBound(range.upperBound))"
                + "\(unit.isEmpty ? "" : " " + unit), got \(formatGiven(value))")
    }
}

/// Checks that the integer `value` is within `range`.
///
/// - Throws: `ValidationError` naming `flag`, the range and the value given.
func checkOption(_ value: Int, in range: ClosedRange<Int>, flag: String) throws(ValidationError) {
    guard range.contains(value) else {
        throw ValidationError("\(flag) must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
    }
}

/// Refuses a `--speed` outside ``LocationSimulation/Pacing/speedFactorRange`` (the library's own
/// limit, checked up front so the message names the option; NaN and infinities are outside too).
func validateSpeed(_ speed: Double) throws(ValidationError) {
    try checkOption(speed, in: Pacing.speedFactorRange, flag: "--speed", unit: "(times real time)")
}

/// Checks, before a command starts its work, that `path` can be written: not a directory, not a
/// file the command reads or writes otherwise (`apartFrom`: each path with what it is, such as
/// `("walk.gpx", "the track to replay")`, which a report of the same name would replace), in a
/// folder that exists and takes a new file (a temporary file is created beside it and removed).
///
/// - Throws: ``CommandFailure`` naming `flag`, the path and the system's reason; status 2 when
///   the path is one of `apartFrom`'s.
func checkOutputPath(_ path: String, flag: String, apartFrom others: [(path: String?, role: String)] = []) throws(CommandFailure) {
    guard !path.isEmpty else {
        throw CommandFailure("\(flag) was given an empty file name", hint: "give a file name, e.g. \(flag) out\(extensionHint(flag))")
    }
    if let other = others.first(where: { $0.path.map { sameFile($0, path) } ?? false }) {
        throw CommandFailure(
            "\(flag) \(path) is \(other.role): writing it would replace it", hint: "give \(flag) another file name", status: 2)
    }
    // Every report is an HTML page: under a data format's name (`--report run.json`) a reader
    // or a later tool would take it for that format.
    if flag.hasSuffix("report"), let found = RouteFileFormat.fileExtension(path), dataExtensions.contains(found) {
        throw CommandFailure(
            "\(flag) \(path): the report is an HTML page, not a .\(found) file",
            hint: "give it a name ending in .html" + (flag == "--report" ? " (the run as JSON lines is --format jsonl)" : ""), status: 2)
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        throw CommandFailure("\(flag) \(path) is a directory", hint: "give a file name, e.g. \(flag) \(path)/out\(extensionHint(flag))")
    }
    do {
        try AtomicFile.checkWritable(path)
    } catch {
        throw CommandFailure(
            "\(flag) \(path): cannot write there: \(error.reason)",
            hint: "check that the folder exists and is writable, or choose another path")
    }
}

/// Whether `a` and `b` name one regular file: the same device and inode when both exist (a hard
/// or symbolic link, `./walk.gpx` and `walk.gpx`), else the same file to be written
/// (``LocationCore/AtomicFile/canonicalPath(_:)``, the path an output is written to). Two
/// outputs to `/dev/null` are not one file: nothing is replaced there.
func sameFile(_ a: String, _ b: String) -> Bool {
    var first = stat(), second = stat()
    if stat(a, &first) == 0, stat(b, &second) == 0 {
        return first.st_mode & S_IFMT == S_IFREG && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
    return AtomicFile.canonicalPath(a) == AtomicFile.canonicalPath(b)
}

/// Extensions of the data formats locsim reads or writes, which an HTML report must not take:
/// every extension a route file can have (`RouteFileFormat`) among them, so a report never
/// replaces a scenario's route either, whether or not the run reads it.
private let dataExtensions: Set<String> = ["json", "jsonl", "ndjson", "geojson", "gpx", "kml", "nmea", "log", "csv", "tsv", "sqlite", "db"]

private func extensionHint(_ flag: String) -> String {
    flag.hasSuffix("report") ? ".html" : flag == "--db" ? ".sqlite" : ".gpx"
}

/// `text` as a plain decimal number, the syntax place files are read with (``LocationCore/DecimalNumber``):
/// no `nan`, `inf` or hexadecimal, unlike `Double(String)`. Nil when it is not one.
func decimalValue(_ text: some StringProtocol) -> Double? {
    var copy = String(text)
    return copy.withUTF8 { DecimalNumber(parsing: $0)?.value }
}

/// A range bound for people: `20015114` rather than `20015114.50…`, `0.001` as it is.
func formatRangeBound(_ value: Double) -> String {
    if value == value.rounded(.down), abs(value) < 1e15 { return String(Int64(value)) }
    if abs(value) >= 1000, abs(value) < 1e15 { return String(Int64(value.rounded(.down))) }
    return String(value)
}

/// A value as the user could have typed it: `1e+19`, `nan`, `5000`.
private func formatGiven(_ value: Double) -> String {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// The environment variable every command reads a bearer token from when neither `--token` nor
/// `--token-file` is given: unlike a flag, it does not show in `ps`.
let tokenEnvironmentVariable = "LOCSIM_TOKEN"

/// The bearer token of `--token`, else of `--token-file` (the file's text, surrounding white space
/// trimmed), else of `$LOCSIM_TOKEN` (unset: none; set but empty: refused); nil when there is none. Errors name
/// where the token came from and never show it.
func bearerToken(
    flag: String?, file: String?, environment: [String: String] = ProcessInfo.processInfo.environment
) throws -> String? {
    let token: String
    let source: String
    switch (flag, file) {
    case (.some, .some):
        throw ValidationError("give --token or --token-file, not both")
    case (.some(let value), nil):
        (token, source) = (value, "--token")
    case (nil, .some(let path)):
        let data: [UInt8]
        do {
            data = try SystemIO.readFile(path)
        } catch {
            // Status 1, as every input that cannot be read (a usage error is 2).
            throw CommandFailure("--token-file \(path): cannot read it (\(FileErrorText.reason(for: error)))", hint: ErrorReport.unreadableHint)
        }
        guard data.withUnsafeBytes(\.isValidUTF8) else { throw ValidationError("--token-file \(path): not UTF-8 text") }
        let text = String(decoding: data, as: UTF8.self)
        (token, source) = (text.trimmingCharacters(in: .whitespacesAndNewlines), "--token-file \(path)")
    case (nil, nil):
        // Set but empty is refused like an empty file: it was meant to hold a token.
        guard let value = environment[tokenEnvironmentVariable] else { return nil }
        (token, source) = (value, "$" + tokenEnvironmentVariable)
    }
    if let problem = BearerToken.problem(with: token) { throw ValidationError("\(source): \(problem)") }
    return token
}

/// ``bearerToken(flag:file:environment:)`` as a command's `validate()` checks it: a bad token is a
/// usage error there, but a token file that cannot be read is left to `run()`, which reports it
/// as every unreadable input (status 1; ArgumentParser would report any error of `validate()` as
/// a usage error). Whether a token is given.
func validateBearerToken(flag: String?, file: String?) throws -> Bool {
    do {
        return try bearerToken(flag: flag, file: file) != nil
    } catch is CommandFailure {
        return true
    }
}
