#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import LocationCore

/// One access-log line per request, as text or as one JSON object; tokens never appear (the
/// line holds the method, the path and query, the status, the client's name and the audit's
/// verdict, never headers).
public struct AccessLog: Sendable {
    /// The line format.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case text, json
    }

    /// What one line says.
    public struct Record: Sendable, Hashable {
        public var time: Date
        public var method: String
        /// Path and query as received.
        public var target: String
        public var status: Int
        public var duration: Duration
        /// The client's name (`player:…`, `token:…`, `address:…`).
        public var client: String
        /// Places in the answer, for nearby answers.
        public var places: Int?
        /// The audit's verdict and reason, for audited requests.
        public var verdict: String?
        public var reason: String?
        /// An injected fault, e.g. `fail 503`, `timeout`, `delay 800 ms`.
        public var fault: String?
        /// A logged error (a database failure's reason).
        public var error: String?

        public init(
            time: Date, method: String, target: String, status: Int, duration: Duration, client: String,
            places: Int? = nil, verdict: String? = nil, reason: String? = nil, fault: String? = nil, error: String? = nil
        ) {
            self.time = time
            self.method = method
            self.target = target
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

    /// The format.
    public let format: Format
    /// Where lines go (the command writes them to standard output, unbuffered).
    public let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - format: `text` or `json`.
    ///   - write: Receives each line, without its line feed.
    public init(format: Format, write: @escaping @Sendable (String) -> Void) {
        self.format = format
        self.write = write
    }

    /// Writes one record.
    public func log(_ record: Record) {
        write(line(record))
    }

    /// The line for a record.
    public func line(_ record: Record) -> String {
        let milliseconds = Double(record.duration.wholeMicroseconds) / 1000
        let time = UTCTimestamp.format(record.time)
        switch format {
        case .text:
            var line = "\(time) \(record.client) \(record.method) \(record.target) \(record.status) \(Self.fixed(milliseconds)) ms"
            if let places = record.places { line += " \(places) places" }
            if let verdict = record.verdict { line += " \(verdict)" + (record.reason.map { " (\($0))" } ?? "") }
            if let fault = record.fault { line += " fault: \(fault)" }
            if let error = record.error { line += " error: \(error)" }
            return line
        case .json:
            var writer = NearbyJSONWriter()
            writer.append("{\"time\":")
            writer.appendQuoted(time)
            writer.append(",\"client\":")
            writer.appendQuoted(record.client)
            writer.append(",\"method\":")
            writer.appendQuoted(record.method)
            writer.append(",\"target\":")
            writer.appendQuoted(record.target)
            writer.append(",\"status\":")
            writer.appendInteger(record.status)
            writer.append(",\"ms\":")
            writer.appendRaw(Self.fixed(milliseconds))
            if let places = record.places {
                writer.append(",\"places\":")
                writer.appendInteger(places)
            }
            for (key, value) in [("verdict", record.verdict), ("reason", record.reason), ("fault", record.fault), ("error", record.error)] {
                guard let value else { continue }
                writer.appendRaw(",\"\(key)\":")
                writer.appendQuoted(value)
            }
            writer.append("}")
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    /// Three decimals.
    static func fixed(_ value: Double) -> String {
        let thousandths = Int64((value * 1000).rounded())
        let fraction = String(abs(thousandths % 1000))
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
