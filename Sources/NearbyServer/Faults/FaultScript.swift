import Foundation
package import LocationCore

/// A QA script of per-request outcomes (`--script FILE`): a JSON list whose n-th entry decides
/// the n-th nearby request; requests after the list get the real answer (and the random faults,
/// if any).
///
/// ```json
/// [
///   {},
///   {},
///   {"status": 503},
///   {"delay": "2s"},
///   {"status": 200, "body": "{\"locations\":[]}"},
///   {"timeout": true}
/// ]
/// ```
///
/// Keys: `status` (200…599: a 1xx is an interim answer, never the final one; ≥ 400 without
/// `body` gives the server's JSON error body, with `Retry-After: 1` for 503 and 429; 200 without
/// `body` is the real answer; 204 and 304 take no `body`, which HTTP would not send; any other
/// status needs a `body`),
/// `delay` (milliseconds as a number, or a string `800ms`, `2s`, `1.5s`), `body` (a string sent
/// as it is, for malformed or surprising answers), `timeout` (`true`: never answered).
/// Unknown and repeated keys are refused, so a typo does not silently give the real answer. The
/// text is read as strict JSON (RFC 8259: no trailing comma, no comment).
package enum FaultScript {
    /// One request's outcome.
    package struct Step: Sendable, Hashable {
        /// What the server does.
        package var outcome: FaultOutcome
        /// Creates a step.
        package init(outcome: FaultOutcome) { self.outcome = outcome }
    }

    /// Reads a script file.
    ///
    /// - Throws: ``FaultError`` naming the file and the entry (1-based) that is wrong.
    package static func load(path: String) throws(FaultError) -> [Step] {
        let data: [UInt8]
        do {
            data = try SystemIO.readFile(path)
        } catch {
            throw FaultError("\(path): cannot read the script: \(FileErrorText.reason(for: error))", parameter: "script", isUnreadableFile: true)
        }
        return try parse(data, source: path)
    }

    /// Reads a script from JSON bytes with the package's one JSON reader; `source` names it in
    /// errors.
    ///
    /// - Throws: ``FaultError`` naming `source` and the byte where the text stops being JSON, or
    ///   the entry (1-based) that is wrong.
    package static func parse(_ data: some Collection<UInt8>, source: String) throws(FaultError) -> [Step] {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw FaultError("\(source): \(error)", parameter: "script")
        }
        return try parse(json, source: source)
    }

    /// Reads a script already read as JSON (a scenario file's `server` list); `source` names it
    /// in errors, and `keyPath` the list in it (`server`), as a scenario's other errors do.
    ///
    /// - Throws: ``FaultError`` naming `source` and the key path of what is wrong, the entry
    ///   0-based (`walk.json: server[1].status: …`; `faults.json: [1].status: …` for a script
    ///   file of its own).
    package static func parse(_ json: JSONValue, source: String, keyPath: String = "") throws(FaultError) -> [Step] {
        guard case .array(let list) = json else {
            throw FaultError("\(source): \(keyPath.isEmpty ? "" : keyPath + ": ")expected a JSON list of steps", parameter: "script")
        }
        var steps: [Step] = []
        for (i, item) in list.enumerated() {
            let at = "\(source): \(keyPath)[\(i)]"
            guard case .object(let members) = item else { throw FaultError("\(at): expected an object", parameter: "script") }
            let names = members.map(\.name)
            if let unknown = names.sorted().first(where: { !["status", "delay", "body", "timeout"].contains($0) }) {
                throw FaultError("\(at).\(TextExcerpt.render(unknown, limit: 64)): unknown key (status, delay, body, timeout)", parameter: "script")
            }
            if let timeout = item["timeout"] {
                guard case .bool(let flag) = timeout else { throw FaultError("\(at).timeout: must be true or false", parameter: "script") }
                if flag {
                    guard members.count == 1 else {
                        throw FaultError("\(at): a timeout step takes no status, delay or body", parameter: "script")
                    }
                    steps.append(Step(outcome: .timeout))
                    continue
                }
            }
            var delay = Duration.zero
            if let raw = item["delay"] {
                switch parseDelay(raw) {
                case .success(let parsed): delay = parsed
                case .failure(let problem): throw FaultError("\(at).delay: \(problem.text), got \(raw.text)", parameter: "script")
                }
            }
            var status = 200
            if let raw = item["status"] {
                guard let number = raw.number, let value = Int(exactly: number), (200...599).contains(value) else {
                    // A 1xx sent as the answer leaves the client waiting for the real one.
                    throw FaultError(
                        "\(at).status: must be a whole number 200...599 (a 1xx is an interim answer, not the answer), got \(raw.text)",
                        parameter: "script")
                }
                status = value
            }
            let bodiless = status == 204 || status == 304
            if let raw = item["body"] {
                guard let text = raw.string else { throw FaultError("\(at).body: must be a string", parameter: "script") }
                guard !bodiless else {
                    throw FaultError("\(at): status \(status) is answered without a body (HTTP sends none): drop 'body'", parameter: "script")
                }
                steps.append(Step(outcome: .body(status: status, body: Array(text.utf8), delay: delay)))
            } else if bodiless {
                steps.append(Step(outcome: .body(status: status, body: [], delay: delay)))
            } else if status >= 400 {
                steps.append(Step(outcome: .failure(status: status, delay: delay)))
            } else if status == 200 {
                steps.append(Step(outcome: .answer(delay: delay)))
            } else {
                throw FaultError("\(at): status \(status) needs a body (only 200 and errors have a default)", parameter: "script")
            }
        }
        return steps
    }

    /// Why a `delay` was refused, in words that follow "delay ".
    struct DelayProblem: Error {
        let text: String
        static let shape = DelayProblem(text: "must be milliseconds or a duration like 800ms or 2s")
    }

    /// `800` (milliseconds), `"800ms"`, `"2s"`, `"1.5s"`: at most a day. A string needs its unit:
    /// `"2"` would be 2 s where the number `2` is 2 ms.
    static func parseDelay(_ raw: JSONValue) -> Result<Duration, DelayProblem> {
        switch raw {
        case .number(let value):
            guard value.isFinite else { return .failure(.shape) }
            guard value >= 0 else { return .failure(DelayProblem(text: DurationText.Problem.negative.description)) }
            guard value <= 86_400_000 else { return .failure(DelayProblem(text: "must be at most a day (86400000 ms)")) }
            return .success(.microseconds(Int64((value * 1000).rounded())))
        case .string(let text):
            if Double(text) != nil {
                let number = TextExcerpt.render(text, limit: 24)
                return .failure(DelayProblem(text: "needs its unit as a string (\"\(number)ms\" or \"\(number)s\"); a JSON number is milliseconds"))
            }
            let parsed = DurationText.parse(text)
            if parsed == .failure(.negative) { return .failure(DelayProblem(text: DurationText.Problem.negative.description)) }
            guard case .success(let duration) = parsed else { return .failure(.shape) }
            guard duration <= .seconds(86_400) else { return .failure(DelayProblem(text: "must be at most a day (24h)")) }
            return .success(duration)
        default:
            return .failure(.shape)
        }
    }
}
