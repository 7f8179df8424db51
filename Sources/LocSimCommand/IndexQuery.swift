import ArgumentParser
import Foundation
import LocationCore
import LocationIndex

/// `locsim index query`
struct IndexQuery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Places within a radius, nearest first (exact spherical distance).",
        discussion: """
            One query: --lat --lon --radius [--limit] [--format text|json].
            Many: --queries FILE --format jsonl, where FILE is CSV lat,lon,radius (header optional); \
            each query prints one line {"places":[{"id","name","lat","lon","distance_m","kind","level"},...]}, \
            the same objects as --format json (docs/reference/jsonl.md).
            """
    )

    @OptionGroup var location: IndexLocation

    @Option(number: "Latitude of the centre, degrees, -90...90.")
    var lat: Double?

    @Option(
        name: [.customLong("lon"), .customLong("lng")],
        number: "Longitude of the centre, degrees, -180...180 (negative values work as is; --lng as the server's parameter).")
    var lon: Double?

    @Option(number: "Radius in metres, 1 ... 20015114 (half the Earth's circumference).")
    var radius: Double?

    @Option(parsing: .unconditional, help: "At most this many places (the nearest).")
    var limit: Int?

    @Option(help: ArgumentHelp("CSV of queries: lat,lon,radius per line.", valueName: "file"))
    var queries: String?

    @Option(help: "Output: text or json for one query, jsonl for --queries.")
    var format: DataFormat = .text

    func validate() throws {
        if let limit { try checkOption(limit, in: 1...Int.max, flag: "--limit") }
        if queries != nil {
            guard lat == nil, lon == nil, radius == nil else {
                throw ValidationError("--queries replaces --lat, --lon and --radius; give one or the other")
            }
            guard format == .jsonl else { throw ValidationError("--queries prints one JSON line per query: add --format jsonl") }
            return
        }
        guard let lat, let lon, let radius else {
            throw ValidationError("give --lat, --lon and --radius (or --queries FILE --format jsonl)")
        }
        guard format != .jsonl else { throw ValidationError("--format jsonl goes with --queries; use text or json") }
        do {
            _ = try Coordinate(latitude: lat, longitude: lon)
        } catch {
            throw ValidationError("--\(error.component == .latitude ? "lat" : "lon"): \(error)")
        }
        try checkOption(radius, in: OptionRange.radius, flag: "--radius", unit: "metres")
    }

    @MainActor
    func run() async throws {
        let output = LineOutput(flushesEachLine: false)
        defer { output.flush() }
        if let queries {
            let batch = try QueryFile.read(queries)
            let index = try location.open()
            for query in batch {
                output.write(QueryResultRecord(hits: try index.places(near: query.center, within: query.radius, limit: limit)).line)
            }
            return
        }
        guard let lat, let lon, let radius else { return }
        let center = try Coordinate(latitude: lat, longitude: lon)
        let index = try location.open()
        let hits = try index.places(near: center, within: radius, limit: limit)
        switch format {
        case .json:
            output.write(QueryResultRecord(hits: hits).line)
        default:
            for hit in hits {
                let distance = DecimalText.fixed(hit.distance, decimals: 1)
                output.write(
                    "\(String(repeating: " ", count: max(0, 10 - distance.count)) + distance) m  \(PeopleText.escaped(hit.place.id))  \(PeopleText.escaped(hit.place.name))  "
                        + "\(hit.place.coordinate)  \(hit.place.kind.isEmpty ? "-" : PeopleText.escaped(hit.place.kind))"
                        + (hit.place.level.map { "  level \($0)" } ?? ""))
            }
            output.write("\(PeopleText.count(hits.count, "place")) within \(PeopleText.number(radius, decimals: 1)) m of \(center)")
        }
    }
}

/// The `--queries` file: CSV `lat,lon,radius`, an optional header naming those columns.
enum QueryFile {
    static func read(_ path: String) throws -> [(center: Coordinate, radius: Double)] {
        let bytes: [UInt8]
        do {
            bytes = try SystemIO.readFile(path)
        } catch {
            throw IndexError(.unreadableInput, "cannot read the queries file: \(FileErrorText.reason(for: error))", path: path)
        }
        // RFC 4180, as place files are read: quoted fields, CRLF or LF, a byte-order mark.
        var reader = try CSVReader(bytes: bytes, path: path)
        var fields: [CSVReader.Field] = []
        var columns = ["lat": 0, "lon": 1, "radius": 2]
        var queries: [(center: Coordinate, radius: Double)] = []
        var sawFirst = false
        while try reader.next(into: &fields) {
            if fields.allSatisfy(reader.isBlank) { continue }
            if !sawFirst {
                sawFirst = true
                if reader.double(fields[0]) == nil {
                    let names = try reader.header(fields)
                    for (name, aliases) in [("lat", ["lat", "latitude"]), ("lon", ["lon", "lng", "longitude"]), ("radius", ["radius"])] {
                        guard let index = names.firstIndex(where: aliases.contains) else {
                            throw IndexError(.badHeader, "the header needs lat,lon,radius", path: path, line: reader.line, column: name)
                        }
                        columns[name] = index
                    }
                    continue
                }
            }
            // A row too short for its columns is said so, as a place file's is.
            let needed = columns.values.max()! + 1
            guard fields.count >= needed else {
                throw IndexError(.malformedRow, "expected \(needed) fields, found \(fields.count)", path: path, line: reader.line)
            }
            func number(_ column: String) throws -> Double {
                let index = columns[column]!
                guard let value = reader.double(fields[index]) else {
                    let text = reader.string(fields[index]).trimmingCharacters(in: .whitespaces)
                    throw IndexError(.malformedRow, "\"\(text)\" is not a number", path: path, line: reader.line, column: column)
                }
                return value
            }
            let latitude = try number("lat"), longitude = try number("lon"), radius = try number("radius")
            let center: Coordinate
            do {
                center = try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw IndexError(
                    .malformedRow, error.description, path: path, line: reader.line,
                    column: error.component == .latitude ? "lat" : "lon")
            }
            guard radius.isFinite, radius >= 1, radius <= Sphere.halfCircumference else {
                throw IndexError(
                    .malformedRow, "radius \(radius) is outside 1...20015114 m", path: path, line: reader.line, column: "radius")
            }
            queries.append((center, radius))
        }
        return queries
    }
}
