#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import LocationCore
public import NMEAFormat

extension LocationProvider {
    /// Records this provider's fixes as NMEA 0183 sentences (by default RMC, GGA, VTG and GSA per
    /// fix, talker `GP`, CR LF), until the stream ends or `limit` fixes have been read.
    ///
    /// Every fix is written, a no-fix one as void RMC/GGA/GSA sentences (as a receiver reports
    /// it). Text goes to a temporary file beside `path`, renamed into place when complete, so an
    /// error never leaves a half-written log; memory stays flat for long streams. Horizontal
    /// accuracy becomes HDOP only through `options.accuracyModel`.
    ///
    /// - Parameters:
    ///   - path: Where to write.
    ///   - options: The sentences, talker, accuracy model and line ending (``NMEAWriter/Options``).
    ///   - limit: Read at most this many fixes (≥ 0), or `nil` for the whole stream (which must end).
    /// - Returns: The number of fixes written.
    /// - Throws: `NMEAError` for a fix NMEA cannot express (naming the property),
    ///   ``SimulationError`` with code ``SimulationError/Code/outputFailed`` naming the path
    ///   when the file cannot be written, or whatever the provider throws.
    @discardableResult
    public func writeNMEA(toFile path: String, options: NMEAWriter.Options = NMEAWriter.Options(), limit: Int? = nil)
        async throws -> Int
    {
        let file = try AtomicTextFile(path: path)
        let writer = NMEAWriter(options: options)
        var count = 0
        var iterator = makeAsyncIterator()
        while limit.map({ count < $0 }) ?? true, let fix = try await iterator.next() {
            var text = ""
            try writer.write(fix, to: &text)
            try file.write(text)
            count += 1
        }
        try file.commit()
        return count
    }

    /// This provider's fixes as NMEA text; see ``writeNMEA(toFile:options:limit:)``.
    public func nmeaString(options: NMEAWriter.Options = NMEAWriter.Options(), limit: Int? = nil) async throws -> String {
        let writer = NMEAWriter(options: options)
        var text = ""
        var count = 0
        var iterator = makeAsyncIterator()
        while limit.map({ count < $0 }) ?? true, let fix = try await iterator.next() {
            try writer.write(fix, to: &text)
            count += 1
        }
        return text
    }
}

/// A text file written through a temporary file beside it and renamed into place by ``commit()``;
/// dropped without committing, it leaves nothing behind.
final class AtomicTextFile {
    private let path: String
    private let temporary: String
    private var descriptor: Int32
    private var committed = false

    init(path: String) throws(SimulationError) {
        self.path = path
        self.temporary = path + ".partial-\(getpid())"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
    }

    deinit {
        if !committed {
            close(descriptor)
            unlink(temporary)
        }
    }

    func write(_ text: String) throws(SimulationError) {
        var text = text
        let failed = text.withUTF8 { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let n = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += n
            }
            return false
        }
        if failed { throw Self.failure(path) }
    }

    func commit() throws(SimulationError) {
        committed = true
        let syncFailed = fsync(descriptor) != 0
        let closeFailed = close(descriptor) != 0
        guard !syncFailed, !closeFailed, rename(temporary, path) == 0 else {
            let error = Self.failure(path)
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ path: String) -> SimulationError {
        SimulationError(.outputFailed, parameter: path, message: "cannot write: \(String(cString: strerror(errno)))")
    }
}

/// POSIX `write(2)`.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #elseif canImport(Musl)
    Musl.write(fd, bytes, count)
    #else
    Darwin.write(fd, bytes, count)
    #endif
}
