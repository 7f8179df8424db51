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

/// `locsim serve` stopped by each of its signals under keep-alive load: it drains (the listener
/// closes, each connection's next answer says `Connection: close`), so clients sending request
/// after request lose none. Every socket a test opens it closes, and every server it starts is
/// awaited.
@Suite(.timeLimit(.minutes(1))) struct ServeDrainTests {
    static let nearby = "/locations/nearby?lat=35.6812&lng=139.7671&radius=100&limit=20"

    /// What one keep-alive client saw.
    struct Tally: Sendable {
        /// Requests written to a socket.
        var sent = 0
        /// Of those, answered in full with the expected status and body.
        var answered = 0
        /// Of those, answered but not as expected (status, body).
        var wrong = 0
        /// Requests written that got no complete answer: the server closed or reset the
        /// connection first, or went silent.
        var lost: [String] = []
        /// Answers that said `Connection: close` (the client then opened a new connection).
        var toldToClose = 0
        /// Connections opened.
        var connections = 0

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(
                sent: a.sent + b.sent, answered: a.answered + b.answered, wrong: a.wrong + b.wrong, lost: a.lost + b.lost,
                toldToClose: a.toldToClose + b.toldToClose, connections: a.connections + b.connections)
        }
    }

    /// 10 stops in two halves that may run side by side, each within the suite's time limit
    /// however busy the machine (each stop starts a server).
    @Test(
        "10 stops (SIGTERM, SIGINT, SIGHUP in turn), each under a keep-alive burst of 8 connections: no request lost, exit 0",
        arguments: [0..<5, 5..<10])
    func stopsUnderKeepAliveLoad(stops: Range<Int>) async throws {
        let signals: [(Int32, String)] = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")]
        var report: [String] = []
        var total = Tally()
        for stop in stops {
            let (signal, name) = signals[stop % signals.count]
            let server = try await ServeProcess.start([])
            defer { server.stop() }
            let expected = try await RawHTTP.request("GET", port: server.http, Self.nearby)
            #expect(expected.status == 200)
            let progress = Changes()
            let answeredSoFar = Locked(0)
            // 8 clients, each on a thread of its own, asking again as soon as an answer is in;
            // the signal goes out once 240 have been answered, while all 8 are busy. (The
            // limit only bounds a server that never stops; each client stops long before it.)
            let tally = try await withThrowingTaskGroup(of: Tally.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        try await onThread("locsim.test.drain") {
                            Self.keepAliveClient(
                                port: server.http, player: "drain-\(client)", expected: expected.body, limit: 2_000,
                                onAnswer: {
                                    answeredSoFar.withLock { $0 += 1 }
                                    progress.signal()
                                })
                        }
                    }
                }
                try await progress.wait(for: "240 answers before stop \(stop + 1)", timeout: .seconds(20)) {
                    answeredSoFar.withLock { $0 } >= 240
                }
                server.command.child.send(signal)
                var tally = Tally()
                for try await one in group { tally = tally + one }
                return tally
            }
            let termination = try await server.command.waitForExit(timeout: .seconds(20))
            #expect(termination == .exited(0), "after \(name): \(termination); \(server.command.account)")
            #expect(server.command.child.errors.contains("locsim serve: stopped"), "after \(name): \(server.command.account)")
            #expect(tally.lost.isEmpty, "stop \(stop + 1) (\(name)): \(tally.lost.count) lost: \(tally.lost.prefix(5))")
            #expect(tally.wrong == 0, "stop \(stop + 1) (\(name))")
            #expect(tally.answered == tally.sent)
            // Every client was still sending when the signal came, and was told to close.
            #expect(tally.toldToClose == 8, "stop \(stop + 1) (\(name)): \(tally.toldToClose) answers said Connection: close")
            // The server's own count (its access log) agrees: one line per request answered.
            let logged = server.command.lines.filter { $0.text.contains(" GET /locations/nearby?") }.count
            #expect(logged == tally.sent + 1, "stop \(stop + 1) (\(name)): \(logged) logged, \(tally.sent + 1) sent")
            report.append("\(name) \(tally.sent)/\(tally.lost.count)")
            total = total + tally
        }
        print("""
            ServeDrainTests: stops \(stops.lowerBound + 1)–\(stops.upperBound) under 8 keep-alive connections: \(total.sent) requests sent, \(total.answered) answered \
            in full, \(total.lost.count) lost, \(total.toldToClose) answers with Connection: close; per stop (sent/lost): \
            \(report.joined(separator: ", "))
            """)
    }

    // MARK: Helpers

    /// One client sending request after request on a keep-alive connection until it cannot
    /// connect any more (the server stopped) or has sent `limit`. After an answer that says
    /// `Connection: close` it opens a new connection, as a client library does.
    static func keepAliveClient(
        port: Int, player: String, expected: String, limit: Int, onAnswer: @Sendable () -> Void
    ) -> Tally {
        var tally = Tally()
        let request = Array(
            "GET \(nearby) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Player-ID: \(player)\r\n\r\n".utf8)
        var socket: Int32? = nil
        defer { if let socket { close(socket) } }
        while tally.sent < limit {
            if socket == nil {
                // Refused: the listener has closed. Nothing was sent, so nothing is lost.
                guard let fd = LoopbackSocket.connectTo(port: port) else { break }
                socket = fd
                tally.connections += 1
            }
            guard let fd = socket else { break }
            tally.sent += 1
            guard LoopbackSocket.writeAll(fd, request) else {
                tally.lost.append("\(player) request \(tally.sent): could not be written (\(String(cString: strerror(errno))))")
                close(fd)
                socket = nil
                continue
            }
            switch readAnswer(fd) {
            case .failure(let problem):
                tally.lost.append("\(player) request \(tally.sent) on connection \(tally.connections): \(problem)")
                close(fd)
                socket = nil
            case .success(let answer):
                tally.answered += 1
                if answer.status != 200 || answer.body != expected { tally.wrong += 1 }
                onAnswer()
                if answer.headers["connection"]?.lowercased() == "close" {
                    tally.toldToClose += 1
                    close(fd)
                    socket = nil
                }
            }
        }
        return tally
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads one answer (headers, then `Content-Length` bytes) from a keep-alive connection.
    static func readAnswer(_ fd: Int32) -> Result<RawHTTP.Answer, Problem> {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headerEnd: Int?
        var length: Int?
        while true {
            if let headerEnd, let length, bytes.count >= headerEnd + length { break }
            guard LoopbackSocket.waitReadable(fd, timeout: .seconds(10)) else {
                return .failure(Problem(description: "no answer within 10 s (\(bytes.count) bytes)"))
            }
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                return .failure(Problem(description: "read failed (\(String(cString: strerror(errno)))) after \(bytes.count) bytes"))
            }
            if count == 0 { return .failure(Problem(description: "closed by the server after \(bytes.count) bytes of the answer")) }
            bytes += buffer[0..<count]
            if headerEnd == nil, let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headerEnd = end
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let value = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                else { return .failure(Problem(description: "an answer without Content-Length: \(head.prefix(200))")) }
                length = value
            }
        }
        do {
            return .success(try RawHTTP.parse(bytes))
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
    }
}
