public import LocationCore

/// Writes fixes to an NMEA 0183 file one at a time, with flat memory: ``NMEAWriter``'s sentences
/// in a file, as ``NMEAFileReader`` reads them from one.
///
/// - ``init(path:options:)`` writes to a temporary file beside `path`, renamed into place by
///   ``finish()``: an error or a crash never leaves a half-written log at `path`.
/// - ``init(recordingTo:options:)`` writes in place, each fix's sentences reaching the file at
///   once: however the recording stops (Ctrl-C, a crash), the file holds every fix written.
///
/// ```swift
/// let file = try NMEAFileWriter(path: "drive.nmea", options: .gpsd())
/// for try await fix in provider { try file.write(fix) }
/// try file.finish()
/// ```
///
/// - Important: A writer is used by one task at a time.
public final class NMEAFileWriter {
    private enum Sink {
        case file(AtomicFile)
        case live(LiveFile)
    }

    private let sink: Sink
    private let writer: NMEAWriter
    private var finished = false

    /// Starts a file at `path` (written to `path` + a temporary suffix until ``finish()``).
    ///
    /// - Throws: ``NMEAError/Code/io`` naming the path when the temporary file cannot be created.
    public init(path: String, options: NMEAWriter.Options = NMEAWriter.Options()) throws(NMEAError) {
        writer = NMEAWriter(options: options)
        do {
            sink = .file(try AtomicFile(path: path))
        } catch {
            throw Self.failed(error)
        }
    }

    /// Starts a live recording at `path`, created or truncated, written in place.
    ///
    /// - Throws: ``NMEAError/Code/io`` naming the path when the file cannot be created.
    public init(recordingTo path: String, options: NMEAWriter.Options = NMEAWriter.Options()) throws(NMEAError) {
        writer = NMEAWriter(options: options)
        do {
            sink = .live(try LiveFile(path: path))
        } catch {
            throw Self.failed(error)
        }
    }

    /// Writes the sentences of one fix (a fix without a position as void sentences, as a
    /// receiver reports it).
    ///
    /// - Throws: ``NMEAError/Code/invalidValue`` for a fix NMEA cannot express (nothing is
    ///   written; see ``NMEAWriter/sentences(for:sky:)``), ``NMEAError/Code/io`` naming the path when
    ///   the file cannot be written.
    public func write(_ fix: Fix) throws(NMEAError) {
        var text = ""
        try writer.write(fix, to: &text)
        do {
            switch sink {
            case .file(let file): try file.write(text)
            case .live(let file): try file.append(Array(text.utf8))
            }
        } catch {
            throw Self.failed(error)
        }
    }

    /// Closes the file: renames it into place, or closes a live recording where it is. Once is
    /// enough; later calls do nothing.
    ///
    /// - Throws: ``NMEAError/Code/io`` naming the path.
    public func finish() throws(NMEAError) {
        guard !finished else { return }
        finished = true
        do {
            switch sink {
            case .file(let file): try file.commit()
            case .live(let file): try file.close()
            }
        } catch {
            throw Self.failed(error)
        }
    }

    /// The error for a file that cannot be written: the path, and the system's reason as the message.
    private static func failed(_ error: AtomicFileError) -> NMEAError {
        NMEAError(.io, message: error.reason, source: error.path)
    }
}

extension NMEAWriter.Options {
    /// How locsim writes NMEA for gpsd (`--record`, `simulate --out`, `nmea serve`, the feeds):
    /// GSA, GSV (for a fix written with a sky), RMC, DTM (for a fix whose receiver names a datum),
    /// GGA, VTG per epoch, HDOP from the accuracy by gpsd's model (``NMEAAccuracyModel/gpsd``),
    /// and a satellite count in GGA (gpsd 3.22 takes an empty one for "no fix").
    ///
    /// GSA comes first because gpsd 3.22 reports an epoch before a GSA that follows its RMC and
    /// GGA, with the previous GSA's DOPs: written last, every accuracy gpsd reports would be the
    /// epoch before's (measured: the field-test tests fail that way). Written first, gpsd reports
    /// each epoch with its own. ``NMEAReader`` takes the accuracy from GGA's HDOP, so it reads
    /// either order right; only the 2D/3D mode, which it takes from GSA, is then the next epoch's.
    /// DTM follows RMC because gpsd 3.22 starts a new report at an RMC of a new time: a datum
    /// named before it would be lost.
    public static func gpsd(satellitesInUse: Int = 8) -> Self {
        Self(sentences: [.gsa, .gsv, .rmc, .dtm, .gga, .vtg], accuracyModel: .gpsd, satellitesInUse: satellitesInUse)
    }

    /// ``gpsd(satellitesInUse:)`` for recording the fixes a receiver delivered (`--record
    /// FILE.nmea`): every DOP from the fix's own accuracy (``usesReceiverDilutions`` false), so
    /// that HDOP × 19 m reads back as the accuracy recorded. The receiver's sky that goes with a
    /// fix from gpsd can be the epoch before's (gpsd 3.22 sends a `SKY` after the `TPV` of its
    /// epoch for a receiver that sends GSA last): its DOPs would give each epoch the previous
    /// epoch's accuracy.
    public static func gpsdRecording(satellitesInUse: Int = 8) -> Self {
        var options = gpsd(satellitesInUse: satellitesInUse)
        options.usesReceiverDilutions = false
        return options
    }
}
