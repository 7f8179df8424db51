import Foundation
package import LocationCore
import NMEAFormat
import NIOCore
import NIOPosix
import ConnectFailure

/// The Android emulator's console as a ``FixSink``: each fix becomes
/// `geo fix LON LAT [ALT [SATELLITES [KNOTS]]]`.
///
/// The console is a line protocol on the emulator's console port (5554, 5556, …; it accepts
/// connections from the same machine only). It greets with a few lines ending in `OK`; a
/// console that says "Authentication required" gets `auth TOKEN`, the token read from the file
/// the emulator wrote (`~/.emulator_console_auth_token`). Each command is answered with `OK`, or
/// with a line starting `KO` that says what was wrong. Lines are sent with CR LF, as telnet does.
package struct EmulatorConsole: FixSink {
    package struct Configuration: Sendable, Hashable {
        package var host: String
        package var port: Int
        /// The file holding the auth token (read at each connection; the emulator may renew it).
        package var tokenFile: String
        /// How long to wait for the console's answer to anything before giving up on the connection.
        package var replyTimeout: Duration

        /// - Throws: ``/LocationCore/ConfigurationError`` naming `port` or `replyTimeout`.
        package init(host: String = "127.0.0.1", port: Int, tokenFile: String, replyTimeout: Duration = .seconds(5))
            throws(ConfigurationError)
        {
            guard (1...65_535).contains(port) else {
                throw ConfigurationError(parameter: "port", "an emulator console port is 1...65535, got \(port)")
            }
            guard replyTimeout > .zero else {
                throw ConfigurationError(parameter: "replyTimeout", "must be positive, got \(replyTimeout)")
            }
            self.host = host
            self.port = port
            self.tokenFile = tokenFile
            self.replyTimeout = replyTimeout
        }
    }

    /// The longest line the console may send; anything longer is not the console.
    package static let maximumLineLength = 4096

    package let configuration: Configuration
    package var destination: String { "\(configuration.host):\(configuration.port)" }

    package init(configuration: Configuration) { self.configuration = configuration }

    /// The command for one fix. `geo fix` takes longitude first, then latitude (degrees with 7
    /// decimals, about 1 cm), then optionally the altitude in metres, the number of satellites
    /// used (1–12) and the speed in knots, each only after the ones before it. So a fix with a
    /// speed sends all five (the sky's ``SkyModel/inUse`` satellites; altitude 0 when the fix has
    /// none, since the console has no way to skip it), one with only an altitude sends three,
    /// and one with neither sends two. The console takes no course.
    package static func command(for fix: Fix) -> String? {
        guard fix.hasPosition, let coordinate = fix.coordinate else { return nil }
        var words = [
            "geo", "fix", DecimalText.fixed(coordinate.longitude, decimals: 7), DecimalText.fixed(coordinate.latitude, decimals: 7),
        ]
        let altitude = fix.altitude.flatMap { $0.isFinite ? $0 : nil }
        let speed = fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        if altitude != nil || speed != nil { words.append(DecimalText.fixed(altitude ?? 0, decimals: 1)) }
        if let speed {
            words.append(String(SkyModel.inUse))
            words.append(DecimalText.fixed(speed / Knot.metresPerSecond, decimals: 3))
        }
        return words.joined(separator: " ")
    }

    package func withSession(_ body: (any FixSession) async throws -> Void) async throws {
        let endpoint = destination
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw EmulatorConsoleError(
                .connect, endpoint: endpoint, "cannot connect: \(ConnectFailure.reason(error)) (is the emulator running on this port?)")
        }
        let configuration = configuration
        try await channel.executeThenClose { inbound, outbound in
            let session = Session(
                channel: channel.channel, inbound: inbound.makeAsyncIterator(), outbound: outbound,
                endpoint: endpoint, replyTimeout: configuration.replyTimeout)
            let greeting = try await session.readAnswer(to: "the greeting")
            if greeting.contains(where: { $0.localizedCaseInsensitiveContains("authentication required") }) {
                let token = try Self.token(from: configuration.tokenFile, endpoint: endpoint)
                try await session.command("auth \(token)", shownAs: "auth", failure: .authentication)
            }
            try await body(session)
        }
    }

    /// The token: the file's first line, without surrounding white space.
    static func token(from path: String, endpoint: String) throws(EmulatorConsoleError) -> String {
        let data: [UInt8]
        do {
            data = try SystemIO.readFile(path)
        } catch {
            throw EmulatorConsoleError(
                .authentication, endpoint: endpoint,
                "the console asks for its auth token, and \(path) cannot be read: \(FileErrorText.reason(for: error))")
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty, !token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw EmulatorConsoleError(.authentication, endpoint: endpoint, "\(path) holds no auth token")
        }
        return token
    }

    /// One connection: commands out, answers in, each answer awaited with a timeout.
    final class Session: FixSession {
        let channel: any Channel
        var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        let endpoint: String
        let replyTimeout: Duration
        private var pending: [UInt8] = []

        init(
            channel: any Channel, inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
            outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, endpoint: String, replyTimeout: Duration
        ) {
            self.channel = channel
            self.inbound = inbound
            self.outbound = outbound
            self.endpoint = endpoint
            self.replyTimeout = replyTimeout
        }

        func send(_ fix: Fix) async throws {
            guard let line = EmulatorConsole.command(for: fix) else { return }
            try await command(line, shownAs: line, failure: .refused)
        }

        /// Sends `line` and waits for `OK`; a `KO` answer throws `failure` with the console's words.
        func command(_ line: String, shownAs shown: String, failure: EmulatorConsoleError.Code) async throws {
            do {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
            } catch {
                throw EmulatorConsoleError(.closed, endpoint: endpoint, "the console closed the connection (\(error))")
            }
            let answer = try await readAnswer(to: "'\(shown)'")
            if let refusal = answer.last, refusal.hasPrefix("KO") {
                throw EmulatorConsoleError(failure, endpoint: endpoint, "'\(shown)' was refused: \(refusal)")
            }
        }

        /// Lines up to and including the one that is `OK` or starts with `KO`.
        func readAnswer(to what: String) async throws -> [String] {
            let timedOut = Locked(false)
            let limit = TimeAmount.nanoseconds(Int64(clamping: replyTimeout.wholeMicroseconds) &* 1000)
            let timer = channel.eventLoop.scheduleTask(in: limit) { [channel] in
                timedOut.withLock { $0 = true }
                channel.close(promise: nil)
            }
            defer { timer.cancel() }
            var lines: [String] = []
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = pending[..<newline]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    pending.removeSubrange(...newline)
                    let text = String(decoding: line, as: UTF8.self)
                    lines.append(text)
                    if text == "OK" || text.hasPrefix("KO") { return lines }
                    continue
                }
                guard pending.count <= EmulatorConsole.maximumLineLength else {
                    throw EmulatorConsoleError(
                        .protocolError, endpoint: endpoint,
                        "a line longer than \(EmulatorConsole.maximumLineLength) bytes: not an emulator console")
                }
                let chunk: ByteBuffer?
                do {
                    chunk = try await inbound.next()
                } catch {
                    throw EmulatorConsoleError(.closed, endpoint: endpoint, "reading the answer to \(what) failed: \(error)")
                }
                guard let chunk else {
                    if timedOut.withLock({ $0 }) {
                        throw EmulatorConsoleError(
                            .timeout, endpoint: endpoint, "no answer to \(what) within \(replyTimeout)")
                    }
                    throw EmulatorConsoleError(.closed, endpoint: endpoint, "the console closed the connection before answering \(what)")
                }
                pending.append(contentsOf: chunk.readableBytesView)
            }
        }
    }
}

/// Why the emulator console did not take a fix, and where.
package struct EmulatorConsoleError: Error, Sendable, CustomStringConvertible {
    package enum Code: Sendable, Hashable {
        /// No connection (nothing listening, refused).
        case connect
        /// The token file is missing or empty, or the console refused the token.
        case authentication
        /// The console answered a command with `KO`.
        case refused
        /// The console did not answer in time.
        case timeout
        /// The connection ended.
        case closed
        /// What answered is not an emulator console.
        case protocolError
    }

    package let code: Code
    /// `host:port`.
    package let endpoint: String
    package let message: String

    init(_ code: Code, endpoint: String, _ message: String) {
        self.code = code
        self.endpoint = endpoint
        self.message = message
    }

    package var description: String { "android emulator console \(endpoint): \(message)" }
}
