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

    /// Writes every byte, retrying after EINTR and short writes. A failure on standard output (a
    /// full disk, an I/O error) is kept for ``outputFailure``: the command says so when it ends
    /// and exits 1, for its output is incomplete. One on standard error has no one left to tell.
    /// A closed pipe ends the process with SIGPIPE before `write` returns, but for the commands
    /// that stop cleanly on a signal (``Interruption``): for them it stops the run, as SIGINT does.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        do {
            try SystemIO.writeAll(fd, UnsafeRawBufferPointer(bytes))
        } catch {
            guard fd == 1 else { return }
            firstOutputFailure.withLock { first in first = first ?? error }
            if error.code == EPIPE { Interruption.readerLeft() }
        }
    }

    private static let firstOutputFailure = Locked<SystemIOError?>(nil)

    /// The first write to standard output that failed, if any.
    static var outputFailure: SystemIOError? { firstOutputFailure.withLock { $0 } }

    /// Whether a file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Whether a progress line, redrawn in place with `\r` and ESC [K (``redraw(_:)``), may go to
    /// `fd`: a terminal that says what it is (`TERM` set, and not `dumb`: an Emacs shell buffer,
    /// a CI log viewer would show every redraw as garbage).
    static func showsProgress(_ fd: Int32) -> Bool {
        guard isTerminal(fd), let term = ProcessInfo.processInfo.environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    /// Redraws the progress line on standard error as `text` (empty: clears it).
    static func redraw(_ text: String) {
        errRaw("\r\u{1B}[K" + text)
    }
}
