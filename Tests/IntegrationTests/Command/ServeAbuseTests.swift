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

/// A real `locsim serve` against clients that misbehave by the thousand: ones that give up on
/// held requests and hang up, ones that never finish their headers. Every socket a test opens it
/// closes, and the server is stopped, whatever happens.
@Suite(.timeLimit(.minutes(1))) struct ServeAbuseTests {
    static let nearby = "/locations/nearby?lat=35.6812&lng=139.7671&radius=100"

    @Test("5,000 abandoned held requests under ulimit -n 1024: /healthz answers throughout, no CLOSE-WAIT 2 s after")
    func abandonedHeldRequests() async throws {
        let server = try await ServeProcess.start(["--timeout-rate", "1"], openFileLimit: 1024)
        defer { server.stop() }
        let clock = ContinuousClock()
        var healthz: [Duration] = []
        // 20 waves of 250 clients: each connects and asks for places (the server holds the
        // request), /healthz is asked while they wait, then all 250 hang up.
        for _ in 0..<20 {
            let sockets = try await onThread { try Self.connect(250, port: server.http, sending: Self.request(Self.nearby)) }
            let start = clock.now
            let answer = try await RawHTTP.request("GET", port: server.http, "/healthz")
            healthz.append(start.duration(to: clock.now))
            for fd in sockets { close(fd) }
            #expect(answer.status == 200, "\(answer.body)")
        }
        let hungUp = clock.now
        // Each request ends as its client leaves: 499 in the access log (a few may have met the
        // connection cap while earlier waves were still closing: 503, and closed too).
        try await server.command.wait(for: "5,000 nearby requests in the access log") { lines in
            Self.count(lines, " 499 ") + Self.count(lines, "over_capacity") >= 5_000
        }
        let abandoned = Self.count(server.command.lines, " 499 ")
        #expect(abandoned > 4_000)
        // No socket of the server's port is left in CLOSE-WAIT, 2 s after the last hang-up.
        var closeWait = try Self.closeWait(port: server.http)
        while closeWait > 0, clock.now < hungUp + .seconds(2) {
            try await Task.sleep(for: .milliseconds(100))
            closeWait = try Self.closeWait(port: server.http)
        }
        #expect(closeWait == 0, "\(closeWait) sockets in CLOSE-WAIT on port \(server.http)")
        let answer = try await RawHTTP.request("GET", port: server.http, "/healthz")
        #expect(answer.status == 200)
        let milliseconds = healthz.map { $0.fractionalSeconds * 1000 }.sorted()
        print("""
            ServeAbuseTests: 5,000 abandoned held requests under ulimit -n 1024: \(abandoned) logged 499; \
            /healthz while 250 were held: median \(Int(milliseconds[milliseconds.count / 2])) ms, \
            max \(Int(milliseconds.last ?? 0)) ms; CLOSE-WAIT \(closeWait) at \
            \(Int(hungUp.duration(to: clock.now).fractionalSeconds * 1000)) ms after the last hang-up
            """)
    }

    @Test("500 slow-header clients do not delay others: their heads stay due while 50 requests are answered")
    func slowHeaderClients() async throws {
        let server = try await ServeProcess.start(["--header-timeout", "30s"])
        defer { server.stop() }
        // 500 connections send the start of a head and stall.
        let slow = try await onThread { try Self.connect(500, port: server.http, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ") }
        defer { for fd in slow { close(fd) } }
        let clock = ContinuousClock()
        var took: [Duration] = []
        for _ in 0..<50 {
            let start = clock.now
            let answer = try await RawHTTP.request("GET", port: server.http, Self.nearby)
            took.append(start.duration(to: clock.now))
            #expect(answer.status == 200, "\(answer.body)")
        }
        // The slow ones are still waiting for their own heads: nothing answered, nothing closed.
        let answered = try await onThread { slow.filter { LoopbackSocket.waitReadable($0, timeout: .zero) }.count }
        #expect(answered == 0)
        let metrics = try await RawHTTP.request("GET", port: server.http, "/metrics")
        #expect(metrics.body.contains("locsim_http_connections "))
        let milliseconds = took.map { $0.fractionalSeconds * 1000 }.sorted()
        print("""
            ServeAbuseTests: 50 nearby requests beside 500 slow-header clients: median \
            \(Int(milliseconds[milliseconds.count / 2])) ms, max \(Int(milliseconds.last ?? 0)) ms
            """)
    }

    // MARK: Helpers

    static func request(_ target: String) -> String { "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }

    /// `count` connections to the server, each sent `text`; closes them all if one fails.
    static func connect(_ count: Int, port: Int, sending text: String) throws -> [Int32] {
        var sockets: [Int32] = []
        do {
            for _ in 0..<count {
                guard let fd = LoopbackSocket.connectTo(port: port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
                sockets.append(fd)
                guard LoopbackSocket.writeAll(fd, Array(text.utf8)) else { throw HarnessError("cannot send to 127.0.0.1:\(port)") }
            }
        } catch {
            for fd in sockets { close(fd) }
            throw error
        }
        return sockets
    }

    static func count(_ lines: [LiveCommand.Line], _ text: String) -> Int {
        lines.reduce(0) { $0 + ($1.text.contains(text) ? 1 : 0) }
    }

    /// Sockets on local port `port` in CLOSE-WAIT (state 08 in /proc/net/tcp).
    static func closeWait(port: Int) throws -> Int {
        let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().filter { row in
            let fields = row.split(separator: " ")
            return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "08"
        }.count
    }
}
