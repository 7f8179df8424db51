#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation
public import LocationCore

/// A minimal raw-socket gpsd JSON client (`?WATCH={"enable":true,"json":true}`) without libgps:
/// the reference for what the daemon actually sent.
///
/// With `echo`, the WATCH also asks for `"nmea":true`: gpsd then echoes every NMEA sentence it has
/// handled, just before the reports that sentence caused. Together with ``sync(timeout:)`` this
/// tells a test when gpsd is done with a sentence (see ``LockStepFeed``).
public final class RawGPSDClient: Sendable {
    public struct Line: Sendable {
        public let text: String
        public let receivedAt: ContinuousClock.Instant
    }

    /// One `TPV` report, with the fields tests compare.
    public struct TPV: Sendable, CustomStringConvertible {
        public let mode: Int
        public let time: Date?
        public let latitude: Double?
        public let longitude: Double?
        /// The estimated horizontal error: `eph`, else √(`epx`² + `epy`²), in metres.
        public let horizontalError: Double?
        /// The report as gpsd wrote it.
        public let json: String
        /// The newest `SKY` gpsd sent before this report, as it wrote it.
        public fileprivate(set) var sky: String?

        /// What the provider turns into a positioned fix: mode 2 or 3, a time, and a valid position.
        public var isPositioned: Bool {
            guard mode >= 2, time != nil, let latitude, let longitude else { return false }
            return (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
        }

        /// Whether `fix` is what the provider made of this report: for a positioned report the
        /// same time and the same position to 1e-9°; otherwise a status (no position), at the
        /// report's own time when it has one.
        public func matches(_ fix: Fix) -> Bool {
            matches(time: fix.time, latitude: fix.coordinate?.latitude, longitude: fix.coordinate?.longitude)
        }

        /// Whether a fix or status at `time` with the given position (`nil` for a status) is
        /// what a client made of this report: for a positioned report the same time (within
        /// `timeTolerance` seconds, for clients that print rounded times) and the same position
        /// to 1e-9°; otherwise a status, at the report's own time when it has one.
        public func matches(
            time: Date, latitude: Double?, longitude: Double?, timeTolerance: TimeInterval = 0
        ) -> Bool {
            guard isPositioned, let expectedLatitude = self.latitude, let expectedLongitude = self.longitude else {
                return latitude == nil && (self.time.map { abs($0.timeIntervalSince(time)) <= timeTolerance } ?? true)
            }
            guard let latitude, let longitude, let expectedTime = self.time else { return false }
            return abs(expectedTime.timeIntervalSince(time)) <= timeTolerance
                && abs(latitude - expectedLatitude) <= 1e-9 && abs(longitude - expectedLongitude) <= 1e-9
        }

        public var description: String {
            "TPV(mode \(mode), time \(time.map { UTCTimestamp.format($0, fractionDigits: 3) } ?? "-"), "
                + "\(latitude.map { String($0) } ?? "-"),\(longitude.map { String($0) } ?? "-"))"
        }

        public init?(json text: String) {
            guard let data = text.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            json = text
            mode = object["mode"] as? Int ?? 0
            time = (object["time"] as? String).flatMap { UTCTimestamp.parse($0) }
            latitude = object["lat"] as? Double
            longitude = object["lon"] as? Double
            if let eph = object["eph"] as? Double {
                horizontalError = eph
            } else if let x = object["epx"] as? Double, let y = object["epy"] as? Double {
                horizontalError = (x * x + y * y).squareRoot()
            } else {
                horizontalError = nil
            }
        }
    }

    private struct State {
        var lines: [Line] = []
        var tpvs: [TPV] = []
        var lastSky: String?
        /// The NMEA sentences gpsd echoed (with `echo`), in order.
        var echoed: [String] = []
        /// For each answer to a `?VERSION` sent after the WATCH: how many sentences had been
        /// echoed before it.
        var answers: [Int] = []
        var isWatching = false
        var isClosed = false
        /// Reading stops once the WATCH reply is in, until ``resume()``.
        var paused = false
    }

    private let socket: ReaderSocket
    private let state = Locked(State())
    /// Broadcast after every batch of lines, and when the connection ends.
    private let changed = NSCondition()
    private let changes = Changes()

    /// Connects, subscribes, and reads on its own thread until ``stop()`` or the daemon closes.
    ///
    /// - Parameters:
    ///   - echo: Also subscribe to the NMEA sentences gpsd handles.
    ///   - receiveBuffer: The socket's receive buffer (`SO_RCVBUF`), or nil for the default.
    ///   - pauseAfterWatch: Read nothing after the WATCH reply until ``resume()``: a client
    ///     that stalls, so the server's sends to it back up.
    public init(port: Int, echo: Bool = false, receiveBuffer: Int32? = nil, pauseAfterWatch: Bool = false) throws {
        guard let fd = LoopbackSocket.connectTo(port: port, receiveBuffer: receiveBuffer) else {
            throw HarnessError("raw client: nothing at port \(port)")
        }
        socket = ReaderSocket(fd)
        state.withLock { $0.paused = pauseAfterWatch }
        let watch = echo ? #"?WATCH={"enable":true,"json":true,"nmea":true}"# : #"?WATCH={"enable":true,"json":true}"#
        Self.acknowledgeAtOnce(fd)
        guard socket.write(Array(watch.utf8) + [10]) else {
            socket.close()
            throw HarnessError("raw client: WATCH failed")
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "locsim.test.raw"
        thread.start()
    }

    /// Every line received so far.
    public var received: [Line] { state.withLock { $0.lines } }

    /// The `TPV` reports received so far, in order.
    public var tpvs: [TPV] { state.withLock { $0.tpvs } }

    /// The NMEA sentences gpsd echoed so far (only with `echo`).
    public var echoed: [String] { state.withLock { $0.echoed } }

    /// How many `TPV` reports were received so far, and the last of them.
    public var lastTPV: (count: Int, last: TPV?) { state.withLock { ($0.tpvs.count, $0.tpvs.last) } }

    /// How many sentences gpsd echoed so far.
    public var echoedCount: Int { state.withLock { $0.echoed.count } }

    /// Whether gpsd echoed `sentence` as one of its echoes `range`. gpsd echoes what it framed,
    /// so a sentence with junk before its `$` comes back without the junk.
    public func hasEchoed(_ sentence: String, in range: Range<Int>) -> Bool {
        state.withLock { state in
            state.echoed[range.clamped(to: state.echoed.indices)].contains { !$0.isEmpty && sentence.hasSuffix($0) }
        }
    }

    /// Waits until the daemon acknowledged the WATCH.
    public func waitUntilWatching(timeout: Duration = .seconds(30)) async throws {
        try await changes.wait(for: "gpsd's WATCH reply", timeout: timeout) { [state] in state.withLock { $0.isWatching } }
    }

    /// Waits until `condition` holds of what this client received, checking it now and after
    /// every batch of lines.
    ///
    /// - Throws: `HarnessError` naming `what` after `timeout`, or once the connection ended and
    ///   `condition` still does not hold.
    public func wait(
        for what: String, timeout: Duration = .seconds(30), _ condition: @escaping @Sendable (RawGPSDClient) -> Bool
    ) async throws {
        try await changes.wait(for: what, timeout: timeout, account: { [self] in "\(lastTPV.count) TPVs received" }) {
            [self] in condition(self)
        }
    }

    /// Sends `?VERSION;` and blocks (call it off the cooperative pool) until gpsd answers.
    ///
    /// gpsd's main loop handles the input its devices delivered before it reads client commands,
    /// and writes every report that input caused to every client as it handles it; so once the
    /// answer is here, gpsd has handled everything that reached it before the question.
    ///
    /// - Returns: How many sentences gpsd had echoed before the answer.
    /// - Throws: `HarnessError` when gpsd closes the connection or does not answer within `timeout`.
    public func sync(timeout: Duration) throws -> Int {
        let target = state.withLock { $0.answers.count } + 1
        guard socket.write(Array("?VERSION;\n".utf8)) else {
            throw HarnessError("raw client: gpsd closed the connection")
        }
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        changed.lock()
        defer { changed.unlock() }
        while true {
            let (answer, isClosed) = state.withLock { state in
                (state.answers.count >= target ? state.answers[target - 1] : nil, state.isClosed)
            }
            if let answer { return answer }
            if isClosed { throw HarnessError("raw client: gpsd closed the connection before answering ?VERSION") }
            if !changed.wait(until: deadline), Date() >= deadline {
                throw HarnessError("raw client: gpsd did not answer ?VERSION within \(timeout)")
            }
        }
    }

    public func stop() {
        socket.shutDown()
        resume()
    }

    /// Reads on, for a client made with `pauseAfterWatch`.
    public func resume() {
        state.withLock { $0.paused = false }
        signal()
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket.descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            Self.acknowledgeAtOnce(socket.descriptor)
            let now = ContinuousClock.now
            pending.append(contentsOf: buffer[0..<count])
            var lines: [Line] = []
            while let newline = pending.firstIndex(of: 10) {
                let text = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                pending.removeSubrange(...newline)
                lines.append(Line(text: text, receivedAt: now))
            }
            let tpvs = lines.map { $0.text.hasPrefix(#"{"class":"TPV""#) ? TPV(json: $0.text) : nil }
            state.withLock { state in
                for (line, tpv) in zip(lines, tpvs) {
                    state.lines.append(line)
                    if var tpv {
                        tpv.sky = state.lastSky
                        state.tpvs.append(tpv)
                    } else if line.text.hasPrefix(#"{"class":"SKY""#) {
                        state.lastSky = line.text
                    } else if line.text.hasPrefix(#"{"class":"WATCH""#) {
                        state.isWatching = true
                    } else if line.text.hasPrefix(#"{"class":"VERSION""#), state.isWatching {
                        // gpsd greets every client with a VERSION before the WATCH reply; any
                        // later one answers a ?VERSION.
                        state.answers.append(state.echoed.count)
                    } else if line.text.hasPrefix("$") || line.text.hasPrefix("!") {
                        state.echoed.append(line.text)
                    }
                }
            }
            signal()
            changed.lock()
            while state.withLock({ $0.paused && $0.isWatching }) { changed.wait() }
            changed.unlock()
        }
        state.withLock { $0.isClosed = true }
        signal()
        changes.end()
        socket.close()
    }

    /// Wakes both kinds of waiter: ``sync(timeout:)`` on its thread, async waits on their tasks.
    private func signal() {
        changed.lock()
        changed.broadcast()
        changed.unlock()
        changes.signal()
    }

    /// gpsd writes each report separately and its client sockets use Nagle's algorithm, so a
    /// report can wait for our acknowledgement of the previous one, which Linux delays by up to
    /// 40 ms. Acknowledging at once (re-armed after every read) keeps a round trip near a
    /// millisecond.
    private static func acknowledgeAtOnce(_ fd: Int32) {
        #if os(Linux)
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
