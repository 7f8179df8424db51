#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import Foundation
package import LocSimTestHelpers
import LocationCore

/// A `locsim` process that runs until the test interrupts it (`gpsd`, `nmea serve`,
/// `replay --gpsd`), with its standard output read line by line as it grows.
///
/// Stop it with `defer { command.stop() }`: SIGTERM, then SIGKILL, then `waitpid`, even when the
/// test fails.
package final class LiveCommand: Sendable {
    /// One complete line of standard output, parsed when it is a JSON object.
    package struct Line: Sendable {
        package let text: String
        package let json: JSONLine?
    }

    /// The members of a jsonl line that the tests look at.
    package struct JSONLine: Sendable {
        package let type: String?
        package let event: String?
        package let reason: String?
        /// `t` as written.
        package let timestamp: String?
        /// `t`, when it is ISO-8601 UTC with exactly three fraction digits.
        package let time: Date?
        package let latitude: Double?
        package let longitude: Double?
        package let mode: String?
        package let accuracy: Double?
        package let keys: [String]
        package let numbers: [String: Double]
        package let strings: [String: String]

        package var isReport: Bool { type == "fix" || type == "status" }
    }

    package let child: ChildProcess
    package let arguments: [String]
    private let parsed = Locked((bytes: 0, lines: [Line]()))

    /// Starts `locsim ARGUMENTS` with the tests' private index cache, and `environment` added;
    /// with `openFileLimit`, under that `ulimit -n`, and with `fileSizeLimit`, under that
    /// `ulimit -f` (in the shell's blocks; through `sh`, which then becomes `locsim`, so signals
    /// reach it).
    package init(
        _ arguments: [String], environment: [String: String] = [:], openFileLimit: Int? = nil, fileSizeLimit: Int? = nil
    ) async throws {
        self.arguments = arguments
        let limits = [openFileLimit.map { "ulimit -n \($0)" }, fileSizeLimit.map { "ulimit -f \($0)" }].compactMap { $0 }
        let launcher = limits.isEmpty ? [] : ["/bin/sh", "-c", (limits + ["exec \"$0\" \"$@\""]).joined(separator: " && ")]
        child = try await ChildProcess(
            launcher + [CLI.binary] + arguments,
            environment: environment.merging(["LOCSIM_CACHE_DIR": CLI.cacheDirectory, "COLUMNS": "100"]) { mine, _ in mine })
    }

    /// The complete lines printed so far (a line still being written is left out).
    package var lines: [Line] {
        let output = Array(child.output.utf8)
        return parsed.withLock { state in
            var start = state.bytes
            while let newline = output[start...].firstIndex(of: 10) {
                let text = String(decoding: output[start..<newline], as: UTF8.self)
                state.lines.append(Line(text: text, json: Self.parse(text)))
                start = newline + 1
            }
            state.bytes = start
            return state.lines
        }
    }

    /// The parsed jsonl lines so far.
    package var objects: [JSONLine] { lines.compactMap(\.json) }

    /// Fix and status lines so far, in order.
    package var reports: [JSONLine] { objects.filter(\.isReport) }

    /// Sends SIGINT, as Ctrl-C would.
    package func interrupt() { child.send(SIGINT) }

    package func stop() { child.stop() }

    /// Waits for the process to end.
    package func waitForExit(timeout: Duration = .seconds(30)) async throws -> ChildProcess.Termination {
        try await child.waitForExit(timeout: timeout)
    }

    /// Waits until `condition` holds for the lines so far, checking again each time the command
    /// prints.
    ///
    /// - Throws: `HarnessError` when the process ends first or after `timeout` (generous: it
    ///   only runs out when something is broken).
    package func wait(
        for what: String, timeout: Duration = .seconds(30), _ condition: @escaping @Sendable ([Line]) -> Bool
    ) async throws {
        try await child.wait(for: what, timeout: timeout) { [self] in condition(lines) }
    }

    /// What it printed, for failure messages.
    package var account: String {
        let output = lines.suffix(20).map(\.text).joined(separator: "\n")
        return "last output:\n\(output)\nstderr:\n\(child.errors)"
    }

    // MARK: Parsing

    package static func parse(_ text: String) -> JSONLine? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        let timestamp = object["t"] as? String
        var numbers: [String: Double] = [:]
        var strings: [String: String] = [:]
        for (key, value) in object {
            if let string = value as? String {
                strings[key] = string
            } else if let number = value as? NSNumber, String(cString: number.objCType) != "c" {
                // Not `value is Bool`: on Linux that holds for the numbers 0 and 1 too.
                numbers[key] = number.doubleValue
            }
        }
        return JSONLine(
            type: object["type"] as? String, event: object["event"] as? String, reason: object["reason"] as? String,
            timestamp: timestamp, time: timestamp.flatMap(parseTimestamp),
            latitude: numbers["lat"], longitude: numbers["lon"], mode: object["mode"] as? String,
            accuracy: numbers["accuracy"], keys: orderedKeys(text), numbers: numbers, strings: strings)
    }

    /// `t` as a date, only in the documented form (UTC, milliseconds).
    ///
    /// The form is checked byte by byte and the date read by Foundation's ISO 8601 style, made
    /// once (a `Regex` and a new `ISO8601DateFormatter` for every line were about 5% of the whole
    /// suite's CPU: every command test reads every line this way).
    package static func parseTimestamp(_ text: String) -> Date? {
        let form = "dddd-dd-ddTdd:dd:dd.dddZ".utf8  // d: a digit; anything else: itself
        guard text.utf8.count == form.count else { return nil }
        for (byte, expected) in zip(text.utf8, form) {
            let matches = expected == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
            guard matches else { return nil }
        }
        return try? Date(text, strategy: timestampStyle)
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The top-level keys of a compact JSON object in the order written (JSONSerialization
    /// forgets the order, and the documented lines start with `type`, `t`).
    package static func orderedKeys(_ text: String) -> [String] {
        var keys: [String] = []
        var depth = 0
        var index = text.startIndex
        var expectKey = false
        while index < text.endIndex {
            let character = text[index]
            switch character {
            case "{", "[":
                depth += 1
                expectKey = character == "{" && depth == 1
            case "}", "]":
                depth -= 1
            case ",":
                expectKey = depth == 1
            case "\"":
                // A string: skip to its closing quote.
                var end = text.index(after: index)
                var value = ""
                while end < text.endIndex, text[end] != "\"" {
                    if text[end] == "\\" { end = text.index(after: end) }
                    if end < text.endIndex { value.append(text[end]) }
                    end = text.index(after: end)
                }
                if expectKey { keys.append(value) }
                expectKey = false
                index = end
            default:
                break
            }
            if index < text.endIndex { index = text.index(after: index) }
        }
        return keys
    }
}

/// `locsim gpsd --format jsonl` as the consumer a ``LockStepFeed`` waits on: before the next
/// sentence is written, the command has printed what gpsd reported for the last one.
///
/// The command prints a report only when it differs from the one before, so a report has been
/// delivered when it matches the last fix or status line printed (or any printed since the step
/// began). Printed times have milliseconds, so times match within half a millisecond.
extension LiveCommand: LockStepConsumer {
    package var deliveredCount: Int { reports.count }

    package var hasSeenDeviceActivation: Bool { objects.contains { $0.type == "event" && $0.event == "deviceActivated" } }

    package var summary: String { account }

    package func waitUntilDelivered(
        _ report: RawGPSDClient.TPV, after previous: Int, timeout: Duration, context: String
    ) async throws {
        try await wait(for: "locsim gpsd to print \(context)", timeout: timeout) { _ in
            let printed = self.reports
            // What was printed since the step began, and the line before: an identical report
            // is not printed again.
            let candidates = printed[min(max(previous - 1, 0), printed.count)...]
            return candidates.contains { line in
                line.time.map { report.matches(time: $0, latitude: line.latitude, longitude: line.longitude, timeTolerance: 0.0005) }
                    ?? false
            }
        }
    }
}
