#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A minimal raw-socket gpsd JSON client (`?WATCH={"enable":true,"json":true}`) without libgps:
/// the reference for what the daemon actually sent.
final class RawGPSDClient: Sendable {
    struct Line: Sendable {
        let text: String
        let receivedAt: ContinuousClock.Instant
    }

    private let fd: Int32
    private let lines = Mutex<[Line]>([])
    private let watching = Mutex<Bool>(false)

    /// Connects, subscribes, and reads on its own thread until ``stop()`` or the daemon closes.
    init(port: Int) throws {
        guard let fd = LoopbackSocket.connectTo(port: port) else { throw HarnessError("raw client: nothing at port \(port)") }
        self.fd = fd
        guard LoopbackSocket.writeAll(fd, Array(#"?WATCH={"enable":true,"json":true}"#.utf8) + [10]) else {
            throw HarnessError("raw client: WATCH failed")
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "locsim.test.raw"
        thread.start()
    }

    /// Every line received so far.
    var received: [Line] { lines.withLock { $0 } }

    /// The JSON objects of class `TPV` received so far.
    var tpvs: [[String: Any]] {
        received.compactMap { line in
            guard line.text.hasPrefix(#"{"class":"TPV""#),
                let object = try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any]
            else { return nil }
            return object
        }
    }

    /// Waits (polling, test-side) until the daemon acknowledged the WATCH.
    func waitUntilWatching(timeout: Duration = .seconds(5)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !watching.withLock({ $0 }) {
            guard ContinuousClock.now < deadline else { throw HarnessError("raw client: no WATCH reply") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)) }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            let now = ContinuousClock.now
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 10) {
                let text = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                pending.removeSubrange(...newline)
                if text.hasPrefix(#"{"class":"WATCH""#) { watching.withLock { $0 = true } }
                lines.withLock { $0.append(Line(text: text, receivedAt: now)) }
            }
        }
        close(fd)
    }
}
