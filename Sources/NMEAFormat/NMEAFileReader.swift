#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
public import LocationCore

/// Streams the fixes of an NMEA file one at a time, reading it in 64 KiB chunks.
///
/// Memory stays flat whatever the file size: one chunk, one partial line and the fixes of one
/// chunk. The file is closed when the reader goes away.
///
/// ```swift
/// var file = try NMEAFileReader(path: "drive.nmea", options: .lenient)
/// while let fix = try file.next() { print(fix.time, fix.coordinate as Any) }
/// print(file.statistics.skipped)
/// ```
public struct NMEAFileReader: ~Copyable {
    private let descriptor: Int32
    private let path: String
    private var reader: NMEAReader
    private var chunk: [UInt8]
    private var pending: [Fix] = []
    private var pendingLines: [Int] = []
    private var pendingIndex = 0
    private var atEnd = false
    /// Whether the file's first bytes were looked at (``FileSignature``).
    private var startChecked = false

    /// Opens `path` for reading.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - options: strict or lenient, and the other ``NMEAReader/Options``; a `nil`
    ///     ``NMEAReader/Options/sourceName`` becomes `path`.
    ///   - chunkSize: bytes per read, at least 1; default 64 KiB.
    /// - Throws: ``NMEAError/Code/io`` when the file cannot be opened.
    public init(path: String, options: NMEAReader.Options = .strict, chunkSize: Int = 65_536) throws(NMEAError) {
        var options = options
        if options.sourceName == nil { options.sourceName = path }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw NMEAError(.io, message: "cannot open: \(String(cString: strerror(errno)))", source: path)
        }
        descriptor = fd
        self.path = path
        reader = NMEAReader(options: options)
        chunk = [UInt8](repeating: 0, count: max(1, chunkSize))
    }

    deinit { close(descriptor) }

    /// The line of the sentence that opened the epoch of the fix ``next()`` last returned (its
    /// first RMC or GGA).
    package var lineOfLastFix: Int? {
        pendingIndex > 0 && pendingIndex <= pendingLines.count ? pendingLines[pendingIndex - 1] : nil
    }

    /// What the reader has seen so far; complete once ``next()`` has returned `nil`.
    public var statistics: NMEAReader.Statistics { reader.statistics }

    /// The next fix, or `nil` at the end of the file.
    ///
    /// - Throws: ``NMEAError`` in strict mode, ``NMEAError/Code/io`` when reading fails, and
    ///   ``NMEAError/Code/noSentences`` in either mode when the file's first bytes say it is
    ///   compressed (gzip, bzip2, xz, zstd), an archive (zip, 7-Zip) or UTF-16 text, naming it.
    public mutating func next() throws(NMEAError) -> Fix? {
        while pendingIndex == pending.count {
            if atEnd { return nil }
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            let count = try readChunk()
            if count == 0 {
                atEnd = true
                pending = try reader.finish()
            } else {
                if !startChecked {
                    startChecked = true
                    try checkStart(chunk[0..<count])
                }
                pending = try reader.read(chunk[0..<count])
            }
            pendingLines = reader.fixLines
        }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    /// Throws when the file, read to its end, held no NMEA sentence at all (see
    /// ``NMEAReader/Statistics/heldSentences``): a lenient read would otherwise give no fixes and
    /// no error for an empty file or a GPX file named `.nmea`. A log of a receiver that never had
    /// a fix holds sentences and passes.
    ///
    /// - Throws: ``NMEAError/Code/noSentences``, naming the file and what its first line looks like.
    public func requireSentences() throws(NMEAError) {
        let statistics = reader.statistics
        guard atEnd, !statistics.heldSentences else { return }
        let first = statistics.firstErrors.first?.sentence ?? ""
        guard statistics.lines > 0 else { throw NMEAError(.noSentences, message: "the file is empty: no NMEA sentence", source: path) }
        let looks =
            first.hasPrefix("<") ? ": its first line looks like XML (a GPX file? name it .gpx)"
            : first.hasPrefix("{") ? ": its first line looks like JSON (gpsd's reports? record NMEA with 'gpspipe -r')" : ""
        throw NMEAError(
            .noSentences, message: "no NMEA sentence in \(statistics.lines) \(statistics.lines == 1 ? "line" : "lines")\(looks)", source: path)
    }

    /// Throws when the file, read to its end, held sentences but every one was damaged (a bad
    /// checksum, cut off, a bad field): nothing of it could be read, though it is NMEA, which
    /// ``requireSentences()`` lets pass. Sentences of types the reader does not decode count as
    /// read, as does a receiver's sentence without a fix.
    ///
    /// - Throws: ``NMEAError/Code/noSentences``, naming the file, the count by reason and the first.
    public func requireReadSentence() throws(NMEAError) {
        let statistics = reader.statistics
        let damaged = statistics.damaged
        let count = damaged.values.reduce(0, +)
        guard atEnd, statistics.sentences + statistics.sentencesWithoutTime + (statistics.skipped[.unsupportedSentence] ?? 0) == 0, count > 0 else {
            return
        }
        let reasons = damaged.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let first = statistics.firstErrors.first { $0.code != .unsupportedSentence }.map { "; the first: \($0)" } ?? ""
        throw NMEAError(
            .noSentences, message: "no sentence could be read: \(count) \(count == 1 ? "sentence" : "sentences"), each damaged (\(reasons))\(first)",
            source: path)
    }

    /// Refuses a file whose first bytes say it is compressed, an archive or UTF-16 text, naming
    /// what it is and how to read it, before its bytes are read as broken sentences (a lenient
    /// read would skip every line and give no fix).
    ///
    /// - Throws: ``NMEAError/Code/noSentences``.
    private func checkStart(_ bytes: ArraySlice<UInt8>) throws(NMEAError) {
        if let packed = FileSignature.packed(bytes) {
            throw NMEAError(.noSentences, message: packed.message(path: path), source: path)
        }
        if let message = FileSignature.utf16Message(bytes, path: path) {
            throw NMEAError(.noSentences, message: message, source: path)
        }
    }

    private mutating func readChunk() throws(NMEAError) -> Int {
        let fd = descriptor
        let result = chunk.withUnsafeMutableBytes { buffer -> Result<Int, SystemIOError> in
            do throws(SystemIOError) {
                return .success(try SystemIO.read(fd, into: buffer))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let count): return count
        case .failure(let error): throw NMEAError(.io, message: "read failed: \(error)", source: path)
        }
    }
}
