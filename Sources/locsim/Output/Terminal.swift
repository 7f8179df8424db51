#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and error for the command, unbuffered where it matters.
enum Terminal {
    /// Writes a line to standard output.
    static func out(_ line: String) {
        print(line)
    }

    /// Writes a line to standard error.
    static func err(_ line: String) {
        var text = line
        text += "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Whether a file descriptor is a terminal (progress lines go only to terminals).
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
