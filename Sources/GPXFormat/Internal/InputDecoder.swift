import LocationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads raw bytes from a file or from memory and hands them on as UTF-8, transcoding chunk by
/// chunk (the rules are on ``GPXTextEncoding``). Memory is one staging buffer of about a chunk.
final class InputDecoder {
    enum Source {
        case file(Int32)
        case memory([UInt8])
    }

    enum Failure: Error {
        /// A declared encoding that is not read, with the location of its name.
        case unsupported(String, line: Int, column: Int)
        /// Bytes that are not text in the encoding, right after everything decoded so far.
        case invalid(String)
        case truncated(String)
        case io(String)
    }

    private enum Mode {
        case undetected
        /// UTF-8, trusted (declared, a BOM, or text handed over as a Swift string).
        case utf8
        /// UTF-8 by default (nothing declared): checked, and windows-1252 from the first byte
        /// sequence that is not UTF-8.
        case utf8Checked
        case latin1
        case windows1252
        case utf16(bigEndian: Bool)
    }

    private var source: Source
    private var memoryOffset = 0
    private var mode: Mode
    /// The encoding being decoded (`nil` until the first bytes were read).
    private(set) var encoding: GPXTextEncoding?
    private var staging: UnsafeMutablePointer<UInt8>
    private var stagingCapacity: Int
    /// Raw bytes read but not yet decoded: `staging[rawStart..<rawEnd]`.
    private var rawStart = 0
    private var rawEnd = 0
    private var sourceEnded = false

    /// - Parameter path: the file's path, when `source` is a file.
    /// - Parameter readsDeclaration: `false` for text that is UTF-8 whatever it declares (a Swift
    ///   string's bytes).
    /// The file's path, for the command that unpacks a compressed one (``FileSignature``).
    private let path: String?

    init(source: Source, readsDeclaration: Bool, path: String? = nil) {
        self.source = source
        self.path = path
        self.mode = readsDeclaration ? .undetected : .utf8
        if !readsDeclaration { encoding = .utf8 }
        stagingCapacity = 4096
        staging = .allocate(capacity: stagingCapacity)
    }

    deinit {
        if case .file(let fd) = source { close(fd) }
        staging.deallocate()
    }

    // MARK: Raw input

    private func readRaw(into destination: UnsafeMutablePointer<UInt8>, max: Int) throws(Failure) -> Int {
        switch source {
        case .file(let fd):
            do {
                return try SystemIO.read(fd, into: UnsafeMutableRawBufferPointer(start: destination, count: max))
            } catch {
                throw .io(error.description)
            }
        case .memory(let bytes):
            let n = min(max, bytes.count - memoryOffset)
            if n > 0 {
                bytes.withUnsafeBufferPointer { destination.update(from: $0.baseAddress! + memoryOffset, count: n) }
                memoryOffset += n
            }
            return n
        }
    }

    /// Reads up to `count` more raw bytes into the staging buffer. Returns `false` at the end.
    private func stage(_ count: Int) throws(Failure) -> Bool {
        if rawStart > 0 {
            (staging).update(from: staging + rawStart, count: rawEnd - rawStart)
            rawEnd -= rawStart
            rawStart = 0
        }
        if stagingCapacity - rawEnd < count {
            let newCapacity = max(stagingCapacity * 2, rawEnd + count)
            let newStaging = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newStaging.update(from: staging, count: rawEnd)
            staging.deallocate()
            staging = newStaging
            stagingCapacity = newCapacity
        }
        let n = try readRaw(into: staging + rawEnd, max: count)
        if n == 0 {
            sourceEnded = true
            return false
        }
        rawEnd += n
        return true
    }

    // MARK: Decoding

    /// Decodes more input as UTF-8 into `out` (room for `capacity` ≥ 8 bytes), reading about
    /// `want` raw bytes at a time. Returns the number of bytes written; 0 only at the end.
    func decode(into out: UnsafeMutablePointer<UInt8>, capacity: Int, want: Int) throws(Failure) -> Int {
        if case .undetected = mode { try detect(want: want) }
        if case .utf8 = mode {
            if rawStart < rawEnd {
                let n = min(rawEnd - rawStart, capacity)
                out.update(from: staging + rawStart, count: n)
                rawStart += n
                return n
            }
            return try readRaw(into: out, max: min(want, capacity))
        }
        while true {
            if rawEnd - rawStart < 4 && !sourceEnded { _ = try stage(want) }
            let written = try convert(into: out, capacity: capacity)
            if written > 0 { return written }
            guard sourceEnded else { continue }
            guard rawStart < rawEnd else { return 0 }
            switch mode {
            case .utf8Checked:
                // An incomplete UTF-8 sequence at the very end is not UTF-8 either.
                switchToWindows1252()
            case .utf16:
                throw .truncated("input ended inside a UTF-16 character")
            default:
                return 0
            }
        }
    }

    private func switchToWindows1252() {
        mode = .windows1252
        encoding = .windows1252
    }

    private func convert(into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws(Failure) -> Int {
        switch mode {
        case .utf8Checked: return checkUTF8(into: out, capacity: capacity)
        case .latin1, .windows1252: return convertSingleByte(into: out, capacity: capacity)
        case .utf16(let bigEndian): return try convertUTF16(into: out, capacity: capacity, bigEndian: bigEndian)
        case .undetected, .utf8: return 0
        }
    }

    /// Copies the longest run of valid UTF-8; at the first invalid sequence switches to
    /// windows-1252 and goes on converting.
    private func checkUTF8(into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        // Locals, not properties, in the loop: no exclusivity checks per byte.
        let base = staging
        let end = rawEnd
        let limit = min(end, rawStart + capacity)
        let ended = sourceEnded
        var i = rawStart
        var invalid = false
        scan: while i < limit {
            // Plain ASCII, 32 bytes at a time.
            while i + 32 <= limit {
                let p = UnsafeRawPointer(base + i)
                let w =
                    p.loadUnaligned(as: UInt64.self) | p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | p.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                if w & 0x8080_8080_8080_8080 != 0 { break }
                i += 32
            }
            guard i < limit else { break }
            if base[i] < 0x80 {
                i += 1
                continue
            }
            switch Self.utf8Sequence(base, at: i, end: end) {
            case .valid(let length):
                if i + length > limit { break scan }
                i += length
            case .incomplete:
                if ended { invalid = true }
                break scan
            case .invalid:
                invalid = true
                break scan
            }
        }
        let n = i - rawStart
        out.update(from: base + rawStart, count: n)
        rawStart = i
        guard invalid else { return n }
        switchToWindows1252()
        return n + convertSingleByte(into: out + n, capacity: capacity - n)
    }

    private enum Sequence { case valid(Int), incomplete, invalid }

    /// The UTF-8 sequence starting with the non-ASCII byte at `i` (RFC 3629: no overlong forms,
    /// no surrogates, nothing above U+10FFFF).
    private static func utf8Sequence(_ bytes: UnsafeMutablePointer<UInt8>, at i: Int, end: Int) -> Sequence {
        let b = bytes[i]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch b {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return .invalid
        }
        for k in 1..<length {
            guard i + k < end else { return .incomplete }
            let c = bytes[i + k]
            let (lo, hi): (UInt8, UInt8) = k == 1 ? (low, high) : (0x80, 0xBF)
            guard c >= lo && c <= hi else { return .invalid }
        }
        return .valid(length)
    }

    /// windows-1252's 0x80...0x9F (the five unassigned bytes are the C1 controls of the same number).
    private static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x009D, 0x017E, 0x0178,
    ]

    private func convertSingleByte(into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        let isWindows1252 = if case .windows1252 = mode { true } else { false }
        let base = staging
        let end = rawEnd
        var i = rawStart
        var o = 0
        while i < end && o + 3 <= capacity {
            let b = base[i]
            i += 1
            if b < 0x80 {
                out[o] = b
                o += 1
                continue
            }
            let scalar = isWindows1252 && b < 0xA0 ? UInt32(Self.windows1252High[Int(b) - 0x80]) : UInt32(b)
            o += Self.encode(scalar, into: out + o)
        }
        rawStart = i
        return o
    }

    private func convertUTF16(into out: UnsafeMutablePointer<UInt8>, capacity: Int, bigEndian: Bool) throws(Failure)
        -> Int
    {
        let base = staging
        let end = rawEnd
        var i = rawStart
        var o = 0
        func unit(_ at: Int) -> UInt32 {
            bigEndian ? UInt32(base[at]) << 8 | UInt32(base[at + 1]) : UInt32(base[at + 1]) << 8 | UInt32(base[at])
        }
        while i + 2 <= end && o + 4 <= capacity {
            let u = unit(i)
            var scalar = u
            var length = 2
            if u >= 0xD800 && u <= 0xDBFF {
                guard i + 4 <= end else { break }
                let v = unit(i + 2)
                guard v >= 0xDC00 && v <= 0xDFFF else {
                    // Hand over what came before first, so earlier errors are found first.
                    rawStart = i
                    if o > 0 { return o }
                    throw .invalid("a UTF-16 high surrogate not followed by a low one")
                }
                scalar = 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00)
                length = 4
            } else if u >= 0xDC00 && u <= 0xDFFF {
                rawStart = i
                if o > 0 { return o }
                throw .invalid("a UTF-16 low surrogate without a high one before it")
            }
            if scalar < 0x80 {
                out[o] = UInt8(scalar)
                o += 1
            } else {
                o += Self.encode(scalar, into: out + o)
            }
            i += length
        }
        rawStart = i
        return o
    }

    /// Writes `scalar` as UTF-8; returns the number of bytes (1...4).
    @inline(__always)
    private static func encode(_ scalar: UInt32, into out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    // MARK: Detection

    /// The longest XML declaration looked at for its encoding.
    private static let declarationLimit = 1024

    private func detect(want: Int) throws(Failure) {
        while rawEnd < 4, try stage(max(want, 4 - rawEnd)) {}
        func starts(with prefix: [UInt8]) -> Bool {
            rawEnd >= prefix.count && (0..<prefix.count).allSatisfy { staging[$0] == prefix[$0] }
        }
        func use(_ newMode: Mode, _ newEncoding: GPXTextEncoding, skipping bytes: Int = 0) {
            mode = newMode
            encoding = newEncoding
            rawStart = bytes
        }
        if let packed = FileSignature.packed(UnsafeBufferPointer(start: staging, count: min(rawEnd, 4))) {
            throw .invalid(packed.message(path: path))
        } else if starts(with: [0xEF, 0xBB, 0xBF]) {
            use(.utf8, .utf8, skipping: 3)
        } else if starts(with: [0x00, 0x00, 0xFE, 0xFF]) || starts(with: [0xFF, 0xFE, 0x00, 0x00])
            || starts(with: [0x00, 0x00, 0x00, 0x3C]) || starts(with: [0x3C, 0x00, 0x00, 0x00])
        {
            throw .unsupported("UTF-32", line: 1, column: 1)
        } else if starts(with: [0xFE, 0xFF]) {
            use(.utf16(bigEndian: true), .utf16BigEndian, skipping: 2)
        } else if starts(with: [0xFF, 0xFE]) {
            use(.utf16(bigEndian: false), .utf16LittleEndian, skipping: 2)
        } else if starts(with: [0x00, 0x3C, 0x00, 0x3F]) {
            use(.utf16(bigEndian: true), .utf16BigEndian)
        } else if starts(with: [0x3C, 0x00, 0x3F, 0x00]) {
            use(.utf16(bigEndian: false), .utf16LittleEndian)
        } else {
            try readDeclaration(want: want)
        }
    }

    /// The `encoding` of an XML declaration in ASCII-compatible bytes, or UTF-8 checked when
    /// there is none.
    private func readDeclaration(want: Int) throws(Failure) {
        mode = .utf8Checked
        encoding = .utf8
        let opening = Array("<?xml".utf8)
        while rawEnd < opening.count + 1, try stage(max(want, 1)) {}
        guard rawEnd > opening.count, (0..<opening.count).allSatisfy({ staging[$0] == opening[$0] }),
            staging[opening.count].isASCIIWhitespace
        else { return }
        var close: Int?
        var searched = opening.count
        while close == nil {
            while searched + 1 < rawEnd {
                if staging[searched] == UInt8(ascii: "?") && staging[searched + 1] == UInt8(ascii: ">") {
                    close = searched
                    break
                }
                searched += 1
            }
            if close != nil || rawEnd >= Self.declarationLimit { break }
            guard try stage(max(want, 1)) else { break }
        }
        guard let close else { return }
        let declaration = UnsafeBufferPointer(start: staging, count: close)
        guard let value = pseudoAttribute("encoding", in: declaration, from: opening.count) else { return }
        let label = String(decoding: UnsafeBufferPointer(rebasing: declaration[value]), as: UTF8.self)
        switch label.lowercased() {
        case "utf-8", "utf8", "us-ascii", "ascii", "iso646-us", "ansi_x3.4-1968":
            mode = .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "latin-1", "l1", "iso-ir-100",
            "cp819", "ibm819", "csisolatin1":
            mode = .latin1
            encoding = .isoLatin1
        case "windows-1252", "cp1252", "x-cp1252", "cswindows1252":
            mode = .windows1252
            encoding = .windows1252
        case "utf-16", "utf16", "utf-16le", "utf-16be", "ucs-2":
            // The bytes are 8-bit (this declaration was read as ASCII): the label is wrong.
            break
        default:
            var line = 1
            var lineStart = 0
            for i in 0..<value.lowerBound where staging[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            throw .unsupported(label, line: line, column: value.lowerBound - lineStart + 1)
        }
    }
}

/// The value range of the pseudo-attribute `name` (`encoding="UTF-8"`) in the text of an XML
/// declaration, scanning `name="value"` pairs from `from`.
func pseudoAttribute(_ name: String, in text: UnsafeBufferPointer<UInt8>, from: Int) -> Range<Int>? {
    let wanted = Array(name.utf8)
    var i = from
    while i < text.count {
        while i < text.count, text[i].isASCIIWhitespace { i += 1 }
        let nameStart = i
        while i < text.count, !text[i].isASCIIWhitespace, text[i] != UInt8(ascii: "=") { i += 1 }
        let nameEnd = i
        while i < text.count, text[i].isASCIIWhitespace { i += 1 }
        guard i < text.count, text[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        while i < text.count, text[i].isASCIIWhitespace { i += 1 }
        guard i < text.count, text[i] == UInt8(ascii: "\"") || text[i] == UInt8(ascii: "'") else { return nil }
        let quote = text[i]
        let valueStart = i + 1
        guard let close = text[valueStart...].firstIndex(of: quote) else { return nil }
        if text[nameStart..<nameEnd].elementsEqual(wanted) { return valueStart..<close }
        i = close + 1
    }
    return nil
}
