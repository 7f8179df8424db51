import ArgumentParser
import Foundation
import GPXFormat
import LocationCore
import LocationGPSD
import LocationIndex
import LocationSimulation
import NMEAFormat

/// A failure with what went wrong and what to do about it: at run time (exit status 1), or a bad
/// value in a configuration file (a scenario) that is a usage error like a bad option (status 2).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    var hint: String?
    var status: Int32
    init(_ description: String, hint: String? = nil, status: Int32 = 1) {
        self.description = description
        self.hint = hint
        self.status = status
    }
}

/// How every failure of the command is shown: exactly two lines on standard error,
///
///     locsim: error: --radius must be between 1 and 20015114 m, got 1e+19
///     hint: see 'locsim replay --help'
///
/// and an exit status: 2 for a usage error (a bad option or value: a `ValidationError`, found
/// before anything ran or, for a value only its input can judge, such as a `--start` beyond the
/// end of the walk, once that is read), 1 for a failure at run time (a missing file, a server
/// that is down, a port in use).
struct ErrorReport: Equatable {
    var message: String
    var hint: String
    var status: Int32

    /// The report for `error`, thrown by the command `arguments` named.
    static func make(for error: any Error, arguments: [String]) -> ErrorReport {
        let help = "see '\((["locsim"] + commandPath(arguments)).joined(separator: " ")) --help'"
        // Only `locsim gpsd` has --reconnect (`replay --gpsd` reconnects after a session on its own).
        let reconnects = commandPath(arguments) == ["gpsd"]
        switch error {
        case let failure as CommandFailure:
            return ErrorReport(message: failure.description, hint: failure.hint ?? help, status: failure.status)
        case let failure as IndexError:
            return ErrorReport(message: failure.description, hint: hint(for: failure, command: commandPath(arguments)), status: 1)
        case let failure as GPSDError where failure.underlyingCode == GPSDError.noHost:
            return ErrorReport(message: failure.description, hint: "check the host name, or give an address such as 127.0.0.1", status: 1)
        case let failure as GPSDError where failure.code == .watchRejected || failure.code == .deviceRemoved:
            // gpsd answered: the device is what is wrong, not whether gpsd runs.
            return ErrorReport(
                message: failure.description,
                hint: "check the device's path ('gpspipe -w -n 3 \(failure.host):\(failure.port)' lists gpsd's DEVICES)"
                    + (reconnects ? ", or add --reconnect to wait for it to be plugged in" : "") + " (docs/guides/gps-dongle.md)",
                status: 1)
        case let failure as GPSDError where failure.code == .daemonClosed:
            return ErrorReport(
                message: failure.description,
                hint: "gpsd at \(failure.host):\(failure.port) went away (stopped, or restarted)"
                    + (reconnects ? "; add --reconnect to ride it out" : "") + " (docs/guides/gps-dongle.md)",
                status: 1)
        case let failure as GPSDError where failure.code == .malformedReport:
            return ErrorReport(
                message: failure.description,
                hint: "something answers at \(failure.host):\(failure.port), but not as gpsd does (gpsd's reports are JSON lines); "
                    + "check that the address is gpsd's ('gpspipe -w -n 3 \(failure.host):\(failure.port)')",
                status: 1)
        case let failure as GPSDError:
            return ErrorReport(
                message: failure.description,
                hint: "is gpsd running at \(failure.host):\(failure.port)? Start it with 'gpsd -N -n /dev/ttyACM0'"
                    + (reconnects ? ", or add --reconnect to wait for it" : "") + " (docs/guides/gps-dongle.md)",
                status: 1)
        case let failure as GPXParseError:
            let isKML = arguments.contains { $0.lowercased().hasSuffix(".kml") }
            let hint =
                if failure.code == .io {
                    unreadableHint
                } else if failure.code == .unsupportedEncoding {
                    "convert it to UTF-8 with iconv as above; locsim reads UTF-8, UTF-16, ISO-8859-1 and windows-1252 (docs/reference/gpx.md)"
                } else if failure.code.isPointLevel, !isKML {
                    "fix the file at that line and column; 'locsim track stats --lenient FILE' lists the bad points"
                } else if failure.code.isPointLevel {
                    "fix the file at that line and column (a KML coordinate is lon,lat[,alt]; docs/guides/replay.md says what is read)"
                } else if failure.endedAfterRootBegan {
                    "the file ends early (a recording cut off?); 'locsim replay --lenient' and 'locsim track stats --lenient' read it up to the cut"
                } else if failure.code == .truncated, !isKML {
                    "the file ends before its <gpx> element began (empty, or cut off at the start): there is nothing in it to read"
                } else if ["replay", "track"].contains(commandPath(arguments).first) {
                    "the file is not well-formed XML there, which --lenient cannot skip (docs/reference/gpx.md says what is read)"
                } else {
                    "the file is not well-formed XML there (docs/reference/gpx.md says what is read)"
                }
            return ErrorReport(message: failure.description, hint: hint, status: 1)
        case let failure as NMEAError where failure.code == .io:
            let written = failure.source.map { isOutput($0, in: arguments) } ?? false
            return ErrorReport(message: failure.description, hint: written ? unwritableHint : unreadableHint, status: 1)
        case let failure as GPXWriteError:
            return ErrorReport(message: failure.description, hint: unwritableHint, status: 1)
        case let failure as SimulationError:
            let place = failure.parameter.contains(" ") ? " (\(failure.parameter))" : ""
            return ErrorReport(message: failure.message + place, hint: help, status: 1)
        default:
            break
        }
        let code = LocSim.exitCode(for: error)
        if code == .validationFailure || code.rawValue == 64 {
            // `locsim nmea help serve`, as git takes it: help is asked for before the name.
            let path = commandPath(arguments)
            if arguments.count > path.count + 1, arguments[path.count] == "help" {
                let asked = commandPath(path + arguments[(path.count + 1)...])
                if asked.count > path.count {
                    let words = asked.joined(separator: " ")
                    return ErrorReport(
                        message: LocSim.message(for: error), hint: "help comes first: 'locsim help \(words)', or 'locsim \(words) --help'", status: 2)
                }
            }
            return ErrorReport(message: LocSim.message(for: error), hint: help, status: 2)
        }
        if (error as NSError).domain == NSCocoaErrorDomain || (error as NSError).domain == NSPOSIXErrorDomain {
            return ErrorReport(message: FileErrorText.reason(for: error), hint: help, status: 1)
        }
        return ErrorReport(message: "\(error)", hint: help, status: 1)
    }

    /// The hint for a file that cannot be opened or read, whatever its format.
    static let unreadableHint = "check that the path names a file that exists and can be read"

    /// The hint for a file the command writes that could not be written.
    static let unwritableHint = "check that its folder exists and can be written, and that the disk has room"

    /// Whether `path` is the value of an option that names a file the command writes.
    private static func isOutput(_ path: String, in arguments: [String]) -> Bool {
        zip(arguments, arguments.dropFirst()).contains { flag, value in ["--out", "--record", "--report"].contains(flag) && value == path }
            || arguments.contains { ["--out=", "--record=", "--report="].contains(where: $0.hasPrefix) && $0.hasSuffix("=" + path) }
    }

    /// The two lines, each exactly one line: newlines inside a message become spaces, and a
    /// library's own `error:` label after a file name is dropped (`walk.gpx:3:1: error: …`
    /// reads `walk.gpx:3:1: …` after `locsim: error:`).
    var lines: [String] {
        let message = Self.oneLine(message).replacingOccurrences(of: ": error: ", with: ": ")
        return ["locsim: error: " + TextExcerpt.cut(message, limit: Self.messageLimit, keepingEnd: Self.reasonLimit), "hint: " + Self.oneLine(hint)]
    }

    /// The longest message shown, in characters: a 60 KB value quoted by an error (a scenario's
    /// key, a path) is cut, its length said, so the error stays two readable lines.
    static let messageLimit = 1_000
    /// The end of a cut message kept after the cut: the reason, which comes last
    /// (`route.file: PATH: File name too long`), is never cut away with the value before it.
    static let reasonLimit = 200

    /// `text` on one line, with every other control character (an escape sequence, a NUL from a
    /// binary file quoted by an error) shown as `\xNN` rather than sent to the terminal.
    private static func oneLine(_ text: String) -> String {
        var text = text
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        guard line.unicodeScalars.contains(where: Self.isControl) else { return line }
        var shown = String.UnicodeScalarView()
        for scalar in line.unicodeScalars {
            if Self.isControl(scalar) {
                shown.append(contentsOf: String(format: "\\x%02X", scalar.value).unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// C0 and C1 controls and DEL (a tab included: a message is one line of its own words).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The hint for an index error in `command` (`["index", "import"]`): only `index import`
    /// takes `--lenient` or `--format`, so only its hints name them.
    private static func hint(for error: IndexError, command: [String]) -> String {
        if error.message.contains("cache directory") {
            return "set LOCSIM_CACHE_DIR (or XDG_CACHE_HOME) to a writable folder"
        }
        let importing = command == ["index", "import"]
        return switch error.code {
        case .cannotOpen where importing:
            "give --db the path of a file in a folder that exists and can be written"
        case .cannotOpen, .notAnIndex, .unsupportedVersion:
            // The swarm has no default index: without --db its players start anywhere in --area.
            "create an index with 'locsim index import FILE --db PATH', or leave out --db "
            + (command == ["swarm"] ? "to start the players anywhere in --area" : "for the default one")
        case .malformedRow where importing && error.message.hasPrefix("not valid UTF-8"):
            "the file is not UTF-8 text (a spreadsheet's CSV may be in CP932 in Japan, windows-1252 in Western Europe): "
            + "convert it, e.g. iconv -f CP932 -t UTF-8 FILE > places-utf8.csv; --lenient would skip every row that is not UTF-8"
        case .badHeader where importing:
            "a CSV place file's header names id, name, lat and lon (kind and level optional); "
            + "a GeoNames file's (--format geonames) is lat,lon,name,admin1,admin2,cc"
        case .badHeader where error.parameter == "format":
            // A --geodata folder's files are place CSVs: a GeoNames file goes in through an index.
            "import it into an index first, 'locsim index import FILE --format geonames --db places.sqlite', "
            + "and give --db places.sqlite instead of --geodata"
        case .malformedRow where importing, .duplicateID where importing:
            "fix the row, or add --lenient to skip bad rows and list them"
        case .malformedRow, .badHeader, .duplicateID:
            "fix the file there (docs/reference/place-index.md says what each format holds)"
        case .invalidArgument where error.parameter == "kind":
            "a kind is a category (park, shop, station): give places fewer kinds, or leave the column empty"
        case .invalidArgument where error.parameter == "replace":
            "check that the file holds the places (an export that failed upstream leaves its header only); "
            + "--replace never empties the database"
        case .wrongFormat:
            "fix the file (docs/reference/place-index.md says what each format holds)"
        case .unreadableInput where error.parameter == "geodata":
            "give --geodata a folder of place CSVs (id,name,lat,lon: the repository's geodata/README.md says more), or leave it out for ./geodata"
        case .unreadableInput:
            "check that the path exists and can be read"
        case .corrupt where command == ["index", "stats"]:
            "rebuild the index with 'locsim index import'"
        case .corrupt:
            "rebuild the index with 'locsim index import'; 'locsim index stats --verify' checks every page"
        case .busy:
            "another process is writing the index; try again when it has finished"
        default:
            "check the path, the folder's permissions and the free space"
        }
    }

    /// The subcommand names at the start of `arguments` (`["index", "query"]`), for the hint.
    static func commandPath(_ arguments: [String]) -> [String] {
        var path: [String] = []
        var command: any ParsableCommand.Type = LocSim.self
        for argument in arguments {
            guard
                let next = command.configuration.subcommands.first(where: {
                    ($0.configuration.commandName ?? String(describing: $0).lowercased()) == argument
                })
            else { break }
            path.append(argument)
            command = next
        }
        return path
    }
}
