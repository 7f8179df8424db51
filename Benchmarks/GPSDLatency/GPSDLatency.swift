import Foundation
import LocationCore
import LocationGPSD
import NMEAFormat

/// Latency from the receiver writing an epoch (RMC, GGA, GSA in one write; gpsd answers with one
/// TPV per sentence) to the epoch's last report being delivered (the `Fix` the provider yields;
/// the line the raw client reads), side by side
/// with a minimal raw-socket gpsd JSON client in the same run, and the time from cancelling an
/// iteration to its connection closing (seen on the wire by a relay).
///
///     LOCSIM_BENCHMARKS=1 swift run -c release GPSDLatency [epochs] [closes]
@main
struct GPSDLatency {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
        let epochs = arguments.first ?? 500
        let closes = arguments.dropFirst().first ?? 40

        let feed = try Feed()
        let daemon = try Daemon(feedPort: feed.port)
        defer {
            daemon.stop()
            feed.close()
        }
        try feed.accept()

        // The two clients, subscribed before any data flows.
        let provider = try GPSDProvider(port: daemon.port, clock: ContinuousClock(), now: { Date() })
        let recorder = FixArrivals()
        let iteration = Task {
            for try await event in provider.events { recorder.record(event) }
        }
        let raw = try RawClient(port: daemon.port)
        while !(recorder.isConnected && raw.isWatching) { try await Task.sleep(for: .milliseconds(5)) }

        // gpsd 3.22 takes a GGA with an empty satellite count for no fix: say how many.
        let writer = NMEAWriter(options: .init(sentences: [.rmc, .gga, .gsa], satellitesInUse: 8))
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        func sentences(_ index: Int, position: Bool = true) throws -> [String] {
            let time = start.addingTimeInterval(Double(index))
            let fix = position
                ? Fix(time: time, coordinate: try Coordinate(latitude: 51.5 + Double(index) * 1e-5, longitude: -0.12),
                      altitude: 30, speed: 1.4, course: 0, mode: .threeDimensional, source: .synthetic)
                : Fix.noFix(time: time, source: .synthetic)
            return try writer.sentences(for: fix).map { try $0.encoded() }
        }

        // gpsd identifies the receiver first and then reports in a burst: warm up slowly.
        var warmup = 0
        while !recorder.isActivated {
            try feed.send(try sentences(-1000 + warmup, position: false))
            warmup += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))

        // Latency: one epoch (RMC, GGA, GSA in one write) every 20 ms; both clients idle between.
        var written: [(Date, ContinuousClock.Instant)] = []
        for index in 0..<epochs {
            let lines = try sentences(index)
            written.append((start.addingTimeInterval(Double(index)), try feed.send(lines)))
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        iteration.cancel()
        if case .failure(let error) = await iteration.result { print("provider iteration failed: \(error)") }
        raw.stop()

        var providerLatency: [Duration] = []
        var rawLatency: [Duration] = []
        var difference: [Duration] = []
        for (time, instant) in written {
            guard let viaProvider = recorder.arrival(time),
                let viaRaw = raw.arrival(UTCTimestamp.format(time, fractionDigits: 3))
            else { continue }
            providerLatency.append(viaProvider - instant)
            rawLatency.append(viaRaw - instant)
            difference.append(viaProvider - viaRaw)
        }

        // Cancellation to close, through a relay that sees the provider hang up.
        let proxy = try ClosingProxy(target: daemon.port)
        let relayed = try GPSDProvider(port: proxy.port, clock: ContinuousClock(), now: { Date() })
        var idleClose: [Duration] = []
        var busyClose: [Duration] = []
        for round in 0..<(2 * closes) {
            let busy = round % 2 == 1
            proxy.reset()
            let connected = FixArrivals()
            let task = Task {
                for try await event in relayed.events { connected.record(event) }
            }
            while !connected.isConnected { try await Task.sleep(for: .milliseconds(2)) }
            if busy {
                // Data flowing: the reader is reading, not waiting.
                for index in 0..<5 {
                    try feed.send(try sentences(10_000 + round * 10 + index))
                    try await Task.sleep(for: .milliseconds(2))
                }
            } else {
                try await Task.sleep(for: .milliseconds(30))
            }
            let cancelled = ContinuousClock.now
            task.cancel()
            guard let closed = proxy.waitForClose() else {
                throw BenchmarkError("the connection did not close within 5 s of cancellation")
            }
            _ = await task.result
            if busy { busyClose.append(closed - cancelled) } else { idleClose.append(closed - cancelled) }
        }

        print("gpsd \(recorder.release), \(written.count) epochs written, \(providerLatency.count) seen by both clients")
        print("")
        print("| feed write → the epoch's last report delivered | p50 | p99 | max |")
        print("|---|---:|---:|---:|")
        print(row("raw-socket JSON client", rawLatency))
        print(row("GPSDProvider (libgps, reader thread)", providerLatency))
        print(row("provider − raw client, same epoch", difference))
        print("")
        print("| cancel → connection closed (seen by a relay) | p50 | p99 | max |")
        print("|---|---:|---:|---:|")
        print(row("idle (reader in gps_waiting), \(idleClose.count) runs", idleClose))
        print(row("streaming (reader busy), \(busyClose.count) runs", busyClose))
    }

    static func row(_ label: String, _ values: [Duration]) -> String {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return "| \(label) | – | – | – |" }
        func at(_ q: Double) -> Duration { sorted[Int((q * Double(sorted.count - 1)).rounded())] }
        return "| \(label) | \(format(at(0.5))) | \(format(at(0.99))) | \(format(sorted.last!)) |"
    }

    static func format(_ duration: Duration) -> String {
        let microseconds = duration.fractionalSeconds * 1e6
        return abs(microseconds) >= 1000
            ? DecimalText.fixed(microseconds / 1000, decimals: 2) + " ms" : DecimalText.fixed(microseconds, decimals: 0) + " µs"
    }
}

/// Arrival of each epoch's last report at the provider, plus the session's status.
final class FixArrivals: Sendable {
    private struct State {
        var arrivals: [Date: ContinuousClock.Instant] = [:]
        var connected = false
        var activated = false
        var release = ""
    }
    private let state = Locked(State())

    func record(_ event: GPSDEvent) {
        let now = ContinuousClock.now
        state.withLock { state in
            switch event {
            case .fix(let fix) where fix.hasPosition:
                state.arrivals[fix.time] = now
            case .connected(let release):
                state.connected = true
                state.release = release
            case .deviceActivated:
                state.activated = true
            default:
                break
            }
        }
    }

    var isConnected: Bool { state.withLock { $0.connected } }
    var isActivated: Bool { state.withLock { $0.activated } }
    var release: String { state.withLock { $0.release } }
    func arrival(_ time: Date) -> ContinuousClock.Instant? { state.withLock { $0.arrivals[time] } }
}
