package import LocationCore

/// The players' control API, independent of any HTTP server: ``respond(to:)`` takes a method,
/// path, query and body and gives a status and JSON body, or an event stream to send as
/// `text/event-stream`.
///
/// Routes (docs/guides/feeds.md):
/// - `GET /players`: every player; `POST /players`: a new player (a JSON spec or a GPX body).
/// - `GET /players/{name}`: its state, progress and newest fix; `DELETE /players/{name}`.
/// - `POST /players/{name}/control`: `{"action":"pause"|"resume"|"speed"|"seek"|"teleport"|"loop", …}`.
/// - `GET /players/{name}/fixes`, `GET /players/events`: Server-Sent Events, every event frame
///   with the hub's id for it; a `Last-Event-ID` resumes after that event.
///
/// A bad body is a 400 naming the field (`{"error":{"code":"bad_request","message":…,"parameter":…}}`),
/// an unknown player a 404.
///
/// Package access: `locsim serve` mounts it on its HTTP server; apps drive players through `PlayerHub` directly.
package final class PlayerControlAPI: Sendable {
    /// A request, as the HTTP server received it.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        package var query: [(name: String, value: String)]
        package var contentType: String?
        package var body: [UInt8]
        /// The `Last-Event-ID` header: the event stream resumes after that event.
        package var lastEventID: String?

        package init(
            method: String, path: String, query: [(name: String, value: String)] = [], contentType: String? = nil, body: [UInt8] = [],
            lastEventID: String? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.contentType = contentType
            self.body = body
            self.lastEventID = lastEventID
        }
    }

    /// An answer: a JSON body, or (status 200) an event stream.
    package struct Response: Sendable {
        package var status: Int
        package var contentType: String
        package var body: [UInt8]
        /// For 405: the methods the path takes.
        package var allow: [String] = []
        /// For the event routes: the frames to send, in place of `body`.
        package var events: PlayerEventStream?
    }

    /// What `POST /players` asks for; the command line turns it into a player.
    package struct Creation: Sendable {
        package enum Source: Sendable {
            /// A `--player` spec after the `=`: `line:35.68,139.76:35.69,139.75 --profile run`, `walk.gpx`…
            case spec(String)
            /// A GPX document's bytes.
            case gpx([UInt8])
        }
        package var name: String
        package var source: Source
        /// The speed factor asked for, if any.
        package var speed: Double?
        package var loops: Bool
    }

    /// Makes a player from a ``Creation``; throws ``/LocationCore/ConfigurationError`` naming the field to blame.
    package typealias Factory = @Sendable (Creation) throws(ConfigurationError) -> FeedPlayer

    /// The largest body read (a GPX track).
    package static let maximumBodyBytes = 16 << 20

    /// Names the API keeps for its own routes.
    package static let reservedNames: Set<String> = ["events"]

    let hub: PlayerHub
    let factory: Factory
    /// The open event streams, by their hub subscription.
    private let streams = Locked<[Int: AsyncStream<[UInt8]>.Continuation]>([:])

    package init(hub: PlayerHub, factory: @escaping Factory) {
        self.hub = hub
        self.factory = factory
    }

    /// Whether `path` is one of this API's (`/players` and below).
    package static func serves(path: String) -> Bool { path == "/players" || path.hasPrefix("/players/") }

    /// Ends every open event stream (at shutdown, so the server can finish).
    package func finishStreams() {
        let open = streams.withLock { open in
            defer { open.removeAll() }
            return Array(open.values)
        }
        for continuation in open { continuation.finish() }
    }

    package func respond(to request: Request) -> Response {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard parts.first == "players", parts.count <= 3 else { return Self.notFound("no route \(request.path)") }
        // HEAD is routed as GET (the server sends the answer's headers only); a route that does
        // not take GET says HEAD is not allowed.
        let method = request.method == "HEAD" ? "GET" : request.method
        switch parts.count {
        case 1:
            switch method {
            case "GET": return Self.json(200, "{\"players\":[" + hub.players.map(Self.infoJSON).joined(separator: ",") + "]}")
            case "POST": return create(request)
            default: return Self.methodNotAllowed(request, allow: ["GET", "POST"])
            }
        case 2 where parts[1] == "events":
            guard method == "GET" else { return Self.methodNotAllowed(request, allow: ["GET"]) }
            return stream(player: nil, lastEventID: request.lastEventID)
        case 2:
            let name = parts[1]
            switch method {
            case "GET":
                guard let info = hub.info(name) else { return Self.unknown(name) }
                return Self.json(200, Self.infoJSON(info))
            case "DELETE":
                guard hub.remove(name) else { return Self.unknown(name) }
                return Self.json(200, "{\"removed\":\(JSONWriter.quoted(name))}")
            default: return Self.methodNotAllowed(request, allow: ["GET", "DELETE"])
            }
        default:
            let name = parts[1]
            switch parts[2] {
            case "control":
                guard method == "POST" else { return Self.methodNotAllowed(request, allow: ["POST"]) }
                guard hub.info(name) != nil else { return Self.unknown(name) }
                return control(name, body: request.body)
            case "fixes":
                guard method == "GET" else { return Self.methodNotAllowed(request, allow: ["GET"]) }
                guard hub.info(name) != nil else { return Self.unknown(name) }
                return stream(player: name, lastEventID: request.lastEventID)
            default:
                return Self.notFound("no route \(request.path)")
            }
        }
    }

    // MARK: Routes

    private func create(_ request: Request) -> Response {
        let creation: Creation
        do throws(ConfigurationError) {
            creation = try Self.creation(request)
            try FeedPlayer.validate(name: creation.name)
            guard hub.info(creation.name) == nil else {
                return Self.error(409, "conflict", "a player named '\(creation.name)' is already playing", parameter: "name")
            }
            try hub.add(try factory(creation))
        } catch {
            return Self.badRequest(error)
        }
        guard let info = hub.info(creation.name) else { return Self.unknown(creation.name) }
        return Self.json(201, Self.infoJSON(info))
    }

    /// A JSON body `{"name":…,"spec":…,"speed":…,"loop":…}`, or a GPX body with `name`, `speed`
    /// and `loop` in the query.
    package static func creation(_ request: Request) throws(ConfigurationError) -> Creation {
        let firstByte = request.body.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
        let type = request.contentType?.lowercased() ?? ""
        if firstByte == UInt8(ascii: "<") || type.contains("xml") || type.contains("gpx") {
            var name: String?
            var speed: Double?
            var loops = false
            for (key, value) in request.query {
                switch key {
                case "name": name = value
                case "speed":
                    guard let number = Double(value) else { throw ConfigurationError(parameter: "speed", "must be a number, got '\(value)'") }
                    speed = number
                case "loop":
                    guard let flag = Bool(value) else { throw ConfigurationError(parameter: "loop", "must be true or false, got '\(value)'") }
                    loops = flag
                default:
                    throw ConfigurationError(parameter: key, "unknown query parameter (a GPX body takes name, speed and loop)")
                }
            }
            guard let name else { throw ConfigurationError(parameter: "name", "a GPX body needs ?name=NAME") }
            return Creation(name: name, source: .gpx(request.body), speed: speed, loops: loops)
        }
        let members = try object(request.body)
        var name: String?
        var spec: String?
        var speed: Double?
        var loops = false
        for (key, value) in members {
            switch (key, value) {
            case ("name", .string(let text)): name = text
            case ("spec", .string(let text)): spec = text
            case ("speed", .number(let number)): speed = number
            case ("loop", .bool(let flag)): loops = flag
            case ("name", _), ("spec", _): throw ConfigurationError(parameter: key, "must be a string")
            case ("speed", _): throw ConfigurationError(parameter: key, "must be a number")
            case ("loop", _): throw ConfigurationError(parameter: key, "must be true or false")
            default: throw ConfigurationError(parameter: key, "unknown field (a player takes name, spec, speed, loop)")
            }
        }
        guard let name else { throw ConfigurationError(parameter: "name", "missing: the player's name") }
        guard let spec, !spec.isEmpty else {
            throw ConfigurationError(
                parameter: "spec", "missing: a path such as \"line:35.68,139.76:35.69,139.75\" (or send a GPX body)")
        }
        return Creation(name: name, source: .spec(spec), speed: speed, loops: loops)
    }

    private func control(_ name: String, body: [UInt8]) -> Response {
        do throws(ConfigurationError) {
            let command = try Self.command(body)
            guard let info = try hub.control(name, command) else { return Self.unknown(name) }
            return Self.json(200, Self.infoJSON(info))
        } catch {
            return Self.badRequest(error)
        }
    }

    /// `{"action":"pause"}`, `{"action":"speed","speed":5}`, `{"action":"seek","offset":120}` or
    /// `{"action":"seek","fraction":0.5}`, `{"action":"teleport","lat":35.68,"lng":139.76}`,
    /// `{"action":"loop","loop":true}`.
    static func command(_ body: [UInt8]) throws(ConfigurationError) -> PlayerCommand {
        var fields: [String: JSONValue] = [:]
        for (key, value) in try object(body) { fields[key] = value }
        guard let actionValue = fields.removeValue(forKey: "action") else {
            throw ConfigurationError(parameter: "action", "missing: one of pause, resume, speed, seek, teleport, loop")
        }
        guard case .string(let action) = actionValue else { throw ConfigurationError(parameter: "action", "must be a string") }
        func number(_ key: String) throws(ConfigurationError) -> Double? {
            guard let value = fields.removeValue(forKey: key) else { return nil }
            guard case .number(let number) = value else { throw ConfigurationError(parameter: key, "must be a number") }
            return number
        }
        func required(_ key: String, _ what: String) throws(ConfigurationError) -> Double {
            guard let value = try number(key) else { throw ConfigurationError(parameter: key, "missing: \(what)") }
            return value
        }
        let command: PlayerCommand
        switch action {
        case "pause": command = .pause
        case "resume": command = .resume
        case "speed": command = .speed(try required("speed", "the speed factor, 0.1...1000"))
        case "seek":
            let offset = try number("offset")
            let fraction = try number("fraction")
            switch (offset, fraction) {
            case (let offset?, nil): command = .seek(offset: offset)
            case (nil, let fraction?): command = .seekFraction(fraction)
            case (nil, nil): throw ConfigurationError(parameter: "offset", "missing: 'offset' (seconds) or 'fraction' (0...1)")
            case (.some, .some): throw ConfigurationError(parameter: "fraction", "give 'offset' or 'fraction', not both")
            }
        case "teleport":
            let latitude = try required("lat", "the latitude in degrees")
            let longitude = try required("lng", "the longitude in degrees")
            do {
                command = .teleport(try Coordinate(latitude: latitude, longitude: longitude))
            } catch {
                throw ConfigurationError(parameter: error.component == .latitude ? "lat" : "lng", error.description)
            }
        case "loop":
            guard let value = fields.removeValue(forKey: "loop") else { throw ConfigurationError(parameter: "loop", "missing: true or false") }
            guard case .bool(let flag) = value else { throw ConfigurationError(parameter: "loop", "must be true or false") }
            command = .loop(flag)
        default:
            throw ConfigurationError(parameter: "action", "unknown action '\(action)': one of pause, resume, speed, seek, teleport, loop")
        }
        if let extra = fields.keys.sorted().first {
            throw ConfigurationError(parameter: extra, "not a field of the '\(action)' action")
        }
        return command
    }

    private static func object(_ body: [UInt8]) throws(ConfigurationError) -> [(name: String, value: JSONValue)] {
        guard !body.isEmpty else { throw ConfigurationError(parameter: "body", "empty: send a JSON object") }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body)
        } catch {
            throw ConfigurationError(parameter: "body", "not a JSON object: \(error)")
        }
        guard case .object(let members) = value else { throw ConfigurationError(parameter: "body", "not a JSON object") }
        return members
    }

    // MARK: Events

    /// The frames a client may be behind before its stream is ended (it then resumes with
    /// `Last-Event-ID` from the events the hub keeps): a stream never skips an event.
    package static let streamBuffer = 1_024

    /// The event named by a ``resetEvent`` frame: the stream could not resume after the client's
    /// `Last-Event-ID` (too old, or not this server's), so what follows is the current state.
    package static let resetEvent = "reset"

    private func stream(player: String?, lastEventID: String?) -> Response {
        let after = lastEventID.flatMap { Int($0) }
        let hub = hub
        var made: PlayerEventStream?
        hub.subscribeEvents(resumingAfter: after) { start in
            // What the client has not seen, first: the events it missed, or the current state.
            var frames: [[UInt8]] = []
            var ended = false
            if let missed = start.missed {
                for numbered in missed {
                    guard let frame = Self.frame(numbered, for: player) else { continue }
                    frames.append(frame)
                    if player != nil, case .removed = numbered.event {
                        ended = true
                        break
                    }
                }
            } else {
                var opening: [(event: String, data: String)] = []
                if let lastEventID, !lastEventID.isEmpty {
                    opening.append((Self.resetEvent, "{\"lastEventId\":\(JSONWriter.quoted(lastEventID))}"))
                }
                for snapshot in start.players where player == nil || snapshot.info.name == player {
                    opening.append(("state", Self.stateJSON(snapshot.info, reason: "current", history: snapshot.history)))
                }
                // Only the last carries the id: a stream cut before it resumes with the whole opening again.
                for (index, item) in opening.enumerated() {
                    frames.append(Self.frame(item.event, item.data, id: index == opening.count - 1 ? start.last : nil))
                }
            }
            let (stream, continuation) = AsyncStream.makeStream(
                of: [UInt8].self, bufferingPolicy: .bufferingOldest(frames.count + Self.streamBuffer))
            made = PlayerEventStream(frames: stream)
            for frame in frames { continuation.yield(frame) }
            let subscription = start.subscription
            if ended {
                continuation.finish()
                return nil
            }
            streams.withLock { $0[subscription] = continuation }
            continuation.onTermination = { [weak self] _ in
                hub.unsubscribe(subscription)
                _ = self?.streams.withLock { $0.removeValue(forKey: subscription) }
            }
            return { numbered in
                guard let frame = Self.frame(numbered, for: player) else { return }
                if case .dropped = continuation.yield(frame) {
                    // Too far behind: end the stream after what it has; the client resumes from its last id.
                    continuation.finish()
                } else if player != nil, case .removed = numbered.event {
                    continuation.finish()
                }
            }
        }
        guard let made else { return Self.error(500, "internal", "the event stream was not made") }
        return Response(status: 200, contentType: "text/event-stream", body: [], events: made)
    }

    /// The frame of `numbered` on a stream of `player` (all players: nil), or nil when it is not for it.
    static func frame(_ numbered: PlayerHub.NumberedEvent, for player: String?) -> [UInt8]? {
        switch numbered.event {
        case .fix(let update):
            guard player == nil || update.player == player else { return nil }
            return frame("fix", fixJSON(update), id: numbered.id)
        case .changed(let info, let reason):
            guard player == nil || info.name == player else { return nil }
            return frame("state", stateJSON(info, reason: reason), id: numbered.id)
        case .note(let name, let event, let json):
            guard player == nil || name == player else { return nil }
            return frame(event, json, id: numbered.id)
        case .removed(let name):
            guard player == nil || name == player else { return nil }
            return frame("removed", "{\"player\":\(JSONWriter.quoted(name))}", id: numbered.id)
        }
    }

    /// The comment frame ``sendHeartbeats(every:clock:)`` sends: clients ignore it.
    package static let heartbeat = Array(": keep-alive\n\n".utf8)

    /// Sends ``heartbeat`` on every open event stream each `interval`, until the calling task is
    /// cancelled. A paused player or a quiet server sends nothing for minutes: without it a proxy
    /// in between (nginx's `proxy_read_timeout` is 60 s) closes the stream, and a client that went
    /// away unseen keeps its subscription until the next event finds the socket closed.
    ///
    /// - Parameters:
    ///   - interval: Between heartbeats (the command uses 15 s).
    ///   - clock: The clock slept on (a `ContinuousClock` in the command, a virtual clock in tests).
    package func sendHeartbeats<C: Clock>(every interval: Duration, clock: C) async where C.Duration == Duration {
        while true {
            do {
                try await clock.sleep(for: interval)
            } catch {
                return  // cancelled: the server is stopping
            }
            let open = streams.withLock { Array($0.values) }
            for continuation in open { continuation.yield(Self.heartbeat) }
        }
    }

    /// One frame: `event:`, `id:` when given, `data:`, a blank line.
    static func frame(_ event: String, _ data: String, id: Int?) -> [UInt8] {
        Array("event: \(event)\n\(id.map { "id: \($0)\n" } ?? "")data: \(data)\n\n".utf8)
    }

    // MARK: JSON

    static func infoJSON(_ info: PlayerHub.PlayerInfo) -> String {
        let status = info.status
        var text = "{\"name\":\(JSONWriter.quoted(info.name)),\"device\":\(JSONWriter.quoted(info.device))"
        text += ",\"summary\":\(JSONWriter.quoted(info.summary)),\"seed\":\"\(info.seed)\""
        text += ",\"state\":\"\(status.state.rawValue)\",\"controllable\":\(status.isControllable)"
        text += ",\"speed\":\(GPSDReport.fixed(status.speedFactor, 3)),\"loop\":\(status.loops)"
        text += ",\"offset\":\(GPSDReport.fixed(status.offset, 3))"
        if let duration = status.duration { text += ",\"duration\":\(GPSDReport.fixed(duration, 3))" }
        if let fraction = status.fraction { text += ",\"fraction\":\(GPSDReport.fixed(fraction, 6))" }
        text += ",\"fixes\":\(info.fixes)"
        if let latest = info.latest { text += ",\"fix\":\(latest.tpv)" }
        return text + "}"
    }

    /// A `fix` event: the player, the fix's offset into its path when it has one, and the `TPV`
    /// clients of the gpsd feed get.
    static func fixJSON(_ update: PlayerHub.Update) -> String {
        var text = "{\"player\":\(JSONWriter.quoted(update.player))"
        if let offset = update.offset { text += ",\"offset\":\(GPSDReport.fixed(offset, 3))" }
        return text + ",\"fix\":\(update.tpv)}"
    }

    /// A `state` event; the opening one of a stream (`current`) has the player's `history`.
    static func stateJSON(_ info: PlayerHub.PlayerInfo, reason: String, history: PlayerHistory? = nil) -> String {
        "{\"reason\":\(JSONWriter.quoted(reason)),\"player\":\(infoJSON(info))"
            + (history.map { ",\"history\":\($0.json)" } ?? "") + "}"
    }

    static func json(_ status: Int, _ text: String) -> Response {
        Response(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    static func error(_ status: Int, _ code: String, _ message: String, parameter: String? = nil) -> Response {
        var text = "{\"error\":{\"code\":\"\(code)\",\"message\":\(JSONWriter.quoted(message))"
        if let parameter { text += ",\"parameter\":\(JSONWriter.quoted(parameter))" }
        return json(status, text + "}}")
    }

    static func badRequest(_ error: ConfigurationError) -> Response {
        Self.error(400, "bad_request", error.message, parameter: error.parameter)
    }

    static func notFound(_ message: String) -> Response { error(404, "not_found", message) }

    static func unknown(_ name: String) -> Response { notFound("no player '\(name)'") }

    static func methodNotAllowed(_ request: Request, allow: [String]) -> Response {
        var response = error(
            405, "method_not_allowed",
            "\(request.method) is not allowed on \(request.path); use \(allow.joined(separator: " or "))")
        response.allow = allow
        return response
    }
}
