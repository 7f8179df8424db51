import Foundation
import HTTPTypes
import Hummingbird
import LocSimTestHelpers
import LocationCore
import LocationFeed
import LocationSimulation
import LocationTestSupport
import Logging
import NIOCore
import NIOEmbedded
@testable import NearbyServer
import Testing

/// One controlled player on a `VirtualClock`, driven through the control API's routes on the
/// server's own router and middleware (``NearbyServer``'s responder, no socket): every command
/// checked against the path's fixes generated on their own.
final class ControlledFeed: Sendable {
    static let seed: UInt64 = 11
    let clock = VirtualClock()
    let hub: PlayerHub
    let api: PlayerControlAPI
    /// The server the routes are added to, with no places (none of these tests asks for them).
    let server: NearbyServer
    private final class Log: Sendable {
        let updates = Locked<[PlayerHub.Update]>([])
        /// Told of every fix and every event (added, changed, ended, removed).
        let changes = Changes()
    }
    private let log = Log()
    private let task = Locked<Task<Void, Never>?>(nil)

    /// alice walks the 120 s line of ``VirtualFeed`` (121 fixes, 1 Hz), without noise. Her fixes
    /// are stamped from ``VirtualFeed/start`` at the clock's start, and so is the hub's wall clock
    /// (``VirtualFeed/start`` plus the virtual clock's time).
    init(
        loops: Bool = false, eventLimit: Int = PlayerHub.standardEventLimit, historyLimits: PlayerHistory.Limits = .standard
    ) throws {
        let clock = clock
        let alice = try FeedPlayer(
            name: "alice", seed: Self.seed, loops: loops,
            path: try VirtualFeed.motion(seed: Self.seed, pacing: .virtual, noise: nil, clock: ContinuousClock()), clock: clock,
            origin: VirtualFeed.start)
        hub = try PlayerHub(
            players: [alice], now: { VirtualFeed.start.addingTimeInterval(clock.now.offset.fractionalSeconds) }, eventLimit: eventLimit,
            historyLimits: historyLimits)
        api = PlayerControlAPI(hub: hub) { creation throws(ConfigurationError) in
            guard case .spec(let spec) = creation.source, spec == "line" else {
                throw ConfigurationError(parameter: "spec", "this test's factory knows only 'line'")
            }
            let motion: SyntheticMotion<ContinuousClock>
            do {
                motion = try VirtualFeed.motion(seed: 5, pacing: .virtual, noise: nil, clock: ContinuousClock())
            } catch {
                throw ConfigurationError(parameter: "spec", "\(error)")
            }
            return try FeedPlayer(
                name: creation.name, seed: 5, speedFactor: creation.speed ?? 1, loops: creation.loops, path: motion, clock: clock,
                origin: VirtualFeed.start)
        }
        server = NearbyServer(
            configuration: try NearbyServer.Configuration(), repository: NoPlaces(),
            time: ServerTime(clock: ContinuousClock(), now: { Date() }),
            addedRoutes: AddedRoutes(
                register: { [api] open, guarded in api.addRoutes(open: open, guarded: guarded) },
                beginShutdown: { [api] in api.finishStreams() }))
        let log = log
        _ = hub.subscribe { update in
            log.updates.withLock { $0.append(update) }
            log.changes.signal()
        }
        _ = hub.subscribeEvents { _ in log.changes.signal() }
        let hub = hub
        task.withLock { $0 = Task { await hub.runPlayers() } }
    }

    deinit { task.withLock { $0?.cancel() } }

    var updates: [PlayerHub.Update] { log.updates.withLock { $0 } }

    /// Steps the clock `step` at a time until `count` updates have come.
    ///
    /// Before each step, and before it returns, the runner has sent every fix due so far and every
    /// listener has it: the runner is asleep on the clock until its next fix, or its path has ended
    /// (then it never sleeps again, and the count is final). A count read while the runner is
    /// still sending could be ahead of what an event stream has been given.
    func run(until count: Int, step: Duration = .seconds(1)) async throws {
        while updates.count < count {
            try await waitForRunner()
            if updates.count >= count { break }
            guard !ended else { throw HarnessError("alice's path ended after \(updates.count) fixes, before \(count)") }
            await clock.advance(by: step)
        }
    }

    /// Moves the clock by `step` whenever the runner sleeps, until alice's path has ended.
    func runToEnd(step: Duration) async throws {
        while true {
            try await waitForRunner()
            if ended { return }
            await clock.advance(by: step)
        }
    }

    /// Whether alice's path has ended.
    var ended: Bool { hub.info("alice")?.status.state.rawValue == "ended" }

    /// Waits until the runner is asleep on the clock or its path has ended.
    private func waitForRunner() async throws {
        let clock = clock
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await clock.waitForSleepers(1) }
            group.addTask { try await self.waitUntil("alice asleep on the clock, or ended") { $0.ended } }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Waits, without moving the clock, until `count` updates have come (fixes a command sends at once).
    func waitFor(_ count: Int) async throws {
        try await waitUntil("\(count) fixes") { $0.updates.count >= count }
    }

    /// Waits, without moving the clock, until `condition` holds, checking it after every fix and event.
    func waitUntil(_ what: String, _ condition: @escaping @Sendable (ControlledFeed) throws -> Bool) async throws {
        try await log.changes.wait(for: what, account: { [self] in "\(updates.count) fixes" }) { [self] in
            (try? condition(self)) ?? false
        }
    }

    /// One request through the server's responder; the answer's status, headers and body.
    func send(
        _ method: String, _ path: String, _ body: String = "", query: [(name: String, value: String)] = [], contentType: String? = nil,
        lastEventID: String? = nil
    ) async throws -> Response {
        var target = path
        if !query.isEmpty {
            target += "?" + query.map { "\($0.name)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                .joined(separator: "&")
        }
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        if let lastEventID { headers[HTTPField.Name("Last-Event-ID")!] = lastEventID }
        headers[.contentLength] = String(body.utf8.count)
        let request = Request(
            head: HTTPRequest(
                method: try #require(HTTPRequest.Method(method)), scheme: "http", authority: "localhost", path: target,
                headerFields: headers),
            body: RequestBody(buffer: ByteBuffer(string: body)))
        let channel = NIOAsyncTestingChannel()
        let context = NearbyRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: Logger(label: "locsim.test")))
        let response = try await server.responder.respond(to: request, context: context)
        // Closed, the channel leaves no cycle with its pipeline and testing event loop behind.
        _ = try await channel.finish(acceptAlreadyClosed: true)
        return response
    }

    func call(_ method: String, _ path: String, _ body: String = "", query: [(name: String, value: String)] = [], contentType: String? = nil)
        async throws -> (status: Int, json: [String: Any])
    {
        let answer = try await text(method, path, body, query: query, contentType: contentType)
        // A HEAD answer has no body.
        let object = answer.utf8.isEmpty ? [:] : try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] ?? [:]
        return (answer.status, object)
    }

    /// The body of an answer, as text.
    func text(_ method: String, _ path: String, _ body: String = "", query: [(name: String, value: String)] = [], contentType: String? = nil)
        async throws -> (status: Int, utf8: [UInt8])
    {
        let answer = try await send(method, path, body, query: query, contentType: contentType)
        let writer = CollectedBody()
        try await answer.body.write(writer)
        return (answer.status.code, writer.bytes.withLock { $0 })
    }

    func control(_ body: String) async throws -> (status: Int, json: [String: Any]) {
        try await call("POST", "/players/alice/control", body)
    }

    /// An event stream's frames, as the server writes them, until it ends (or the reader stops).
    func events(_ path: String, lastEventID: String? = nil) async throws -> AsyncStream<[UInt8]> {
        let answer = try await send("GET", path, lastEventID: lastEventID)
        #expect(answer.status == .ok)
        #expect(answer.headers[.contentType] == "text/event-stream")
        let (frames, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let writing = Task {
            try? await answer.body.write(FrameWriter(continuation: continuation))
            continuation.finish()
        }
        continuation.onTermination = { _ in writing.cancel() }
        return frames
    }

    /// The path's own fixes: what the player must send, in order.
    static func reference() async throws -> [Fix] {
        var fixes: [Fix] = []
        for try await fix in try VirtualFeed.motion(seed: seed, pacing: .virtual, noise: nil, clock: ContinuousClock()) {
            fixes.append(fix)
        }
        return fixes
    }
}

func errorParameter(_ json: [String: Any]) -> String? { (json["error"] as? [String: Any])?["parameter"] as? String }

@Suite(.timeLimit(.minutes(1)))
struct PlayerControlTests {
    @Test("A player's answer has openapi.json's Player members in its order, the newest fix the very TPV the feed's clients got")
    func answerShape() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 3)
        let document = try JSONValue(parsing: try await feed.text("GET", "/openapi.json").utf8)
        guard case .object(let properties) = document["components"]?["schemas"]?["Player"]?["properties"] else {
            Issue.record("openapi.json has no Player schema with properties")
            return
        }
        let answer = try await feed.text("GET", "/players/alice")
        #expect(answer.status == 200)
        guard case .object(let members) = try JSONValue(parsing: answer.utf8) else {
            Issue.record("not an object: \(String(decoding: answer.utf8, as: UTF8.self))")
            return
        }
        // Every member the schema has, in its order (the seeded line has a known end: all of them).
        #expect(members.map(\.name) == properties.map(\.name))
        let text = String(decoding: answer.utf8, as: UTF8.self)
        let newest = try #require(feed.hub.latest("alice"))
        #expect(text.hasSuffix(",\"fix\":\(newest.tpv)}"), "\(text) does not end with \(newest.tpv)")
        let listed = try await feed.text("GET", "/players")
        #expect(String(decoding: listed.utf8, as: UTF8.self) == "{\"players\":[\(text)]}")
        // A name percent-encoded in the path is the same player (RFC 3986: %69 is i); a + is a +.
        let encoded = try await feed.text("GET", "/players/al%69ce")
        #expect(encoded.status == 200 && encoded.utf8 == answer.utf8)
        #expect(try await feed.text("GET", "/players/alice%2B").status == 404)
    }

    @Test("pause holds the player (no fixes however long the clock runs); resume goes on from the fix after")
    func pauseResume() async throws {
        let feed = try ControlledFeed()
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: 5)
        let paused = try await feed.control(#"{"action":"pause"}"#)
        #expect(paused.status == 200)
        #expect(paused.json["state"] as? String == "paused")
        // run(until:) left the runner asleep on the clock with nothing due: the count is final.
        let held = feed.updates.count
        for _ in 0..<30 { await feed.clock.advance(by: .seconds(1)) }
        let shown = try await feed.call("GET", "/players/alice").json
        #expect(shown["state"] as? String == "paused")
        // Progress is where it stopped: the last fix's path time.
        let lastOffset = reference[held - 1].time.timeIntervalSince(reference[0].time)
        #expect(abs((shown["offset"] as? Double ?? .nan) - lastOffset) < 1.0)
        #expect(try await feed.control(#"{"action":"resume"}"#).json["state"] as? String == "playing")
        // Asleep on the clock again: every fix due so far has been sent (a fix sent while paused
        // among them), and the one after the pause is a second away.
        await feed.clock.waitForSleepers(1)
        #expect(feed.updates.count == held)
        try await feed.run(until: held + 2)
        let sent = feed.updates.map { $0.fix.coordinate }
        #expect(sent == Array(reference.prefix(held + 2)).map(\.coordinate))
    }

    @Test("speed: the path's fixes come that many times faster from then on")
    func speed() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 3)
        let answer = try await feed.control(#"{"action":"speed","speed":4}"#)
        #expect(answer.status == 200)
        #expect(answer.json["speed"] as? Double == 4)
        // The speed is the player's from the command on, whether or not the runner has woken
        // to it yet: one clock second from here is four path seconds.
        let before = feed.updates.count
        await feed.clock.advance(by: .seconds(1))
        try await feed.run(until: before + 4)
        // Asleep on the clock again (the advance woke whatever slept before it): every fix due
        // in that second has been sent.
        await feed.clock.waitForSleepers(1)
        // Four path seconds are four fixes of a 1 Hz path.
        #expect(feed.updates.count == before + 4)
    }

    @Test("seek by offset and by fraction sends the path's fix at that time at once, and goes on from there")
    func seek() async throws {
        let feed = try ControlledFeed()
        let reference = try await ControlledFeed.reference()
        let duration = reference.last!.time.timeIntervalSince(reference[0].time)
        try await feed.run(until: 2)
        #expect(try await feed.call("GET", "/players/alice").json["duration"] as? Double == duration)
        // The answer is the state after the seek: its offset, and no fix from before it (the
        // fix at 60 s, if the player has sent it already).
        let answer = try await feed.control(#"{"action":"seek","offset":60}"#)
        #expect(answer.status == 200)
        #expect(answer.json["offset"] as? Double == 60)
        if let shown = answer.json["fix"] as? [String: Any] {
            #expect(shown["lat"] as? Double == reference[60].coordinate.map { ($0.latitude * 1e9).rounded() / 1e9 })
        }
        try await feed.run(until: 3)
        #expect(feed.updates[2].fix.coordinate == reference[60].coordinate)
        try await feed.run(until: 4)
        #expect(feed.updates[3].fix.coordinate == reference[61].coordinate)
        // Times never go back, even after a seek backwards.
        #expect(try await feed.control(#"{"action":"seek","fraction":0.25}"#).status == 200)
        try await feed.run(until: 5)
        let quarter = reference.firstIndex { $0.time.timeIntervalSince(reference[0].time) > duration / 4 }! - 1
        #expect(feed.updates[4].fix.coordinate == reference[quarter].coordinate)
        let times = feed.updates.map(\.fix.time)
        #expect(times == times.sorted())
        let past = try await feed.control(#"{"action":"seek","offset":\#(duration + 1)}"#)
        #expect(past.status == 400)
        #expect(errorParameter(past.json) == "offset")
    }

    @Test("teleport: the next fix is at the point; later ones follow the path moved by the same jump")
    func teleport() async throws {
        let feed = try ControlledFeed()
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: 3)
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        #expect(try await feed.control(#"{"action":"teleport","lat":35.7,"lng":139.8}"#).status == 200)
        try await feed.waitFor(4)
        let target = try Coordinate(latitude: 35.7, longitude: 139.8)
        #expect(feed.updates[3].fix.coordinate == target)
        #expect(try await feed.control(#"{"action":"resume"}"#).status == 200)
        try await feed.run(until: 5)
        let from = try #require(reference[2].coordinate)
        let expected = try #require(reference[3].coordinate).destination(distance: from.distance(to: target), bearing: from.bearing(to: target))
        let got = try #require(feed.updates[4].fix.coordinate)
        #expect(abs(got.latitude - expected.latitude) < 1e-9 && abs(got.longitude - expected.longitude) < 1e-9)
    }

    @Test("Stepped fix by fix, a player sends every fix of its path, the last one too, and then ends")
    func wholePath() async throws {
        let feed = try ControlledFeed()
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: reference.count)
        #expect(feed.updates.map(\.fix.coordinate) == reference.map(\.coordinate))
        #expect(feed.updates.map(\.offset) == reference.map { $0.time.timeIntervalSince(reference[0].time) })
        try await feed.waitUntil("alice ended") { $0.ended }
    }

    @Test("At the end: ended without loop, and turning loop on starts the path again from its first fix")
    func endAndLoop() async throws {
        let feed = try ControlledFeed()
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: 1)
        #expect(try await feed.control(#"{"action":"seek","fraction":1}"#).status == 200)
        try await feed.waitFor(2)
        #expect(feed.updates[1].fix.coordinate == reference.last!.coordinate)
        try await feed.waitUntil("alice ended") { $0.ended }
        #expect(try await feed.call("GET", "/players/alice").json["state"] as? String == "ended")
        #expect(try await feed.control(#"{"action":"loop","loop":true}"#).json["loop"] as? Bool == true)
        try await feed.waitFor(3)
        #expect(feed.updates[2].fix.coordinate == reference[0].coordinate)
        #expect(feed.updates[2].fix.time >= feed.updates[1].fix.time)
    }

    @Test("An ended player refuses pause and resume (409 naming 'action') and no event says it changed")
    func endedRefusesPauseAndResume() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 1)
        #expect(try await feed.control(#"{"action":"seek","fraction":1}"#).status == 200)
        try await feed.waitFor(2)
        try await feed.waitUntil("alice ended") { $0.ended }
        let stream = try await feed.events("/players/alice/fixes")
        for action in ["pause", "resume"] {
            let refused = try await feed.control(#"{"action":"\#(action)"}"#)
            #expect(refused.status == 409)
            #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "conflict")
            #expect(errorParameter(refused.json) == "action")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("ended"), "\(message)")
        }
        #expect(try await feed.call("GET", "/players/alice").json["state"] as? String == "ended")
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        var frames: [String] = []
        for await frame in stream { frames.append(String(decoding: frame, as: UTF8.self)) }
        #expect(!frames.contains { $0.contains(#""reason":"pause""#) || $0.contains(#""reason":"resume""#) }, "\(frames)")
    }

    @Test("A command that changes nothing (pause twice, the same speed) answers 200 and sends no event")
    func noChangeNoEvent() async throws {
        let feed = try ControlledFeed()
        let stream = try await feed.events("/players/alice/fixes")
        try await feed.run(until: 2)
        for _ in 0..<2 { #expect(try await feed.control(#"{"action":"pause"}"#).json["state"] as? String == "paused") }
        for _ in 0..<2 { #expect(try await feed.control(#"{"action":"speed","speed":3}"#).status == 200) }
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        var frames: [String] = []
        for await frame in stream { frames.append(String(decoding: frame, as: UTF8.self)) }
        #expect(frames.filter { $0.contains(#""reason":"pause""#) }.count == 1, "\(frames)")
        #expect(frames.filter { $0.contains(#""reason":"speed""#) }.count == 1, "\(frames)")
    }

    @Test("A looping player starts again by itself at its end")
    func loopsByItself() async throws {
        let feed = try ControlledFeed(loops: true)
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: 1)
        #expect(try await feed.control(#"{"action":"seek","offset":119}"#).status == 200)
        try await feed.run(until: 3)
        // Asleep until the path's first fix comes again, one fix interval after its last: the
        // player is at the path's start, not before it (a negative offset broke the API's schema).
        await feed.clock.waitForSleepers(1)
        #expect(try await feed.call("GET", "/players/alice").json["offset"] as? Double == 0)
        try await feed.run(until: 4)
        #expect(feed.updates.suffix(3).map(\.fix.coordinate) == [reference[119], reference[120], reference[0]].map(\.coordinate))
        let times = feed.updates.map(\.fix.time)
        #expect(times == times.sorted())
    }

    @Test("Above 100 fixes a second (1000× a 1 Hz path) no stamp runs ahead of the clock: one fix a centisecond, the latest due, to the path's last")
    func stampsNeverAhead() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 3)
        #expect(try await feed.control(#"{"action":"speed","speed":1000}"#).status == 200)
        // Its 1 Hz sleep stays on the clock until the runner has taken the new pace: stepping on
        // it would move time while the runner is not asleep, and it would find several fixes
        // due at once. Wait for its sleep at the new pace (just past the next centisecond) first.
        await feed.clock.waitForSleepers(1, dueBy: feed.clock.now.advanced(by: .milliseconds(20)))
        try await feed.runToEnd(step: .milliseconds(1))
        let fast = Array(feed.updates.dropFirst(3))
        let times = fast.map(\.fix.time)
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(later > earlier, "\(earlier) then \(later)") }
        // Stamped at or before the moment it was sent (cut to the centisecond), never after it:
        // the path's remaining 117 s at 1000× take 117 ms of the clock, about a dozen stamps.
        for update in fast {
            let late = update.fix.time.timeIntervalSince(update.published)
            #expect(late <= 1e-6, "stamped \(late) s after it was sent")
        }
        #expect((10...14).contains(fast.count), "\(fast.count) fixes")
        let offsets = fast.compactMap(\.offset)
        #expect(offsets == offsets.sorted() && offsets.last == 120, "\(offsets)")
    }

    @Test("Each fix is stamped with the wall-clock time it is sent at, later than the one before: at 5×, after a pause, a seek back, a teleport and a loop; its offset is the path's time")
    func wallClockStamps() async throws {
        let feed = try ControlledFeed(loops: true)
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: 3)
        #expect(try await feed.control(#"{"action":"speed","speed":5}"#).status == 200)
        // At 5× the path's 1 Hz fixes are due every 0.2 s of the clock, from the command on:
        // step by that, once the runner sleeps until its next fix at the new pace (its sleep
        // until the next fix at 1× can still be on the clock, and moving time then would send
        // the fixes due meanwhile at once).
        await feed.clock.waitForSleepers(1, dueBy: feed.clock.now.advanced(by: .milliseconds(200)))
        try await feed.run(until: 13, step: .milliseconds(200))
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        // run(until:) left the runner asleep on the clock with nothing due: the count is final.
        let beforePause = feed.updates.count
        for _ in 0..<40 { await feed.clock.advance(by: .seconds(1)) }
        #expect(try await feed.control(#"{"action":"resume"}"#).status == 200)
        #expect(try await feed.control(#"{"action":"seek","offset":10}"#).status == 200)
        try await feed.waitFor(beforePause + 1)
        #expect(try await feed.control(#"{"action":"teleport","lat":35.7,"lng":139.8}"#).status == 200)
        try await feed.waitFor(beforePause + 2)
        #expect(try await feed.control(#"{"action":"seek","offset":119}"#).status == 200)
        try await feed.waitFor(beforePause + 3)
        try await feed.run(until: beforePause + 5, step: .milliseconds(200))
        let updates = feed.updates

        // Every stamp is the time the hub saw the fix, cut to the centisecond (an NMEA time's
        // resolution), or a centisecond after the one before when two leave at one instant (a
        // seek, then a teleport at once): distinct in the TPV's milliseconds and the RMC's time.
        let times = updates.map(\.fix.time)
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(later > earlier, "\(earlier) then \(later)") }
        for update in updates {
            let late = update.fix.time.timeIntervalSince(update.published)
            // Up to three fixes leave at one instant here (a seek, a teleport, a seek): each a
            // centisecond after the one before.
            #expect(late > -0.010 && late < 0.030, "stamped \(update.fix.time), published \(update.published)")
        }
        let centiseconds = times.map { Int(($0.timeIntervalSince1970 * 100).rounded()) }
        #expect(Set(centiseconds).count == times.count, "no two stamps share a centisecond")
        #expect(zip(times, centiseconds).allSatisfy { abs($0.timeIntervalSince1970 * 100 - Double($1)) < 1e-3 })
        // At 5× a path second is 0.2 s of the clock: the offsets go on by 1 s a fix, the stamps by
        // a fifth of that (to the step the test moves the clock by).
        let fast = Array(updates[4..<beforePause])
        let offsets = fast.compactMap(\.offset)
        #expect(offsets == offsets.indices.map { Double($0) + (offsets.first ?? .nan) })
        let span = try #require(fast.last).fix.time.timeIntervalSince(try #require(fast.first).fix.time)
        #expect(abs(span - Double(fast.count - 1) / 5) <= 0.201, "\(fast.count) fixes over \(span) s")
        // The 40 s pause is 40 s of the clock between the last fix before it and the next one.
        let gap = updates[beforePause].fix.time.timeIntervalSince(updates[beforePause - 1].fix.time)
        #expect(gap >= 40 && gap <= 40.201, "\(gap) s")
        // The seek back sends the path's fix at 10 s at once; the teleport a fix of its own a
        // centisecond later; the loop's first fix is the path's start.
        #expect(updates[beforePause].offset == 10)
        #expect(updates[beforePause].fix.coordinate == reference[10].coordinate)
        #expect(updates[beforePause + 1].fix.time.timeIntervalSince(updates[beforePause].fix.time) < 0.015)
        #expect(updates.suffix(3).map(\.offset) == [119, 120, 0])
        #expect(updates.last?.fix.coordinate != updates[beforePause + 2].fix.coordinate)
    }

    @Test("The event stream's fix events carry the fix's offset into the path beside its TPV")
    func fixEventOffset() async throws {
        let feed = try ControlledFeed()
        // The runner is already going: fixes sent before the subscription are in the opening
        // state's count (`fixes`), not fix events.
        let stream = try feed.api.events(of: "alice", after: nil)
        try await feed.run(until: 3)
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        var fixes: [[String: Any]] = []
        var before: Int?
        for await frame in stream {
            let text = String(decoding: frame, as: UTF8.self)
            if before == nil { before = Self.openingFixes(text) }
            guard text.hasPrefix("event: fix\n"), let data = text.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { continue }
            fixes.append(try #require(try JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any]))
        }
        let sent = try #require(before)
        #expect(fixes.map { $0["offset"] as? Double } == (sent..<3).map { Double($0) })
        let stamps = fixes.compactMap { ($0["fix"] as? [String: Any])?["time"] as? String }
        #expect(stamps == feed.updates[sent..<3].map { UTCTimestamp.format($0.fix.time, fractionDigits: 3) })
    }

    @Test("Bad control bodies are 400s naming the field; an unknown player a 404; a wrong method a 405 with Allow")
    func badBodies() async throws {
        let feed = try ControlledFeed()
        let cases: [(String, String)] = [
            ("", "body"),
            ("not json", "body"),
            (#"{}"#, "action"),
            (#"{"action":7}"#, "action"),
            (#"{"action":"fly"}"#, "action"),
            (#"{"action":"speed"}"#, "speed"),
            (#"{"action":"speed","speed":"fast"}"#, "speed"),
            (#"{"action":"speed","speed":0}"#, "speed"),
            (#"{"action":"speed","speed":5000}"#, "speed"),
            (#"{"action":"seek"}"#, "offset"),
            (#"{"action":"seek","offset":-1}"#, "offset"),
            // Further than a year: refused even on a path whose end is not known yet.
            (#"{"action":"seek","offset":1e300}"#, "offset"),
            (#"{"action":"seek","fraction":1.5}"#, "fraction"),
            (#"{"action":"seek","offset":1,"fraction":0.5}"#, "fraction"),
            (#"{"action":"teleport","lat":91,"lng":0}"#, "lat"),
            (#"{"action":"teleport","lat":35}"#, "lng"),
            (#"{"action":"teleport","lat":35,"lng":181}"#, "lng"),
            (#"{"action":"loop"}"#, "loop"),
            (#"{"action":"loop","loop":"yes"}"#, "loop"),
            (#"{"action":"pause","speed":2}"#, "speed"),
            (#"{"action":"speed","speed":2,"speed":3}"#, "speed"),
        ]
        for (body, parameter) in cases {
            let answer = try await feed.control(body)
            #expect(answer.status == 400, "\(body)")
            #expect(errorParameter(answer.json) == parameter, "\(body): \(answer.json)")
        }
        // A 60 KB value or field name is not echoed whole: an error answer stays short.
        let long = String(repeating: "x", count: 60_000)
        for body in [#"{"action":"\#(long)"}"#, #"{"action":"pause","\#(long)":1}"#] {
            let (status, bytes) = try await feed.text("POST", "/players/alice/control", body)
            #expect(status == 400)
            #expect(bytes.count < 2_000, "\(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let created = try await feed.text("POST", "/players", #"{"name":"\#(long)","spec":"line:35.68,139.76:35.69,139.77"}"#)
        #expect(created.status == 400)
        #expect(created.utf8.count < 2_000, "\(String(decoding: created.utf8.prefix(200), as: UTF8.self))")
        // A route that changes a player takes no parameters: a misspelt or stray one is a 400
        // naming it, and nothing is done (alice still plays).
        for (method, path, body) in [
            ("DELETE", "/players/alice?force=1", ""), ("POST", "/players/alice/control?dry_run=1", #"{"action":"pause"}"#),
        ] {
            let refused = try await feed.call(method, path, body)
            #expect(refused.status == 400, "\(path)")
            #expect(errorParameter(refused.json) == (method == "DELETE" ? "force" : "dry_run"), "\(path): \(refused.json)")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.hasSuffix("(it takes none); nothing was done"), "\(path): \(message)")
        }
        #expect(try await feed.call("GET", "/players/alice").status == 200)
        #expect(try await feed.call("POST", "/players/nobody/control", #"{"action":"pause"}"#).status == 404)
        #expect(try await feed.call("GET", "/players/nobody").status == 404)
        #expect(try await feed.call("DELETE", "/players/nobody").status == 404)
        #expect(try await feed.call("GET", "/players/nobody/fixes").status == 404)
        #expect(try await feed.call("GET", "/players/alice/elsewhere").status == 404)
        let wrong = try await feed.send("PUT", "/players/alice")
        #expect(wrong.status == .methodNotAllowed)
        #expect(wrong.headers[.allow] == "GET, DELETE, HEAD")
        // HEAD is answered as GET where GET works, and named as itself where it does not.
        #expect(try await feed.call("HEAD", "/players/alice").status == 200)
        let head = try await feed.send("HEAD", "/players/alice/control")
        #expect(head.status == .methodNotAllowed)
        #expect(head.headers[.allow] == "POST")
    }

    @Test("POST /players adds a player (JSON spec) that plays at once; bad specs are 400s naming the field; DELETE removes it")
    func addAndRemove() async throws {
        let feed = try ControlledFeed()
        let created = try await feed.call("POST", "/players", #"{"name":"carol","spec":"line","speed":2,"loop":true}"#)
        #expect(created.status == 201, "\(created.json)")
        #expect(created.json["device"] as? String == "/dev/locsim/carol")
        #expect(created.json["loop"] as? Bool == true)
        #expect(feed.hub.devices.map(\.name) == ["alice", "carol"])
        await feed.clock.waitForSleepers(2)
        await feed.clock.advance(by: .seconds(1))
        try await feed.waitUntil("a fix of carol") { $0.updates.contains { $0.player == "carol" } }
        #expect(feed.updates.contains { $0.player == "carol" })
        let cases: [(String, Int, String)] = [
            (#"{"name":"carol","spec":"line"}"#, 409, "name"),
            (#"{"name":"events","spec":"line"}"#, 400, "name"),
            (#"{"name":"a/b","spec":"line"}"#, 400, "name"),
            // Clients rewrite these path segments: /players/.. would never reach the player.
            (#"{"name":".","spec":"line"}"#, 400, "name"), (#"{"name":"..","spec":"line"}"#, 400, "name"),
            (#"{"spec":"line"}"#, 400, "name"),
            (#"{"name":"dave"}"#, 400, "spec"),
            (#"{"name":"dave","spec":"circle"}"#, 400, "spec"),
            (#"{"name":"dave","spec":"line","colour":"red"}"#, 400, "colour"),
            (#"{"name":"dave","spec":"line","speed":true}"#, 400, "speed"),
            // Letters of any script, but no space, control, bidirectional control or leading mark,
            // and at most 32 bytes (11 kana are 33).
            (#"{"name":"たろう くん","spec":"line"}"#, 400, "name"), (#"{"name":"a\u0007b","spec":"line"}"#, 400, "name"),
            (#"{"name":"a\u202Eb","spec":"line"}"#, 400, "name"), (#"{"name":"\u0301a","spec":"line"}"#, 400, "name"),
            (#"{"name":"あいうえおかきくけこさ","spec":"line"}"#, 400, "name"),
        ]
        let taken = try await feed.call("POST", "/players", #"{"name":"carol","spec":"line"}"#)
        let takenMessage = (taken.json["error"] as? [String: Any])?["message"] as? String
        #expect(takenMessage == "a player named 'carol' already exists (playing); DELETE /players/carol first to reuse the name", "\(taken.json)")
        for (body, status, parameter) in cases {
            let answer = try await feed.call("POST", "/players", body)
            #expect(answer.status == status, "\(body): \(answer.json)")
            #expect(errorParameter(answer.json) == parameter, "\(body): \(answer.json)")
        }
        // A name in any script: created, reached at its percent-encoded path, a gpsd device.
        let kana = try await feed.call("POST", "/players", #"{"name":"たろう","spec":"line"}"#)
        #expect(kana.status == 201, "\(kana.json)")
        #expect(kana.json["device"] as? String == "/dev/locsim/たろう")
        #expect(feed.hub.devices.map(\.name).contains("たろう"))
        let encodedPath = "/players/" + "たろう".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        #expect(try await feed.call("GET", encodedPath).json["name"] as? String == "たろう")
        #expect(try await feed.call("DELETE", encodedPath).status == 200)
        #expect(try await feed.call("POST", "/players", #"{"name":"Łukasz_2.b-ü","spec":"line"}"#).status == 201)
        #expect(try await feed.call("DELETE", "/players/%C5%81ukasz_2.b-%C3%BC").status == 200)
        let gpx = try await feed.call("POST", "/players", "<gpx/>", query: [("speed", "2")], contentType: "application/gpx+xml")
        #expect(gpx.status == 400)
        #expect(errorParameter(gpx.json) == "name")
        // As the nearby route's: a parameter given twice, a number that is not plain decimal, a
        // query beside a JSON body (which it would not reach) are refused, naming the parameter.
        for (body, query, contentType, parameter) in [
            ("<gpx/>", [("name", "e1"), ("name", "e2")], "application/gpx+xml", "name"),
            ("<gpx/>", [("name", "e1"), ("speed", "0x10")], "application/gpx+xml", "speed"),
            ("<gpx/>", [("name", "e1"), ("speed", "nan")], "application/gpx+xml", "speed"),
            (#"{"name":"e1","spec":"line"}"#, [("speed", "abc")], "application/json", "speed"),
        ] as [(String, [(String, String)], String, String)] {
            let answer = try await feed.call("POST", "/players", body, query: query.map { (name: $0.0, value: $0.1) }, contentType: contentType)
            #expect(answer.status == 400, "\(query): \(answer.json)")
            #expect(errorParameter(answer.json) == parameter, "\(query): \(answer.json)")
        }
        // Query names are percent-decoded as on every route: `n%61me` is `name`, so what is refused
        // is the body (this test's factory takes only the spec "line"), not an unknown parameter.
        let encoded = try await feed.call("POST", "/players", "<gpx/>", query: [("n%61me", "erin")], contentType: "application/gpx+xml")
        #expect(errorParameter(encoded.json) == "spec", "\(encoded.json)")
        let listed = try await feed.call("GET", "/players").json["players"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["name"] as? String } == ["alice", "carol"])
        #expect(try await feed.call("DELETE", "/players/carol").status == 200)
        #expect(try await feed.call("GET", "/players/carol").status == 404)
        #expect(feed.hub.devices.map(\.name) == ["alice"])
    }

    @Test("/players/alice/fixes streams the current state, each fix, and a state event for pause and resume")
    func events() async throws {
        let feed = try ControlledFeed()
        // The runner is already going: fixes sent before the subscription are in the opening
        // state's count (`fixes`), not fix events.
        let stream = try feed.api.events(of: "alice", after: nil)
        try await feed.run(until: 2)
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        #expect(try await feed.control(#"{"action":"resume"}"#).status == 200)
        try await feed.run(until: 3)
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        var frames: [String] = []
        for await frame in stream { frames.append(String(decoding: frame, as: UTF8.self)) }
        let events = frames.map { $0.split(separator: "\n").first.map(String.init) ?? "" }
        #expect(events.first == "event: state")
        let sent = try #require(frames.first.flatMap(Self.openingFixes))
        #expect(events.filter { $0 == "event: fix" }.count == 3 - sent)
        #expect(frames.contains { $0.contains(#""reason":"pause""#) && $0.contains(#""state":"paused""#) })
        #expect(frames.contains { $0.contains(#""reason":"resume""#) && $0.contains(#""state":"playing""#) })
        #expect(events.last == "event: removed")
    }

    /// The `fixes` count of a stream's opening state frame: the player's fixes sent before it.
    static func openingFixes(_ frame: String) -> Int? {
        guard let range = frame.range(of: #""fixes":"#) else { return nil }
        return Int(frame[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("Every open event stream gets a comment frame each heartbeat interval while nothing happens; a closed one none")
    func heartbeats() async throws {
        let feed = try ControlledFeed()
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        let one = try await feed.events("/players/alice/fixes")
        let all = try await feed.events("/players/events")
        final class Frames: Sendable {
            let byStream = Locked<[String: [[UInt8]]]>([:])
            let changes = Changes()
            func beats(_ name: String) -> Int {
                byStream.withLock { $0[name, default: []].filter { $0 == PlayerControlAPI.heartbeat }.count }
            }
            /// Waits until the two streams have read `one` and `all` beats, then checks they read
            /// no more: the heartbeat task is asleep on its clock by then, so none is on its way.
            func expectBeats(one: Int, all: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                try await changes.wait(for: "\(one) and \(all) beats", account: { "\(self.beats("one")) and \(self.beats("all"))" }) {
                    self.beats("one") >= one && self.beats("all") >= all
                }
                #expect(beats("one") == one && beats("all") == all, sourceLocation: sourceLocation)
            }
        }
        let frames = Frames()
        let readers = [("one", one), ("all", all)].map { name, stream in
            Task {
                for await frame in stream {
                    frames.byStream.withLock { $0[name, default: []].append(frame) }
                    frames.changes.signal()
                }
            }
        }
        // Its own clock: the paused player's sleeps do not move it.
        let beat = VirtualClock()
        let heart = Task { await feed.api.sendHeartbeats(every: .seconds(15), clock: beat) }
        await beat.waitForSleepers(1)
        // 14 s: the heartbeat task is still asleep on its clock (its deadline is 15 s), so no beat
        // has been sent; a beat sent early would be counted by the exact checks below.
        await beat.advance(by: .seconds(14))
        await beat.waitForSleepers(1)
        #expect(frames.beats("one") == 0 && frames.beats("all") == 0, "none before the interval")
        await beat.advance(by: .seconds(1))
        await beat.waitForSleepers(1)
        try await frames.expectBeats(one: 1, all: 1)
        await beat.advance(by: .seconds(15))
        await beat.waitForSleepers(1)
        try await frames.expectBeats(one: 2, all: 2)

        // alice removed: her stream ends; the stream of every player goes on beating.
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        await readers[0].value
        await beat.advance(by: .seconds(15))
        await beat.waitForSleepers(1)
        try await frames.expectBeats(one: 2, all: 3)
        let text = frames.byStream.withLock { $0["one", default: []].map { String(decoding: $0, as: UTF8.self) } }
        #expect(text.first?.hasPrefix("event: state") == true, "the heartbeats come beside the events: \(text)")
        #expect(text.last?.hasPrefix("event: removed") == true)

        heart.cancel()
        await heart.value
        feed.api.finishStreams()
        await readers[1].value
    }
}

/// A place database with no places: the control API's tests ask for none.
struct NoPlaces: LocationRepository {
    func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] { [] }
    func fetchNearby(center: Coordinate, radius: Double, limit: Int?) async throws -> [Place] { [] }
}

/// A whole answer body, collected.
final class CollectedBody: ResponseBodyWriter, Sendable {
    let bytes = Locked<[UInt8]>([])
    func write(_ buffer: ByteBuffer) async throws { bytes.withLock { $0 += Array(buffer.readableBytesView) } }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Each write of an event stream's body (one frame, or a heartbeat) handed on as it comes.
struct FrameWriter: ResponseBodyWriter {
    let continuation: AsyncStream<[UInt8]>.Continuation
    func write(_ buffer: ByteBuffer) async throws { continuation.yield(Array(buffer.readableBytesView)) }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws { continuation.finish() }
}
