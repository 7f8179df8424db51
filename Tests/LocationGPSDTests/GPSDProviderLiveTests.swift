import Foundation
import LocationCore
@testable import LocationGPSD
import LocationTestSupport
import Testing

@Suite(.enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"), .timeLimit(.minutes(1)))
struct GPSDProviderLiveTests {
    @Test("Streams fixes from a real gpsd fed over TCP")
    func streamsFixes() async throws {
        let live = try await LiveGPSD.start()
        defer { live.stop() }
        let recorder = EventRecorder(try live.provider(clock: VirtualClock()).events)
        try await recorder.wait(for: "connected") { $0.contains { if case .connected = $0 { true } else { false } } }
        let epochs = LiveGPSD.epochs(count: 5)
        try await live.feed.send(epochs.flatMap(\.sentences), pace: .milliseconds(5))
        try await recorder.wait(for: "5 fixes") { _ in recorder.positions.count >= 4 }
        print(recorder.summary)
        for fix in recorder.fixes { print(fix) }
        await recorder.cancel()
    }
}
