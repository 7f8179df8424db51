#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import LocationCore
import NIOCore

/// One access-log line per request, as text or as one JSON object; tokens never appear (the
/// line holds the method, the path and query, the status, the client's name and the audit's
/// verdict, never headers).
package struct AccessLog: Sendable {
    /// The line format.
    package enum Format: String, Sendable, Hashable, CaseIterable {
        case text, json
    }

    /// What one line says.
    package struct Record: Sendable, Hashable {
        package var time: Date
        package var method: String
        /// Path and query as received, with the value of any credential parameter
        /// (``AccessLog/credentialParameters``) replaced by `REDACTED`, cut after
        /// ``AccessLog/targetLimit`` characters (``LocationCore/TextExcerpt/cut(_:limit:)``).
        package var target: String
        package var status: Int
        package var duration: Duration
        /// The client's name (`player:…`, `token:…`, `address:…`).
        package var client: String
        /// Places in the answer, for nearby answers.
        package var places: Int?
        /// The audit's verdict and reason, for audited requests.
        package var verdict: String?
        package var reason: String?
        /// An injected fault, e.g. `fail 503`, `timeout`, `delay 800 ms`.
        package var fault: String?
        /// A logged error (a database failure's reason).
        package var error: String?

        package init(
            time: Date, method: String, target: String, status: Int, duration: Duration, client: String,
            places: Int? = nil, verdict: String? = nil, reason: String? = nil, fault: String? = nil, error: String? = nil
        ) {
            self.time = time
            self.method = method
            self.target = TextExcerpt.cut(AccessLog.redactingCredentials(target), limit: AccessLog.targetLimit)
            self.status = status
            self.duration = duration
            self.client = client
            self.places = places
            self.verdict = verdict
            self.reason = reason
            self.fault = fault
            self.error = error
        }
    }

    /// The longest target a line carries: a client's 60 KB query makes a short line, not a
    /// 60 KB one.
    package static let targetLimit = 2_048

    /// Query parameters whose values are secrets (OAuth's `access_token`, RFC 6750 §2.3, and its
    /// usual cousins), compared without case: never written to a log line.
    package static let credentialParameters: Set<String> = ["access_token", "token", "api_key", "apikey"]

    /// `target` with the value of every credential parameter in its query replaced by
    /// `REDACTED`; everything else, including the order and any malformed part, kept as sent.
    package static func redactingCredentials(_ target: String) -> String {
        guard let question = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: question)...]
        guard query.contains("=") else { return target }
        var redacted = false
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> Substring in
            guard let equals = part.firstIndex(of: "=") else { return part }
            guard credentialParameters.contains(QueryParameters.name(part[..<equals]).lowercased()) else { return part }
            redacted = true
            return part[...equals] + "REDACTED"
        }
        guard redacted else { return target }
        return target[...question] + parts.joined(separator: "&")
    }

    /// The format.
    package let format: Format
    private let sink: Sink

    private enum Sink: Sendable {
        case lines(@Sendable (String) -> Void)
        case buffer(AccessLogBuffer)
    }

    /// A log that hands each line to `write` as it is made (tests collect them this way).
    ///
    /// - Parameters:
    ///   - format: `text` or `json`.
    ///   - write: Receives each line, without its line feed.
    package init(format: Format, write: @escaping @Sendable (String) -> Void) {
        self.format = format
        sink = .lines(write)
    }

    /// A log that gathers lines in `buffer`, which writes them in batches (see ``AccessLogBuffer``).
    package init(format: Format, buffer: AccessLogBuffer) {
        self.format = format
        sink = .buffer(buffer)
    }

    /// Writes one record.
    package func log(_ record: Record) {
        switch sink {
        case .lines(let write): write(line(record))
        case .buffer(let buffer): buffer.append(line: bytes(record))
        }
    }

    /// Writes out whatever is gathered (a no-op for a line-by-line log).
    package func flush() {
        if case .buffer(let buffer) = sink { buffer.flush() }
    }

    /// How often ``NearbyServer/run()`` flushes a buffered log, so a quiet server's lines still
    /// appear at once to someone watching.
    package var flushInterval: Duration? {
        if case .buffer(let buffer) = sink { buffer.flushInterval } else { nil }
    }

    /// The line for a record.
    package func line(_ record: Record) -> String {
        String(decoding: bytes(record), as: UTF8.self)
    }

    /// The line, without its line feed, as bytes: the JSON through ``LocationCore/JSONWriter``, the
    /// text with the timestamp by ``LocationCore/UTCTimestamp``.
    private func bytes(_ record: Record) -> [UInt8] {
        let time = UTCTimestamp.format(record.time)
        let ms = Self.milliseconds(record.duration)
        switch format {
        case .text:
            var text = "\(time) \(record.client) \(record.method) \(record.target) \(record.status) \(ms) ms"
            if let places = record.places { text += " \(places) places" }
            if let verdict = record.verdict {
                text += " \(verdict)"
                if let reason = record.reason { text += " (\(reason))" }
            }
            if let fault = record.fault { text += " fault: \(fault)" }
            if let error = record.error { text += " error: \(error)" }
            return Array(text.utf8)
        case .json:
            var json = JSONWriter(capacity: 256)
            json.object { json in
                json.member("time", time)
                json.member("client", record.client)
                json.member("method", record.method)
                json.member("target", record.target)
                json.member("status", record.status)
                json.key("ms")
                json.json(ms)
                json.member("places", ifPresent: record.places)
                json.member("verdict", ifPresent: record.verdict)
                json.member("reason", ifPresent: record.reason)
                json.member("fault", ifPresent: record.fault)
                json.member("error", ifPresent: record.error)
            }
            return json.bytes
        }
    }

    /// A duration as milliseconds with three decimals (`12.345`), from whole microseconds.
    static func milliseconds(_ duration: Duration) -> String {
        let micros = duration.wholeMicroseconds
        return (micros < 0 ? "-" : "") + "\(micros.magnitude / 1000)." + DecimalText.zeroPadded(Int(micros.magnitude % 1000), width: 3)
    }

    /// Three decimals.
    static func fixed(_ value: Double) -> String { DecimalText.fixed(value, decimals: 3) }
}

/// Access-log lines gathered in memory and written in batches: one `write` per 64 KiB, or per
/// ``flushInterval`` when the server is quiet, instead of one system call per request.
///
/// No line is lost: ``NearbyServer/run()`` flushes every ``flushInterval`` and once more after
/// the last request has been answered, and the command flushes again before it exits. Lines
/// keep their order (one writer at a time).
///
/// ```swift
/// let buffer = AccessLogBuffer { bytes in _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) } }
/// let log = AccessLog(format: .text, buffer: buffer)
/// ```
package final class AccessLogBuffer: Sendable {
    /// Bytes gathered before a request writes them out itself.
    package let threshold: Int
    /// The longest a line waits while the server runs.
    package let flushInterval: Duration
    private let pending: Locked<[UInt8]>
    /// Held while writing, so batches go out in order.
    private let writing = Locked(())
    private let write: @Sendable (UnsafeBufferPointer<UInt8>) -> Void

    /// - Parameters:
    ///   - threshold: Bytes gathered before writing; 64 KiB by default.
    ///   - flushInterval: The longest a line waits; 100 ms by default.
    ///   - write: Writes a batch of whole lines, each ending in a line feed (the command writes
    ///     them to standard output).
    package init(
        threshold: Int = 65_536, flushInterval: Duration = .milliseconds(100),
        write: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        self.threshold = max(1, threshold)
        self.flushInterval = flushInterval
        self.write = write
        var initial: [UInt8] = []
        initial.reserveCapacity(self.threshold + 1024)
        pending = Locked(initial)
    }

    /// Adds one line (a line feed is added).
    func append(line: [UInt8]) {
        let full = pending.withLock { pending in
            pending.append(contentsOf: line)
            pending.append(UInt8(ascii: "\n"))
            return pending.count >= threshold
        }
        if full { flush() }
    }

    /// Writes out every gathered line.
    package func flush() {
        writing.withLock { _ in
            let capacity = threshold + 1024
            let batch = pending.withLock { pending -> [UInt8] in
                guard !pending.isEmpty else { return [] }
                var fresh: [UInt8] = []
                fresh.reserveCapacity(capacity)
                swap(&fresh, &pending)
                return fresh
            }
            guard !batch.isEmpty else { return }
            batch.withUnsafeBufferPointer { write($0) }
        }
    }
}
