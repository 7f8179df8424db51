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

/// The operating system's reason for a failed file operation, as one short phrase.
///
/// Foundation's file errors print as `Error Domain=NSCocoaErrorDomain Code=260 "(null)"
/// UserInfo={…}`, which says nothing to a person. This finds the POSIX error underneath (or the
/// one the Cocoa code stands for) and returns `strerror`'s text: `No such file or directory`,
/// `Is a directory`, `Permission denied`, `Not a directory`. Any other error is described as it
/// describes itself.
///
/// ```swift
/// do {
///     _ = try String(contentsOfFile: path, encoding: .utf8)
/// } catch {
///     throw MyError("cannot read \(path): \(FileErrorText.reason(for: error))")
/// }
/// ```
package enum FileErrorText {
    /// `strerror` for the POSIX error inside `error`, or `error`'s own description.
    package static func reason(for error: any Error) -> String {
        if let code = posixCode(of: error, depth: 0) { return String(cString: strerror(code)) }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
            case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
            case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
            case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
            case .fileWriteFileExists: return String(cString: strerror(EEXIST))
            case .fileReadInapplicableStringEncoding, .fileReadUnknownStringEncoding:
                return "the text is not in the expected encoding"
            default: return "file operation failed (Cocoa error \(cocoa.code.rawValue))"
            }
        }
        return "\(error)"
    }

    private static func posixCode(of error: any Error, depth: Int) -> Int32? {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        guard depth < 4, let cocoa = error as? CocoaError,
            let underlying = cocoa.userInfo["NSUnderlyingError"] as? any Error
        else { return nil }
        return posixCode(of: underlying, depth: depth + 1)
    }
}
