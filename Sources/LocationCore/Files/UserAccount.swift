#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A user of this machine as its password database (`getpwuid_r`) has them: the name to say in
/// a message, the home folder to fall back on when `HOME` is unset (as libpq and the XDG rules do).
package struct UserAccount: Sendable, Hashable {
    package var name: String
    package var home: String

    /// The account of `uid` (nil: this process's real user), or nil when the database has none (a
    /// container's uid without an entry).
    package init?(uid: UInt32? = nil) {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid ?? getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let name = entry.pw_name, let home = entry.pw_dir
        else { return nil }
        self.name = String(cString: name)
        self.home = String(cString: home)
    }
}
