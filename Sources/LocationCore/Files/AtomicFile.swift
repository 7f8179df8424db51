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
/// Used by the GPX and NMEA exporters and the command's reports.
///
/// A symbolic link is written through: the file it names gets the new content (the temporary
/// file is made beside that file, and the link stays), except a link in a shared folder (sticky
/// and world-writable, as `/tmp`) owned by someone who is neither this user nor the folder's
/// owner: refused, as the kernel's `protected_symlinks` refuses `> path` there, so another user
/// cannot point an output at this user's files. A file this user may not write (mode 444, or
/// another's) is refused as `cp` refuses it, not replaced. A new file's mode is 0666 less the
/// umask, as the shell's `>` makes it. A path that is not a regular file (a
/// FIFO, a terminal, `/dev/stdout`, `/dev/null`) is written as it is, with no temporary file:
/// renaming a file over it would replace the device or the pipe with a plain file. An `exit`
/// before the commit removes the temporary file too (``PartialFiles``). A file
/// replaced keeps its permission bits; a FIFO is refused when nothing reads it yet (``init(path:)``
/// would otherwise wait for a reader, signals and all).
///
/// ```swift
/// let file = try AtomicFile(path: "walk.nmea")
/// try file.write("$GPGGA,…\r\n")
/// try file.commit()
/// ```
///
/// - Important: One user at a time.
package final class AtomicFile {
    /// The destination, as given.
    package let path: String
    /// The temporary file: the file the path names (its links followed) + `.partial-` + the
    /// process id; `nil` for a path written as it is (not a regular file).
    package let temporaryPath: String?
    /// Where the temporary file is renamed to: `path` with its symbolic links followed.
    private let destination: String
    private let descriptor: Int32
    private var closed = false

    /// Creates (or truncates) the temporary file, or opens a path that is not a regular file.
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason (`Is a directory`
    ///   for a directory).
    package init(path: String) throws(AtomicFileError) {
        self.path = path
        if Self.isSpecial(path) {
            temporaryPath = nil
            destination = path
            // Not blocking: a FIFO nobody reads would hold `open` (and the signals waiting
            // behind it) until a reader came, if ever.
            descriptor = open(path, O_WRONLY | O_NONBLOCK)
            if descriptor < 0, errno == ENXIO {
                throw AtomicFileError(path: path, reason: "a FIFO with no reader; start its reader first")
            }
            guard descriptor >= 0 else { throw AtomicFileError(path: path) }
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
                let error = AtomicFileError(path: path)
                close(descriptor)
                throw error
            }
        } else {
            try Self.checkLinksFollowable(path)
            destination = Self.followingLinks(path)
            if access(destination, F_OK) == 0, access(destination, W_OK) != 0 {
                let reason = String(cString: strerror(errno))
                throw AtomicFileError(path: path, reason: "\(reason): this user may not write the file there; make it writable or remove it first")
            }
            let temporary = Self.partialPath(destination)
            temporaryPath = temporary
            // A new file of its own (never a link or a file someone put at this predictable
            // name), 0666 less the umask as `>` makes it; a leftover of a killed run is removed.
            var opened = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if opened < 0, errno == EEXIST, unlink(temporary) == 0 {
                opened = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            }
            descriptor = opened
            guard descriptor >= 0 else { throw AtomicFileError(path: path) }
            PartialFiles.register(temporary)
            // A file replaced keeps its permissions: a private one (600) stays private.
            var existing = stat()
            if stat(destination, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG,
                fchmod(descriptor, existing.st_mode & 0o7777) != 0
            {
                let error = AtomicFileError(path: path)
                close(descriptor)
                unlink(temporary)
                PartialFiles.unregister(temporary)
                throw error
            }
        }
    }

    /// The name a file is written under before it is given `path`: `path` + `.partial-` + this
    /// process's id (the index's builds use it too, `NearbyIndex.buildingNew(at:)`).
    package static func partialPath(_ path: String) -> String {
        path + ".partial-\(getpid())"
    }

    /// Checks that `path` can be written, without writing it: a temporary file is made beside
    /// the file it names and removed; a path that is not a regular file is checked for write
    /// permission only (opening a FIFO to check it would hand its reader an empty stream).
    ///
    /// - Throws: ``AtomicFileError`` naming `path` and the system's reason.
    package static func checkWritable(_ path: String) throws(AtomicFileError) {
        if isSpecial(path) {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { throw AtomicFileError(path: path, reason: "Is a directory") }
            guard access(path, W_OK) == 0 else { throw AtomicFileError(path: path) }
        } else {
            _ = try AtomicFile(path: path)  // discarded at once: its temporary file is removed
        }
    }

    /// Whether `path` exists (its links followed) and is not a regular file.
    private static func isSpecial(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG
    }

    /// The one spelling of the file `path` writes to: its symbolic links followed (as ``init(path:)``
    /// does), then its folder made absolute with that folder's own links resolved, so
    /// `out/../r.html`, `./r.html` and a link to `r.html` compare equal though none exists yet.
    /// A folder that does not exist is left as written.
    package static func canonicalPath(_ path: String) -> String {
        let target = followingLinks(path)
        let folder: String, name: String
        if let slash = target.lastIndex(of: "/") {
            (folder, name) = (slash == target.startIndex ? "/" : String(target[..<slash]), String(target[target.index(after: slash)...]))
        } else {
            (folder, name) = (".", target)
        }
        guard let resolved = realpath(folder, nil) else { return target }
        defer { free(resolved) }
        let absolute = String(cString: resolved)
        return absolute.hasSuffix("/") ? absolute + name : absolute + "/" + name
    }

    /// Refuses a symbolic link on the way to the file that the kernel's `protected_symlinks` would
    /// not follow: one in a sticky, world-writable folder, owned by neither this user (its
    /// effective id) nor the folder's owner.
    private static func checkLinksFollowable(_ path: String) throws(AtomicFileError) {
        var current = path
        for _ in 0..<40 {
            var link = stat()
            guard lstat(current, &link) == 0, link.st_mode & S_IFMT == S_IFLNK else { return }
            let folder: String
            if let slash = current.lastIndex(of: "/") {
                folder = slash == current.startIndex ? "/" : String(current[..<slash])
            } else {
                folder = "."
            }
            var parent = stat()
            if stat(folder, &parent) == 0, parent.st_mode & S_ISVTX != 0, parent.st_mode & S_IWOTH != 0,
                link.st_uid != geteuid(), link.st_uid != parent.st_uid
            {
                throw AtomicFileError(
                    path: path,
                    reason: "\(current) is a symbolic link in a shared folder (sticky, world-writable) that another user made; "
                        + "not followed, as the system would not follow it for '>'")
            }
            let next = followingLinks(current, steps: 1)
            guard next != current else { return }
            current = next
        }
    }

    /// `path` with its symbolic links followed to the file they name, which need not exist yet
    /// (a link to a file still to be written); at most 40 links, as the kernel allows.
    private static func followingLinks(_ path: String, steps: Int = 40) -> String {
        var current = path
        for _ in 0..<steps {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { return current }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + target
            } else {
                current = target
            }
        }
        return current
    }

    deinit {
        if !closed {
            close(descriptor)
            if let temporaryPath {
                unlink(temporaryPath)
                PartialFiles.unregister(temporaryPath)
            }
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

    /// Syncs, closes and renames the temporary file to `path` (to the file its links name); a
    /// path written as it is is only closed. On failure the temporary file is removed and `path`
    /// is left as it was.
    package func commit() throws(AtomicFileError) {
        precondition(!closed, "commit twice")
        closed = true
        guard let temporaryPath else {
            guard close(descriptor) == 0 else { throw AtomicFileError(path: path) }
            return
        }
        defer { PartialFiles.unregister(temporaryPath) }
        let syncFailed = fsync(descriptor) != 0
        let closeFailed = close(descriptor) != 0
        guard !syncFailed, !closeFailed, rename(temporaryPath, destination) == 0 else {
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
