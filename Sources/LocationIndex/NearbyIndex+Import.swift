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
    /// - Returns: Counts of rows read, places inserted, updated and unchanged, rows skipped.
    /// - Throws: ``IndexError`` naming file, line and column for bad input (strict mode);
    ///   ``IndexError/Code/readOnly``, ``IndexError/Code/busy`` and other SQLite failures;
    ///   ``IndexError/Code/cancelled`` when the task is cancelled; whatever `progress` throws.
    @discardableResult
    package func importPlaces(
        fromFile path: String, options: ImportOptions = ImportOptions(),
        progress: @escaping (ImportProgress) throws -> Void = { _ in }
    ) throws -> ImportReport {
        try write(ParsedPlaceFile(fromFile: path, options: options, progress: progress), options: options, progress: progress)
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
        try write(
            ParsedPlaceFile(bytes: bytes, from: path, format: format, options: options, progress: progress), options: options, progress: progress)
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
        try write(ParsedPlaceFile(places: places, options: options, progress: progress), options: options, progress: progress)
    }

    private func write(
        _ parsed: ParsedPlaceFile, options: ImportOptions, progress: (ImportProgress) throws -> Void) throws -> ImportReport {
        try writer.withLock { connection throws in
            guard let connection else {
                throw IndexError(
                    .readOnly, "the index was opened read-only; open it read-write to import", path: path)
            }
            let writer = IndexWriter(connection: connection, grid: grid, interval: max(1, options.progressInterval))
            let (inserted, updated, unchanged, count) = try writer.write(
                parsed.places, indexByID: parsed.indexByID, rowsRead: parsed.rowsRead, skipped: parsed.skipped, source: parsed.source,
                progress: progress)
            return ImportReport(
                rowsRead: parsed.rowsRead, inserted: inserted, updated: updated, unchanged: unchanged, skipped: parsed.skipped,
                issues: parsed.issues, placeCount: count)
        }
    }
}
