import LocationCore
import LocationGPSD

/// What `locsim gpsd` (and `replay --gpsd`) prints for each event of the session, as text or as
/// its jsonl record (docs/reference/jsonl.md): a `fix`, a `status` for a report without a
/// position, or an `event` (the connection and its devices, each event with its own members).
struct GPSDRecord: JSONLRecord {
    var event: GPSDEvent
    /// gpsd's `host:port`, as `connected` and `disconnected` name it.
    var endpoint: String
    /// Whether a session has been up before: a failure before the first (`--reconnect` waiting
    /// for gpsd) is no disconnection, and its text says so (its jsonl event is `disconnected` all the same).
    var hasConnected = true

    /// The event's line in `format`.
    func line(_ format: TimelineFormat) -> String { format == .jsonl ? line : text }

    func write(to json: inout JSONWriter) {
        func event(_ name: String) {
            json.member("type", "event")
            json.member("event", name)
        }
        switch self.event {
        case .fix(let fix) where fix.hasPosition:
            FixRecord(fix: fix).write(to: &json)
        case .fix(let fix):
            json.head("status", fix.time)
            json.member("mode", fix.mode.description)
        case .connected(let release):
            event("connected")
            json.member("endpoint", endpoint)
            json.member("release", release)
        case .disconnected(let error):
            event("disconnected")
            json.member("endpoint", endpoint)
            json.member("error", error.description)
        case .retrying(let attempt, let delay):
            event("retrying")
            json.member("attempt", attempt)
            json.member("delay", delay.fractionalSeconds, decimals: 3)
        case .deviceActivated(let path):
            event("deviceActivated")
            json.member("device", path)
        case .deviceRemoved(let path):
            event("deviceRemoved")
            json.member("device", path)
        case .daemonError(let message):
            event("daemonError")
            json.member("message", message)
        case .skyUnreadable(let reason):
            event("skyUnreadable")
            json.member("reason", reason)
        }
    }

    /// The event for people.
    var text: String {
        switch event {
        case .fix(let fix) where fix.hasPosition:
            var line = "\(UTCTimestamp.format(fix.time, fractionDigits: 3))  \(fix.coordinate!)  \(fix.mode)"
            if let accuracy = fix.horizontalAccuracy { line += "  ±\(PeopleText.number(accuracy, decimals: 1)) m" }
            if let altitude = fix.altitude { line += "  alt \(PeopleText.number(altitude, decimals: 1)) m" }
            if let speed = fix.speed { line += "  \(PeopleText.number(speed, decimals: 2)) m/s" }
            if let course = fix.course { line += "  \(PeopleText.number(course, decimals: 1))°" }
            return line
        case .fix(let fix):
            return "\(UTCTimestamp.format(fix.time, fractionDigits: 3))  no fix"
        case .connected(let release):
            return "# connected to gpsd \(release.isEmpty ? "" : release + " ")at \(endpoint)"
        case .disconnected(let error):
            return "# \(hasConnected ? "disconnected" : "not connected yet"): \(PeopleText.escaped(error.description))"
        case .retrying(let attempt, let delay):
            return "# retrying in \(PeopleText.number(delay.fractionalSeconds, decimals: 2)) s (attempt \(attempt))"
        case .deviceActivated(let path):
            return "# device activated: \(path)"
        case .deviceRemoved(let path):
            return "# device removed: \(path)"
        case .daemonError(let message):
            return "# gpsd error: \(PeopleText.escaped(message))"
        case .skyUnreadable(let reason):
            return "# SKY not read (fixes go without the receiver's sky until one is): \(PeopleText.escaped(reason))"
        }
    }
}
