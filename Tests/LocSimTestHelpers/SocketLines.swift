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
    private let socket: ReaderSocket
    private let received = Locked<[String]>([])
    private let changes = Changes()

    /// Connects and sends `request` (an HTTP request or a gpsd `?WATCH`).
    public init(port: Int, request: String) throws {
        guard let fd = LoopbackSocket.connectTo(port: port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        socket = ReaderSocket(fd)
        guard socket.write(Array(request.utf8)) else {
            socket.close()
            throw HarnessError("cannot send the request")
        }
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

    /// The `data:` objects of the complete events named `event`, in order (``EventFrame``: fields
    /// in any order, a frame ended by an empty line).
    public func events(_ event: String) -> [[String: Any]] {
        var out: [[String: Any]] = []
        var frame: [String] = []
        for line in lines {
            guard line.isEmpty else {
                frame.append(line)
                continue
            }
            if let parsed = EventFrame(frame.joined(separator: "\n")), parsed.event == event, let object = parsed.object {
                out.append(object)
            }
            frame = []
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

    public func stop() { socket.shutDown() }

    private func readLoop() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(socket.descriptor, &buffer, buffer.count)
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
        socket.close()
        changes.end()
    }
}

/// One Server-Sent Events frame as a client reads it: its `event:` (default `message`), `id:`
/// and `data:` lines, in any order.
public struct EventFrame: Equatable, CustomStringConvertible, Sendable {
    public var event: String
    public var id: Int?
    public var data: String
    public var raw: String

    /// The frame in `text`, or nil for one without data (a `: keep-alive` comment).
    public init?(_ text: String) {
        raw = text
        event = "message"
        data = ""
        var lines = 0
        for line in text.split(separator: "\n") {
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
            if line.hasPrefix("data: ") {
                data += (lines > 0 ? "\n" : "") + line.dropFirst(6)
                lines += 1
            }
        }
        if lines == 0 { return nil }
    }

    /// The frame in `bytes` (UTF-8).
    public init?(_ bytes: [UInt8]) {
        self.init(String(decoding: bytes, as: UTF8.self))
    }

    /// `data` as a JSON object, or nil when it is not one.
    public var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] }

    /// ``object``, or an empty one.
    public var json: [String: Any] { object ?? [:] }

    public var description: String { "\(event)#\(id.map(String.init) ?? "-")" }
}
