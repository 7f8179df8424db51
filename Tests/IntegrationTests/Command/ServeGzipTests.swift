#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import CommandTestHelpers
import LocationCore
import LocSimTestHelpers
import Testing

/// `locsim serve` over the bundled places, asked by a raw socket with and without
/// `Accept-Encoding: gzip`; the gzipped body is checked with the system's `gzip -d`.
@Suite(.timeLimit(.minutes(1))) struct ServeGzipTests {
    /// The head (lowercased) and the body bytes of one answer, read to the server's close.
    static func fetch(port: Int, _ path: String, headers: String = "") throws -> (head: String, body: [UInt8]) {
        guard let fd = LoopbackSocket.connectTo(port: port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(headers)\r\n"
        guard LoopbackSocket.writeAll(fd, Array(request.utf8)) else { throw HarnessError("cannot send") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            guard LoopbackSocket.waitReadable(fd, timeout: .seconds(30)) else { throw HarnessError("no answer within 30 s") }
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw HarnessError("read failed: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { throw HarnessError("no header end") }
        return (String(decoding: bytes[..<end.lowerBound], as: UTF8.self).lowercased(), Array(bytes[end.upperBound...]))
    }

    @Test("The 5 km Tokyo answer with Accept-Encoding: gzip: Content-Encoding gzip, and gzip -d gives exactly the plain body")
    func tokyoFiveKilometres() async throws {
        let server = try await ServeProcess.start([])
        defer { server.stop() }
        let path = "/locations/nearby?lat=35.6812&lng=139.7671&radius=5000"
        let port = server.http
        let plain = try await onThread { try Self.fetch(port: port, path) }
        let zipped = try await onThread { try Self.fetch(port: port, path, headers: "Accept-Encoding: gzip\r\n") }
        #expect(plain.head.hasPrefix("http/1.1 200"))
        #expect(!plain.head.contains("content-encoding"))
        #expect(plain.head.contains("vary: accept-encoding"))
        #expect(zipped.head.contains("content-encoding: gzip"))
        #expect(zipped.head.contains("vary: accept-encoding"))
        #expect(zipped.head.contains("content-length: \(zipped.body.count)\r\n") || zipped.head.hasSuffix("content-length: \(zipped.body.count)"))
        #expect(plain.body.count > 200_000)
        try await withScratchFolder("locsim-serve-gzip") { folder in
            let file = folder + "/nearby.gz"
            try Data(zipped.body).write(to: URL(fileURLWithPath: file))
            let gunzip = try await ChildProcess.run(["/bin/gzip", "-dc", file])
            #expect(gunzip.status == 0, "\(gunzip.errors)")
            #expect(Array(gunzip.output.utf8) == plain.body)
        }
        print("ServeGzipTests: 5 km Tokyo answer: \(plain.body.count) bytes plain, \(zipped.body.count) bytes gzipped")
    }
}
