#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// A place read from an input file, before kinds become codes. Package-visible so other stores
/// (LocationPostGIS) import with the same parsers and rules.
package struct ParsedPlace: Sendable {
    package var id: String
    package var name: String
    /// Latitude in 1e-7° units.
    package var latitudeE7: Int32
    /// Longitude in 1e-7° units, −180° for 180°.
    package var longitudeE7: Int32
    package var kind: String
    /// The level, `Int32.min` for none.
    package var level: Int32
    /// Where it came from, for messages ("line 12", "features[3]").
    package var origin: String
}

/// Collects parsed places, applying strict/lenient rules, duplicate-id checks, progress
/// reports and cancellation.
struct ImportCollector {
    let path: String
    let isLenient: Bool
    let interval: Int
    let progress: (ImportProgress) throws -> Void
    private(set) var places: [ParsedPlace] = []
    /// Position in ``places`` of each id.
    private(set) var indexByID: [ExactText: Int] = [:]
    /// The distinct kinds other than none, up to ``ParsedPlaceFile/maximumKinds``.
    private var kinds: Set<ExactText> = []

    private(set) var rowsRead = 0
    private(set) var skipped = 0
    private(set) var issues: [IndexError] = []

    init(
        path: String, options: ImportOptions, expectedCount: Int = 0,
        progress: @escaping (ImportProgress) throws -> Void
    ) {
        self.path = path
        places.reserveCapacity(expectedCount)
        indexByID.reserveCapacity(expectedCount)
        self.isLenient = options.isLenient
        self.interval = max(1, options.progressInterval)
        self.progress = progress
    }

    /// Counts a row read and reports progress every `interval` rows.
    mutating func rowRead() throws {
        rowsRead += 1
        if rowsRead % interval == 0 {
            if Task.isCancelled { throw IndexError(.cancelled, "the import was cancelled; nothing was written", path: path) }
            try progress(
                ImportProgress(phase: .reading, rowsRead: rowsRead, rowsSkipped: skipped, tilesWritten: 0, tilesTotal: 0))
        }
    }

    /// The input is read: its whole count is reported, unless the last report already said it.
    mutating func finishReading() throws {
        guard rowsRead % interval != 0 else { return }
        try progress(ImportProgress(phase: .reading, rowsRead: rowsRead, rowsSkipped: skipped, tilesWritten: 0, tilesTotal: 0))
    }

    /// A bad row: thrown in strict mode, counted and remembered in lenient mode.
    mutating func reject(_ error: IndexError) throws(IndexError) {
        guard isLenient else { throw error }
        skipped += 1
        if issues.count < 100 { issues.append(error) }
    }

    /// Takes a parsed place, or rejects it (strict: throws; lenient: skips it) when its text
    /// cannot be stored by every backend or its id repeats an earlier one.
    ///
    /// - Parameters:
    ///   - column: The id's column (CSV header name, GeoJSON member path), for messages.
    ///   - nameColumn: The name's column; `kindColumn`: the kind's.
    mutating func accept(
        _ place: ParsedPlace, line: Int?, column: String?, nameColumn: String?, kindColumn: String? = nil
    ) throws(IndexError) {
        // Where the row is: a line already says so in the error's location; a GeoJSON feature
        // or a place given in code says it in the message.
        let at = line == nil ? "\(place.origin): " : ""
        // PostgreSQL's text cannot hold U+0000 (SQLite's can): the same file must get the same
        // verdict from both backends, so neither stores it.
        for (field, text, fieldColumn) in [("id", place.id, column), ("name", place.name, nameColumn), ("kind", place.kind, kindColumn)]
        where text.utf8.contains(0) {
            try reject(
                IndexError(
                    .malformedRow,
                    "\(at)the \(field) holds a NUL character (U+0000), which PostgreSQL cannot store; remove it",
                    path: path, line: line, column: fieldColumn ?? field))
            return
        }
        let (idBytes, nameBytes) = (place.id.utf8.count, place.name.utf8.count)
        guard idBytes + nameBytes <= PlaceRecord.maximumTextBytes else {
            // The longer of the two is the one to shorten.
            let (longer, longerColumn) = idBytes > nameBytes ? ("id", column ?? "id") : ("name", nameColumn ?? "name")
            try reject(
                IndexError(
                    .malformedRow,
                    "\(at)id and name together take \(idBytes + nameBytes) bytes of UTF-8 (the \(longer) \(max(idBytes, nameBytes))); "
                        + "a place may take up to \(PlaceRecord.maximumTextBytes)",
                    path: path, line: line, column: longerColumn))
            return
        }
        let identity = ExactText(Place.identity(ofID: place.id))
        if let existing = indexByID[identity] {
            let earlier = places[existing]
            let repeated =
                earlier.id.utf8.elementsEqual(place.id.utf8)
                ? "id \"\(place.id)\" already appeared at \(earlier.origin)"
                : "id \"\(place.id)\" is the UUID \"\(earlier.id)\" of \(earlier.origin) (an app reads a UUID whatever its case)"
            let error = IndexError(
                .duplicateID,
                repeated + "; ids must be unique within a file" + (isLenient ? " (the later row wins)" : ""),
                path: path, line: line, column: column)
            try reject(error)
            places[existing] = place
            return
        }
        if !place.kind.isEmpty, kinds.count == ParsedPlaceFile.maximumKinds, !kinds.contains(ExactText(place.kind)) {
            throw IndexError(
                .invalidArgument,
                "\(place.origin): kind '\(TextExcerpt.render(place.kind, limit: 64))' would be the file's \(ParsedPlaceFile.maximumKinds + 1)th "
                    + "distinct kind; an index stores up to \(ParsedPlaceFile.maximumKinds) besides none. Nothing was imported",
                path: path, line: line, column: kindColumn ?? "kind", parameter: "kind")
        }
        if !place.kind.isEmpty { kinds.insert(ExactText(place.kind)) }
        indexByID[identity] = places.count
        places.append(place)
    }

    /// Validates a coordinate and converts it to 1e-7° units, or returns the row error.
    func coordinate(
        latitude: Double?, longitude: Double?, latitudeColumn: String, longitudeColumn: String, line: Int?,
        rawLatitude: @autoclosure () -> String, rawLongitude: @autoclosure () -> String
    ) -> Result<(Int32, Int32), IndexError> {
        guard let latitude else {
            return .failure(
                IndexError(.malformedRow, "\"\(rawLatitude())\" is not a number", path: path, line: line, column: latitudeColumn))
        }
        guard let longitude else {
            return .failure(
                IndexError(.malformedRow, "\"\(rawLongitude())\" is not a number", path: path, line: line, column: longitudeColumn))
        }
        do {
            let valid = try Coordinate(latitude: latitude, longitude: longitude)
            return .success((PlaceRecord.latitudeE7(valid.latitude), PlaceRecord.longitudeE7(valid.longitude)))
        } catch {
            let column = error.component == .latitude ? latitudeColumn : longitudeColumn
            return .failure(IndexError(.malformedRow, error.description, path: path, line: line, column: column))
        }
    }
}

/// Parsers for the three input layouts.
package enum PlaceParsers {
    package static func readFile(_ path: String) throws(IndexError) -> [UInt8] {
        do {
            return try SystemIO.readFile(path)
        } catch {
            throw IndexError(.unreadableInput, "cannot read the file: \(FileErrorText.reason(for: error))", path: path)
        }
    }

    // MARK: CSV

    static func parseCSV(_ bytes: [UInt8], into collector: inout ImportCollector) throws {
        var reader = try CSVReader(bytes: bytes, path: collector.path)
        var fields: [CSVReader.Field] = []
        guard try reader.next(into: &fields) else {
            throw IndexError(.wrongFormat, "the file is empty; expected a header row id,name,lat,lon", path: collector.path)
        }
        let header = try reader.header(fields)
        func column(_ names: [String]) -> Int? { header.firstIndex { names.contains($0) } }
        func required(_ names: [String]) throws(IndexError) -> Int {
            // Two names for one field (lat and latitude): which one is meant is a guess.
            let given = header.filter { names.contains($0) }
            if given.count > 1 {
                throw IndexError(
                    .badHeader, "the header names one field twice, as \(given.joined(separator: " and ")); keep one of them",
                    path: collector.path, line: reader.line, column: given[1])
            }
            guard let index = column(names) else {
                // What the file is instead, when that is plain from its header; a file of another
                // format blames the format read with (`parameter`), a hint's key.
                let isGeoNames = header == ["lat", "lon", "name", "admin1", "admin2", "cc"]
                let advice =
                    if isGeoNames {
                        "it is the GeoNames layout, read as the geonames format, not as a place CSV"
                    } else if header.count == 1, header[0].contains(";") {
                        "its fields are separated by ';' (a spreadsheet's CSV where a decimal comma is usual); "
                            + "CSV's are separated by commas, with decimal points: export it again as comma-separated CSV"
                    } else {
                        "CSV needs id,name,lat,lon and may have kind,level"
                    }
                throw IndexError(
                    .badHeader,
                    "the header has no \(names.joined(separator: "/")) column (found: \(header.joined(separator: ","))); \(advice)",
                    path: collector.path, line: reader.line, column: names[0], parameter: isGeoNames ? "format" : nil)
            }
            return index
        }
        let idColumn = try required(["id"])
        let nameColumn = try required(["name"])
        let latitudeColumn = try required(["lat", "latitude"])
        let longitudeColumn = try required(["lon", "lng", "long", "longitude"])
        let kindColumn = column(["kind"])
        let levelColumn = column(["level"])
        let path = collector.path

        while try reader.next(into: &fields) {
            try collector.rowRead()
            let line = reader.line
            guard fields.count == header.count else {
                try collector.reject(
                    IndexError(
                        .malformedRow, "expected \(header.count) fields as in the header, found \(fields.count)", path: path,
                        line: line))
                continue
            }
            if let bad = fields.firstIndex(where: { !reader.isValidUTF8($0) }) {
                try collector.reject(IndexError(.malformedRow, "not valid UTF-8", path: path, line: line, column: header[bad]))
                continue
            }
            let id = reader.string(fields[idColumn])
            guard !id.trimmingSpaces.isEmpty else {
                try collector.reject(IndexError(.malformedRow, "the id is empty", path: path, line: line, column: "id"))
                continue
            }
            let coordinate = collector.coordinate(
                latitude: reader.double(fields[latitudeColumn]), longitude: reader.double(fields[longitudeColumn]),
                latitudeColumn: header[latitudeColumn], longitudeColumn: header[longitudeColumn], line: line,
                rawLatitude: reader.string(fields[latitudeColumn]), rawLongitude: reader.string(fields[longitudeColumn]))
            guard case .success(let (latitudeE7, longitudeE7)) = coordinate else {
                if case .failure(let error) = coordinate { try collector.reject(error) }
                continue
            }
            var level = PlaceRecord.noLevel
            if let levelColumn, !reader.isBlank(fields[levelColumn]) {
                guard let value = reader.int32(fields[levelColumn]).flatMap({ PlaceRecord.level(Int($0)) }) else {
                    try collector.reject(
                        IndexError(
                            .malformedRow,
                            "\"\(reader.string(fields[levelColumn]))\" is not a level (\(PlaceRecord.levelRangeText))",
                            path: path, line: line, column: "level"))
                    continue
                }
                level = value
            }
            let kind = kindColumn.map { reader.string(fields[$0]) } ?? ""
            try collector.accept(
                ParsedPlace(
                    id: id, name: reader.string(fields[nameColumn]), latitudeE7: latitudeE7, longitudeE7: longitudeE7,
                    kind: kind, level: level, origin: "line \(line)"),
                line: line, column: header[idColumn], nameColumn: header[nameColumn], kindColumn: kindColumn.map { header[$0] })
        }
    }

    // MARK: GeoNames

    static func parseGeoNames(_ bytes: [UInt8], into collector: inout ImportCollector) throws {
        var reader = try CSVReader(bytes: bytes, path: collector.path)
        var fields: [CSVReader.Field] = []
        let expected = ["lat", "lon", "name", "admin1", "admin2", "cc"]
        guard try reader.next(into: &fields) else {
            throw IndexError(.wrongFormat, "the file is empty; expected the header \(expected.joined(separator: ","))", path: collector.path)
        }
        let header = try reader.header(fields)
        var columns: [Int] = []
        for name in expected {
            guard let index = header.firstIndex(of: name) else {
                throw IndexError(
                    .badHeader, "the GeoNames layout needs the header \(expected.joined(separator: ","))",
                    path: collector.path, line: reader.line, column: name)
            }
            columns.append(index)
        }
        var occurrences: [String: Int] = [:]
        let path = collector.path
        while try reader.next(into: &fields) {
            try collector.rowRead()
            let line = reader.line
            guard fields.count == header.count else {
                try collector.reject(
                    IndexError(.malformedRow, "expected \(header.count) fields, found \(fields.count)", path: path, line: line))
                continue
            }
            let coordinate = collector.coordinate(
                latitude: reader.double(fields[columns[0]]), longitude: reader.double(fields[columns[1]]),
                latitudeColumn: "lat", longitudeColumn: "lon", line: line,
                rawLatitude: reader.string(fields[columns[0]]), rawLongitude: reader.string(fields[columns[1]]))
            guard case .success(let (latitudeE7, longitudeE7)) = coordinate else {
                if case .failure(let error) = coordinate { try collector.reject(error) }
                continue
            }
            let texts = columns.map { reader.string(fields[$0]) }
            // Stable id: a hash of the row's own text (lat, lon, name, admin1, admin2, cc); a
            // repeated identical row gets "-2", "-3"... in file order.
            var id = StableID.derived(prefix: "gn", from: texts.joined(separator: "\u{1F}"))
            let seen = occurrences[id, default: 0] + 1
            occurrences[id] = seen
            if seen > 1 { id += "-\(seen)" }
            try collector.accept(
                ParsedPlace(
                    id: id, name: texts[2], latitudeE7: latitudeE7, longitudeE7: longitudeE7, kind: "city",
                    level: PlaceRecord.noLevel, origin: "line \(line)"),
                line: line, column: nil, nameColumn: "name")
        }
    }

    // MARK: GeoJSON

    static func parseGeoJSON(_ bytes: [UInt8], into collector: inout ImportCollector) throws {
        let path = collector.path
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw IndexError(.wrongFormat, error.description, path: path)
        }
        guard document["type"]?.string == "FeatureCollection", case .array(let features)? = document["features"] else {
            throw IndexError(
                .wrongFormat, "expected a GeoJSON FeatureCollection with a \"features\" array", path: path,
                column: "type")
        }
        for (number, feature) in features.enumerated() {
            try collector.rowRead()
            let origin = "features[\(number)]"
            func bad(_ member: String, _ message: String) -> IndexError {
                IndexError(.malformedRow, message, path: path, column: "\(origin).\(member)")
            }
            guard feature["type"]?.string == "Feature" else {
                try collector.reject(IndexError(.malformedRow, "not a Feature object", path: path, column: origin))
                continue
            }
            guard let geometry = feature["geometry"], geometry["type"]?.string == "Point",
                case .array(let position)? = geometry["coordinates"], position.count >= 2
            else {
                try collector.reject(bad("geometry", "expected a Point geometry with [longitude, latitude]"))
                continue
            }
            let properties: JSONValue
            switch feature["properties"] {
            case .object(let values)?: properties = .object(values)
            case nil, .null?: properties = .object([])
            default:
                try collector.reject(bad("properties", "expected an object or null"))
                continue
            }
            let coordinate = collector.coordinate(
                latitude: position[1].number, longitude: position[0].number,
                latitudeColumn: "\(origin).geometry.coordinates[1]", longitudeColumn: "\(origin).geometry.coordinates[0]",
                line: nil, rawLatitude: position[1].text, rawLongitude: position[0].text)
            guard case .success(let (latitudeE7, longitudeE7)) = coordinate else {
                if case .failure(let error) = coordinate {
                    try collector.reject(IndexError(.malformedRow, error.message, path: path, column: error.column))
                }
                continue
            }
            /// A string property: its value, "" when absent or null, or `nil` once the feature is rejected.
            func text(_ key: String) throws -> String? {
                switch properties[key] {
                case .string(let value)?: return value
                case nil, .null?: return ""
                default:
                    try collector.reject(bad("properties.\(key)", "expected a string"))
                    return nil
                }
            }
            guard let name = try text("name"), let kind = try text("kind") else { continue }
            var level = PlaceRecord.noLevel
            switch properties["level"] {
            case nil, .null?: break
            case .number(let value)? where PlaceRecord.level(value) != nil:
                level = Int32(value)
            default:
                try collector.reject(bad("properties.level", "expected a level (\(PlaceRecord.levelRangeText))"))
                continue
            }
            var id: String
            switch feature["id"] ?? properties["id"] {
            case .string(let value)?: id = value
            case .number(let value)? where value == value.rounded() && abs(value) < 1e15: id = String(Int64(value))
            case nil, .null?:
                id = StableID.derived(prefix: "gj", from: "\(name)\u{1F}\(latitudeE7)\u{1F}\(longitudeE7)")
            default:
                try collector.reject(bad("id", "expected a string or an integer"))
                continue
            }
            if id.isEmpty {
                try collector.reject(bad("id", "the id is empty"))
                continue
            }
            try collector.accept(
                ParsedPlace(
                    id: id, name: name, latitudeE7: latitudeE7, longitudeE7: longitudeE7, kind: kind, level: level,
                    origin: origin),
                line: nil, column: "\(origin).id", nameColumn: "\(origin).properties.name",
                kindColumn: "\(origin).properties.kind")
        }
    }
}

/// Ids derived from source text: a prefix, then the FNV-1a 64-bit hash of the text's UTF-8
/// modulo 36¹², as 12 base-36 digits.
enum StableID {
    /// The id for a place whose source gives none: `prefix` + 12 base-36 digits of `text`'s hash.
    static func derived(prefix: String, from text: String) -> String {
        prefix + base36(FNV1a64.hash(text.utf8), digits: 12)
    }

    /// `value` modulo 36^digits, as exactly `digits` base-36 characters.
    static func base36(_ value: UInt64, digits: Int) -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        var remaining = value
        var characters = [UInt8](repeating: 0, count: digits)
        for position in stride(from: digits - 1, through: 0, by: -1) {
            characters[position] = alphabet[Int(remaining % 36)]
            remaining /= 36
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
