import GPXFormat
package import LocationCore

/// The GPX shapes a fix stream can be written in.
package enum GPXExportForm: Sendable, Hashable {
    /// GPX 1.1 `<trk>`: every field GPXFormat writes (elevation, time, fix, speed and course
    /// extensions). A fix without a position is left out, and the next positioned fix starts a
    /// new `<trkseg>` (the receiver lost its fix in between).
    case track
    /// The form Xcode's iOS Simulator replays: top-level `<wpt>` elements with `lat`, `lon`,
    /// `<ele>` and `<time>` only (Xcode ignores `trk` and `rte`). Fixes without a position are
    /// left out.
    case xcodeSimulator
}

extension LocationProvider {
    /// Records this provider's fixes as a GPX file, until the stream ends or `limit` fixes have
    /// been read.
    ///
    /// The file is written through a temporary file and renamed into place only when complete,
    /// so an error never leaves a half-written GPX. When the consuming task is cancelled, the
    /// provider ends and the fixes received so far are written as a complete file.
    ///
    /// ```swift
    /// let walk = try SyntheticMotion(path: .circle(center: c, radius: 200), seed: 1,
    ///                                configuration: .init(pacing: .virtual, duration: 1800))
    /// try await walk.writeGPX(toFile: "walk.gpx", form: .xcodeSimulator)
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to write.
    ///   - form: ``GPXExportForm/track`` or ``GPXExportForm/xcodeSimulator``.
    ///   - creator: The `creator` attribute.
    ///   - limit: Read at most this many fixes (≥ 0), or `nil` for the whole stream (which must end).
    /// - Returns: The number of points written. A stream that ends because the task was
    ///   cancelled before its first fix writes nothing (`path` keeps what it held) and returns 0.
    /// - Throws: `GPXWriteError` when the file cannot be written, or whatever the provider throws.
    @discardableResult
    package func writeGPX(toFile path: String, form: GPXExportForm = .track, creator: String = "locsim", limit: Int? = nil)
        async throws -> Int
    {
        let writer = try GPXWriter(path: path, layout: form == .track ? .track : .waypoints, creator: creator)
        let (read, count) = try await record(into: writer, form: form, limit: limit)
        // Cancelled before the first fix (Ctrl-C at once): an empty walk would replace `path`.
        if read == 0, Task.isCancelled { return 0 }
        try writer.finish()
        return count
    }

    private func record(into writer: GPXWriter, form: GPXExportForm, limit: Int?) async throws -> (read: Int, written: Int) {
        var written = 0
        var read = 0
        var iterator = makeAsyncIterator()
        while limit.map({ read < $0 }) ?? true, let fix = try await iterator.next() {
            read += 1
            switch form {
            case .track:
                // A fix without a position ends the segment (GPXWriter).
                try writer.write(fix)
            case .xcodeSimulator:
                guard fix.hasPosition, let coordinate = fix.coordinate else { continue }
                try writer.write(GPXPoint(coordinate: coordinate, elevation: fix.altitude, time: fix.time))
            }
            if fix.hasPosition { written += 1 }
        }
        return (read, written)
    }
}
