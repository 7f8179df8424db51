import Foundation
import LocSimTestHelpers
import LocationCore
import Testing

/// Re-records `Tests/LocationGPSDTests/Fixtures/gpsd/session-3.22.jsonl`: what a real gpsd sends to a raw JSON client for a
/// scripted receiver (no fix, then 2D, then 3D, then unplugged). Run with RECORD_GPSD_FIXTURES=1;
/// it rewrites the file and fails on purpose, so a recording is never mistaken for a pass.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["RECORD_GPSD_FIXTURES"] == "1", "set RECORD_GPSD_FIXTURES=1 to re-record"), .timeLimit(.minutes(1)))
struct GPSDFixtureRecording {
    @Test func recordSession() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let raw = try RawGPSDClient(port: live.port)
        defer { raw.stop() }
        try await raw.waitUntilWatching()
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        var sentences: [String] = []
        for second in 0..<3 { sentences += TestNMEA.noFixEpoch(time: start.addingTimeInterval(Double(second))) }
        for second in 3..<6 {
            sentences += TestNMEA.twoDimensionalEpoch(
                time: start.addingTimeInterval(Double(second)), latitude: 35.6812, longitude: 139.7671
            ).sentences
        }
        for second in 6..<10 {
            sentences += TestNMEA.epoch(
                time: start.addingTimeInterval(Double(second)), latitude: 35.6812 + Double(second) * 1e-4,
                longitude: 139.7671, altitude: 40.0 + Double(second), geoidSeparation: 36.7
            ).sentences
        }
        try await live.feed.send(sentences, pace: .milliseconds(20))
        // gpsd reads the feed in order: its end comes after every sentence, so once gpsd reports
        // the device gone, every report the sentences caused has been sent.
        live.feed.close()
        try await raw.wait(for: "gpsd to report the device gone") { raw in
            raw.received.contains { $0.text.hasPrefix(#"{"class":"DEVICE""#) && $0.text.contains(#""activated":0"#) }
        }

        let text = raw.received.map(\.text).filter { !$0.isEmpty }
            // The device path names this run's random port; keep the file stable.
            .map { $0.replacingOccurrences(of: live.daemon.devicePath, with: "tcp://127.0.0.1:4001") }
            .joined(separator: "\n") + "\n"
        // The fixture LocationGPSDTests replay (GPSDPeerTests).
        let url = URL(fileURLWithPath: PackagePaths.path("Tests/LocationGPSDTests/Fixtures/gpsd/session-3.22.jsonl"))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("recorded \(text.split(separator: "\n").count) lines to \(url.path); rerun without RECORD_GPSD_FIXTURES")
    }
}
