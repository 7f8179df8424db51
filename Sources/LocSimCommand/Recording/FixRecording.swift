import ArgumentParser
import GPXFormat
import LocationCore
import NMEAFormat

/// `--record FILE.gpx|FILE.nmea`: writes the fixes a live source delivered, as they come.
///
/// gpsd reports each epoch several times (one report per NMEA sentence, each a little more
/// complete), so the recording keeps one fix per epoch: the last report with that time, written
/// when a report with another time arrives, and by ``finish()`` for the last epoch. Only fixes
/// with a position are written; losing the fix ends a GPX track segment (the next fix starts
/// another). Every write goes to the file at once (no buffer), and a GPX recording is a complete
/// document after every point (``GPXFormat/GPXWriter/init(recordingTo:layout:creator:)``), so
/// Ctrl-C (or a crash) loses at most the epoch in progress, and Ctrl-C not even that.
///
/// Accuracy is kept both ways by gpsd's model (``NMEALog/accuracyModel``): NMEA's GGA/GSA HDOP
/// and GPX's `<hdop>` are the accuracy / 19 m.
final class FixRecording: Sendable {
    let path: String
    private let sink: Locked<Sink>

    private struct Sink {
        var gpx: GPXWriter?
        var nmea: (file: LiveFile, writer: NMEAWriter)?
        /// The newest report of the epoch in progress.
        var pending: Fix?
        /// A fix was lost since the last point written (GPX: start a new segment).
        var lostFix = false
        var written = 0
        var finished = false
    }

    /// Creates (or truncates) `path`; the format comes from its extension.
    ///
    /// - Throws: `ValidationError` for an extension other than .gpx or .nmea; ``CommandFailure``
    ///   naming the path when it cannot be created.
    init(path: String) throws {
        self.path = path
        var sink = Sink()
        do {
            switch try FixFileFormat.output(path, flag: "--record") {
            case .gpx: sink.gpx = try GPXWriter(recordingTo: path, layout: .track)
            case .nmea: sink.nmea = (try LiveFile(path: path), NMEAWriter(options: NMEALog.writerOptions()))
            }
        } catch let error as GPXWriteError {
            throw CommandFailure("cannot record to \(path): \(error.reason)", hint: "check that the folder exists and is writable")
        } catch let error as AtomicFileError {
            throw CommandFailure("cannot record to \(path): \(error.reason)", hint: "check that the folder exists and is writable")
        }
        self.sink = Locked(sink)
    }

    /// Takes one report: the epoch before it is written when this one has another time.
    ///
    /// - Throws: ``CommandFailure`` when the file cannot be written (disk full, …).
    func record(_ fix: Fix) throws {
        try sink.withLock { sink throws in
            guard !sink.finished else { return }
            guard fix.hasPosition else {
                try Self.writePending(&sink, path: path)
                sink.lostFix = true
                return
            }
            if let pending = sink.pending, pending.time != fix.time {
                try Self.writePending(&sink, path: path)
            }
            sink.pending = fix
        }
    }

    /// Writes the epoch in progress and closes the file. Idempotent.
    ///
    /// - Returns: How many fixes the file holds.
    @discardableResult
    func finish() throws -> Int {
        try sink.withLock { sink throws in
            guard !sink.finished else { return sink.written }
            try Self.writePending(&sink, path: path)
            sink.finished = true
            do {
                try sink.gpx?.finish()
                try sink.nmea?.file.close()
            } catch let error as GPXWriteError {
                throw CommandFailure("cannot record to \(path): \(error.reason)")
            } catch let error as AtomicFileError {
                throw CommandFailure("cannot record to \(path): \(error.reason)")
            }
            return sink.written
        }
    }

    private static func writePending(_ sink: inout Sink, path: String) throws {
        guard let fix = sink.pending else { return }
        sink.pending = nil
        do {
            if let gpx = sink.gpx {
                guard var point = GPXPoint(fix: fix) else { return }
                point.horizontalDilution = NMEALog.hdop(forAccuracy: fix.horizontalAccuracy)
                if sink.lostFix && sink.written > 0 { try gpx.startSegment() }
                try gpx.write(point)
            }
            if let nmea = sink.nmea {
                var text = ""
                try nmea.writer.write(fix, to: &text)
                try nmea.file.append(Array(text.utf8))
            }
        } catch let error as GPXWriteError {
            throw CommandFailure("cannot record to \(path): \(error.reason)")
        } catch let error as AtomicFileError {
            throw CommandFailure("cannot record to \(path): \(error.reason)")
        }
        sink.lostFix = false
        sink.written += 1
    }
}
