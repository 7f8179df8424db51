import Foundation
import LocSimTestHelpers
import LocationCore
import LocationGPSD
import LocationTestSupport

/// One test's private receiver feed and gpsd: `gpsd -N -n -b -S PORT tcp://127.0.0.1:FEED`.
///
/// ```swift
/// let live = try await LiveGPSD.start()
/// defer { live.stop() }
/// ```
struct LiveGPSD: Sendable {
    let feed: NMEAFeed
    let daemon: GPSDDaemon

    static func start() async throws -> LiveGPSD {
        let feed = try NMEAFeed()
        do {
            // The tests unplug the receiver with a reset: gpsd must not write to the feed (see `readOnly`).
            let daemon = try await GPSDDaemon.start(feedPort: feed.port, readOnly: true)
            do {
                try await feed.acceptClient()
            } catch {
                daemon.stop()
                throw error
            }
            return LiveGPSD(feed: feed, daemon: daemon)
        } catch {
            feed.close()
            throw error
        }
    }

    var port: Int { daemon.port }

    /// A provider for this daemon on `clock`, stamping time-less status fixes with the epoch.
    func provider<C: Clock>(
        clock: C, device: String? = nil, configuration: GPSDProvider<C>.Configuration = .init()
    ) throws -> GPSDProvider<C> where C.Duration == Duration {
        try GPSDProvider(
            host: "127.0.0.1", port: port, device: device, configuration: configuration, clock: clock,
            now: { Date(timeIntervalSince1970: 0) })
    }

    /// A lock-step feed for `recorder`'s provider (already connected), with its own raw client.
    func lockStep(_ recorder: EventRecorder) async throws -> LockStepFeed {
        try await LockStepFeed(feed: feed, port: port, consumer: recorder)
    }

    func stop() {
        daemon.stop()
        feed.close()
    }

    /// `count` synthetic one-second epochs walking north-east from `start`.
    static func epochs(count: Int, from start: Date = Date(timeIntervalSince1970: 1_750_000_000),
                       latitude: Double = 51.5, longitude: Double = -0.12) -> [TestNMEA.Epoch] {
        (0..<count).map { index in
            TestNMEA.epoch(
                time: start.addingTimeInterval(Double(index)),
                latitude: latitude + Double(index) * 0.0001, longitude: longitude + Double(index) * 0.0001)
        }
    }
}
