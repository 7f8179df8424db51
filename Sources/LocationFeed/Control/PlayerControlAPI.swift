import HTTPTypes
package import Hummingbird
package import LocationCore
import MapPages
import NIOCore

/// The players' control API as routes of Hummingbird's router (``addRoutes(to:)``), for any
/// request context: `locsim serve` adds them to its server beside the nearby contract.
///
/// Routes (docs/guides/feeds.md):
/// - `GET /players`: every player; `POST /players`: a new player (a JSON spec or a GPX body).
/// - `GET /players/{name}`: its state, progress and newest fix; `DELETE /players/{name}`.
/// - `POST /players/{name}/control`: `{"action":"pause"|"resume"|"speed"|"seek"|"teleport"|"loop", …}`.
/// - `GET /players/{name}/fixes`, `GET /players/events`: Server-Sent Events, every event frame
///   with the hub's id for it; a `Last-Event-ID` resumes after that event.
///
/// Request bodies are `Decodable` types (``NewPlayerRequest``, ``ControlRequest``). A bad body is a
/// 400 naming the field (`{"error":{"code":"bad_request","message":…,"parameter":…}}`), an action
/// the player's state refuses a 409 (``PlayerCommandError``), an unknown player a 404: each thrown as a ``/LocationCore/ServerError``, which the server writes in that
/// shape. HEAD is answered wherever GET is, with no body (and no subscription). Answers are
/// `Encodable` types (``PlayerAnswer``, ``PlayerListAnswer``, ``PlayerRemovedAnswer``) written
/// by the package's one JSON writer, which keeps a player's newest fix the very `TPV` text its
/// gpsd clients got (``/LocationCore/JSONFragment``).
///
/// Package access: `locsim serve` mounts it on its HTTP server; apps drive players through `PlayerHub` directly.
package final class PlayerControlAPI: Sendable {
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

        package init(name: String, source: Source, speed: Double? = nil, loops: Bool = false) {
            self.name = name
            self.source = source
            self.speed = speed
            self.loops = loops
        }
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
    private let streams = Locked<[Int: AsyncStream<PlayerEventStream.Item>.Continuation]>([:])

    package init(hub: PlayerHub, factory: @escaping Factory) {
        self.hub = hub
        self.factory = factory
    }

    /// Ends every open event stream (at shutdown, so the server can finish).
    package func finishStreams() {
        let open = streams.withLock { open in
            defer { open.removeAll() }
            return Array(open.values)
        }
        for continuation in open { continuation.finish() }
    }

    /// Adds the live map to `open` (the page holds no data: what it shows comes from the API,
    /// with the token it is given) and the control API to `guarded` (a group behind the
    /// server's token rule).
    package func addRoutes<Context: RequestContext>(open: some RouterMethods<Context>, guarded: some RouterMethods<Context>) {
        open.get("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.liveMap)))
        }
        addRoutes(to: guarded)
    }

    /// The live map (MapPages' live.html; docs/guides/feeds.md): it draws what `GET /players/events`
    /// streams and presses `POST /players/{name}/control`.
    static let liveMap = Array(MapPage.live.html(json: "null").utf8)

    /// Adds the control API's routes to `routes` (a router, or a group with the server's middleware).
    package func addRoutes<Context: RequestContext>(to routes: some RouterMethods<Context>) {
        routes.get("/players") { [hub] _, _ in
            PlayerListAnswer(players: hub.players.map(PlayerAnswer.init))
        }
        routes.post("/players") { request, _ in try await self.create(request) }
        // The event streams take HEAD themselves: the router's HEAD from a GET would say
        // `Content-Length: 0` for a body whose length is unknown.
        routes.get("/players/events") { request, _ in try self.stream(player: nil, request: request) }
        routes.head("/players/events") { request, _ in try self.stream(player: nil, request: request) }
        routes.get("/players/{name}") { [hub] _, context in
            let name = try Self.name(context)
            guard let info = hub.info(name) else { throw Self.unknown(name) }
            return PlayerAnswer(info)
        }
        // The routes that change a player take no parameters: one misspelt (`?force=1`) is a 400.
        routes.delete("/players/{name}") { [hub] request, context in
            try Self.refuseParameters(request, route: "DELETE /players/{name}")
            let name = try Self.name(context)
            guard hub.remove(name) else { throw Self.unknown(name) }
            return PlayerRemovedAnswer(removed: name)
        }
        routes.post("/players/{name}/control") { request, context in
            try Self.refuseParameters(request, route: "POST /players/{name}/control")
            return try self.control(try Self.name(context), body: try await Self.body(of: request))
        }
        for method in [HTTPRequest.Method.get, .head] {
            routes.on("/players/{name}/fixes", method: method) { [hub] request, context in
                let name = try Self.name(context)
                guard hub.info(name) != nil else { throw Self.unknown(name) }
                return try self.stream(player: name, request: request)
            }
        }
    }

    /// The `{name}` of the path, percent-decoded (`/players/al%69ce` is alice).
    private static func name(_ context: some RequestContext) throws(ServerError) -> String {
        guard let name = context.parameters.get("name") else { throw .notFound("no player name in the path") }
        return String(QueryParameters.pathSegment(name[...]))
    }

    /// A 400 when `request` has query parameters, naming the first (`route` takes none).
    private static func refuseParameters(_ request: Request, route: String) throws(ServerError) {
        try QueryParameters.refuseOthers(QueryParameters.pairs(of: request.uri.query?[...]).map(\.name), taken: [], route: route)
    }

    /// The whole request body, at most ``maximumBodyBytes``.
    private static func body(of request: Request) async throws(ServerError) -> [UInt8] {
        var request = request
        do {
            return Array(buffer: try await request.collectBody(upTo: maximumBodyBytes))
        } catch is NIOTooManyBytesError {
            throw ServerError(.payloadTooLarge, status: 413, "the body is over \(maximumBodyBytes >> 20) MiB", parameter: "body")
        } catch {
            throw ServerError(.badRequest, status: 400, "the body could not be read: \(error)", parameter: "body")
        }
    }

    // MARK: Routes

    private func create(_ request: Request) async throws(ServerError) -> EditedResponse<PlayerAnswer> {
        let body = try await Self.body(of: request)
        let creation: Creation
        do throws(ConfigurationError) {
            creation = try Self.creation(
                body: body, contentType: request.headers[.contentType],
                query: QueryParameters.pairs(of: request.uri.query?[...]).map { (name: String($0.name), value: String($0.value)) })
            try FeedPlayer.validate(name: creation.name)
        } catch {
            throw Self.badRequest(error)
        }
        if let existing = hub.info(creation.name) {
            let name = TextExcerpt.render(creation.name, limit: 64)
            throw ServerError(
                .conflict, status: 409,
                "a player named '\(name)' already exists (\(existing.status.state.rawValue)); DELETE /players/\(name) first to reuse the name",
                parameter: "name")
        }
        do throws(ConfigurationError) {
            try hub.add(try factory(creation))
        } catch {
            throw Self.badRequest(error)
        }
        guard let info = hub.info(creation.name) else { throw Self.unknown(creation.name) }
        return EditedResponse(status: .created, response: PlayerAnswer(info))
    }

    /// A JSON body (``NewPlayerRequest``), or a GPX body with `name`, `speed` and `loop` in the query.
    package static func creation(
        body: [UInt8], contentType: String?, query: [(name: String, value: String)]
    ) throws(ConfigurationError) -> Creation {
        let firstByte = body.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
        let type = contentType?.lowercased() ?? ""
        if firstByte == UInt8(ascii: "<") || type.contains("xml") || type.contains("gpx") {
            var name: String?
            var speed: Double?
            var loops = false
            var seen: Set<String> = []
            for (key, value) in query {
                // As the nearby route's parameters: one value each, plain decimal numbers.
                guard seen.insert(key).inserted else {
                    throw ConfigurationError(parameter: key, "is given \(query.count { $0.name == key }) times; give it once")
                }
                switch key {
                case "name": name = value
                case "speed":
                    var text = value
                    guard let number = text.withUTF8({ DecimalNumber(parsing: $0)?.value }) else {
                        throw ConfigurationError(parameter: "speed", "must be a number, got '\(TextExcerpt.render(value, limit: 64))'")
                    }
                    speed = number
                case "loop":
                    guard let flag = Bool(value) else { throw ConfigurationError(parameter: "loop", "must be true or false, got '\(TextExcerpt.render(value, limit: 64))'") }
                    loops = flag
                default:
                    throw ConfigurationError(parameter: key, "unknown query parameter (a GPX body takes name, speed and loop)")
                }
            }
            guard let name else { throw ConfigurationError(parameter: "name", "a GPX body needs ?name=NAME") }
            return Creation(name: name, source: .gpx(body), speed: speed, loops: loops)
        }
        // A JSON body says everything in its members: a query beside it would be ignored.
        if let (key, _) = query.first {
            throw ConfigurationError(parameter: key, "a JSON body takes no query parameters (name, speed and loop are its members)")
        }
        let request = try NewPlayerRequest.decode(body)
        guard !request.spec.isEmpty else { throw ConfigurationError(parameter: "spec", NewPlayerRequest.missing(.spec)) }
        return Creation(name: request.name, source: .spec(request.spec), speed: request.speed, loops: request.loop ?? false)
    }

    private func control(_ name: String, body: [UInt8]) throws(ServerError) -> PlayerAnswer {
        guard hub.info(name) != nil else { throw Self.unknown(name) }
        let command: PlayerCommand
        do throws(ConfigurationError) {
            command = try ControlRequest.decode(body).command()
        } catch {
            throw Self.badRequest(error)
        }
        let info: PlayerHub.PlayerInfo?
        do throws(PlayerCommandError) {
            info = try hub.control(name, command)
        } catch where error.isConflict {
            // Well formed, but not for this player as it is now (RFC 9110, 409).
            throw ServerError(.conflict, status: 409, error.problem.message, parameter: error.problem.parameter)
        } catch {
            throw Self.badRequest(error.problem)
        }
        guard let info else { throw Self.unknown(name) }
        return PlayerAnswer(info)
    }

    // MARK: Events

    /// The frames a client may be behind before its stream is ended (it then resumes with
    /// `Last-Event-ID` from the events the hub keeps): a stream never skips an event.
    package static let streamBuffer = 1_024

    /// The event named by a ``resetEvent`` frame: the stream could not resume after the client's
    /// `Last-Event-ID` (too old, or not this server's), so what follows is the current state.
    package static let resetEvent = "reset"

    /// What a client of an event stream sends to resume (the Server-Sent Events reconnection).
    static let lastEventIDHeader = HTTPField.Name("Last-Event-ID")!

    /// The event stream of `player` (all players: nil) as a `text/event-stream` answer; for
    /// HEAD, its headers only, with no subscription made.
    private func stream(player: String?, request: Request) throws(ServerError) -> Response {
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        // HEAD: a body of unknown length, as the GET's, that writes nothing (no subscription).
        guard request.method != .head else {
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await writer.finish(nil) })
        }
        let frames = try events(of: player, after: request.headers[Self.lastEventIDHeader])
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for await frame in frames {
                    try await writer.write(ByteBuffer(bytes: frame))
                }
                try await writer.finish(nil)
            })
    }

    /// The frames of the event stream of `player` (all players: nil), resuming after the event
    /// `lastEventID` names: what the event routes send, and what a test reads without a socket.
    ///
    /// The stream holds at most ``streamBuffer`` frames its reader has not taken; one more ends
    /// it where the reader got to (the reader resumes with the last id it saw).
    package func events(of player: String?, after lastEventID: String?) throws(ServerError) -> PlayerEventStream {
        let after = lastEventID.flatMap { Int($0) }
        let hub = hub
        var made: PlayerEventStream?
        hub.subscribeEvents(resumingAfter: after) { start in
            // What the client has not seen, first: the events it missed, or the current state
            // (each player's opening frame written when the reader takes it, not here, under the
            // hub's delivery lock).
            var frames: [PlayerEventStream.Item] = []
            var ended = false
            if let missed = start.missed {
                for numbered in missed {
                    guard let frame = Self.frame(numbered, for: player) else { continue }
                    frames.append(.frame(frame))
                    if player != nil, case .removed = numbered.event {
                        ended = true
                        break
                    }
                }
            } else {
                let snapshots = start.players.filter { player == nil || $0.info.name == player }
                // Only the last carries the id: a stream cut before it resumes with the whole opening again.
                if let lastEventID, !lastEventID.isEmpty {
                    let data = JSONWriter.objectText { $0.member("lastEventId", lastEventID) }
                    frames.append(.frame(Self.frame(Self.resetEvent, data, id: snapshots.isEmpty ? start.last : nil)))
                }
                for (index, snapshot) in snapshots.enumerated() {
                    frames.append(.opening(snapshot, id: index == snapshots.count - 1 ? start.last : nil))
                }
            }
            let (stream, continuation) = AsyncStream.makeStream(
                of: PlayerEventStream.Item.self, bufferingPolicy: .bufferingOldest(frames.count + Self.streamBuffer))
            made = PlayerEventStream(items: stream)
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
                if case .dropped = continuation.yield(.frame(frame)) {
                    // Too far behind: end the stream after what it has; the client resumes from its last id.
                    continuation.finish()
                } else if player != nil, case .removed = numbered.event {
                    continuation.finish()
                }
            }
        }
        guard let made else { throw ServerError(.internal, status: 500, "the event stream was not made") }
        return made
    }

    /// The frame of `numbered` on a stream of `player` (all players: nil), or nil when it is not for it.
    static func frame(_ numbered: PlayerHub.NumberedEvent, for player: String?) -> [UInt8]? {
        switch numbered.event {
        case .fix(let update):
            guard player == nil || update.player == player else { return nil }
            return frame("fix", fixJSON(update), id: numbered.id)
        case .changed(let info, let reason):
            guard player == nil || info.name == player else { return nil }
            return stateFrame(info, reason: reason, id: numbered.id)
        case .note(let name, let event, let json):
            guard player == nil || name == player else { return nil }
            return frame(event, json, id: numbered.id)
        case .removed(let name):
            guard player == nil || name == player else { return nil }
            return frame("removed", JSONWriter.objectText { $0.member("player", name) }, id: numbered.id)
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
            for continuation in open { continuation.yield(.frame(Self.heartbeat)) }
        }
    }

    /// One frame: `event:`, `id:` when given, `data:`, a blank line.
    static func frame(_ event: String, _ data: String, id: Int?) -> [UInt8] {
        Array("event: \(event)\n\(id.map { "id: \($0)\n" } ?? "")data: \(data)\n\n".utf8)
    }

    // MARK: JSON

    /// A `fix` event: the player, the fix's offset into its path when it has one, and the `TPV`
    /// clients of the gpsd feed get.
    static func fixJSON(_ update: PlayerHub.Update) -> String {
        JSONWriter.objectText(capacity: 128) { json in
            json.member("player", update.player)
            if let offset = update.offset { json.member("offset", offset, fixedDecimals: 3) }
            json.key("fix")
            json.json(update.tpv)
        }
    }

    /// A `state` frame; the opening one of a stream (`current`) has the player's `history`.
    ///
    /// The event's types throw nothing as they encode; were one to, the client gets an `error`
    /// frame saying so in the state's place, never a silent gap in its stream.
    static func stateFrame(_ info: PlayerHub.PlayerInfo, reason: String, history: PlayerHistory? = nil, id: Int?) -> [UInt8] {
        do {
            let event = PlayerStateEvent(reason: reason, player: PlayerAnswer(info), history: history.map { JSONFragment($0.json) })
            return frame("state", try JSONWriter.text(of: event), id: id)
        } catch {
            let failure = ServerError(.internal, status: 500, "the state of player '\(info.name)' could not be written: \(error)")
            return frame("error", String(decoding: failure.body, as: UTF8.self), id: id)
        }
    }

    static func badRequest(_ error: ConfigurationError) -> ServerError {
        .badRequest(error.message, parameter: error.parameter)
    }

    static func unknown(_ name: String) -> ServerError { .notFound("no player '\(name)'") }
}
