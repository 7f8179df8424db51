#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written through a temporary file beside it and renamed into place by ``commit()``.
///
/// Until the commit, `path` keeps its previous content (or stays absent); an error, a crash or
/// dropping the object uncommitted leaves no half-written file there, and the temporary file
/// is removed when the object goes away. The commit syncs the data to disk before the rename.
/// Used by the GPX and NMEA exporters.
///
/// ```swift
/// let file = try AtomicFile(path: "walk.nmea")
/// try file.write("$GPGGA,…\r\n")
/// try file.commit()
/// ```
///
/// - Important: One user at a time.
package final class AtomicFile {
    /// The destination.
    package let path: String
    /// The temporary file beside it: `path` + `.partial-` + the process id.
    package let temporaryPath: String
    private let descriptor: Int32
    private var closed = false

    /// Creates (or truncates) the temporary file.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason.
    package init(path: String) throws(AtomicFileError) {
        self.path = path
        temporaryPath = path + ".partial-\(getpid())"
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw AtomicFileError(path: path) }
    }

    deinit {
        if !closed {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends bytes, retrying interrupted and partial writes.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason (disk full, …).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(AtomicFileError) {
        precondition(!closed, "write after commit")
        do {
            try SystemIO.writeAll(descriptor, bytes)
        } catch {
            throw AtomicFileError(path: path, reason: error.description)
        }
    }

    /// Appends the UTF-8 bytes of `text`.
    package func write(_ text: String) throws(AtomicFileError) {
        var text = text
        if let failure = text.withUTF8({ writing(UnsafeRawBufferPointer($0)) }) { throw failure }
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(AtomicFileError) {
        if let failure = bytes.withUnsafeBytes({ writing($0) }) { throw failure }
    }

    /// ``write(_:)-(UnsafeRawBufferPointer)`` with its error as a value: the `with…` accessors
    /// that lend the bytes rethrow untyped errors.
    private func writing(_ bytes: UnsafeRawBufferPointer) -> AtomicFileError? {
        do throws(AtomicFileError) {
            try write(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// Syncs, closes and renames the temporary file to `path`. On failure the temporary file is
    /// removed and `path` is left as it was.
    package func commit() throws(AtomicFileError) {
        precondition(!closed, "commit twice")
        closed = true
        let syncFailed = fsync(descriptor) != 0
        let closeFailed = close(descriptor) != 0
        guard !syncFailed, !closeFailed, rename(temporaryPath, path) == 0 else {
            let error = AtomicFileError(path: path)
            unlink(temporaryPath)
            throw error
        }
    }
}

/// An ``AtomicFile`` could not be created, written or committed.
package struct AtomicFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The destination path.
    package let path: String
    /// The operating system's reason (`strerror(errno)`).
    package let reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The error for `path` with the current `errno`.
    init(path: String) {
        self.init(path: path, reason: String(cString: strerror(errno)))
    }

    package var description: String { "\(path): \(reason)" }
}
