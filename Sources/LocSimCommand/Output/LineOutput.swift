/// Standard output for long results (the timeline of `replay` and `simulate --map`, `index
/// query`'s places): lines are collected and written in blocks of 64 KiB, not one `write` per line.
///
/// A 24-hour replay writes about 90,000 lines; one system call each cost more than the replay
/// itself. Lines are written at once only when someone watches them arrive: standard output is
/// a terminal, or `--flush` asks (a live pipe into another program). Everything is written by
/// ``flush()``, which the commands call at the end, after SIGINT/SIGTERM/SIGHUP has stopped the run,
/// and before reporting an error.
@MainActor
final class LineOutput {
    /// Whether each line is written as soon as it is complete.
    let flushesEachLine: Bool
    private var buffer: [UInt8] = []
    private static let blockSize = 1 << 16

    /// - Parameter flushesEachLine: Write each line at once (a terminal, `--flush`).
    init(flushesEachLine: Bool) {
        self.flushesEachLine = flushesEachLine
        buffer.reserveCapacity(Self.blockSize + 4096)
    }

    /// Appends `line` and a newline.
    func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(10)
        if flushesEachLine || buffer.count >= Self.blockSize { flush() }
    }

    /// Writes everything collected so far.
    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { Terminal.writeAll(1, $0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
