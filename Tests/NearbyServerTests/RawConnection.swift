#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocSimTestHelpers

/// One keep-alive HTTP/1.1 connection on a raw loopback socket: requests written as given,
/// answers read back framed by `Content-Length`, headers in the order the server sent them.
///
/// The socket work runs on a thread of its own (`onThread`), never on Swift's pool, whose few
/// threads the server's tasks need. Each connection is used by one test, one call at a time
/// (hence unchecked).
final class RawConnection: @unchecked Sendable {
    struct Answer: Sendable {
        var statusLine: String
        /// Names as the server wrote them.
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var status: Int { Int(statusLine.split(separator: " ")[1]) ?? 0 }
    }

    private let descriptor: Int32
    private let port: Int
    private var pending: [UInt8] = []

    init(port: Int) throws {
        guard let descriptor = LoopbackSocket.connectTo(port: port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        self.descriptor = descriptor
        self.port = port
    }

    deinit { close(descriptor) }

    /// A GET request's text, with a body when given.
    static func request(_ target: String, token: String? = nil, body: String? = nil, close: Bool = false) -> String {
        var text = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let token { text += "Authorization: Bearer \(token)\r\n" }
        if close { text += "Connection: close\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body } else { text += "\r\n" }
        return text
    }

    func send(_ text: String) async throws {
        try await onThread { try self.sendNow(text) }
    }

    func exchange(_ target: String, token: String?, close: Bool = false) async throws -> Answer {
        try await onThread {
            try self.sendNow(Self.request(target, token: token, close: close))
            return try self.readAnswerNow()
        }
    }

    /// The next answer; `bodyless` for one to HEAD (its Content-Length is GET's, with no body).
    func readAnswer(bodyless: Bool = false) async throws -> Answer {
        try await onThread { try self.readAnswerNow(bodyless: bodyless) }
    }

    /// Sends FIN, as a client that gives up and closes does, but keeps reading, so the test
    /// sees what the server does next.
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Waits (30 s at most) for the server to close the connection; returns what it sent first.
    func waitForClose() async throws -> [UInt8] {
        try await onThread {
            while true {
                guard LoopbackSocket.waitReadable(self.descriptor, timeout: .seconds(30)) else {
                    throw HarnessError("127.0.0.1:\(self.port) still open after 30 s")
                }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let count = read(self.descriptor, &buffer, buffer.count)
                if count <= 0 { return self.pending }
                self.pending += buffer[0..<count]
            }
        }
    }

    private func sendNow(_ text: String) throws {
        guard LoopbackSocket.writeAll(descriptor, Array(text.utf8)) else { throw HarnessError("cannot send to 127.0.0.1:\(port)") }
    }

    private func readAnswerNow(bodyless: Bool = false) throws -> Answer {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if pending.count >= 4 {
                headEnd = (0...(pending.count - 4)).first { Array(pending[$0..<($0 + 4)]) == separator }
            }
            if headEnd != nil { break }
            try fill()
        }
        let lines = String(decoding: pending[0..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let headers = lines.dropFirst().map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        guard let declared = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) else {
            throw HarnessError("an answer without Content-Length: \(lines)")
        }
        let bodyStart = headEnd! + 4
        let length = bodyless ? 0 : declared
        while pending.count < bodyStart + length { try fill() }
        let answer = Answer(statusLine: lines[0], headers: headers, body: Array(pending[bodyStart..<(bodyStart + length)]))
        pending.removeFirst(bodyStart + length)
        return answer
    }

    private func fill() throws {
        guard LoopbackSocket.waitReadable(descriptor, timeout: .seconds(30)) else {
            throw HarnessError("no answer from 127.0.0.1:\(port) within 30 s (\(pending.count) bytes so far)")
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { throw HarnessError("127.0.0.1:\(port) closed the connection (\(pending.count) bytes pending)") }
        pending += buffer[0..<count]
    }
}
