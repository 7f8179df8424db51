import ArgumentParser
import Foundation
import GPXFormat
import LocationCore
import LocationGPSD
import LocationSimulation
import NMEAFormat

/// `--record FILE.gpx|FILE.nmea`: writes the fixes a live source delivered, as they come, through
/// the format's live writer (``GPXFormat/GPXWriter/init(recordingTo:layout:creator:)``,
/// ``NMEAFormat/NMEAFileWriter/init(recordingTo:options:)``).
///
/// gpsd reports each epoch several times (one report per NMEA sentence, each a little more
/// complete), so the recording keeps one fix per epoch by ``LocationGPSD/GPSDEpochs``' rule: the
/// last report with that time, written when a report with another time arrives, and by
/// ``finish()`` for the last epoch. Fixes with a position are written; losing the fix (or the
/// connection) ends a GPX track segment, and is one no-fix epoch in an NMEA recording, as a
/// receiver logs it: read back, either starts a new segment there. Every fix reaches the file at once, and a GPX recording is a complete document
/// after every point, so Ctrl-C (or a crash) loses at most the epoch in progress, and Ctrl-C not
/// even that.
///
/// The file is created (or truncated) only when the first fix is written: a session that never
/// delivers one (gpsd not running, a wrong `--device`) leaves an existing file as it was.
///
/// Accuracy is kept both ways by gpsd's model (``NMEALog/horizontalAccuracyPerHDOP``): NMEA's
/// GGA/GSA HDOP and GPX's `<hdop>` are the accuracy / 19 m.
final class FixRecording: Sendable {
    let path: String
    private let format: FixFileFormat.Output
    private let sink: Locked<Sink>

    private struct Sink {
        var gpx: GPXWriter?
        var nmea: NMEAFileWriter?
        /// The epoch in progress.
        var epochs = GPSDEpochs()
        var written = 0
        var finished = false
    }

    /// A recording to `path`, in the format its extension says; the file is created (or
    /// truncated) when the first fix is written, not before.
    ///
    /// - Throws: `ValidationError` for an extension other than .gpx or .nmea.
    init(path: String) throws {
        self.path = path
        format = try FixFileFormat.output(path, flag: "--record")
        sink = Locked(Sink())
    }

    /// Takes one report: the epoch before it is written when this one has another time.
    ///
    /// - Throws: ``CommandFailure`` when the file cannot be written (disk full, …).
    func record(_ fix: Fix) throws {
        try sink.withLock { sink throws in
            guard !sink.finished else { return }
            for completed in sink.epochs.take(fix) {
                if completed.hasPosition {
                    try write(completed, to: &sink)
                } else {
                    // The fix was lost (or the connection): the GPX writer ends the segment, the
                    // NMEA writer logs the receiver's no-fix epoch (a reader starts a new segment
                    // there too). Before the first fix there is no segment to end, nor a file.
                    try Self.failing(path) {
                        try sink.gpx?.write(completed)
                        try sink.nmea?.write(completed)
                    }
                }
            }
        }
    }

    /// Writes the epoch in progress and closes the file. Idempotent.
    ///
    /// - Returns: How many fixes the file holds.
    @discardableResult
    func finish() throws -> Int {
        try sink.withLock { sink throws in
            guard !sink.finished else { return sink.written }
            if let last = sink.epochs.finish() { try write(last, to: &sink) }
            sink.finished = true
            try Self.failing(path) {
                try sink.gpx?.finish()
                try sink.nmea?.finish()
            }
            return sink.written
        }
    }

    /// ``finish()``, then says on standard error how many fixes went where, or that nothing was
    /// recorded and the file was left as it was (or not created).
    ///
    /// - Parameter beforeError: Whether an error ended the run: its message comes next, and says
    ///   why (gpsd not listening is not "no fix received").
    func finishSaying(beforeError: Bool = false) throws {
        let written = try finish()
        let when = beforeError ? " before the error below" : ""
        guard written == 0 else {
            Terminal.err("locsim: recorded \(PeopleText.count(written, "fix", "fixes")) to \(path)\(when)")
            return
        }
        let kept = FileManager.default.fileExists(atPath: path) ? "\(path) was left as it was" : "\(path) was not created"
        Terminal.err("locsim: nothing recorded\(beforeError ? when : " (no fix received)"); \(kept)")
    }

    /// Writes one fix, creating the file for the first.
    private func write(_ fix: Fix, to sink: inout Sink) throws {
        let creating = sink.gpx == nil && sink.nmea == nil
        do {
            try Self.failing(
                path,
                hint: sink.written == 0
                    ? "check that the folder exists, is writable and has room"
                    : "the fixes recorded before it are kept; check the disk's free space"
            ) {
                if creating {
                    switch format {
                    case .gpx: sink.gpx = try GPXWriter(recordingTo: path, layout: .track)
                    case .nmea: sink.nmea = try NMEAFileWriter(recordingTo: path, options: .gpsdRecording())
                    }
                }
                try sink.gpx?.write(fix, horizontalAccuracyPerHDOP: NMEALog.horizontalAccuracyPerHDOP)
                try sink.nmea?.write(fix)
            }
        } catch {
            // The first fix could not be written (a full disk): the file made for it holds
            // nothing (a failed write is cut back), and an empty recording is no recording.
            if sink.written == 0 { Self.removeIfEmpty(path) }
            throw error
        }
        sink.written += 1
    }

    /// Removes the regular file at `path` when it is empty.
    private static func removeIfEmpty(_ path: String) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 { unlink(path) }
    }

    /// Runs a write, reporting a failure as ``CommandFailure`` naming the path.
    private static func failing(_ path: String, hint: String? = nil, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as GPXWriteError {
            throw CommandFailure("cannot record to \(path): \(error.reason)", hint: hint)
        } catch let error as NMEAError {
            throw CommandFailure("cannot record to \(path): \(error.message)", hint: hint)
        }
    }
}
