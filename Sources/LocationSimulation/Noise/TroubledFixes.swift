#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import LocationCore

/// A receiver's fixes through GPS trouble (``GPSTrouble``): what a scenario's receiver reports
/// before any phone sees it, as `serve --player NAME=SCENARIO.json` serves it to gpsd clients.
///
/// Each iteration starts the windows afresh from the same seed, so a path read again (a player
/// that loops or seeks back) has the same trouble at the same places. `onEffects` hears of every
/// fix a window changed or dropped (its offset from the first fix, the original, the reported
/// fix or `nil`, what was done) when the fix is read.
package struct TroubledFixes<Base: LocationProvider>: LocationProvider {
    package typealias Effects = GPSTrouble.EffectsHandler

    let base: Base
    let trouble: GPSTrouble
    let onEffects: Effects?

    /// - Throws: ``SimulationError`` when a window is out of range (``GPSTrouble/init(windows:seed:)``).
    package init(_ base: Base, windows: [TroubleWindow], seed: UInt64, onEffects: Effects? = nil) throws(SimulationError) {
        self.base = base
        self.trouble = try GPSTrouble(windows: windows, seed: seed)
        self.onEffects = onEffects
    }

    package func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), trouble: trouble, onEffects: onEffects) }

    package struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var trouble: GPSTrouble
        let onEffects: Effects?
        var first: Date?

        package mutating func next() async throws -> Fix? { try await next(isolation: nil) }

        package mutating func next(isolation actor: isolated (any Actor)?) async throws -> Fix? {
            while let fix = try await base.next(isolation: actor) {
                let start = first ?? fix.time
                first = start
                let (reported, effects) = trouble.apply(to: fix)
                if !effects.isEmpty { onEffects?(fix.time.timeIntervalSince(start), fix, reported, effects) }
                if let reported { return reported }
            }
            return nil
        }
    }
}
