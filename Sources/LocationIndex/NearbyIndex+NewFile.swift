#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Which file a path names: its device and inode (`stat`), nil when it names none.
struct FileIdentity: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64

    init?(of path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

extension NearbyIndex {
    /// Builds a new index for `path` out of sight and publishes it whole: `build` fills an index
    /// at a temporary path beside it (`path` + `.partial-` + the process id), which is closed and
    /// then given the name `path` in one step. So `path` never names an empty or half-built
    /// index: not after an error, a signal or an `exit` (the temporary files are removed), nor after a
    /// `kill -9` or a power cut (only the temporary file is left, named as such).
    ///
    /// A file that appeared at `path` meanwhile (another process's import, or the same default
    /// index built by another process) is never replaced: the build is discarded and `nil`
    /// returned, for the caller to decide what to do with the file that is there.
    ///
    /// ```swift
    /// let report = try NearbyIndex.buildingNew(at: "places.sqlite") { index in
    ///     try index.importPlaces(fromFile: "places.csv")
    /// }
    /// ```
    ///
    /// - Throws: `build`'s error (the temporary files removed first), or an ``IndexError``:
    ///   opening the temporary index (as ``init(path:configuration:)``), or ``IndexError/Code/io``
    ///   when it cannot be closed cleanly, published or removed.
    package static func buildingNew<T>(
        at path: String, configuration: Configuration = Configuration(), _ build: (NearbyIndex) throws -> T
    ) throws -> T? {
        let temporary = AtomicFile.partialPath(path)
        try removeFiles(temporary)
        try removeAbandonedBuilds(of: path)
        try createEmptyFile(temporary, for: path)
        // Removed by an `exit` meanwhile too (a signal before a command's run has begun).
        PartialFiles.register(temporary)
        defer { PartialFiles.unregister(temporary) }
        let result: T
        do {
            // The index is closed when this returns: its write-ahead log folded into the file.
            result = try build(try NearbyIndex(path: temporary, configuration: configuration))
        } catch {
            try removeFiles(temporary, after: error as? IndexError)
            // The index's own errors name the file it has open; the caller's is the path asked for.
            if var failure = error as? IndexError, failure.path == temporary {
                failure.path = path
                throw failure
            }
            throw error
        }
        if FileManager.default.fileExists(atPath: temporary + "-wal") {
            let failure = IndexError(.io, "the new index did not close cleanly (its -wal file is still there); nothing was published", path: path)
            try removeFiles(temporary, after: failure)
            throw failure
        }
        // A second name, given only if `path` is free (a rename would replace a file that
        // appeared meanwhile); then the temporary name goes. A file system without hard links
        // (FAT, some network shares) gets a rename once `path` is seen free.
        if link(temporary, path) != 0 {
            var code = errno
            let noHardLinks = code == EPERM || code == EOPNOTSUPP
            if code == EEXIST || (noHardLinks && FileManager.default.fileExists(atPath: path)) {
                try removeFiles(temporary)
                return nil
            }
            if noHardLinks {
                if rename(temporary, path) == 0 { return result }
                code = errno
            }
            let failure = IndexError(.io, "cannot publish the new index as \(path): \(String(cString: strerror(code)))", path: path)
            try removeFiles(temporary, after: failure)
            throw failure
        }
        try removeFiles(temporary)
        return result
    }

    /// Creates the empty file the new index is built in (SQLite takes an empty file for a new
    /// database), so a folder that cannot take it is refused naming `path` and the system's
    /// reason. SQLite's own open reports the last of the calls it tried: a folder this user
    /// cannot write read as "No such file or directory".
    private static func createEmptyFile(_ temporary: String, for path: String) throws(IndexError) {
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o666)  // 0666 less the umask, as `>`
        guard descriptor < 0 else {
            close(descriptor)
            return
        }
        let code = errno
        let reason =
            switch code {
            case ENOENT where !SQLiteConnection.folderExists(of: path), ENOTDIR: "its folder does not exist"
            case EACCES, EPERM: "this user may not create files in its folder"
            case EROFS: "its folder is on a read-only file system"
            default: "cannot create a file in its folder (\(String(cString: strerror(code))))"
            }
        throw IndexError(.cannotOpen, "cannot create a new index there: \(reason)", path: path)
    }

    /// Removes what builds of `path` by processes that no longer run left (`path.partial-PID`,
    /// a build killed before it was published), so a `kill -9` costs disk space only until the
    /// next build. A build of a process still running is left alone.
    static func removeAbandonedBuilds(of path: String) throws(IndexError) {
        let slash = path.lastIndex(of: "/")
        let folder = SQLiteConnection.folder(of: path)
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + ".partial-"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            // A missing or unreadable folder: the build's own open says why. One that can be
            // written but not listed (mode -wx) still takes the build; what builds killed there
            // left stays until a build that can list it (the clean-up is housekeeping, not
            // something the new index needs).
            return
        }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid > 0 else { continue }  // its -wal, -shm: with it
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            try removeFiles(slash == nil ? name : folder + "/" + name)
        }
    }

    /// Removes an index file and its companions (`-wal`, `-shm`, `-journal`); missing files are
    /// fine (another process may have removed them first). A failure is thrown, combined with
    /// `primary` when cleaning up after another failure; with `leavingOthers`, a file this user may
    /// not remove (EACCES, EPERM: another user's, in a sticky shared folder) is theirs, and the
    /// removal stops there instead.
    ///
    /// - Returns: false when another user's file was left (only with `leavingOthers`).
    @discardableResult
    static func removeFiles(_ path: String, after primary: IndexError? = nil, leavingOthers: Bool = false) throws(IndexError) -> Bool {
        for suffix in ["", "-wal", "-shm", "-journal"] where unlink(path + suffix) != 0 {
            let code = errno
            if code == ENOENT { continue }
            if leavingOthers, code == EACCES || code == EPERM { return false }
            let cleanup = "cannot remove \(path + suffix): \(String(cString: strerror(code))); remove it by hand"
            if let primary {
                throw IndexError(
                    primary.code, primary.message + "; also " + cleanup, path: primary.path, line: primary.line,
                    column: primary.column)
            }
            throw IndexError(.io, cleanup, path: path + suffix)
        }
        return true
    }
}
