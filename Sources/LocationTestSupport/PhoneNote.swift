#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore
public import MapFeature

/// What a scenario's phone did between the receiver and the app, in a ``ReplayLog`` of
/// ``MapReplay/run(scenarioFile:)``: a fix the OS withheld, GPS trouble, the app moving to the
/// background or the foreground, a batch of fixes handed over at once.
public struct PhoneNote: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The OS kept `fix` from the app, and why.
        case withheld(Fix, WithholdReason)
        /// GPS trouble changed the receiver's fix (`reported` is what the phone got) or dropped
        /// it (`reported` is `nil`); `effects` say how, one phrase each (`signal lost`,
        /// `jumped 300.0 m, accuracy does not say so`).
        case trouble(original: Fix, reported: Fix?, effects: [String])
        /// The app moved to the background (nothing is delivered there).
        case movedToBackground
        /// The app returned to the foreground (the OS first hands it the last fix it had).
        case movedToForeground
        /// Several fixes handed over at once (Android's batching); the app's rule reads the last.
        case batch([Fix])
    }

    /// When, on the delivery clock.
    public var time: Date
    public var kind: Kind
    /// How many of the log's ``ReplayLog/events`` came before it, so the two read in the order
    /// they happened.
    public var eventsBefore: Int

    public init(time: Date, kind: Kind, eventsBefore: Int) {
        self.time = time
        self.kind = kind
        self.eventsBefore = eventsBefore
    }

    public var description: String {
        switch kind {
        case .withheld(let fix, let reason): "withheld \(fix.coordinate.map { "\($0)" } ?? "a report without a position"): \(reason)"
        case .trouble(_, let reported, let effects):
            "trouble: \(effects.joined(separator: "; "))\(reported == nil ? " (no fix)" : "")"
        case .movedToBackground: "app in the background"
        case .movedToForeground: "app in the foreground"
        case .batch(let fixes): "batch of \(fixes.count) fixes; the app reads the last"
        }
    }
}
