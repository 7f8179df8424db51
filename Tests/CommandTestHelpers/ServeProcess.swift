import Foundation
package import LocSimTestHelpers

/// A `locsim serve` the test starts on a free port (`--port 0`, and `--gpsd-port 0` with
/// `gpsd: true`), once it says where it listens, under `openFileLimit` (`ulimit -n`) when given.
/// Stop it with `defer { server.stop() }`.
package struct ServeProcess: Sendable {
    package let command: LiveCommand
    /// The HTTP port.
    package let http: Int
    /// The gpsd protocol port, when started with `gpsd: true`.
    package let gpsd: Int?
    /// The `--token` it was started with, which ``call(_:_:_:contentType:headers:)`` sends.
    package let token: String?

    /// `http://127.0.0.1:PORT`.
    package var base: String { "http://127.0.0.1:\(http)" }

    static let httpLine = "locsim serve: listening on http://127.0.0.1:"
    static let gpsdLine = "locsim serve: gpsd protocol on 127.0.0.1:"

    package static func start(
        gpsd: Bool = false, _ arguments: [String], environment: [String: String] = [:], openFileLimit: Int? = nil
    ) async throws -> ServeProcess {
        let command = try await LiveCommand(
            ["serve", "--port", "0"] + (gpsd ? ["--gpsd-port", "0"] : []) + arguments, environment: environment,
            openFileLimit: openFileLimit)
        do {
            // The start-up lines are on standard output, or on standard error with
            // --log-format json (standard output then carries JSON lines only).
            @Sendable func startup() -> [String] {
                command.lines.map(\.text) + command.child.errors.split(separator: "\n").map(String.init)
            }
            try await command.wait(for: gpsd ? "both listening lines" : "the listening line") { _ in
                let lines = startup()
                return lines.contains { $0.hasPrefix(httpLine) } && (!gpsd || lines.contains { $0.hasPrefix(gpsdLine) })
            }
            func port(_ prefix: String) throws -> Int {
                let line = startup().first { $0.hasPrefix(prefix) }!
                guard let port = Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
                    throw HarnessError("no port in '\(line)'")
                }
                return port
            }
            let token = arguments.firstIndex(of: "--token").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
            return ServeProcess(
                command: command, http: try port(httpLine), gpsd: gpsd ? try port(gpsdLine) : nil, token: token)
        } catch {
            command.stop()
            throw error
        }
    }

    /// One request on a connection of its own, with the server's token.
    package func call(
        _ method: String, _ path: String, _ body: String = "", contentType: String = "application/json",
        headers: [String: String] = [:]
    ) async throws -> RawHTTP.Answer {
        try await call(method, path, body, token: token, contentType: contentType, headers: headers)
    }

    /// One request on a connection of its own, with `token` (none when nil).
    package func call(
        _ method: String, _ path: String, _ body: String = "", token: String?, contentType: String = "application/json",
        headers: [String: String] = [:]
    ) async throws -> RawHTTP.Answer {
        do {
            return try await RawHTTP.request(method, port: http, path, token: token, body: body, contentType: contentType, headers: headers)
        } catch {
            // Say how the server was: a request closed unanswered is the server's story.
            throw HarnessError(
                "\(error) (\(command.child.termination.map { "server: \($0)" } ?? "server running"); "
                    + "its standard error ends: \(command.child.errors.suffix(2_000)))")
        }
    }

    /// `GET /players/NAME` until `condition` holds, asked again after each frame of the
    /// player's event stream (`/players/NAME/fixes`): every field a test waits for here (a fix,
    /// the count of fixes, a teleported position) changes with a fix, which the stream reports.
    package func waitFor(
        _ name: String, _ what: String, until condition: @escaping @Sendable ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let stream = try SocketLines.events(port: http, path: "/players/\(name)/fixes", token: token)
        defer { stream.stop() }
        let answer = try await withDeadline(.seconds(30), { "timed out waiting for \(what)" }) { () -> RawHTTP.Answer in
            while true {
                // Counted before asking: a frame that comes while the answer is on its way
                // makes the wait below return at once, so no change is missed.
                let seen = stream.lines.count
                let answer = try await call("GET", "/players/\(name)")
                if condition(answer.json) { return answer }
                try await stream.wait(what) { $0.lines.count > seen }
            }
        }
        return answer.json
    }

    /// SIGTERM; safe in `defer`.
    package func stop() { command.stop() }
}

/// `locsim nmea serve --port F ARGUMENTS` on a free port F, once it listens.
package enum NMEAServe {
    package static func start(_ arguments: [String]) async throws -> (command: LiveCommand, port: Int) {
        var failures: [String] = []
        for _ in 0..<5 {
            let port = try LoopbackSocket.freePort()
            let command = try await LiveCommand(["nmea", "serve", "--port", String(port)] + arguments)
            // It says so on standard error once it listens; it exits at once when another test
            // took the port in the meantime.
            do {
                try await command.child.wait(for: "listening") { command.child.errors.contains("on 127.0.0.1:\(port)") }
                return (command, port)
            } catch {
                failures.append("port \(port): \(error)")
            }
            command.stop()
        }
        throw HarnessError("locsim nmea serve did not start: \(failures)")
    }
}
