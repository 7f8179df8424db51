// Foundation itself (not FoundationEssentials): CharacterSet for trimming requests.
package import Foundation
import LocationCore

/// One gpsd client's side of the protocol, as a value: requests in, report lines out.
///
/// Requests (gpsd_json(5)): `?VERSION;`, `?WATCH;` and `?WATCH={…};`, `?POLL;`, `?DEVICES;`;
/// anything else is answered with `ERROR`. Several may share a line; `;` or the line end ends each,
/// and the end of a read ends one whose JSON argument is complete (``isComplete(_:)``).
/// The server owns the socket; this type owns the rules, so tests drive it without one.
///
/// Package access: the per-connection protocol state behind `GPSDFeedServer`.
package struct GPSDSession: Sendable {
    /// The client's watch settings.
    package private(set) var watch = GPSDWatch()
    private let hub: PlayerHub
    private let release: String
    private let now: @Sendable () -> Date

    /// The longest request line read; longer ones are answered with `ERROR` and dropped.
    package static let maximumRequestLength = 1024

    package init(hub: PlayerHub, release: String, now: @escaping @Sendable () -> Date) {
        self.hub = hub
        self.release = release
        self.now = now
    }

    /// `VERSION`, the first line a client gets.
    package var greeting: String { GPSDReport.version(release: release, revision: release) }

    /// Answers one line of requests (without its line end).
    package mutating func handle(line: some StringProtocol) -> String {
        var reply = ""
        for request in Self.split(String(line)) { reply += answer(request) }
        return reply
    }

    /// What a client watching now gets for `update`: `TPV` then `SKY` with `json`, the NMEA
    /// sentences with `nmea`, nothing when it does not watch this device.
    package func report(_ update: PlayerHub.Update) -> String {
        guard let forms = Self.forms(of: update, for: watch) else { return "" }
        var text = ""
        forms.forEachPart(of: update) { text += $0 }
        return text
    }

    /// Which reports of a fix a client gets.
    package struct Forms: Sendable, Hashable {
        package var json: Bool
        package var nmea: Bool

        /// The reports of `update`, in the order sent: `TPV` and `SKY` lines, then the NMEA
        /// sentences.
        package func forEachPart(of update: PlayerHub.Update, _ body: (String) -> Void) {
            if json {
                body(update.tpv)
                body("\r\n")
                if !update.sky.isEmpty {
                    body(update.sky)
                    body("\r\n")
                }
            }
            if nmea { body(update.nmea) }
        }
    }

    /// The reports of `update` a client watching with `watch` gets, or nil for none.
    package static func forms(of update: PlayerHub.Update, for watch: GPSDWatch) -> Forms? {
        guard watch.enable, watch.json || watch.nmea, watch.device == nil || watch.device == update.device else { return nil }
        return Forms(json: watch.json, nmea: watch.nmea)
    }

    /// Whether a client watching with `watch` is told of `device` appearing or going (a `DEVICE`
    /// report): as gpsd, a JSON watcher of every device or of that one.
    package static func hearsOf(device: String, watch: GPSDWatch) -> Bool {
        watch.enable && watch.json && (watch.device == nil || watch.device == device)
    }

    private mutating func answer(_ request: String) -> String {
        let name: Substring
        let argument: Substring?
        if let equals = request.firstIndex(of: "=") {
            name = request[..<equals]
            argument = request[request.index(after: equals)...]
        } else {
            (name, argument) = (request[...], nil)
        }
        switch name {
        case "?VERSION" where argument == nil: return greeting
        case "?DEVICES" where argument == nil: return devicesReport()
        case "?POLL" where argument == nil: return poll()
        case "?WATCH":
            guard let argument else { return GPSDReport.watch(watch) }
            return changeWatch(argument)
        default:
            return GPSDReport.error("Unrecognized request '\(request.prefix(40))'")
        }
    }

    private func devicesReport() -> String {
        let listed = hub.devices.filter { watch.device == nil || $0.path == watch.device }
        return GPSDReport.devices(listed.map { ($0.path, $0.activated) }, announcingTheRest: watch.enable && watch.json)
    }

    private mutating func changeWatch(_ argument: Substring) -> String {
        let members: [(name: String, value: JSONValue)]
        do {
            guard case .object(let read) = try JSONValue(parsing: argument.utf8, allowsRepeatedNames: true) else {
                return GPSDReport.error("Invalid WATCH: not a JSON object")
            }
            members = read
        } catch {
            return GPSDReport.error("Invalid WATCH: \(error)")
        }
        // As gpsd 3.22: each WATCH with an argument is `enable` unless it says otherwise
        // (`{"json":true}` alone watches); the other flags keep their values.
        var next = watch
        next.enable = true
        for (key, value) in members {
            switch (key, value) {
            case ("enable", .bool(let flag)): next.enable = flag
            case ("json", .bool(let flag)): next.json = flag
            case ("nmea", .bool(let flag)): next.nmea = flag
            case ("scaled", .bool(let flag)): next.scaled = flag
            case ("timing", .bool(let flag)): next.timing = flag
            case ("split24", .bool(let flag)): next.split24 = flag
            case ("pps", .bool(let flag)): next.pps = flag
            case ("raw", .number(let number)) where [0, 1, 2].contains(number):
                next.raw = Int(number)
                // Raw data of a simulated receiver is its NMEA.
                if number > 0 { next.nmea = true }
            case ("device", .string(let path)):
                guard hub.devices.contains(where: { $0.path == path }) else {
                    return GPSDReport.error("No such device as \(path.prefix(64))")
                }
                next.device = path
            case ("remote", _):
                continue
            case ("enable", _), ("json", _), ("nmea", _), ("scaled", _), ("timing", _), ("split24", _), ("pps", _):
                return GPSDReport.error("Invalid WATCH: \(key) must be true or false")
            case ("raw", _):
                return GPSDReport.error("Invalid WATCH: raw must be 0, 1 or 2")
            case ("device", _):
                return GPSDReport.error("Invalid WATCH: device must be a string")
            default:
                return GPSDReport.error("Invalid WATCH: unknown member \(key.prefix(40))")
            }
        }
        // As gpsd 3.22: `{"enable":true}` alone turns on neither form (`"json":false`, no reports),
        // and every WATCH, disabling too, is answered with DEVICES, then WATCH.
        watch = next
        return devicesReport() + GPSDReport.watch(watch)
    }

    private func poll() -> String {
        let listed = hub.devices.filter { watch.device == nil || $0.path == watch.device }
        let updates = listed.compactMap { hub.latest($0.name) }
        return GPSDReport.poll(time: now(), reports: updates.map { ($0.tpv, $0.sky) })
    }

    /// Whether bytes read with no `;` or line end after them are already a whole request, as
    /// gpsd takes them at the end of a read: a request whose JSON argument is complete
    /// (`?WATCH={"enable":true}`, as the PyPI client gps3 sends it). A JSON object still open
    /// waits for the rest, and a bare request (`?POLL`) for its `;`.
    package static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return false }
        var strings = JSONStringState()
        var depth = 0
        var opened = false
        for byte in bytes[(equals + 1)...] where !strings.consume(byte) {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                opened = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                continue
            }
        }
        return opened && depth == 0 && !strings.inString
    }

    /// Splits a line into requests at `;` outside JSON strings, trimming blanks; empty ones vanish.
    static func split(_ line: String) -> [String] {
        var requests: [String] = []
        var current = ""
        var strings = JSONStringState()
        for character in line {
            if character == ";", !strings.inString {
                requests.append(current)
                current = ""
                continue
            }
            for byte in character.utf8 { _ = strings.consume(byte) }
            current.append(character)
        }
        requests.append(current)
        return requests.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}
