public import Foundation

/// The Python stand-in for the game server (Tests/MapFeatureTests/Fixtures/nearby_server.py) on
/// loopback: the app's HTTP repository and `locsim replay --online` are tested against it.
public final class LocalHTTPServer: Sendable {
    public let port: Int
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let process: ChildProcess

    /// The script, in the source tree.
    public static let script = PackagePaths.path("Tests/MapFeatureTests/Fixtures/nearby_server.py")

    /// Starts the script (with `environment` added) and returns once it listens.
    public init(environment: [String: String] = [:]) async throws {
        process = try await ChildProcess(
            ["/usr/bin/env", "python3", Self.script], environment: environment, holdingInput: true)
        try await process.wait(for: "nearby_server.py to print its port (is python3 installed?)") { [process] in
            process.output.contains("\n")
        }
        let line = process.output.prefix { $0 != "\n" }
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.stop()
            throw HarnessError("nearby_server.py printed \(String(line).debugDescription), expected \"PORT <n>\"")
        }
        self.port = port
    }

    /// Waits until the server has printed `text` (as "HELD 4" for a request it holds).
    public func waitForOutput(_ text: String, timeout: Duration = .seconds(60)) async throws {
        try await process.wait(for: "nearby_server.py to print \(text)", timeout: timeout) { [process] in
            process.output.contains(text)
        }
    }

    /// Stops the server (SIGTERM; it also ends when the test process does); safe in `defer`.
    public func stop() { process.stop() }

    /// Runs `body` with a fresh server and stops it afterwards, whatever happens; returns once
    /// the server has ended.
    public static func with<T>(_ body: (LocalHTTPServer) async throws -> T) async throws -> T {
        let server = try await LocalHTTPServer()
        do {
            let result = try await body(server)
            await server.process.stopped()
            return result
        } catch {
            await server.process.stopped()
            throw error
        }
    }
}
