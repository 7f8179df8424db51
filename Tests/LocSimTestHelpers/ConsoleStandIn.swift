#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LocationCore

/// A stand-in for the Android emulator's console on 127.0.0.1: it greets as the emulator does,
/// insists on `auth TOKEN` when given a token, answers `geo fix` with `OK` (or `KO`), and keeps
/// every byte each connection sent, so the tests check the exact bytes and the auth step.
public final class ConsoleStandIn: Sendable {
    public enum Behaviour: Sendable {
        case normal
        /// Answers `geo fix` with `KO: …`.
        case refuseFixes
        /// Greets, then never answers.
        case silentAfterGreeting
        /// Closes the first connection after its first `geo fix` (answered).
        case dropFirstConnectionAfterOneFix
    }

    public let port: Int
    public let token: String?
    public let behaviour: Behaviour
    private let listener: Int32
    private let received = Locked<[[UInt8]]>([])
    private let changes = Changes()
    private let stopping = Locked(false)
    private let done = DispatchSemaphore(value: 0)

    public init(token: String?, behaviour: Behaviour = .normal) throws {
        (listener, port) = try LoopbackSocket.makeListener()
        self.token = token
        self.behaviour = behaviour
        Thread.detachNewThread { [self] in
            acceptLoop()
            done.signal()
        }
    }

    /// Each connection's bytes as text, in connection order.
    public var connections: [String] { received.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }

    /// Waits until `condition` holds for the received text, checking again as text arrives.
    public func wait(timeout: Duration = .seconds(30), until condition: @escaping @Sendable ([String]) -> Bool) async throws {
        try await changes.wait(for: "what the test waited for", timeout: timeout, account: { [self] in "the console stand-in has \(connections)" }) {
            [self] in condition(connections)
        }
    }

    public func stop() {
        stopping.withLock { $0 = true }
        done.wait()
        close(listener)
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func acceptLoop() {
        var connectionIndex = 0
        while !isStopping {
            guard LoopbackSocket.waitReadable(listener, timeout: .milliseconds(20)) else { continue }
            let client = LoopbackSocket.accept(listener)
            guard client >= 0 else { continue }
            received.withLock { $0.append([]) }
            serve(client, index: connectionIndex)
            close(client)
            connectionIndex += 1
        }
    }

    private func reply(_ fd: Int32, _ lines: [String]) {
        _ = LoopbackSocket.writeAll(fd, Array(lines.map { $0 + "\r\n" }.joined().utf8))
    }

    private func serve(_ fd: Int32, index: Int) {
        if token != nil {
            reply(fd, [
                "Android Console: Authentication required",
                "Android Console: type 'auth <auth_token>' to authenticate",
                "Android Console: you can find your <auth_token> in ",
                "'/root/.emulator_console_auth_token'",
                "OK",
            ])
        } else {
            reply(fd, ["Android Console: type 'help' for a list of commands", "OK"])
        }
        var authenticated = token == nil
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isStopping {
            guard LoopbackSocket.waitReadable(fd, timeout: .milliseconds(20)) else { continue }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return }
            received.withLock { $0[index] += buffer[..<count] }
            changes.signal()
            pending += buffer[..<count]
            // The console's lines end in CR LF when typed through telnet; take exactly that.
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                guard line.hasSuffix("\r") else {
                    reply(fd, ["KO: the stand-in expects CR LF line ends"])
                    continue
                }
                let command = String(line.dropLast())
                if behaviour == .silentAfterGreeting { continue }
                if command.hasPrefix("auth ") {
                    if let token, command == "auth \(token)" {
                        authenticated = true
                        reply(fd, ["Android Console: type 'help' for a list of commands", "OK"])
                    } else {
                        reply(fd, ["KO: authentication token does not match ~/.emulator_console_auth_token"])
                    }
                } else if !authenticated {
                    reply(fd, ["KO: unknown command, try 'help'"])
                } else if command.hasPrefix("geo fix ") {
                    if behaviour == .refuseFixes {
                        reply(fd, ["KO: argument 'x' is not a number"])
                    } else {
                        reply(fd, ["OK"])
                        if behaviour == .dropFirstConnectionAfterOneFix, index == 0 { return }
                    }
                } else {
                    reply(fd, ["KO: unknown command, try 'help'"])
                }
            }
        }
    }
}
