#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
package import NMEAFormat
import ServiceLifecycle

/// Runs every player at once and hands each new fix to whoever listens (the gpsd protocol's
/// clients, the control API's event streams), keeping the newest per player for `?POLL;`.
///
/// Each fix is turned into its gpsd reports once (`TPV`, `SKY`, NMEA), however many clients
/// watch. Players come and go at run time (``add(_:)``, ``remove(_:)``) and take
/// ``PlayerCommand``s (``control(_:_:)``); every change is an ``Event``. Players reach their end
/// on their own (a track's end); a player that fails stops alone and is reported through
/// `onEnd`, the others go on.
///
/// Every event gets the next number of the hub's sequence (``NumberedEvent/id``) and is handed to
/// the event listeners in that order; the newest events (``eventLimit``) are kept, so a listener
/// that lost some can be given them again (``subscribeEvents(resumingAfter:_:)``), and so is each
/// player's bounded ``PlayerHistory`` (its trail and kept notes) for one that starts late.
package final class PlayerHub: Service, Sendable {
    /// One new fix of one player, with its reports ready to send.
    package struct Update: Sendable {
        package let player: String
        package let device: String
        /// The fix as clients get it: a controlled player's is stamped with the wall-clock time it
        /// was sent at; a self-paced provider's (a relayed receiver) keeps its own.
        package let fix: Fix
        /// Seconds into the player's path of this fix (its own time, scaled, paused or seeked
        /// as the player was), nil for a self-paced provider.
        package let offset: Double?
        /// When the player handed the fix to the hub (the hub's `now`), before its reports were
        /// written: where a fix's way to the clients starts.
        package let published: Date
        /// The `TPV` and `SKY` objects (no line end); no `SKY` (empty) for a relayed receiver
        /// that gave no sky, as gpsd sends none.
        package let tpv: String
        package let sky: String
        /// The NMEA sentences (GSA, RMC, GGA, VTG; CR LF), empty when the fix cannot be written.
        package let nmea: String
    }

    /// A player as listed by `DEVICES`.
    package struct Device: Sendable, Hashable {
        package let name: String
        package let path: String
        package let activated: Date
    }

    /// How NMEA is written: GSA first, then GSV, RMC, GGA, VTG, HDOP by gpsd's 19 m model, the
    /// player's sky (a relayed receiver's own) in GSA, GGA and GSV (the order a real gpsd 3.22 reports each epoch with its own
    /// DOPs and satellites, see docs/reference/nmea.md).
    package static let nmeaOptions = NMEAWriter.Options.gpsd(satellitesInUse: SkyModel.inUse)

    /// The `reason` of the ``Event/changed(_:reason:)`` a player's addition sends.
    package static let addedReason = "added"

    /// A player as the control API shows it.
    package struct PlayerInfo: Sendable {
        package let name: String
        package let device: String
        /// When the player was added: its device's activation time.
        package let activated: Date
        package let seed: UInt64
        /// What the player is (`tracks/walk.gpx`, `line …`).
        package let summary: String
        package let status: PlayerStatus
        /// Fixes sent so far.
        package let fixes: Int
        /// The newest fix, if any; none while a seek or teleport waits for its fix
        /// (``PlayerStatus/isJumping``).
        package let latest: Update?
    }

    /// Something that happened to a player, for the control API's event streams.
    package enum Event: Sendable {
        /// A new fix.
        case fix(Update)
        /// The player was added, changed by a command (`pause`, `speed`, …), ended or failed;
        /// `reason` names which.
        case changed(PlayerInfo, reason: String)
        /// The player was removed.
        case removed(String)
        /// Something an observer of the players posted about one (`locsim serve` posts `map`:
        /// the fetches and places the game's map session would show): an event name and a JSON
        /// object, passed on as they are.
        case note(player: String, event: String, json: String)
    }

    /// An ``Event`` with its number: one more than the event before it in this hub.
    ///
    /// Events given again to a listener that resumes (``EventStart/missed``) carry their fixes'
    /// `TPV` only, no `SKY` or NMEA (what the event streams send): a kept fix is about 0.4 KB
    /// instead of 2.5 KB, which for the standard ``eventLimit`` is about 1.6 MB instead of 10 MB.

    package struct NumberedEvent: Sendable {
        package let id: Int
        package let event: Event
    }

    /// A player as it is when a listener subscribes, with what it has done so far.
    package struct PlayerSnapshot: Sendable {
        package let info: PlayerInfo
        package let history: PlayerHistory
    }

    /// Where a new event listener starts (``subscribeEvents(resumingAfter:_:)``).
    package struct EventStart: Sendable {
        /// The listener's id, for ``unsubscribe(_:)``.
        package let subscription: Int
        /// The newest event's id at subscription (the listener gets the later ones); before any
        /// event, one less than the first event's.
        package let last: Int
        /// The kept events after the id asked to resume from, oldest first; nil when no id was
        /// given, or when the events after it are not all kept (or it is not one of this hub's):
        /// then ``players`` is where to start.
        package let missed: [NumberedEvent]?
        /// Every player now, in the order added, with its history (empty when ``missed`` is set).
        package let players: [PlayerSnapshot]
    }

    /// A running player and what the hub knows of it.
    private final class Entry: Sendable {
        let player: FeedPlayer
        let sky: SkyModel
        let device: Device
        let removal = ChangeSignal()
        init(player: FeedPlayer, device: Device) {
            self.player = player
            self.sky = SkyModel(seed: player.seed)
            self.device = device
        }
    }

    private let now: @Sendable () -> Date
    private let onEnd: @Sendable (_ player: String, _ error: (any Error)?) -> Void
    private let writer = NMEAWriter(options: PlayerHub.nmeaOptions)
    private let starts: AsyncStream<Entry>
    private let startContinuation: AsyncStream<Entry>.Continuation

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        var latest: [String: Update] = [:]
        var counts: [String: Int] = [:]
        /// The state of players without controls (self-paced): waiting until their first fix
        /// with a position (a relayed receiver's gpsd may not be up, or the receiver has no fix
        /// yet), then playing until their end.
        var selfPaced: [String: PlayerStatus.State] = [:]
        var histories: [String: PlayerHistory] = [:]
        var subscribers: [Int: @Sendable (Update) -> Void] = [:]
        var listeners: [Int: @Sendable (NumberedEvent) -> Void] = [:]
        var nextID = 0
        var fixes = 0
        /// The newest event's id.
        var sequence: Int
        /// The newest events: event `id` is at `id % log.count` while `id > sequence - kept`.
        var log: [Event?]
        var kept = 0

        init(firstEvent: Int, eventLimit: Int) {
            sequence = firstEvent - 1
            log = Array(repeating: nil, count: eventLimit)
        }

        /// Numbers `event` and keeps it (forgetting the oldest kept when full) as a resuming
        /// event stream needs it: a fix's `SKY` and NMEA are not kept (``Event/keptForResume``).
        mutating func record(_ event: Event) -> NumberedEvent {
            sequence += 1
            log[sequence % log.count] = event.keptForResume
            kept = min(kept + 1, log.count)
            return NumberedEvent(id: sequence, event: event)
        }

        /// The kept events after `id`, or nil when some of them are gone (or `id` is not one of this hub's).
        func events(after id: Int) -> [NumberedEvent]? {
            guard id <= sequence, id >= sequence - kept else { return nil }
            return (id + 1..<sequence + 1).map { NumberedEvent(id: $0, event: log[$0 % log.count]!) }
        }
    }
    private let state: Locked<State>
    /// Held while an event is numbered and handed to the listeners, and while a listener
    /// subscribes: listeners get events in their numbers' order, each once. Taken before `state`,
    /// never inside it; listeners may call ``unsubscribe(_:)`` (it takes `state` only).
    private let delivery = Locked(())
    /// How many events are kept for listeners that resume.
    package let eventLimit: Int
    /// How much of each player's history is kept.
    package let historyLimits: PlayerHistory.Limits

    /// The standard ``eventLimit``: a few seconds of 1,000 players, minutes of a few.
    package static let standardEventLimit = 4_096

    /// - Parameters:
    ///   - players: The players to start with; names must differ. More come with ``add(_:)``.
    ///   - now: Wall-clock time (the devices' activation time, each update's ``Update/published``).
    ///     The first event's id is its microseconds since 1970 at start: an id of an earlier run
    ///     of the hub is never taken for one of this run's.
    ///   - eventLimit: How many of the newest events are kept for listeners that resume.
    ///   - historyLimits: How much of each player's history is kept.
    ///   - onEnd: Called when a player's path ends (`nil`) or its provider fails.
    /// - Throws: ``/LocationCore/ConfigurationError`` for two players of one name.
    package init(
        players: [FeedPlayer], now: @escaping @Sendable () -> Date, eventLimit: Int = PlayerHub.standardEventLimit,
        historyLimits: PlayerHistory.Limits = .standard,
        onEnd: @escaping @Sendable (_ player: String, _ error: (any Error)?) -> Void = { _, _ in }
    ) throws(ConfigurationError) {
        var seen = Set<String>()
        for player in players where !seen.insert(player.name).inserted {
            throw ConfigurationError(parameter: "players", "two players are named '\(player.name)'")
        }
        self.now = now
        self.onEnd = onEnd
        self.eventLimit = max(1, eventLimit)
        self.historyLimits = historyLimits
        let microseconds = (now().timeIntervalSince1970 * 1e6).rounded(.down)
        state = Locked(State(firstEvent: microseconds > 0 && microseconds < 1e17 ? Int(microseconds) : 1, eventLimit: self.eventLimit))
        (starts, startContinuation) = AsyncStream.makeStream(of: Entry.self)
        for player in players { try add(player) }
    }

    deinit { startContinuation.finish() }

    /// Every player, in the order added.
    package var devices: [Device] {
        state.withLock { state in state.order.compactMap { state.entries[$0]?.device } }
    }

    /// Adds a player; it starts at once when ``runPlayers()`` runs (or as soon as it does).
    ///
    /// - Throws: ``/LocationCore/ConfigurationError`` (`name`) when a player has that name.
    package func add(_ player: FeedPlayer) throws(ConfigurationError) {
        let entry = Entry(player: player, device: Device(name: player.name, path: player.devicePath, activated: now()))
        let limits = historyLimits
        try delivery.withLock { (_: inout Void) throws(ConfigurationError) in
            try state.withLock { (state: inout State) throws(ConfigurationError) in
                guard state.entries[player.name] == nil else {
                    throw ConfigurationError(parameter: "name", "a player named '\(player.name)' already exists")
                }
                state.entries[player.name] = entry
                state.order.append(player.name)
                state.counts[player.name] = 0
                state.histories[player.name] = PlayerHistory(limits: limits)
                if player.transport == nil { state.selfPaced[player.name] = .waiting }
            }
            if let info = info(player.name) { deliver(.changed(info, reason: Self.addedReason)) }
        }
        startContinuation.yield(entry)
    }

    /// Stops and forgets the player `name`; false when there is none.
    @discardableResult
    package func remove(_ name: String) -> Bool {
        let entry = delivery.withLock { _ -> Entry? in
            let entry = state.withLock { state -> Entry? in
                guard let entry = state.entries.removeValue(forKey: name) else { return nil }
                state.order.removeAll { $0 == name }
                state.latest[name] = nil
                state.counts[name] = nil
                state.histories[name] = nil
                state.selfPaced[name] = nil
                return entry
            }
            if entry != nil { deliver(.removed(name)) }
            return entry
        }
        guard let entry else { return false }
        entry.removal.bump()
        return true
    }

    /// Applies `command` to the player `name`.
    ///
    /// - Returns: The player as it is after the command, or nil when there is no such player.
    ///   Subscribers hear of the change; a command that changes nothing (pausing a paused
    ///   player) is answered without an event.
    /// - Throws: ``/LocationCore/ConfigurationError`` naming the field for a value the player
    ///   cannot take, or (`action`) when the player takes no commands or its path has ended
    ///   (pause, resume).
    package func control(_ name: String, _ command: PlayerCommand) throws(PlayerCommandError) -> PlayerInfo? {
        guard let entry = state.withLock({ $0.entries[name] }) else { return nil }
        let changed = try entry.player.apply(command)
        return delivery.withLock { _ -> PlayerInfo? in
            guard let info = info(name) else { return nil }
            if changed { deliver(.changed(info, reason: command.name)) }
            return info
        }
    }

    /// The player `name` as the control API shows it, or nil.
    package func info(_ name: String) -> PlayerInfo? {
        guard let entry = state.withLock({ $0.entries[name] }) else { return nil }
        // The transport's status is read before the newest fix: a seek's or teleport's fix is
        // published before the transport stops saying it is jumping, so a status that is not
        // jumping any more comes with that fix or a later one, never the one from before.
        let transportStatus: PlayerStatus? = entry.player.transport?.status
        let (latest, count, selfPaced) = state.withLock { state -> (Update?, Int, PlayerStatus.State?) in
            (state.latest[name], state.counts[name] ?? 0, state.selfPaced[name])
        }
        let status: PlayerStatus =
            transportStatus
            ?? PlayerStatus(
                state: selfPaced ?? .playing, speedFactor: entry.player.speedFactor, loops: false, offset: 0, duration: nil,
                isControllable: false)
        // Right after a seek or teleport the newest fix is from before it: shown is the state
        // after the action (its offset), and the fix at the new position follows as an event.
        return PlayerInfo(
            name: name, device: entry.device.path, activated: entry.device.activated, seed: entry.player.seed,
            summary: entry.player.summary, status: status, fixes: count, latest: status.isJumping ? nil : latest)
    }

    /// Every player, in the order added.
    package var players: [PlayerInfo] {
        let names = state.withLock { $0.order }
        return names.compactMap { info($0) }
    }

    /// Calls `handler` with every fix from now on until ``unsubscribe(_:)``; returns its id.
    /// The handler runs on the player's task: it must hand the update on, not wait.
    package func subscribe(_ handler: @escaping @Sendable (Update) -> Void) -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = handler
            return state.nextID
        }
    }

    /// Calls `handler` with every ``Event`` from now on until ``unsubscribe(_:)``; returns its id.
    /// The handler runs on the player's or the caller's task: it must hand the event on, not wait.
    package func subscribeEvents(_ handler: @escaping @Sendable (Event) -> Void) -> Int {
        subscribeEvents(resumingAfter: nil) { _ in { handler($0.event) } }
    }

    /// Subscribes a listener that starts where a client left off, or from what there is now.
    ///
    /// `start` is called first, with the events after `lastID` when they are all still kept
    /// (``EventStart/missed``), or else every player now with its history; it returns the handler
    /// for every later event, or nil to subscribe none. No event comes between what `start` is
    /// given and the handler's first; each comes once, in the order of the ids.
    ///
    /// `start` and the handler run holding the hub's delivery lock: they must hand things on, not
    /// wait, and call nothing of the hub's but ``unsubscribe(_:)``.
    ///
    /// - Returns: The listener's id (``EventStart/subscription``), for ``unsubscribe(_:)``.
    @discardableResult
    package func subscribeEvents(
        resumingAfter lastID: Int?, _ start: (EventStart) -> (@Sendable (NumberedEvent) -> Void)?
    ) -> Int {
        delivery.withLock { _ -> Int in
            let (subscription, last, missed, names) = state.withLock { state -> (Int, Int, [NumberedEvent]?, [String]) in
                defer { state.nextID += 1 }
                let missed = lastID.flatMap { state.events(after: $0) }
                return (state.nextID, state.sequence, missed, missed == nil ? state.order : [])
            }
            // No event is delivered while `delivery` is held: the histories are those as of `last`.
            let players = names.compactMap { name -> PlayerSnapshot? in
                guard let info = info(name), let history = state.withLock({ $0.histories[name] }) else { return nil }
                return PlayerSnapshot(info: info, history: history)
            }
            let handler = start(EventStart(subscription: subscription, last: last, missed: missed, players: players))
            if let handler { state.withLock { $0.listeners[subscription] = handler } }
            return subscription
        }
    }

    /// Stops calling the handler `id` (of ``subscribe(_:)`` or ``subscribeEvents(_:)``).
    package func unsubscribe(_ id: Int) {
        state.withLock { state in
            state.subscribers[id] = nil
            state.listeners[id] = nil
        }
    }

    /// The newest update of `player`, if it has had a fix.
    package func latest(_ player: String) -> Update? { state.withLock { $0.latest[player] } }

    /// How many fixes all players have produced so far.
    package var fixCount: Int { state.withLock { $0.fixes } }

    /// Runs every player, and each one added later, until cancelled. Call it once.
    package func runPlayers() async {
        await withDiscardingTaskGroup { group in
            for await entry in starts {
                group.addTask { [self] in await play(entry) }
            }
        }
    }

    /// One player until its end (self-paced), its removal, or cancellation.
    private func play(_ entry: Entry) async {
        let player = entry.player
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                do {
                    try await player.drain(
                        { fix, offset in self.publish(fix, offset: offset, of: entry) }, { self.ended(entry, error: nil) })
                    // A provider ends quietly when cancelled: only an end of its own is reported.
                    if !Task.isCancelled, player.transport == nil { ended(entry, error: nil) }
                } catch is CancellationError {
                    // Stopped from outside: not an end of the player's own.
                } catch {
                    ended(entry, error: error)
                }
            }
            group.addTask { await entry.removal.wait(after: 0) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    private func ended(_ entry: Entry, error: (any Error)?) {
        let name = entry.player.name
        let current = state.withLock { state -> Bool in
            guard state.entries[name] === entry else { return false }
            if state.selfPaced[name] != nil { state.selfPaced[name] = error == nil ? .ended : .failed }
            return true
        }
        guard current else { return }
        onEnd(name, error)
        delivery.withLock { _ in
            if let info = info(name) { deliver(.changed(info, reason: error == nil ? "ended" : "failed")) }
        }
    }

    /// Passes a ``Event/note(player:event:json:)`` to every listener, and keeps it in the player's
    /// history as `keeping` says (nothing when the player is gone).
    ///
    /// - Parameters:
    ///   - player: The player the event is about.
    ///   - event: The event's name, letters only (`map`).
    ///   - json: One JSON object, on one line.
    ///   - keeping: Whether a page that opens later is given it too (``PlayerHistory/Keeping``).
    package func post(player: String, event: String, json: String, keeping: PlayerHistory.Keeping = .none) {
        post(player: player, event: event, keeping: keeping) { json }
    }

    /// ``post(player:event:json:keeping:)`` with JSON that `render` writes: now, for the
    /// listeners, and again whenever a page asks for the player's history, so a kept note costs
    /// no more than what `render` captures (let it capture what the poster keeps anyway, such as
    /// the places a map session shows).
    package func post(
        player: String, event: String, keeping: PlayerHistory.Keeping, render: @escaping @Sendable () -> String
    ) {
        let json = render()
        delivery.withLock { _ in
            deliver(.note(player: player, event: event, json: json)) { state in
                guard state.entries[player] != nil else { return false }
                state.histories[player]?.add(event: event, keeping: keeping, render: render)
                return true
            }
        }
    }

    /// Numbers `event`, keeps it and hands it to every listener, after `update` (which may veto
    /// it) has changed the state in the same turn of the lock. Call it holding `delivery`.
    private func deliver(_ event: Event, update: (inout State) -> Bool = { _ in true }) {
        let delivery = state.withLock { state -> (NumberedEvent, [@Sendable (NumberedEvent) -> Void])? in
            guard update(&state) else { return nil }
            return (state.record(event), Array(state.listeners.values))
        }
        guard let (numbered, listeners) = delivery else { return }
        for listener in listeners { listener(numbered) }
    }

    /// The `Service`: the players until graceful shutdown (a finished walk does not stop the server).
    package func run() async throws {
        await cancelWhenGracefulShutdown { await self.runPlayers() }
    }

    private func publish(_ fix: Fix, offset: Double?, of entry: Entry) {
        let published = now()
        let player = entry.player
        let device = entry.device.path
        let previous = state.withLock { $0.latest[player.name] }
        // Vertical speed from the previous 3D fix (over the path's time for a controlled player,
        // so a speed factor does not scale it; none across a seek backwards). The TPV writer
        // prefers a relayed receiver's own.
        var climb: Double?
        if let previous, let before = previous.fix.altitude, let now = fix.altitude, fix.mode == .threeDimensional,
            previous.fix.mode == .threeDimensional
        {
            let elapsed =
                if let offset, let before = previous.offset { offset - before } else { fix.time.timeIntervalSince(previous.fix.time) }
            if elapsed > 0 { climb = (now - before) / elapsed }
        }
        // One sky per fix, for its NMEA (GSA, GGA, GSV) and its SKY report alike: the receiver's
        // own (a relayed receiver's, a replayed NMEA log's; none, as from gpsd, for a relayed
        // receiver that gave none), else the player's.
        let sky = fix.receiver?.sky ?? (fix.source == .gpsd ? nil : entry.sky.sky(for: fix))
        // The NMEA's DOPs are the sky's too (GSA's PDOP, HDOP, VDOP), as a receiver's would be:
        // a gpsd reading it then reports the SKY's DOPs, not ones of its own making.
        var told = fix
        if told.receiver == nil, let sky {
            var report = ReceiverReport()
            report.sky = sky
            told.receiver = report
        }
        let nmea: String
        do {
            nmea = fix.hasPosition ? try writer.string(for: told, sky: sky.map { NMEAWriter.tellable($0.satellites) }) : ""
        } catch {
            // A fix NMEA cannot carry (a date outside 1980…2079) still goes out as JSON.
            nmea = ""
        }
        let update = Update(
            player: player.name, device: device, fix: fix, offset: offset, published: published,
            tpv: GPSDReport.tpvObject(device: device, fix: fix, climb: climb),
            sky: sky.map { GPSDReport.skyObject(device: device, time: fix.time, sky: $0) } ?? "", nmea: nmea)
        let subscribers = delivery.withLock { _ -> [@Sendable (Update) -> Void]? in
            var subscribers: [@Sendable (Update) -> Void]?
            var started = false
            deliver(.fix(update)) { state in
                // A removed player's last fix, sent while it was being stopped, goes nowhere.
                guard state.entries[player.name] === entry else { return false }
                if fix.hasPosition, state.selfPaced[player.name] == .waiting {
                    state.selfPaced[player.name] = .playing
                    started = true
                }
                state.latest[player.name] = update
                state.fixes += 1
                state.counts[player.name, default: 0] += 1
                if let coordinate = fix.coordinate { state.histories[player.name]?.add(coordinate) }
                subscribers = Array(state.subscribers.values)
                return true
            }
            if started, let info = info(player.name) { deliver(.changed(info, reason: "playing")) }
            return subscribers
        }
        for subscriber in subscribers ?? [] { subscriber(update) }
    }
}

extension PlayerHub.Update {
    /// This update without its `SKY` and NMEA: what a kept event needs.
    var keptForResume: PlayerHub.Update {
        PlayerHub.Update(
            player: player, device: device, fix: fix, offset: offset, published: published, tpv: tpv, sky: "",
            nmea: "")
    }
}

extension PlayerHub.PlayerInfo {
    var keptForResume: PlayerHub.PlayerInfo {
        PlayerHub.PlayerInfo(
            name: name, device: device, activated: activated, seed: seed, summary: summary, status: status, fixes: fixes,
            latest: latest?.keptForResume)
    }
}

extension PlayerHub.Event {
    /// The event as the hub keeps it for listeners that resume: fixes without `SKY` and NMEA.
    var keptForResume: PlayerHub.Event {
        switch self {
        case .fix(let update): .fix(update.keptForResume)
        case .changed(let info, let reason): .changed(info.keptForResume, reason: reason)
        case .removed, .note: self
        }
    }
}
