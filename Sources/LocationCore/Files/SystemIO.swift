#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `read(2)` and `write(2)`/`pwrite(2)` as the package uses them on files, pipes and terminals:
/// an interrupted call (`EINTR`) is retried, a short write continues where it stopped, and a
/// failure is a ``SystemIOError`` with the system's reason. The package's one copy of those
/// loops (GPX and NMEA readers, atomic and live files, the command's terminal output).
package enum SystemIO {
    /// Reads up to `buffer.count` bytes.
    ///
    /// - Returns: The number of bytes read; 0 at the end of the input.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemIOError) -> Int {
        while true {
            let count = systemRead(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw SystemIOError(code: errno) }
        }
    }

    /// Every byte of the file at `path`, read to its end with `read(2)`: a regular file, and as
    /// well a pipe, a FIFO, `/dev/stdin` or a shell's `<(…)` (which Foundation's
    /// `Data(contentsOf:)` refuses with a false "Permission denied"). The package's one way to
    /// read a whole input file.
    ///
    /// - Throws: ``SystemIOError`` with the system's reason (`No such file or directory`,
    ///   `Is a directory`, `Permission denied`).
    package static func readFile(_ path: String) throws(SystemIOError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemIOError(code: errno) }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer -> Result<Int, SystemIOError> in
                do throws(SystemIOError) {
                    return .success(try read(fd, into: buffer))
                } catch {
                    return .failure(error)
                }
            }
            let count = try result.get()
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// `close(2)`: 0, or -1 with `errno` set.
    package static func close(_ fd: Int32) -> Int32 { systemClose(fd) }

    /// Writes every byte of `bytes`, at the file offset `offset` when given (`pwrite`, which
    /// leaves the descriptor's own position alone), else at the current position.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil) throws(SystemIOError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written =
                if let offset {
                    pwrite(fd, base + done, bytes.count - done, off_t(offset + done))
                } else {
                    systemWrite(fd, base + done, bytes.count - done)
                }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemIOError(code: errno)
            }
            // write(2) of a non-empty buffer returns at least 1 or fails; guard anyway.
            if written == 0 { throw SystemIOError(code: EIO) }
            done += written
        }
    }
}

/// A failed `read` or `write`: the `errno` value and its text.
package struct SystemIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value.
    package let code: Int32

    package init(code: Int32) { self.code = code }

    /// The system's reason, `strerror(code)` (for example "No space left on device").
    package var description: String { String(cString: strerror(code)) }
}

private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, bytes, count)
    #elseif canImport(Musl)
    Musl.read(fd, bytes, count)
    #else
    Darwin.read(fd, bytes, count)
    #endif
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #elseif canImport(Musl)
    Musl.write(fd, bytes, count)
    #else
    Darwin.write(fd, bytes, count)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #elseif canImport(Musl)
    Musl.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
