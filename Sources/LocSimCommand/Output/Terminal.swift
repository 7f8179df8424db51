import Foundation  // isatty(3)
import LocationCore

/// Standard output and error for the command, unbuffered where it matters.
enum Terminal {
    /// Writes a line to standard output, unbuffered (so it interleaves correctly with the
    /// progress line on standard error, and nothing is lost if the process is interrupted).
    static func out(_ line: String) {
        writeAll(1, line + "\n")
    }

    /// Writes a line to standard error.
    static func err(_ line: String) {
        errRaw(line + "\n")
    }

    /// Writes text to standard error as it is (no newline), unbuffered.
    static func errRaw(_ text: String) {
        writeAll(2, text)
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeAll(fd, $0) }
    }

    /// Writes every byte, retrying after EINTR and short writes; gives up silently on an error
    /// (a closed pipe: there is no one left to tell).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        do {
            try SystemIO.writeAll(fd, UnsafeRawBufferPointer(bytes))
        } catch {
            // The reader is gone (a closed pipe) or the terminal failed: no one is left to tell.
        }
    }

    /// Whether a file descriptor is a terminal (progress lines go only to terminals).
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
