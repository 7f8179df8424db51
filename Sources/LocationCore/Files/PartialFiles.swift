#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files being written in this process (`path.partial-PID`: ``AtomicFile``'s, and
/// the index builds of `NearbyIndex.buildingNew(at:)`), removed when the process exits before
/// they are published or dropped.
///
/// Their owners remove them on every path they control (an error, a commit, being let go); what
/// they cannot control is `exit` from elsewhere: a signal that ends a command before its run has
/// begun (while the default index is built), which left a build's files in the cache until the
/// next build of the same places. An `atexit` handler, set up by the first ``register(_:)``,
/// removes each one still registered, with its SQLite companions (`-wal`, `-shm`, `-journal`).
package enum PartialFiles {
    private static let paths = Locked<Set<String>>([])
    private static let handler: Void = { atexit { PartialFiles.removeAll() } }()

    /// `path` is being written and is to be removed if the process exits first.
    package static func register(_ path: String) {
        _ = handler
        paths.withLock { _ = $0.insert(path) }
    }

    /// `path` was published, removed or let go by its owner.
    package static func unregister(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }

    /// The paths registered now (for tests).
    package static var registered: Set<String> { paths.withLock { $0 } }

    /// Removes every registered file and its companions; missing files are fine.
    package static func removeAll() {
        let all = paths.withLock { paths in
            defer { paths = [] }
            return paths
        }
        for path in all {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        }
    }
}
