package import LocationCore

/// What a player has done so far, in bounded memory, for a page that opens mid-run: its trail (the
/// position of every fix, thinned evenly to at most ``Limits/trail`` points) and the notes posted
/// about it that are worth keeping (the map's fetches, the places it shows).
///
/// The trail keeps every fix until it is full, then every other one of what it holds, and from then
/// on every second fix; full again, every fourth; and so on: the whole run, evenly spaced by fix,
/// plus the newest position. A point takes 8 bytes (latitude and longitude in 1e-7 degrees, about
/// 1 cm), so 2,000 points are 16 KB a player.
///
/// Package access: ``PlayerHub`` keeps one per player; the control API sends it in the first
/// `state` frame of an event stream.
package struct PlayerHistory: Sendable {
    /// How much is kept.
    package struct Limits: Sendable {
        /// The most trail points (the newest position comes on top).
        package var trail: Int
        /// The most notes of all kinds together (each kind also has its own limit, see ``Keeping``).
        package var notes: Int

        package init(trail: Int = 2_000, notes: Int = 200) {
            self.trail = max(2, trail)
            self.notes = max(1, notes)
        }

        package static let standard = Limits()
    }

    /// How a note posted about a player is kept for later.
    package enum Keeping: Sendable, Equatable {
        /// Not kept: only for those listening when it is posted.
        case none
        /// Kept with at most `limit` others of the same `kind`, the oldest going first (the map's fetches).
        case recent(kind: String, limit: Int)
        /// Kept until the next note of `kind` replaces it (the places the map shows now).
        case latest(kind: String)
    }

    /// A kept note: the event name and its JSON object, as posted.
    ///
    /// The JSON is written when asked for (``json``), from what the poster keeps anyway: a map
    /// session's places are then held once, by the session, not again as text in every
    /// player's history (300 places are about 27 KB of JSON; 1,000 players, 27 MB).
    package struct Note: Sendable {
        package let kind: String
        package let event: String
        let render: @Sendable () -> String
        package var json: String { render() }
    }

    /// A position in 1e-7 degrees.
    struct Point: Sendable, Equatable {
        let latitude: Int32
        let longitude: Int32

        init(_ coordinate: Coordinate) {
            latitude = Int32((coordinate.latitude * 1e7).rounded())
            longitude = Int32((coordinate.longitude * 1e7).rounded())
        }
    }

    package let limits: Limits
    private var points: [Point] = []
    /// Keep one fix in `stride`; `skipped` have gone by since the last kept.
    private var stride = 1
    private var skipped = 0
    /// The newest position when it was not kept (it is the trail's end until the next is kept).
    private var newest: Point?
    package private(set) var notes: [Note] = []

    package init(limits: Limits = .standard) {
        self.limits = limits
        points.reserveCapacity(min(limits.trail, 64))
    }

    /// How many points ``trailJSON`` writes: at most ``Limits/trail`` plus one.
    package var trailCount: Int { points.count + (newest == nil ? 0 : 1) }

    /// Adds a fix's position to the trail.
    package mutating func add(_ coordinate: Coordinate) {
        let point = Point(coordinate)
        if skipped + 1 < stride {
            skipped += 1
            newest = point
            return
        }
        skipped = 0
        newest = nil
        if points.count == limits.trail {
            // Full: every other point goes (the first stays), and from now on every other fix.
            var kept = 0
            for index in Swift.stride(from: 0, to: points.count, by: 2) {
                points[kept] = points[index]
                kept += 1
            }
            points.removeLast(points.count - kept)
            stride *= 2
        }
        points.append(point)
    }

    /// Keeps a note as `keeping` says (nothing for ``Keeping/none``).
    package mutating func add(event: String, json: String, keeping: Keeping) {
        add(event: event, keeping: keeping) { json }
    }

    /// Keeps a note whose JSON `render` writes when a page asks for the history.
    package mutating func add(event: String, keeping: Keeping, render: @escaping @Sendable () -> String) {
        let kind: String
        switch keeping {
        case .none:
            return
        case .latest(let name):
            kind = name
            notes.removeAll { $0.kind == kind }
        case .recent(let name, let limit):
            kind = name
            let same = notes.lazy.filter { $0.kind == kind }.count
            if same >= max(1, limit), let oldest = notes.firstIndex(where: { $0.kind == kind }) {
                notes.remove(at: oldest)
            }
        }
        notes.append(Note(kind: kind, event: event, render: render))
        if notes.count > limits.notes { notes.removeFirst(notes.count - limits.notes) }
    }

    /// The trail as a JSON array of `[lat,lon]` pairs, oldest first, 7 decimals.
    package var trailJSON: String {
        var json = JSONWriter(capacity: trailCount * 26 + 2)
        writeTrail(to: &json)
        return json.text
    }

    private func writeTrail(to json: inout JSONWriter) {
        func pair(_ point: Point, _ json: inout JSONWriter) {
            // 1e-7 degrees to 7 decimals: exact (|degrees| ≤ 180 is far inside a double's precision).
            json.array { json in
                json.number(Double(point.latitude) / 1e7, fixedDecimals: 7)
                json.number(Double(point.longitude) / 1e7, fixedDecimals: 7)
            }
        }
        json.array { json in
            for point in points { pair(point, &json) }
            if let newest { pair(newest, &json) }
        }
    }

    /// `{"trail":[[lat,lon],…],"notes":[{"event":"map","data":{…}},…]}`, the notes in the order posted.
    package var json: String {
        JSONWriter.objectText(capacity: trailCount * 26 + 64) { json in
            json.key("trail")
            writeTrail(to: &json)
            json.key("notes")
            json.array(notes) { json, note in
                json.object { json in
                    json.member("event", note.event)
                    json.key("data")
                    json.json(note.json)
                }
            }
        }
    }
}
