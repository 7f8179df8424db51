#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore

/// Lines read from a socket on a thread of its own: a Server-Sent Events stream over HTTP (its
/// `event:`/`data:` lines), a gpsd client's reports or its NMEA.
public final class SocketLines: Sendable {
    private let fd: Int32
    private let received = Locked<[String]>([])
    private let changes = Changes()

    /// Connects and sends `request` (an HTTP request or a gpsd `?WATCH`).
    public init(port: Int, request: String) throws {
        guard let fd = LoopbackSocket.connectTo(port: port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        self.fd = fd
        guard LoopbackSocket.writeAll(fd, Array(request.utf8)) else { throw HarnessError("cannot send the request") }
        Thread { [self] in readLoop() }.start()
    }

    /// An SSE stream: `GET path` with the token.
    public static func events(port: Int, path: String, token: String?) throws -> SocketLines {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        return try SocketLines(port: port, request: request + "\r\n")
    }

    /// The lines read so far, without their line ends (LF or CR LF).
    public var lines: [String] { received.withLock { $0 } }

    /// The `data:` objects of the complete events named `event`, in order: each frame's fields in
    /// any order (`event:`, `id:`, `data:` lines), ended by an empty line, as the SSE format has it.
    public func events(_ event: String) -> [[String: Any]] {
        var out: [[String: Any]] = []
        var name: String?
        var data: String?
        for line in lines {
            if line.isEmpty {
                if name == event, let data, let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] {
                    out.append(object)
                }
                (name, data) = (nil, nil)
            } else if line.hasPrefix("event: ") {
                name = String(line.dropFirst(7))
            } else if line.hasPrefix("data: ") {
                data = (data.map { $0 + "\n" } ?? "") + line.dropFirst(6)
            }
        }
        return out
    }

    /// Waits until `condition` holds for what has been read, checking again after every line.
    public func wait(
        _ what: String, timeout: Duration = .seconds(60), until condition: @escaping @Sendable (SocketLines) -> Bool
    ) async throws {
        try await changes.wait(for: what, timeout: timeout, account: { [self] in "read \(lines.count) lines: \(lines.suffix(6))" }) {
            [self] in condition(self)
        }
    }

    public func stop() { shutdown(fd, Int32(SHUT_RDWR)) }

    private func readLoop() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            for byte in buffer[0..<count] {
                if byte == UInt8(ascii: "\n") {
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                    let line = String(decoding: pending, as: UTF8.self)
                    received.withLock { $0.append(line) }
                    changes.signal()
                    pending.removeAll(keepingCapacity: true)
                } else {
                    pending.append(byte)
                }
            }
        }
        close(fd)
        changes.end()
    }
}
