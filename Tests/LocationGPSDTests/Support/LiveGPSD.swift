import Foundation
import LocationCore
import LocationGPSD
import LocationTestSupport

/// One test's private receiver feed and gpsd: `gpsd -N -n -S PORT tcp://127.0.0.1:FEED`.
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
            let daemon = try await GPSDDaemon.start(feedPort: feed.port)
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

    /// Feeds no-fix epochs, slowly, until gpsd has identified the receiver and said so: gpsd holds
    /// input back while it identifies a device and then reports in a burst, which newest-wins
    /// buffering would (rightly) collapse.
    func activate(_ recorder: EventRecorder, from start: Date = Date(timeIntervalSince1970: 1_700_000_000)) async throws {
        for second in 0..<100 {
            if recorder.recorded.contains(where: { if case .deviceActivated = $0 { true } else { false } }) { return }
            try await feed.send(TestNMEA.noFixEpoch(time: start.addingTimeInterval(Double(second))))
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("gpsd never activated the feed device; events: \(recorder.summary)")
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
