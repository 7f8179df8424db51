#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore
import LocationSimulation

/// Plays an unpaced path in real time on an injected clock, under control: pause, resume,
/// speed, seek, teleport, loop.
///
/// The path's fixes come from a provider paced `.virtual` (as fast as asked for); their offsets
/// from the first fix are the path time. The runner keeps the last ``historyLimit`` fixes it sent
/// (to seek back without reading again) and those it read ahead: a seek before what it kept, or a
/// loop, reads the path again from its start (a provider gives the same fixes each time it is
/// iterated), so an endless path (a circle, a random walk) runs for as long as the server does in
/// bounded memory. A path whose end is not known beforehand (``PathEnd/unknown``) is read ahead
/// ``lookahead`` fixes at the start to learn whether it ends within them (and so its duration);
/// one whose end is known (a GPX replay's duration, or never) is read a fix at a time. It sends
/// fix *i* when the clock reaches `anchorElapsed + (offset[i] - anchorOffset) / speed`; every
/// command moves the anchor to "now".
///
/// Each fix is stamped as a receiver stamps it: with the wall-clock time at which it is sent
/// (`origin` plus the clock's time since the transport was made), in whole centiseconds, each
/// later than the one before, so a jump (teleport, seek, loop) is one new fix at a new time and
/// a pause or a speed factor never moves the stamps off the clock. The path's own time of the fix
/// is its offset, reported beside it.
final class PlayerTransport: Sendable {
    /// Fixes read ahead at the start of a path of unknown end, to find it (an hour at 1 Hz).
    static let lookahead = 3_600
    /// Sent fixes kept at most by default: a minute at 1 Hz, about 9 KB a player, so a thousand
    /// players hold about 9 MB of path, not hundreds.
    static let historyLimit = 64

    /// Sent fixes kept at most (at least 4): on reaching it the oldest half is forgotten.
    let historyLimit: Int
    /// Fixes read before the first is sent: ``lookahead`` for a path of unknown end, else 1.
    let lookahead: Int

    enum Phase: Sendable, Hashable {
        case running
        case ended
        case failed(String)
    }

    struct State {
        var speed: Double
        var paused = false
        var loops = false
        var phase = Phase.running
        /// Path time at `anchorElapsed`.
        var anchorOffset = 0.0
        var anchorElapsed = Duration.zero
        var duration: Double?
        var pendingSeek: Double?
        var pendingTeleport: Coordinate?
        /// A seek or teleport taken from the pending ones whose fix has not gone out yet: the
        /// player is still jumping until it has (the newest fix shown is from before the jump).
        var jumpInFlight = false
        /// Path time of the last fix sent.
        var lastOffset = 0.0
        /// Fixes of the path kept in memory.
        var kept = 0

        func offset(at now: Duration) -> Double {
            switch phase {
            case .ended: return duration ?? lastOffset
            case .failed: return lastOffset
            case .running:
                // A loop starts again one fix interval before the path's start (a negative
                // anchor): until its first fix the player is at the start, not before it.
                guard !paused else { return max(0, anchorOffset) }
                let moved = max(0, anchorOffset + max(0, (now - anchorElapsed).fractionalSeconds) * speed)
                return duration.map { min($0, moved) } ?? moved
            }
        }
    }

    let elapsed: @Sendable () -> Duration
    /// The wall-clock time at which `elapsed` was zero.
    let origin: Date
    let sleepUntil: @Sendable (Duration) async throws -> Void
    let state: Locked<State>
    let signal = ChangeSignal()

    /// - Parameter origin: The wall-clock time at which `clock` reads its `now` of this call.
    init<C: Clock>(
        clock: C, origin: Date, speed: Double, loops: Bool, end: PathEnd = .unknown, lookahead: Int = PlayerTransport.lookahead,
        historyLimit: Int = PlayerTransport.historyLimit
    ) where C.Duration == Duration {
        self.lookahead = end == .unknown ? max(1, lookahead) : 1
        self.historyLimit = max(4, historyLimit)
        self.origin = origin
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
        self.sleepUntil = { due in try await clock.sleep(until: start.advanced(by: due), tolerance: nil) }
        var initial = State(speed: speed)
        initial.loops = loops
        if case .after(let seconds) = end { initial.duration = seconds }
        self.state = Locked(initial)
    }

    /// The status now.
    var status: PlayerStatus {
        let now = elapsed()
        return state.withLock { state in
            let shown: PlayerStatus.State =
                switch state.phase {
                case .failed: .failed
                case .ended: .ended
                case .running: state.paused ? .paused : .playing
                }
            return PlayerStatus(
                state: shown, speedFactor: state.speed, loops: state.loops, offset: state.offset(at: now),
                duration: state.duration, isControllable: true,
                isJumping: state.pendingSeek != nil || state.pendingTeleport != nil || state.jumpInFlight)
        }
    }

    /// Applies a command; the runner picks it up at once.
    ///
    /// - Returns: Whether it changed anything (pausing a paused player, or setting the speed or
    ///   loop it already has, does not).
    /// - Throws: ``PlayerCommandError`` naming the field: invalid for a value out of range or
    ///   past the path's end (`speed`, `offset`, `fraction`); a conflict for a pause or resume of
    ///   a player whose path has ended (`action`) and a seek by fraction on a path with no known
    ///   end (`fraction`).
    @discardableResult
    func apply(_ command: PlayerCommand) throws(PlayerCommandError) -> Bool {
        let now = elapsed()
        let changed = try state.withLock { (state: inout State) throws(PlayerCommandError) -> Bool in
            let current = state.offset(at: now)
            switch command {
            case .pause, .resume:
                if state.phase == .ended {
                    throw .conflict(
                        "action", "the player's path has ended: nothing to \(command.name) (seek, or turn loop on, to play it again)")
                }
                let pausing = command == .pause
                guard state.paused != pausing else { return false }
                if pausing { state.anchorOffset = current }
                state.anchorElapsed = now
                state.paused = pausing
            case .speed(let factor):
                guard factor.isFinite, Pacing.speedFactorRange.contains(factor) else {
                    throw .invalid(
                        "speed",
                        "must be within \(PeopleText.number(Pacing.speedFactorRange.lowerBound))...\(PeopleText.number(Pacing.speedFactorRange.upperBound)) (times real time), got \(PeopleText.number(factor))")
                }
                guard factor != state.speed else { return false }
                if !state.paused { state.anchorOffset = current }
                state.anchorElapsed = now
                state.speed = factor
            case .seek(let offset):
                guard offset.isFinite, offset >= 0 else {
                    throw .invalid("offset", "must be a number of seconds >= 0, got \(offset)")
                }
                if let duration = state.duration, offset > duration {
                    throw .invalid(
                        "offset", "\(PeopleText.number(offset)) s is past the end of the path (\(Self.seconds(duration)) s long)")
                }
                // A path whose end is not known yet is read up to the offset: no further than
                // locsim's longest duration (a year), or a slip of the keyboard reads for minutes.
                let longest = Scenario.longestDuration.fractionalSeconds
                guard offset <= longest else {
                    throw .invalid("offset", "must be at most \(Self.seconds(longest)) s (366 days), got \(offset)")
                }
                Self.seek(to: offset, state: &state, now: now)
            case .seekFraction(let fraction):
                guard fraction.isFinite, (0...1).contains(fraction) else {
                    throw .invalid("fraction", "must be within 0...1, got \(PeopleText.number(fraction))")
                }
                guard let duration = state.duration else {
                    throw .conflict(
                        "fraction", "this player's path has no known end (give 'offset' in seconds instead)")
                }
                Self.seek(to: fraction * duration, state: &state, now: now)
            case .teleport(let coordinate):
                state.pendingTeleport = coordinate
            case .loop(let loops):
                guard loops != state.loops else { return false }
                state.loops = loops
                if loops, state.phase == .ended { Self.seek(to: 0, state: &state, now: now) }
            }
            return true
        }
        if changed { signal.bump() }
        return changed
    }

    private static func seek(to offset: Double, state: inout State, now: Duration) {
        state.pendingSeek = offset
        state.anchorOffset = offset
        state.anchorElapsed = now
        if state.phase == .ended { state.phase = .running }
    }

    static func seconds(_ value: Double) -> String { String(Int(value.rounded())) }

    /// The time a fix sent `elapsed` after `origin` is stamped with: that wall-clock time cut to
    /// whole centiseconds (the resolution of an NMEA time, which a receiver's fixes carry), or a
    /// centisecond after `previous` when that is not later, so no two fixes of a player share a
    /// stamp in any form a client reads (a TPV's milliseconds, an RMC's `hhmmss.ss`).
    static func stamp(at elapsed: Duration, origin: Date, after previous: Date?) -> Date {
        let centiseconds = ((origin.timeIntervalSince1970 + elapsed.fractionalSeconds) * 100).rounded(.down)
        guard let previous else { return Date(timeIntervalSince1970: centiseconds / 100) }
        let after = (previous.timeIntervalSince1970 * 100).rounded() + 1
        return Date(timeIntervalSince1970: max(centiseconds, after) / 100)
    }

    private enum Step {
        case idle
        case teleport(Coordinate)
        case seek(Double)
        case play(anchorOffset: Double, anchorElapsed: Duration, speed: Double, loops: Bool)
    }

    /// Plays `provider` (paced `.virtual`) until cancelled, sending each fix, stamped with the
    /// time it is sent, to `publish` with its offset into the path; `onEnd` is called each time
    /// the path ends without looping.
    ///
    /// - Throws: What the provider throws (the player is then marked failed).
    func run<Provider: LocationProvider>(
        _ provider: Provider, publish: @Sendable (Fix, _ offset: Double) -> Void, onEnd: @Sendable () -> Void
    ) async throws {
        var iterator = provider.makeAsyncIterator()
        // The kept window of the path: fix i of the path is fixes[i - dropped].
        // Room for the window and the fix after it, once: trimming keeps the capacity, so a player
        // that plays for hours never grows the arrays again (nor doubles them past the window).
        var fixes: [Fix] = []
        var offsets: [Double] = []
        fixes.reserveCapacity(historyLimit + 2)
        offsets.reserveCapacity(historyLimit + 2)
        var dropped = 0
        var firstTime: Date?
        var exhausted = false
        // The path index of the next fix to send.
        var next = 0
        // The jump of the last teleport, applied to every later fix.
        var shift: (distance: Double, bearing: Double)?
        // The stamp of the last fix sent: each next one is later.
        var lastTime: Date?

        func pull() async throws -> Bool {
            guard !exhausted else { return false }
            do {
                if let fix = try await iterator.next() {
                    let first = firstTime ?? fix.time
                    firstTime = first
                    offsets.append(fix.time.timeIntervalSince(first))
                    fixes.append(fix)
                    return true
                }
            } catch {
                state.withLock { $0.phase = .failed("\(error)") }
                throw error
            }
            exhausted = true
            let duration = offsets.last ?? 0
            state.withLock { $0.duration = duration }
            return false
        }
        // With the limit reached by the fixes before path index `keeping`, forgets the oldest of
        // them down to half of it; never `keeping` or later (the fix last sent, those read ahead).
        func trim(keeping: Int) {
            let before = keeping - dropped
            guard before >= historyLimit else { return }
            let count = before - historyLimit / 2
            fixes.removeFirst(count)
            offsets.removeFirst(count)
            dropped += count
            let kept = fixes.count
            state.withLock { $0.kept = kept }
        }
        // Reads the path again from its start (a seek before the kept window, a loop).
        func restart() {
            iterator = provider.makeAsyncIterator()
            fixes.removeAll(keepingCapacity: true)
            offsets.removeAll(keepingCapacity: true)
            dropped = 0
            firstTime = nil
            exhausted = false
        }
        func send(_ index: Int, at coordinate: Coordinate? = nil) {
            var fix = fixes[index - dropped]
            if let coordinate {
                fix.coordinate = coordinate
            } else if let shift, let raw = fix.coordinate {
                fix.coordinate = raw.destination(distance: shift.distance, bearing: shift.bearing)
            }
            fix.time = Self.stamp(at: elapsed(), origin: origin, after: lastTime)
            lastTime = fix.time
            let offset = offsets[index - dropped]
            let kept = fixes.count
            state.withLock { state in
                state.lastOffset = offset
                state.kept = kept
            }
            publish(fix, offset)
        }

        while fixes.count < lookahead, try await pull() {}
        // The path starts now, not when the player was made (a server may take a while to start).
        let start = elapsed()
        // A seek given before (a file player's --start) keeps its offset, from now.
        state.withLock { state in
            guard !state.paused else { return }
            if state.pendingSeek == nil { state.anchorOffset = 0 }
            state.anchorElapsed = start
        }
        while !Task.isCancelled {
            let generation = signal.generation
            let step = state.withLock { state -> Step in
                if let coordinate = state.pendingTeleport {
                    state.pendingTeleport = nil
                    state.jumpInFlight = true
                    return .teleport(coordinate)
                }
                if let offset = state.pendingSeek {
                    state.pendingSeek = nil
                    state.jumpInFlight = true
                    return .seek(offset)
                }
                guard state.phase == .running, !state.paused else { return .idle }
                return .play(
                    anchorOffset: state.anchorOffset, anchorElapsed: state.anchorElapsed, speed: state.speed,
                    loops: state.loops)
            }
            switch step {
            case .idle:
                await signal.wait(after: generation)
            case .teleport(let target):
                guard !fixes.isEmpty else {
                    state.withLock { $0.jumpInFlight = false }
                    continue
                }
                let index = max(dropped, next - 1)
                if let raw = fixes[index - dropped].coordinate {
                    shift = (raw.distance(to: target), raw.bearing(to: target))
                }
                send(index, at: target)
                state.withLock { $0.jumpInFlight = false }
            case .seek(let offset):
                if dropped > 0, let kept = offsets.first, offset < kept { restart() }
                // A seek far into a path made as it is read (days into an endless synthetic one)
                // reads for a while: a newer seek or teleport, or the player's end, stops the
                // read where it got to, and the newer command is applied from there (a teleport
                // moves the last fix read; the player's time is that fix's).
                var overtaken = false
                while (offsets.last ?? -1) < offset {
                    overtaken = Task.isCancelled || state.withLock { $0.pendingSeek != nil || $0.pendingTeleport != nil }
                    guard !overtaken, try await pull() else { break }
                    trim(keeping: dropped + fixes.count - 2)
                }
                if overtaken {
                    next = dropped + fixes.count
                    let reached = offsets.last ?? 0, now = elapsed()
                    state.withLock { state in
                        guard state.pendingSeek == nil else { return }
                        state.anchorOffset = reached
                        state.anchorElapsed = now
                        state.lastOffset = reached
                    }
                    continue
                }
                // The first fix after the offset is next; the one at or before it goes out now.
                next = dropped + offsets.partitioningIndex { $0 > offset }
                if next > 0 { send(next - 1) }
                state.withLock { $0.jumpInFlight = false }
            case .play(let anchorOffset, let anchorElapsed, let speed, let loops):
                if next >= dropped + fixes.count, !(try await pull()) {
                    let duration = offsets.last ?? 0
                    if loops, duration > 0 {
                        // Start again one average fix interval after the last fix.
                        let interval = duration / Double(max(1, dropped + offsets.count - 1))
                        let now = elapsed()
                        state.withLock { state in
                            state.anchorOffset = -interval
                            state.anchorElapsed = now
                        }
                        next = 0
                        if dropped > 0 { restart() }
                    } else {
                        state.withLock { $0.phase = .ended }
                        signal.bump()
                        onEnd()
                    }
                    continue
                }
                func due(_ index: Int) -> Duration { anchorElapsed + .seconds((offsets[index - dropped] - anchorOffset) / speed) }
                // A receiver tells one position per stamp (an NMEA time's centisecond). Above 100
                // fixes a second (`--speed 1000` of a 1 Hz walk) a fix goes out once the clock
                // has left the last stamp's centisecond, the latest fix due by then, those before
                // it skipped: stamps keep to the clock instead of running ahead of it a
                // centisecond a fix. Slower, every fix goes out when due (fixes that a stall
                // made late together, a centisecond apart).
                let crowded = next > dropped && (offsets[next - dropped] - offsets[next - dropped - 1]) / speed < 0.01
                let paced: Duration? =
                    if crowded, let lastTime {
                        .seconds(((lastTime.timeIntervalSince1970 * 100).rounded() + 1) / 100 - origin.timeIntervalSince1970)
                            + .microseconds(1)  // into the next centisecond: its boundary can read as the one before
                    } else {
                        nil
                    }
                let ready = max(due(next), paced ?? .zero)
                if ready > elapsed() {
                    // One child sleeps until then and moves the signal on, as a command does;
                    // this task waits for the signal either way and looks again (ready by then,
                    // the fix goes out; a command came, it is applied first).
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask { [sleepUntil, signal] in
                            do {
                                try await sleepUntil(ready)
                                signal.bump()
                            } catch {
                                // Cancelled: a command came first, or the player is stopping.
                            }
                        }
                        await signal.wait(after: generation)
                        group.cancelAll()
                    }
                    continue
                }
                while crowded {
                    if next + 1 >= dropped + fixes.count, !(try await pull()) { break }
                    guard due(next + 1) <= elapsed() else { break }
                    next += 1
                    trim(keeping: next - 1)
                }
                send(next)
                next += 1
                trim(keeping: next - 1)
            }
        }
    }
}
