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
/// A *trailer* (GPX's closing tags) can stand after the written text: ``setTrailer(_:)`` writes
/// it at the end without moving the write position, and the next ``append(_:)`` writes over it.
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
    private var closed = false

    /// Creates `path`, or truncates it.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason.
    package init(path: String) throws(AtomicFileError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw AtomicFileError(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit {
        if !closed { _ = Self.closeDescriptor(descriptor) }
    }

    /// Writes `bytes` at the write position (over any trailer) and moves the position past them.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason (disk full, …).
    package func append(_ bytes: [UInt8]) throws(AtomicFileError) {
        try write(bytes, at: offset)
        offset += bytes.count
    }

    /// Writes `bytes` at the write position and ends the file after them, leaving the position
    /// where it was: the next ``append(_:)`` replaces the trailer.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason.
    package func setTrailer(_ bytes: [UInt8]) throws(AtomicFileError) {
        try write(bytes, at: offset)
        guard ftruncate(descriptor, off_t(offset + bytes.count)) == 0 else { throw failure() }
    }

    /// Closes the file (what was written stays, trailer included). Idempotent.
    ///
    /// - Throws: ``AtomicFileError`` when the system reports an error on close.
    package func close() throws(AtomicFileError) {
        guard !closed else { return }
        closed = true
        guard Self.closeDescriptor(descriptor) == 0 else { throw failure() }
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

    private static func closeDescriptor(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #elseif canImport(Musl)
        Musl.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }
}
