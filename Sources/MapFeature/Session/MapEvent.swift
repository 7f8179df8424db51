#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// One nearby-places request: where, when and why.
public struct FetchRequest: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Sequence number within a session, from 1.
    public let id: Int
    /// The query centre: the triggering fix's position.
    public let center: Coordinate
    /// The query radius in metres.
    public let radius: Double
    /// When the request was sent, in fix time: the triggering fix's time, or for a coalesced
    /// follow-up, the time the previous answer arrived. The time rule counts from here.
    public let time: Date
    /// Why the request was made.
    public let reason: FetchThrottle.Reason

    /// Creates a request (``MapSession`` numbers them; tests build them by hand).
    public init(id: Int, center: Coordinate, radius: Double, time: Date, reason: FetchThrottle.Reason) {
        self.id = id
        self.center = center
        self.radius = radius
        self.time = time
        self.reason = reason
    }

    public var description: String { "#\(id) \(reason) at \(center) r=\(Self.metres(radius))" }

    static func metres(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value)) m" : "\(value) m"
    }
}

/// The state of the location provider a ``MapViewModel`` consumes.
public enum ProviderState: Sendable, Hashable, CustomStringConvertible {
    /// Not consuming: never started, or stopped.
    case idle
    /// Consuming fixes.
    case running
    /// The provider ended on its own (a replay reached its end).
    case finished
    /// The provider threw; the error says why.
    case failed(AppError)

    public var description: String {
        switch self {
        case .idle: "idle"
        case .running: "running"
        case .finished: "finished"
        case .failed(let error): "failed(\(error))"
        }
    }
}

/// Something that happened in a map session, stamped in fix time.
///
/// The event log is what tests assert on: fixes (accepted or rejected and why), fetch decisions
/// with their reasons, coalesced follow-ups, answers and failures, discarded or cancelled
/// requests, and the places that appeared on, disappeared from or changed on the map. ``MapViewModel``
/// hands each event to its observer; the replay harness in `LocationTestSupport` collects them.
///
/// Times are in the fixes' time base: a fix's event has its timestamp; an answer's event has
/// the triggering fix's time plus how long the fetch took on the model's clock.
public struct MapEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A fix was accepted: it is now the user's position.
        case fixAccepted(Fix)
        /// A fix was ignored, and why.
        case fixRejected(Fix, FetchThrottle.Rejection)
        /// A request was sent.
        case fetchStarted(FetchRequest)
        /// A fix qualified (for `reason`) while request `inFlight` was pending; one follow-up
        /// with the newest position will be sent when it answers.
        case fetchCoalesced(reason: FetchThrottle.Reason, inFlight: Int)
        /// A request answered with `count` places, now shown.
        case fetchSucceeded(FetchRequest, count: Int)
        /// A request failed; the previous places stay, and no fetch happens before `retryNotBefore`.
        case fetchFailed(FetchRequest, AppError, retryNotBefore: Date)
        /// An answer arrived for a request that is no longer the current one, and was ignored.
        case answerDiscarded(requestID: Int)
        /// A request was abandoned because the session stopped.
        case fetchCancelled(FetchRequest)
        /// Places now on the map that were not before (ids in answer order).
        case placesAppeared([Place])
        /// Places no longer on the map (ids in their previous order).
        case placesDisappeared([Place])
        /// Places that stay on the map (same id) but that the answer gives with another name,
        /// position, kind or level: their new values, in answer order.
        case placesChanged([Place])
        /// The provider's state changed.
        case providerStateChanged(ProviderState)
        /// The session stopped; nothing changes after this.
        case stopped
    }

    /// When, in fix time. An event with no fix time to carry (the provider's state changing, a
    /// fix without a valid time rejected, or a stop, before the session's first timed fix) is
    /// at ``noFixTime``.
    public var time: Date

    /// The time of an event before the session had any fix time: the reference date
    /// (2001-01-01T00:00:00Z). LocationTestSupport's logs put such events before `t+0`.
    public static let noFixTime = Date(timeIntervalSinceReferenceDate: 0)
    /// What.
    public var kind: Kind

    /// Creates an event at `time` (fix time).
    public init(time: Date, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// One line: UTC time, then the event.
    public var description: String {
        "\(UTCTimestamp.format(time, fractionDigits: 3)) \(kind)"
    }
}

extension MapEvent.Kind: CustomStringConvertible {
    public var description: String {
        func names(_ places: [Place]) -> String { places.map(\.id).joined(separator: ",") }
        switch self {
        case .fixAccepted(let fix):
            return "fix \(fix.coordinate.map(String.init(describing:)) ?? "-")"
                + (fix.horizontalAccuracy.map { " ±\(DecimalText.fixed($0, decimals: 1)) m" } ?? "")
        case .fixRejected(let fix, let rejection):
            return "fix rejected (\(rejection)) \(fix.coordinate.map(String.init(describing:)) ?? "-")"
        case .fetchStarted(let request): return "fetch \(request)"
        case .fetchCoalesced(let reason, let inFlight): return "coalesced \(reason) behind #\(inFlight)"
        case .fetchSucceeded(let request, let count): return "answer #\(request.id): \(count) places"
        case .fetchFailed(let request, let error, let retryNotBefore):
            return "failed #\(request.id): \(error); retry not before \(UTCTimestamp.format(retryNotBefore, fractionDigits: 3))"
        case .answerDiscarded(let id): return "discarded answer #\(id)"
        case .fetchCancelled(let request): return "cancelled #\(request.id)"
        case .placesAppeared(let places): return "appeared \(places.count): \(names(places))"
        case .placesDisappeared(let places): return "disappeared \(places.count): \(names(places))"
        case .placesChanged(let places): return "changed \(places.count): \(names(places))"
        case .providerStateChanged(let state): return "provider \(state)"
        case .stopped: return "stopped"
        }
    }
}
