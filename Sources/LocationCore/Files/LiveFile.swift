#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written in place as a recording grows, every write handed to the kernel at once (no
/// buffer in the process), so a process that is interrupted or killed loses nothing it wrote.
///
/// A *trailer* (GPX's closing tags) can stand after the written text: ``append(_:trailer:)``
/// writes it after the text without moving the write position past it, and the next append
/// writes over it.
/// So a GPX recording is a complete document after every point, whenever the process stops.
/// ``AtomicFile`` is the opposite choice, for files that must appear whole or not at all.
///
/// ```swift
/// let file = try LiveFile(path: "walk.nmea")
/// try file.append(Array("$GPRMC,…\r\n".utf8))
/// try file.close()
/// ```
///
/// - Important: One user at a time.
package final class LiveFile {
    /// The file.
    package let path: String
    private let descriptor: Int32
    /// Where the next append goes (the trailer, if any, starts here).
    private var offset: Int = 0
    /// What stands after `offset` (``append(_:trailer:)``), put back when an append fails.
    private var trailer: [UInt8] = []
    private var closed = false

    /// Creates `path`, or truncates it.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason.
    package init(path: String) throws(AtomicFileError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)  // 0666 less the umask, as `>`
        guard descriptor >= 0 else { throw AtomicFileError(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit {
        if !closed { _ = SystemIO.close(descriptor) }
    }

    /// Writes `bytes` at the write position (over any trailer) and moves the position past
    /// them; with `trailer`, writes it after them and ends the file there, leaving the position
    /// before it: the next append replaces it.
    ///
    /// A write that fails part-way (the disk full, the file-size limit) is undone: the file is
    /// cut back to the position and the trailer before it written again, so it stays what it
    /// was after the last append that succeeded (a GPX recording still a whole document).
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason (disk full, …), and
    ///   saying so when the file could not be put back as it was.
    package func append(_ bytes: [UInt8], trailer newTrailer: [UInt8]? = nil) throws(AtomicFileError) {
        do throws(AtomicFileError) {
            try write(newTrailer.map { bytes + $0 } ?? bytes, at: offset)
            if let newTrailer, ftruncate(descriptor, off_t(offset + bytes.count + newTrailer.count)) != 0 { throw failure() }
        } catch {
            throw restored(after: error)
        }
        offset += bytes.count
        if let newTrailer { trailer = newTrailer }
    }

    /// Cuts the file back to the write position and writes the trailer again after `error`:
    /// `error`, or `error` saying the file could not be put back, with the reason.
    private func restored(after original: AtomicFileError) -> AtomicFileError {
        guard ftruncate(descriptor, off_t(offset)) == 0 else {
            return AtomicFileError(
                path: path, reason: "\(original.reason); and cutting back the part written failed: \(String(cString: strerror(errno)))")
        }
        do {
            try write(trailer, at: offset)
        } catch {
            return AtomicFileError(path: path, reason: "\(original.reason); and writing the closing text again failed: \(error.reason)")
        }
        return original
    }

    /// Closes the file (what was written stays, trailer included). Idempotent.
    ///
    /// - Throws: ``AtomicFileError`` when the system reports an error on close.
    package func close() throws(AtomicFileError) {
        guard !closed else { return }
        closed = true
        guard SystemIO.close(descriptor) == 0 else { throw failure() }
    }

    private func write(_ bytes: [UInt8], at position: Int) throws(AtomicFileError) {
        precondition(!closed, "write after close")
        let failure = bytes.withUnsafeBytes { buffer -> SystemIOError? in
            do throws(SystemIOError) {
                try SystemIO.writeAll(descriptor, buffer, at: position)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw AtomicFileError(path: path, reason: failure.description) }
    }

    private func failure() -> AtomicFileError {
        AtomicFileError(path: path, reason: String(cString: strerror(errno)))
    }
}
