public import LocationCore

/// Reads NMEA 0183 text in chunks of any size and assembles one ``/LocationCore/Fix`` per measurement epoch.
///
/// Feed bytes with ``read(_:)`` as they arrive (a file in 64 KiB pieces, a socket, a whole
/// string) and call ``finish()`` at the end. Memory stays flat: the reader keeps one partial
/// line (at most ``Options/maximumLineLength`` bytes) and one epoch.
///
/// Decoded: RMC, GGA, VTG, GSA and GSV from any two-letter talker (`GP`, `GN`, `GL`, `GA`, `GB`,
/// `BD`, …), with `*hh` checksums and CR LF, LF or CR line endings. The epoch rules (which
/// sentences merge into one fix, where the date comes from) are described in docs/reference/nmea.md and
/// summarised here: RMC and GGA with the same time of day form one epoch, VTG and GSA join the
/// epoch in progress, RMC supplies the date, GGA the altitude, GSA the 2D/3D mode, RMC (else
/// VTG) speed and course. A fix is returned when the next epoch begins or at ``finish()``, with
/// the receiver's sky as its GSV and GSA told it (``/LocationCore/Fix/receiver``), as gpsd reads it.
///
/// In ``Options/Mode/strict`` mode the first bad line throws. In ``Options/Mode/lenient`` mode
/// it is skipped and counted per ``NMEAError/Code`` in ``statistics``.
///
/// ```swift
/// var reader = NMEAReader(options: .lenient)
/// var fixes = try reader.read(Array("$GPRMC,…*hh\r\n$GPGGA,…*hh\r\n".utf8))
/// fixes += try reader.finish()
/// print(reader.statistics.skipped)   // [badChecksum: 1]
/// ```
public struct NMEAReader: Sendable {
    /// How the reader treats input.
    public struct Options: Sendable, Hashable {
        /// What happens to a bad line.
        public enum Mode: Sendable, Hashable {
            /// Throw ``NMEAError`` at the first problem.
            case strict
            /// Skip the offending sentence (or line) and count it in ``Statistics/skipped``.
            case lenient
        }

        /// Strict or lenient.
        public var mode: Mode
        /// Whether a sentence without `*hh` is an error (``NMEAError/Code/missingChecksum``).
        /// Default `true`. A checksum that is present is always verified.
        public var requiresChecksum: Bool = true
        /// Whether lines starting with `#` are comments (the convention of gpsd's test logs).
        /// Default `true`; when `false` such lines are ``NMEAError/Code/unexpectedBytes``.
        public var allowsCommentLines: Bool = true
        /// The longest line accepted, in bytes (NMEA allows 82; receivers exceed it). Longer
        /// lines are ``NMEAError/Code/lineTooLong`` and never held in memory whole. Default 4096.
        public var maximumLineLength: Int = 4096
        /// The UTC date of epochs that arrive before the first RMC. Default `nil`: such epochs
        /// are ``NMEAError/Code/missingDate``.
        public var initialDate: NMEADate?
        /// An explicit DOP → accuracy conversion. Default `nil`: fixes have no accuracies, since
        /// NMEA sends none.
        public var accuracyModel: NMEAAccuracyModel?
        /// The ``/LocationCore/Fix/source`` of every fix. Default ``/LocationCore/FixSource/nmea``.
        public var source: FixSource = .nmea
        /// A name for the input (usually its path) that errors repeat. Default `nil`.
        public var sourceName: String?

        /// Creates options; see each property for its default.
        public init(
            mode: Mode, requiresChecksum: Bool = true, allowsCommentLines: Bool = true,
            maximumLineLength: Int = 4096, initialDate: NMEADate? = nil,
            accuracyModel: NMEAAccuracyModel? = nil, source: FixSource = .nmea, sourceName: String? = nil
        ) {
            self.mode = mode
            self.requiresChecksum = requiresChecksum
            self.allowsCommentLines = allowsCommentLines
            self.maximumLineLength = max(16, maximumLineLength)
            self.initialDate = initialDate
            self.accuracyModel = accuracyModel
            self.source = source
            self.sourceName = sourceName
        }

        /// Throw at the first problem; every other option at its default.
        public static var strict: Options { Options(mode: .strict) }
        /// Skip and count problems; every other option at its default.
        public static var lenient: Options { Options(mode: .lenient) }
    }

    /// What the reader has seen so far.
    public struct Statistics: Sendable, Hashable {
        /// Lines read (including blank and comment lines).
        public var lines = 0
        /// Sentences decoded (RMC, GGA, VTG, GSA, GSV).
        public var sentences = 0
        /// Decoded RMC or GGA sentences with an empty time field, which cannot join an epoch
        /// and so were not used (receivers send them before their first fix).
        public var sentencesWithoutTime = 0
        /// Fixes returned.
        public var fixes = 0
        /// Skipped sentences, lines or epochs per error code (lenient mode only).
        public var skipped: [NMEAError.Code: Int] = [:]
        /// The first ``maximumKeptErrors`` errors behind ``skipped``, in input order.
        public var firstErrors: [NMEAError] = []
        /// How many errors ``firstErrors`` keeps.
        public static let maximumKeptErrors = 20

        /// Whether any line held an NMEA sentence, decoded or not (of a type this module does not
        /// decode, or damaged): false for empty input and for another format.
        public var heldSentences: Bool {
            sentences + sentencesWithoutTime > 0 || skipped.keys.contains { $0 != .unexpectedBytes && $0 != .lineTooLong }
        }

        /// The sum of ``skipped``.
        public var totalSkipped: Int { skipped.values.reduce(0, +) }

        /// ``skipped`` without the sentences of a type this module does not decode (every real
        /// log has them): the damaged ones, by reason.
        public var damaged: [NMEAError.Code: Int] {
            var damaged = skipped
            damaged[.unsupportedSentence] = nil
            return damaged
        }

        /// Empty statistics (all counts zero).
        init() {}
    }

    /// The options the reader was created with.
    public let options: Options
    /// Counts so far; complete after ``finish()``.
    public private(set) var statistics = Statistics()
    /// For each fix the last ``read(_:)`` or ``finish()`` returned, the line of the sentence that
    /// opened its epoch (its first RMC or GGA; 1-based): where a warning about the fix points.
    package private(set) var fixLines: [Int] = []

    private var line: [UInt8] = []
    private var lineOverflow = false
    private var lastWasCR = false
    private var assembler: EpochAssembler
    private var fieldRanges: [Range<Int>] = []

    /// Creates a reader.
    /// - Parameter options: strict or lenient, and the other ``Options``.
    public init(options: Options = .strict) {
        self.options = options
        assembler = EpochAssembler(
            source: options.source, accuracyModel: options.accuracyModel, initialDate: options.initialDate)
        line.reserveCapacity(min(options.maximumLineLength, 256))
        fieldRanges.reserveCapacity(32)
    }

    /// Reads the next chunk of input.
    ///
    /// A chunk may end anywhere, even inside a sentence or between CR and LF.
    ///
    /// - Parameter bytes: the next bytes of the input (a `Data`, an `[UInt8]`, a slice).
    /// - Returns: the fixes whose epochs this chunk completed, in input order.
    /// - Throws: ``NMEAError`` in strict mode, naming the line, column, field and sentence. The
    ///   reader must not be used after it throws.
    public mutating func read(_ bytes: some Sequence<UInt8>) throws(NMEAError) -> [Fix] {
        var fixes: [Fix] = []
        fixLines.removeAll(keepingCapacity: true)
        let fast: NMEAError?? = bytes.withContiguousStorageIfAvailable { buffer in
            consumeContiguous(buffer, into: &fixes)
        }
        let failure: NMEAError?
        if let fast {
            failure = fast
        } else {
            failure = consume(bytes, into: &fixes)
        }
        if let failure { throw failure }
        return fixes
    }

    /// Ends the input: a last line without a line ending is read (and is
    /// ``NMEAError/Code/truncated`` if its sentence was cut short), and the epoch in progress
    /// is completed.
    ///
    /// - Returns: the remaining fixes.
    /// - Throws: ``NMEAError`` in strict mode.
    public mutating func finish() throws(NMEAError) -> [Fix] {
        var fixes: [Fix] = []
        fixLines.removeAll(keepingCapacity: true)
        if !line.isEmpty || lineOverflow {
            if let failure = endLine(terminated: false, into: &fixes) { throw failure }
        }
        if let outcome = assembler.finish(), let failure = accept(outcome, into: &fixes) { throw failure }
        return fixes
    }

    // MARK: - Lines

    /// The fast path: copies whole line segments instead of single bytes.
    private mutating func consumeContiguous(_ bytes: UnsafeBufferPointer<UInt8>, into fixes: inout [Fix]) -> NMEAError? {
        let limit = options.maximumLineLength
        var i = 0
        let count = bytes.count
        while i < count {
            var j = i
            while j < count, bytes[j] != 0x0A, bytes[j] != 0x0D { j += 1 }
            if j > i {
                lastWasCR = false
                let room = limit - line.count
                if j - i <= room {
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<j]))
                } else {
                    if room > 0 { line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + room)])) }
                    lineOverflow = true
                }
            }
            if j == count { break }
            let byte = bytes[j]
            i = j + 1
            if byte == 0x0A && lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 0x0D
            if let failure = endLine(terminated: true, into: &fixes) { return failure }
        }
        return nil
    }

    private mutating func consume(_ bytes: some Sequence<UInt8>, into fixes: inout [Fix]) -> NMEAError? {
        let limit = options.maximumLineLength
        for byte in bytes {
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0A && lastWasCR {
                    lastWasCR = false
                    continue
                }
                lastWasCR = byte == 0x0D
                if let failure = endLine(terminated: true, into: &fixes) { return failure }
            } else {
                lastWasCR = false
                if line.count < limit {
                    line.append(byte)
                } else {
                    lineOverflow = true
                }
            }
        }
        return nil
    }

    /// Processes the accumulated line. Returns the error to throw in strict mode.
    private mutating func endLine(terminated: Bool, into fixes: inout [Fix]) -> NMEAError? {
        statistics.lines += 1
        var bytes: [UInt8] = []
        swap(&bytes, &line)
        defer {
            bytes.removeAll(keepingCapacity: true)
            swap(&bytes, &line)
            lineOverflow = false
        }
        let lineNumber = statistics.lines
        if lineOverflow {
            let error = NMEAError(
                .lineTooLong, message: "line longer than \(options.maximumLineLength) bytes",
                source: options.sourceName, line: lineNumber, column: options.maximumLineLength + 1,
                sentence: NMEAError.excerpt(bytes.prefix(200)))
            return report(error)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            processLine(buffer, number: lineNumber, terminated: terminated, into: &fixes)
        }
    }

    private mutating func processLine(
        _ all: UnsafeBufferPointer<UInt8>, number: Int, terminated: Bool, into fixes: inout [Fix]
    ) -> NMEAError? {
        // A UTF-8 byte order mark, which a Windows editor writes at the start of a saved log, is
        // the file's encoding, not noise before its first sentence.
        var start = number == 1 && all.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var end = all.count
        while start < end, all[start].isASCIIBlank { start += 1 }
        while end > start, all[end - 1].isASCIIBlank { end -= 1 }
        if start == end { return nil }
        if options.allowsCommentLines, all[start] == UInt8(ascii: "#") { return nil }

        // Every '$' or '!' starts a sentence; text before the first is noise.
        func nextStart(after i: Int) -> Int? {
            var j = i
            while j < end {
                if all[j] == SentenceParser.dollar || all[j] == SentenceParser.bang { return j }
                j += 1
            }
            return nil
        }
        guard let first = nextStart(after: start) else {
            return report(
                NMEAError(
                    .unexpectedBytes, message: "no sentence ('$') on this line", source: options.sourceName,
                    line: number, column: start + 1, sentence: NMEAError.excerpt(UnsafeBufferPointer(rebasing: all[start..<end]))))
        }
        if first > start {
            let noise = NMEAError(
                .unexpectedBytes, message: "\(first - start) byte(s) before the first '$'",
                source: options.sourceName, line: number, column: start + 1,
                sentence: NMEAError.excerpt(UnsafeBufferPointer(rebasing: all[start..<end])))
            if let failure = report(noise) { return failure }
        }
        var next: Int? = first
        while let sentenceStart = next {
            let following = nextStart(after: sentenceStart + 1)
            next = following
            let isLast = following == nil
            var sentenceEnd = following ?? end
            while sentenceEnd > sentenceStart, all[sentenceEnd - 1].isASCIIBlank {
                sentenceEnd -= 1
            }
            let text = UnsafeBufferPointer(rebasing: all[sentenceStart..<sentenceEnd])
            if text.count == 1 && !isLast {
                // `$$GPRMC,…`: a stray start character, not a sentence.
                let stray = NMEAError(
                    .unexpectedBytes, message: "stray '\(Character(Unicode.Scalar(text[0])))' before a sentence",
                    source: options.sourceName, line: number, column: sentenceStart + 1,
                    sentence: NMEAError.excerpt(UnsafeBufferPointer(rebasing: all[start..<end])))
                if let failure = report(stray) { return failure }
                continue
            }
            let cutShort = !isLast || !terminated
            let sentence: NMEASentence
            do throws(NMEAError) {
                sentence = try SentenceParser.parse(
                    text, cutShort: cutShort, requiresChecksum: options.requiresChecksum, fields: &fieldRanges)
            } catch {
                if let failure = report(error.located(source: options.sourceName, line: number, columnOffset: sentenceStart)) {
                    return failure
                }
                continue
            }
            statistics.sentences += 1
            switch sentence {
            case .rmc(let s) where s.time == nil: statistics.sentencesWithoutTime += 1
            case .gga(let s) where s.time == nil: statistics.sentencesWithoutTime += 1
            default: break
            }
            if let outcome = assembler.add(sentence, line: number, text: NMEAError.excerpt(text)),
                let failure = accept(outcome, into: &fixes)
            {
                return failure
            }
        }
        return nil
    }

    private mutating func accept(_ outcome: Result<Fix, NMEAError>, into fixes: inout [Fix]) -> NMEAError? {
        switch outcome {
        case .success(let fix):
            statistics.fixes += 1
            fixes.append(fix)
            fixLines.append(assembler.lastEpochLine)
            return nil
        case .failure(let error):
            return report(
                NMEAError(
                    error.code, message: error.message, source: options.sourceName, line: error.line,
                    column: error.column, field: error.field, sentence: error.sentence))
        }
    }

    /// Strict: returns the error to throw. Lenient: counts it and returns `nil`.
    private mutating func report(_ error: NMEAError) -> NMEAError? {
        switch options.mode {
        case .strict:
            return error
        case .lenient:
            statistics.skipped[error.code, default: 0] += 1
            if statistics.firstErrors.count < Statistics.maximumKeptErrors { statistics.firstErrors.append(error) }
            return nil
        }
    }
}

/// The fixes of a whole input and what the reader saw on the way.
public struct NMEAReadResult: Sendable, Hashable {
    /// Every fix, in input order.
    public var fixes: [Fix]
    /// Counts, including what lenient mode skipped.
    public var statistics: NMEAReader.Statistics
}

extension NMEAReader {
    /// Reads a whole string of NMEA text.
    ///
    /// - Parameters:
    ///   - text: NMEA sentences, one per line.
    ///   - options: strict or lenient, and the other ``Options``.
    /// - Returns: every fix and the statistics.
    /// - Throws: ``NMEAError`` in strict mode.
    public static func fixes(in text: String, options: Options = .strict) throws(NMEAError) -> NMEAReadResult {
        try fixes(in: text.utf8, options: options)
    }

    /// Reads whole NMEA input held in memory (`Data`, `[UInt8]`, `String.UTF8View`).
    ///
    /// - Parameters:
    ///   - bytes: NMEA sentences, one per line.
    ///   - options: strict or lenient, and the other ``Options``.
    /// - Returns: every fix and the statistics.
    /// - Throws: ``NMEAError`` in strict mode.
    public static func fixes(in bytes: some Sequence<UInt8>, options: Options = .strict) throws(NMEAError)
        -> NMEAReadResult
    {
        var reader = NMEAReader(options: options)
        var fixes = try reader.read(bytes)
        fixes += try reader.finish()
        return NMEAReadResult(fixes: fixes, statistics: reader.statistics)
    }

    /// Reads a whole file, streamed in 64 KiB chunks; see ``NMEAFileReader`` to process the
    /// fixes one at a time without keeping them.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - options: strict or lenient, and the other ``Options``; a `nil`
    ///     ``Options/sourceName`` becomes `path`.
    /// - Returns: every fix and the statistics.
    /// - Throws: ``NMEAError`` (``NMEAError/Code/io`` when the file cannot be read).
    public static func fixes(contentsOfFile path: String, options: Options = .strict) throws(NMEAError)
        -> NMEAReadResult
    {
        var file = try NMEAFileReader(path: path, options: options)
        var fixes: [Fix] = []
        while let fix = try file.next() { fixes.append(fix) }
        return NMEAReadResult(fixes: fixes, statistics: file.statistics)
    }
}
