#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore

/// A minimal HTTP/1.1 client on a raw loopback socket (one request, `Connection: close`), so the
/// tests need neither URLSession (swift-corelibs-foundation#3292) nor a client package.
package enum RawHTTP {
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: String
        package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        package var errorParameter: String? { (json["error"] as? [String: Any])?["parameter"] as? String }
        package var retryAfter: String? { headers["retry-after"] }
    }

    /// `GET url`, an `http://127.0.0.1:PORT/…` address.
    package static func get(_ url: String) async throws -> Answer {
        guard let parts = URLComponents(string: url), parts.host == "127.0.0.1", let port = parts.port else {
            throw HarnessError("RawHTTP.get needs http://127.0.0.1:PORT/…, got \(url)")
        }
        return try await request("GET", port: port, parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }

    /// Sends one request and reads the answer to the server's close, on a thread of its own (the
    /// socket calls block; the cooperative pool never waits on them).
    package static func request(_ method: String, port: Int, _ path: String, token: String? = nil, body: String = "",
        contentType: String = "application/json", headers extra: [String: String] = [:]) async throws -> Answer
    {
        try await onThread("locsim.test.http") {
            try exchange(method, port: port, path, token: token, body: body, contentType: contentType, headers: extra)
        }
    }

    private static func exchange(_ method: String, port: Int, _ path: String, token: String?, body: String,
        contentType: String, headers extra: [String: String]) throws -> Answer
    {
        guard let fd = LoopbackSocket.connectTo(port: port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        defer { close(fd) }
        // A `Host` among `extra` replaces the one for 127.0.0.1.
        let host = extra.keys.contains { $0.lowercased() == "host" } ? "" : "Host: 127.0.0.1:\(port)\r\n"
        var head = "\(method) \(path) HTTP/1.1\r\n\(host)Connection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n" }
        guard LoopbackSocket.writeAll(fd, Array((head + "\r\n" + body).utf8)) else { throw HarnessError("cannot send") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // Until the server closes the connection; a silent server is an error of its own, not
        // an empty answer (under a sanitizer's slowdown a starved server once looked like one).
        // A stream that never ends (Server-Sent Events, a held answer) is an error too, not a hang.
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("\(method) \(path) on 127.0.0.1:\(port): no end of the answer within 60 s (\(bytes.count) bytes so far)")
            }
            guard LoopbackSocket.waitReadable(fd, timeout: .seconds(30)) else {
                throw HarnessError("no answer from 127.0.0.1:\(port) for \(method) \(path) within 30 s (\(bytes.count) bytes so far)")
            }
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                // A reset is not an end: say so, with what had come, rather than parse a fragment.
                throw HarnessError("\(method) \(path) on 127.0.0.1:\(port): read failed (\(String(cString: strerror(error)))) after \(bytes.count) bytes")
            }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        guard !bytes.isEmpty else {
            throw HarnessError("\(method) \(path) on 127.0.0.1:\(port): the server closed the connection without an answer")
        }
        return try parse(bytes)
    }

    package static func parse(_ bytes: [UInt8]) throws -> Answer {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw HarnessError("no header end in \(text.prefix(200))") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    package static func dechunk(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n"), let size = Int(rest[..<end.lowerBound], radix: 16), size > 0 {
            let start = end.upperBound
            let bytes = Array(rest[start...].utf8)
            out += String(decoding: bytes.prefix(size), as: UTF8.self)
            rest = Substring(String(decoding: bytes.dropFirst(size + 2), as: UTF8.self))
        }
        return out
    }
}
