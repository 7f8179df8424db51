package import LocationCore

extension NearbyIndex {
    /// Imports a place file, updating places whose id is already in the index.
    ///
    /// The whole import is one transaction: if it fails or is cancelled at any point, the index
    /// keeps exactly its previous content, and queries running meanwhile see that content.
    ///
    /// - Parameters:
    ///   - path: The CSV, GeoJSON or GeoNames file.
    ///   - options: Format (guessed from the file name when nil), strict or lenient, progress interval.
    ///   - progress: Called every `options.progressInterval` rows while reading and tiles while
    ///     writing, on the calling thread. Throwing from it aborts the import (nothing is written)
    ///     and the error propagates.
    /// - Returns: Counts of rows read, places inserted and updated, rows skipped.
    /// - Throws: ``IndexError`` naming file, line and column for bad input (strict mode);
    ///   ``IndexError/Code/readOnly``, ``IndexError/Code/busy`` and other SQLite failures;
    ///   ``IndexError/Code/cancelled`` when the task is cancelled; whatever `progress` throws.
    @discardableResult
    package func importPlaces(
        fromFile path: String, options: ImportOptions = ImportOptions(),
        progress: @escaping (ImportProgress) throws -> Void = { _ in }
    ) throws -> ImportReport {
        guard let format = options.format ?? ImportFormat(fileName: path) else {
            throw IndexError(
                .invalidArgument, "cannot tell the format from the file name; pass a format (csv, geojson, geonames)",
                path: path, parameter: "format")
        }
        return try importPlaces(bytes: PlaceParsers.readFile(path), from: path, format: format, options: options, progress: progress)
    }

    /// Imports the contents of a place file already read, as ``importPlaces(fromFile:options:progress:)``
    /// does after reading it (for callers that need the bytes for something else too).
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - path: The file they came from, named in errors.
    ///   - format: How to parse them (`options.format` is not consulted).
    @discardableResult
    func importPlaces(
        bytes: [UInt8], from path: String, format: ImportFormat, options: ImportOptions,
        progress: @escaping (ImportProgress) throws -> Void = { _ in }
    ) throws -> ImportReport {
        // About 50 bytes a row in typical files: reserve so the tables need not grow while reading.
        var collector = ImportCollector(path: path, options: options, expectedCount: bytes.count / 50, progress: progress)
        switch format {
        case .csv: try PlaceParsers.parseCSV(bytes, into: &collector)
        case .geoJSON: try PlaceParsers.parseGeoJSON(bytes, into: &collector)
        case .geoNames: try PlaceParsers.parseGeoNames(bytes, into: &collector)
        }
        return try write(collector, options: options, progress: progress)
    }

    /// Imports places given in code, updating those whose id is already in the index.
    ///
    /// One transaction, like ``importPlaces(fromFile:options:progress:)``. Coordinates are stored
    /// to 1e-7° (about 1.1 cm). A repeated id is an error unless `options.isLenient` (then the
    /// last one wins).
    ///
    /// - Throws: ``IndexError/Code/duplicateID``, ``IndexError/Code/malformedRow`` for an empty id,
    ///   SQLite failures, and whatever `progress` throws.
    @discardableResult
    package func importPlaces(
        _ places: some Sequence<Place>, options: ImportOptions = ImportOptions(),
        progress: @escaping (ImportProgress) throws -> Void = { _ in }
    ) throws -> ImportReport {
        var collector = ImportCollector(path: "(places)", options: options, progress: progress)
        for (number, place) in places.enumerated() {
            try collector.rowRead()
            guard !place.id.isEmpty else {
                try collector.reject(IndexError(.malformedRow, "place \(number) has an empty id", parameter: "places"))
                continue
            }
            if let level = place.level, level == Int(PlaceRecord.noLevel) || Int32(exactly: level) == nil {
                try collector.reject(
                    IndexError(.malformedRow, "place \(place.id) has level \(level), outside 32-bit range", parameter: "places"))
                continue
            }
            try collector.accept(
                ParsedPlace(
                    id: place.id, name: place.name, latitudeE7: PlaceRecord.latitudeE7(place.coordinate.latitude),
                    longitudeE7: PlaceRecord.longitudeE7(place.coordinate.longitude), kind: place.kind,
                    level: place.level.map { Int32($0) } ?? PlaceRecord.noLevel, origin: "place \(number)"),
                line: nil, column: nil)
        }
        return try write(collector, options: options, progress: progress)
    }

    /// Reads a place file with the index's parsers and rules (strict or lenient, unique ids,
    /// progress and cancellation while reading) without writing anything: for another store
    /// (LocationPostGIS) that must accept exactly what an index import accepts, with the same errors.
    package static func parsePlaces(
        fromFile path: String, options: ImportOptions, progress: @escaping (ImportProgress) throws -> Void
    ) throws -> ParsedPlaceFile {
        guard let format = options.format ?? ImportFormat(fileName: path) else {
            throw IndexError(
                .invalidArgument, "cannot tell the format from the file name; pass a format (csv, geojson, geonames)",
                path: path, parameter: "format")
        }
        let bytes = try PlaceParsers.readFile(path)
        var collector = ImportCollector(path: path, options: options, expectedCount: bytes.count / 50, progress: progress)
        switch format {
        case .csv: try PlaceParsers.parseCSV(bytes, into: &collector)
        case .geoJSON: try PlaceParsers.parseGeoJSON(bytes, into: &collector)
        case .geoNames: try PlaceParsers.parseGeoNames(bytes, into: &collector)
        }
        return ParsedPlaceFile(
            places: collector.places, rowsRead: collector.rowsRead, skipped: collector.skipped, issues: collector.issues)
    }

    private func write(
        _ collector: ImportCollector, options: ImportOptions, progress: (ImportProgress) throws -> Void
    ) throws -> ImportReport {
        try writer.withLock { connection throws in
            guard let connection else {
                throw IndexError(
                    .readOnly, "the index was opened read-only; open it read-write to import", path: path)
            }
            let writer = IndexWriter(connection: connection, grid: grid, interval: max(1, options.progressInterval))
            let (inserted, updated, count) = try writer.write(
                collector.places, indexByID: collector.indexByID, rowsRead: collector.rowsRead, skipped: collector.skipped,
                progress: progress)
            return ImportReport(
                rowsRead: collector.rowsRead, inserted: inserted, updated: updated, skipped: collector.skipped,
                issues: collector.issues, placeCount: count)
        }
    }
}

/// A place file as ``NearbyIndex/parsePlaces(fromFile:options:progress:)`` read it.
package struct ParsedPlaceFile: Sendable {
    /// The accepted places, ids unique (in lenient mode a repeated id's later row won).
    package var places: [ParsedPlace]
    /// Input rows (or features) read.
    package var rowsRead: Int
    /// Rows skipped as bad (lenient mode).
    package var skipped: Int
    /// The first 100 problems met in lenient mode.
    package var issues: [IndexError]
}
