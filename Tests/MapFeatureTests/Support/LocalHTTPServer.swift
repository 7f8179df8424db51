#if os(Linux) || os(macOS)
import Foundation
import LocSimTestHelpers

/// The Python stand-in for the game server (Fixtures/nearby_server.py), started on loopback for
/// one test and stopped when the test's closure returns or throws.
struct LocalHTTPServer {
    let port: Int
    let baseURL: URL

    /// The script: located in the source tree via `#filePath`.
    static let script = PackagePaths.path("Tests/MapFeatureTests/Fixtures/nearby_server.py")

    /// Runs `body` with a fresh server; the server is stopped afterwards whatever happens.
    static func with<T>(_ body: (LocalHTTPServer) async throws -> T) async throws -> T {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let result: Result<T, any Error>
        do {
            let reader = output.fileHandleForReading
            let port = try await offThePool { try readPort(from: reader) }
            let server = LocalHTTPServer(port: port, baseURL: URL(string: "http://127.0.0.1:\(port)")!)
            result = .success(try await body(server))
        } catch {
            result = .failure(error)
        }
        // Closing stdin ends the script; terminate covers a script that hangs.
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        await offThePool { process.waitUntilExit() }
        return try result.get()
    }

    /// Runs blocking work (pipe reads, waiting for exit) on its own thread, not the cooperative pool.
    private static func offThePool<R: Sendable>(_ work: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private static func offThePool(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            Thread { work(); continuation.resume() }.start()
        }
    }

    /// Reads the "PORT n" line the script prints once it listens.
    private static func readPort(from handle: FileHandle) throws -> Int {
        var text = ""
        while !text.contains("\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { throw ServerError(message: "nearby_server.py exited before printing its port (is python3 installed?)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw ServerError(message: "nearby_server.py printed \(line.debugDescription), expected \"PORT <n>\"")
        }
        return port
    }

    struct ServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
#endif
