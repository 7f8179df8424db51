import Foundation
import LocationCore
import LocationGPSD

/// The fixes of a ``LocationGPSD/GPSDProvider`` for `replay --gpsd`, with the connection's own
/// story told on the way: each connect, disconnect, retry and device change is handed to
/// `report` (which prints it as `locsim gpsd` does) before the next fix is delivered.
///
/// Fixes are what ``LocationGPSD/GPSDProvider`` itself yields: every report, and one no-fix
/// marker per gap (a disconnect or a removed device), so the map logic sees the gap.
struct GPSDFeed: LocationProvider {
    typealias Element = Fix

    let provider: GPSDProvider<ContinuousClock>
    let report: @Sendable (GPSDEvent) async -> Void

    func makeAsyncIterator() -> Iterator { Iterator(events: provider.events.makeAsyncIterator(), report: report) }

    struct Iterator: AsyncIteratorProtocol {
        var events: GPSDEventSequence<ContinuousClock>.Iterator
        let report: @Sendable (GPSDEvent) async -> Void
        /// A gap marker was yielded and no fix has followed yet: one marker per gap.
        var inGap = false

        mutating func next() async throws -> Fix? {
            while let event = try await events.next() {
                switch event {
                case .fix(let fix):
                    inGap = false
                    return fix
                case .disconnected, .deviceRemoved:
                    await report(event)
                    guard !inGap else { continue }
                    inGap = true
                    return .noFix(time: Date(), source: .gpsd)
                case .connected, .deviceActivated, .retrying, .daemonError:
                    await report(event)
                }
            }
            return nil
        }
    }
}

@available(*, unavailable)
extension GPSDFeed.Iterator: Sendable {}
