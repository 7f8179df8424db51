#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
package import MapFeature

/// The phone of a ``Scenario`` between the receiver and the app: each fix the route gives goes
/// through GPS trouble (``GPSTrouble``), then the OS's delivery rules and the app's lifecycle
/// (``/MapFeature/LocationDelivery``), and comes out as what the map logic is handed and when,
/// with a note of everything on the way, in time order.
///
/// A value with no clock: app moves are applied before the first fix at or after their time
/// (offsets from the route's first fix); a move after the last fix is not applied. The delivery
/// clock is the time a fix is offered (the receiver's clock, even for a stale fix that trouble
/// put back with its old time), a held batch's deadline, or the moment of a move; it never goes
/// back.
package struct ScenarioPhone: Sendable {
    /// What happened on the way, for the log.
    package enum Note: Sendable, Hashable {
        /// Trouble changed or dropped (`reported` is `nil`) the receiver's fix.
        case trouble(original: Fix, reported: Fix?, effects: [TroubleEffect])
        /// The OS kept the fix from the app, and why.
        case withheld(Fix, WithholdReason)
        /// The app moved to the background or the foreground.
        case app(Scenario.AppState)
        /// Several fixes handed over at once (Android batching); the app reads the last.
        case batch([Fix])
    }

    package typealias Input = MapReplayInput<Note>

    private var trouble: GPSTrouble?
    /// The scenario, for what its route ends before reaching (``unreached(in:)``).
    private let scenario: Scenario
    private var delivery: LocationDelivery
    /// The app moves not applied yet, at their indices in the scenario's `app`.
    private var moves: ArraySlice<Scenario.AppMove>
    private var epoch: Date?
    /// The time of the latest fix offered.
    private var lastOffered: Date?
    private var clock: Date?
    /// Inputs of the latest fix not yet handed on by ``next(receiving:)``, the next one last.
    private var pending: [Input] = []
    /// The receiver's fixes have ended.
    private var ended = false

    /// The phone `scenario` describes.
    ///
    /// - Throws: ``SimulationError`` when a trouble window is out of range (``Scenario`` has
    ///   checked them already when it was read from a file).
    package init(scenario: Scenario) throws(SimulationError) {
        trouble = scenario.trouble.isEmpty ? nil : try GPSTrouble(windows: scenario.trouble, seed: scenario.seed)
        self.scenario = scenario
        delivery = LocationDelivery(policy: scenario.delivery)
        moves = scenario.app[...]
    }

    /// This phone with its offsets counted from `origin` rather than from the first fix it is
    /// offered: for a route played from its middle (`serve --player NAME=FILE.json --start 5m`),
    /// whose app moves stay where the route puts them.
    package func starting(at origin: Date) -> ScenarioPhone {
        var phone = self
        phone.epoch = origin
        return phone
    }

    /// The receiver's next fix, in time order: what follows from it. A phone always says how
    /// accurate a position is (CoreLocation's `horizontalAccuracy`, Android's `getAccuracy()`):
    /// a route's fix with no accuracy (legs and polylines are exact; a GPX without `<hdop>`) is
    /// given a clean receiver's, ``GPSTrouble/cleanAccuracy``, so the app's accuracy check sees
    /// what it would on a device.
    package mutating func offer(_ routeFix: Fix) -> [Input] {
        var fix = routeFix
        if fix.hasPosition, fix.horizontalAccuracy == nil { fix.horizontalAccuracy = GPSTrouble.cleanAccuracy }
        let start = epoch ?? fix.time
        epoch = start
        lastOffered = fix.time
        var inputs: [Input] = []
        while let move = moves.first, start.addingTimeInterval(move.at.fractionalSeconds) <= fix.time {
            moves.removeFirst()
            let time = start.addingTimeInterval(move.at.fractionalSeconds)
            append(.note(.app(move.state), at: time), to: &inputs)
            let events = move.state == .background ? delivery.moveToBackground(at: time) : delivery.moveToForeground(at: time)
            append(events, offered: nil, at: fix.time, to: &inputs)
        }
        var reported: Fix? = fix
        // Mutated in place (optional chaining): the windows' history is not copied per fix.
        if let result = trouble?.apply(to: fix) {
            if !result.effects.isEmpty {
                append(.note(.trouble(original: fix, reported: result.fix, effects: result.effects), at: fix.time), to: &inputs)
            }
            reported = result.fix
        }
        guard let reported else { return inputs }
        append(delivery.offer(reported), offered: reported, at: fix.time, to: &inputs)
        return inputs
    }

    /// The next input, in time order, drawing the receiver's fixes from `receive` as they are
    /// needed (``offer(_:)``, then ``finish()`` when it returns `nil`); `nil` when they have
    /// ended and nothing is held. What a replay loop calls for each step.
    package mutating func next<Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, receiving receive: () async throws(Failure) -> Fix?
    ) async throws(Failure) -> Input? {
        while pending.isEmpty {
            if ended { return nil }
            if let fix = try await receive() {
                pending = offer(fix).reversed()
            } else {
                ended = true
                pending = finish().reversed()
            }
        }
        return pending.removeLast()
    }

    /// What the scenario set that its route ended before reaching, as `locsim: warning:` lines
    /// naming `scenario` (its file) and the key (``Scenario/unreached(routeEnd:in:)``).
    /// Meaningful once the route has ended (``next(receiving:)`` returned `nil`).
    package func unreached(in scenario: String) -> [String] {
        let elapsed = epoch.flatMap { start in lastOffered.map { $0.timeIntervalSince(start) } }
        return self.scenario.unreached(routeEnd: elapsed, in: scenario)
    }

    /// The route ended: a batch still held is delivered at its deadline.
    package mutating func finish() -> [Input] {
        var inputs: [Input] = []
        append(delivery.finish(), offered: nil, at: clock ?? .distantPast, to: &inputs)
        return inputs
    }

    /// The delivery stage's events as inputs. A fix delivered as it is offered is delivered at
    /// `now`, the receiver's time (its own time may be older: a stale fix).
    private mutating func append(_ events: [DeliveryEvent], offered: Fix?, at now: Date, to inputs: inout [Input]) {
        for event in events {
            switch event {
            case .withheld(let fix, let reason):
                append(.note(.withheld(fix, reason), at: now), to: &inputs)
            case .delivered(let batch, let time):
                guard let last = batch.last else { continue }
                let at = batch.count == 1 && offered == last && time == last.time ? now : time
                if batch.count > 1 { append(.note(.batch(batch), at: at), to: &inputs) }
                append(.fix(last, deliveredAt: at), to: &inputs)
            }
        }
    }

    /// Appends `input`, its time no earlier than the one before.
    private mutating func append(_ input: Input, to inputs: inout [Input]) {
        var input = input
        switch input {
        case .fix(let fix, let time):
            let at = max(time, clock ?? time)
            clock = at
            input = .fix(fix, deliveredAt: at)
        case .note(let note, let time):
            let at = max(time, clock ?? time)
            clock = at
            input = .note(note, at: at)
        }
        inputs.append(input)
    }
}

/// A provider's fixes as a scenario's phone hands them to the app, as they come (real time):
/// each delivered fix with its delivery time, for ``/MapFeature/MapViewModel``; what happened on
/// the way goes to `onNote` as it happens. The phone never delivers ahead of the receiver (a
/// held batch or an app move is handed on with the next fix past its time), so nothing here
/// waits on a clock.
package struct PhoneDeliveries<Base: LocationProvider>: AsyncSequence, Sendable {
    package typealias Element = (fix: Fix, deliveredAt: Date)

    let base: Base
    let phone: ScenarioPhone
    let onNote: @MainActor @Sendable (ScenarioPhone.Note, Date) -> Void
    let onEnd: @MainActor @Sendable (ScenarioPhone) -> Void

    /// `onEnd` gets the phone once, when the route has ended and everything held was handed on
    /// (for ``ScenarioPhone/unreached(in:)``); not when iteration ends because the task was
    /// cancelled.
    package init(
        _ base: Base, phone: ScenarioPhone, onEnd: @escaping @MainActor @Sendable (ScenarioPhone) -> Void = { _ in },
        onNote: @escaping @MainActor @Sendable (ScenarioPhone.Note, Date) -> Void
    ) {
        self.base = base
        self.phone = phone
        self.onNote = onNote
        self.onEnd = onEnd
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var phone: ScenarioPhone
        let onNote: @MainActor @Sendable (ScenarioPhone.Note, Date) -> Void
        let onEnd: @MainActor @Sendable (ScenarioPhone) -> Void
        var ended = false

        package mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
            while true {
                guard let input = try await phone.next(receiving: { () async throws(any Error) -> Fix? in try await base.next(isolation: actor) })
                else {
                    // Cancelled (a signal stopped the run), the base ends before the route does:
                    // nothing is known to be unreached then.
                    if !ended, !Task.isCancelled {
                        ended = true
                        await onEnd(phone)
                    }
                    return nil
                }
                switch input {
                case .fix(let fix, let time): return (fix, time)
                case .note(let note, let time): await onNote(note, time)
                }
            }
        }

        package mutating func next() async throws -> Element? { try await next(isolation: nil) }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), phone: phone, onNote: onNote, onEnd: onEnd)
    }
}
