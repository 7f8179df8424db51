import Foundation
import LocationCore
import LocationFeed
import LocSimTestHelpers
import Testing

/// Reads an event stream on a task of its own, keeping every frame.
final class FrameReader: Sendable {
    private let frames = Locked<[EventFrame]>([])
    private let changes = Changes()
    private let task: Task<Void, Never>

    init(_ stream: some AsyncSequence<[UInt8], Never> & Sendable) {
        let frames = frames
        let changes = changes
        task = Task {
            for await bytes in stream {
                if let frame = EventFrame(bytes) { frames.withLock { $0.append(frame) } }
                changes.signal()
            }
            changes.end()
        }
    }

    var seen: [EventFrame] { frames.withLock { $0 } }

    /// Waits (without moving any clock) until `done` holds for what was read; throws when the
    /// stream ends, or 30 s pass, first.
    func wait(until done: @escaping @Sendable ([EventFrame]) -> Bool) async throws {
        try await changes.wait(for: "event frames", account: { "read \(self.seen)" }) { done(self.seen) }
    }

    /// Every frame, once the stream has ended.
    func all() async -> [EventFrame] {
        await task.value
        return seen
    }
}

/// Event ids, `Last-Event-ID` and the players' history, through the control API's own code
/// (``PlayerControlAPI/events(of:after:)``, no socket), on the virtual clock of ``ControlledFeed``.
@Suite(.timeLimit(.minutes(1)))
struct PlayerEventResumeTests {
    /// The first event's id of a hub started at ``VirtualFeed/start``: its microseconds since 1970.
    static let firstID = Int((VirtualFeed.start.timeIntervalSince1970 * 1e6).rounded(.down))

    /// The stream of `player` (every player: nil) straight from the API, so what its buffer
    /// holds is exactly what a reader gets (an HTTP body would add its writer's frame).
    static func events(_ feed: ControlledFeed, _ player: String? = nil, after id: String? = nil) throws -> PlayerEventStream {
        try feed.api.events(of: player, after: id)
    }

    @Test("A player's history is written when the reader takes the opening frame, not while the hub holds every fix back")
    func openingWrittenWhenRead() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 2)
        let renders = Locked(0)
        feed.hub.post(player: "alice", event: "map", keeping: .latest(kind: "places")) {
            renders.withLock { $0 += 1 }
            return #"{"places":[]}"#
        }
        #expect(renders.withLock { $0 } == 1, "written once, for the listeners of the post")
        let stream = try Self.events(feed, "alice")
        #expect(renders.withLock { $0 } == 1, "the history was written while the stream was made")
        var frames = stream.makeAsyncIterator()
        let first = try #require(await frames.next())
        let opening = try #require(EventFrame(first))
        #expect(renders.withLock { $0 } == 2)
        #expect(opening.event == "state" && opening.json["reason"] as? String == "current")
        let notes = try #require((opening.json["history"] as? [String: Any])?["notes"] as? [[String: Any]])
        #expect(notes.map { $0["event"] as? String } == ["map"], "\(opening)")
    }

    @Test("Every frame has an id: the opening state the newest event's, each later event the next number, from the hub's start time")
    func idsCount() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 3)
        let reader = FrameReader(try Self.events(feed, "alice"))
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        #expect(try await feed.control(#"{"action":"resume"}"#).status == 200)
        try await feed.run(until: 6)
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        let frames = await reader.all()
        let opening = try #require(frames.first)
        #expect(opening.event == "state" && opening.json["reason"] as? String == "current")
        // Events so far: alice added, then her fixes; the opening shows as many as its id counts.
        let shown = try #require((opening.json["player"] as? [String: Any])?["fixes"] as? Int)
        #expect(opening.id == Self.firstID + shown, "\(frames)")
        let later = frames.dropFirst()
        #expect(later.map(\.id) == (1...later.count).map { Self.firstID + shown + $0 }, "\(frames)")
        #expect(later.map(\.event) == ["state", "state"] + Array(repeating: "fix", count: later.count - 3) + ["removed"], "\(frames)")
    }

    @Test("Resuming after an id gives exactly the frames a stream that stayed open got after it, then the live ones")
    func resumeWithoutGapOrDuplicate() async throws {
        let feed = try ControlledFeed()
        try await feed.run(until: 5)
        let stayed = FrameReader(try Self.events(feed))
        try await feed.run(until: 15)
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        try await stayed.wait { $0.contains { $0.json["reason"] as? String == "pause" } }
        // A client whose stream dropped after the fourth frame it got.
        let cut = try #require(stayed.seen.count > 8 ? stayed.seen[3].id : nil, "\(stayed.seen)")
        let resumed = FrameReader(try Self.events(feed, after: String(cut)))
        #expect(try await feed.control(#"{"action":"resume"}"#).status == 200)
        try await feed.run(until: 25)
        try await stayed.wait { $0.filter { $0.event == "fix" }.count >= 20 }
        try await resumed.wait { $0.filter { $0.event == "fix" }.count >= 20 - 3 }
        feed.api.finishStreams()
        let whole = await stayed.all()
        let after = await resumed.all()
        #expect(after == Array(whole.drop { $0.id != cut }.dropFirst()), "resumed \(after)\nstayed \(whole)")
        #expect(after.count > 15)
        #expect(!after.contains { $0.event == PlayerControlAPI.resetEvent || $0.json["reason"] as? String == "current" })
    }

    @Test("An id no longer kept, not a number or not yet given: a reset frame, then the current state with its history")
    func resetWhenNotKept() async throws {
        let feed = try ControlledFeed(eventLimit: 8)
        try await feed.run(until: 20)
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        let newest = try #require(try await FrameReader(try Self.events(feed)).all(after: { feed.api.finishStreams() }).first?.id)
        // The 8 newest are kept: after newest - 8 all of them come again; after newest - 9 one is gone.
        let kept = FrameReader(try Self.events(feed, after: String(newest - 8)))
        let asked = [String(newest - 9), String(Self.firstID), "yesterday", String(newest + 1)]
        var readers: [FrameReader] = []
        for id in asked { readers.append(FrameReader(try Self.events(feed, after: id))) }
        let fresh = FrameReader(try Self.events(feed))
        try await kept.wait { $0.count == 8 }
        for reader in readers + [fresh] { try await reader.wait { !$0.isEmpty && $0.last?.id != nil } }
        feed.api.finishStreams()
        #expect(await kept.all().map(\.id) == (newest - 7...newest).map { $0 })
        for (id, reader) in zip(asked, readers) {
            let frames = await reader.all()
            #expect(frames.map(\.event) == [PlayerControlAPI.resetEvent, "state"], "\(id): \(frames)")
            #expect(frames.first?.json["lastEventId"] as? String == id)
            // Only the opening's last frame has the id: a stream cut inside it starts over.
            #expect(frames.map(\.id) == [nil, newest], "\(id): \(frames)")
            #expect((frames.last?.json["history"] as? [String: Any])?["trail"] as? [[Double]] != nil, "\(frames)")
        }
        #expect(await fresh.all().map(\.event) == ["state"])
    }

    @Test("A client more than the buffer behind has its stream ended where it got to; resuming from there loses nothing")
    func slowClientResumes() async throws {
        let feed = try ControlledFeed()
        #expect(try await feed.control(#"{"action":"pause"}"#).status == 200)
        let unread = try Self.events(feed)
        let total = PlayerControlAPI.streamBuffer + 300
        for n in 0..<total { feed.hub.post(player: "alice", event: "map", json: #"{"player":"alice","n":\#(n)}"#) }
        // Nobody read: the stream holds the opening and the buffer's worth, and ends there.
        let first = await FrameReader(unread).all()
        #expect(first.count == 1 + PlayerControlAPI.streamBuffer)
        let last = try #require(first.last?.id)
        let rest = FrameReader(try Self.events(feed, after: String(last)))
        try await rest.wait { $0.count == total - PlayerControlAPI.streamBuffer }
        feed.api.finishStreams()
        let numbers = (first.dropFirst() + (await rest.all())).map { $0.json["n"] as? Int ?? -1 }
        #expect(numbers == Array(0..<total))
    }

    @Test("The opening state frame holds the player's trail so far and the kept notes: the newest fetches, the latest places")
    func historyInOpening() async throws {
        let feed = try ControlledFeed()
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: 40)
        for n in 0..<150 {
            feed.hub.post(
                player: "alice", event: "map", json: #"{"player":"alice","fetch":{"n":\#(n)}}"#,
                keeping: .recent(kind: "fetch", limit: 100))
            if n % 50 == 0 {
                feed.hub.post(
                    player: "alice", event: "map", json: #"{"player":"alice","places":[{"n":\#(n)}]}"#, keeping: .latest(kind: "places"))
            }
            feed.hub.post(player: "alice", event: "map", json: #"{"player":"alice","passing":\#(n)}"#)
        }
        let reader = FrameReader(try Self.events(feed, "alice"))
        try await reader.wait { !$0.isEmpty }
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        let opening = try #require(await reader.all().first)
        let history = try #require(opening.json["history"] as? [String: Any])
        let trail = try #require(history["trail"] as? [[Double]])
        let sent = feed.updates.count
        #expect(trail.count == sent)
        for (point, fix) in zip(trail, reference) {
            let coordinate = try #require(fix.coordinate)
            #expect(abs(point[0] - coordinate.latitude) <= 0.6e-7 && abs(point[1] - coordinate.longitude) <= 0.6e-7, "\(point) \(coordinate)")
        }
        let notes = try #require(history["notes"] as? [[String: Any]])
        #expect(notes.allSatisfy { $0["event"] as? String == "map" })
        let data = notes.compactMap { $0["data"] as? [String: Any] }
        let fetches = data.compactMap { ($0["fetch"] as? [String: Any])?["n"] as? Int }
        #expect(fetches == Array(50..<150))
        let places = data.compactMap { ($0["places"] as? [[String: Any]])?.first?["n"] as? Int }
        #expect(places == [100])
        #expect(!data.contains { $0["passing"] != nil }, "notes not kept stay out")
        // In the order posted: the places note sits between fetch 100 and fetch 101.
        let placesIndex = try #require(data.firstIndex { $0["places"] != nil })
        #expect((data[placesIndex - 1]["fetch"] as? [String: Any])?["n"] as? Int == 100)
    }

    @Test("A whole walk in a 16-point trail: at most 17 points, evenly spread, from the first fix to the newest")
    func trailBoundedInHub() async throws {
        let feed = try ControlledFeed(historyLimits: .init(trail: 16))
        let reference = try await ControlledFeed.reference()
        try await feed.run(until: reference.count)
        let reader = FrameReader(try Self.events(feed, "alice"))
        try await reader.wait { !$0.isEmpty }
        #expect(try await feed.call("DELETE", "/players/alice").status == 200)
        let opening = try #require(await reader.all().first)
        let trail = try #require((opening.json["history"] as? [String: Any])?["trail"] as? [[Double]])
        #expect((9...17).contains(trail.count), "\(trail.count)")
        let first = try #require(reference.first?.coordinate)
        let last = try #require(reference.last?.coordinate)
        #expect(abs(trail[0][0] - first.latitude) < 1e-7 && abs(trail[0][1] - first.longitude) < 1e-7)
        #expect(abs(trail[trail.count - 1][0] - last.latitude) < 1e-7 && abs(trail[trail.count - 1][1] - last.longitude) < 1e-7)
    }
}

/// ``PlayerHistory`` alone: what it keeps, in bounded memory.
struct PlayerHistoryTests {
    /// The trail of `history` as fix numbers (coordinate `n` is at latitude 10 + n × 1e-6).
    static func numbers(_ history: PlayerHistory) throws -> [Int] {
        let trail = try #require(try JSONSerialization.jsonObject(with: Data(history.trailJSON.utf8)) as? [[Double]])
        return trail.map { Int((($0[0] - 10) * 1e6).rounded()) }
    }

    static func coordinate(_ n: Int) throws -> Coordinate { try Coordinate(latitude: 10 + Double(n) * 1e-6, longitude: 20) }

    @Test("100,000 fixes in a 2,000-point trail: at most 2,001 points, every kept one the same number of fixes apart, the first and the newest there")
    func trailThinsEvenly() throws {
        var history = PlayerHistory()
        for n in 0..<100_000 {
            try history.add(Self.coordinate(n))
            #expect(history.trailCount <= 2_001)
        }
        let kept = try Self.numbers(history)
        #expect(kept.count == history.trailCount)
        #expect(kept.first == 0 && kept.last == 99_999)
        let gaps = Set(zip(kept.dropFirst(), kept.dropLast()).dropLast().map { $0 - $1 })
        #expect(gaps == [64], "\(gaps)")
        #expect(kept.count > 1_000, "thinned no more than to half")
    }

    @Test("Until full every fix is kept, exactly as sent (7 decimals, signs)")
    func trailExact() throws {
        var history = PlayerHistory(limits: .init(trail: 4))
        for (latitude, longitude) in [(-33.8688, 151.2093), (51.4779, -0.0015), (-0.0000001, -179.9999999)] {
            history.add(try Coordinate(latitude: latitude, longitude: longitude))
        }
        #expect(history.trailJSON == "[[-33.8688000,151.2093000],[51.4779000,-0.0015000],[-0.0000001,-179.9999999]]")
    }

    @Test("Notes: a kind's own limit, the latest replacing, none kept for .none, and a limit on all of them")
    func notesBounded() {
        var history = PlayerHistory(limits: .init(notes: 50))
        for n in 0..<1_000 {
            history.add(event: "map", json: "{\"f\":\(n)}", keeping: .recent(kind: "fetch", limit: 30))
            history.add(event: "map", json: "{\"p\":\(n)}", keeping: .latest(kind: "places"))
            history.add(event: "map", json: "{\"x\":\(n)}", keeping: .none)
        }
        #expect(history.notes.filter { $0.kind == "fetch" }.map(\.json) == (970..<1_000).map { "{\"f\":\($0)}" })
        #expect(history.notes.filter { $0.kind == "places" }.map(\.json) == ["{\"p\":999}"])
        #expect(history.notes.count == 31)
        for n in 0..<100 { history.add(event: "e", json: "{}", keeping: .recent(kind: "k\(n)", limit: 5)) }
        #expect(history.notes.count == 50)
        #expect(history.json.hasPrefix("{\"trail\":[],\"notes\":[{\"event\":\"e\",\"data\":{}}"))
    }
}

extension FrameReader {
    /// Every frame, after `finish` has been called once the stream has something to read.
    func all(after finish: () -> Void) async throws -> [EventFrame] {
        try await wait { !$0.isEmpty }
        finish()
        return await all()
    }
}
