#if Server
import Foundation
import LocationCore
import LocationFeed
import ServiceLifecycle

/// With `LOCSIM_FEED_TRACE=FILE` in the environment, `locsim serve` writes one line per fix its
/// players publish: `PUBLISHED_NS PLAYER TIME`, the wall-clock time the player handed the fix to
/// the hub (nanoseconds since 1970, before any report was written), the player's name, and the
/// fix's time as the `TPV` shows it. The benchmark (`scripts/bench-feeds.sh`) pairs these lines
/// with the `TPV`s a client reads to measure fix-to-client latency; nothing else reads them.
///
/// The lines are collected as fixes come and written once a second, off the players' tasks.
struct FixTrace: Service, CustomStringConvertible {
    static let variable = "LOCSIM_FEED_TRACE"

    private let path: String
    private let hub: PlayerHub
    /// The lines collected since the last write.
    private let pending = Locked<[UInt8]>([])

    var description: String { "FixTrace(\(path))" }

    /// The trace asked for by the environment, if any.
    static func fromEnvironment(hub: PlayerHub) -> FixTrace? {
        guard let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty else { return nil }
        return FixTrace(path: path, hub: hub)
    }

    private init(path: String, hub: PlayerHub) {
        self.path = path
        self.hub = hub
    }

    func run() async throws {
        let file: LiveFile
        do {
            file = try LiveFile(path: path)
        } catch {
            throw CommandFailure("\(Self.variable): cannot write the fix trace: \(error)")
        }
        let pending = pending
        let subscription = hub.subscribe { update in
            let nanoseconds = Int64((update.published.timeIntervalSince1970 * 1e9).rounded())
            let line = "\(nanoseconds) \(update.player) \(UTCTimestamp.format(update.fix.time, fractionDigits: 3))\n"
            pending.withLock { $0.append(contentsOf: line.utf8) }
        }
        defer { hub.unsubscribe(subscription) }
        func flush() throws {
            let lines = pending.withLock { lines -> [UInt8] in
                defer { lines.removeAll(keepingCapacity: true) }
                return lines
            }
            if !lines.isEmpty { try file.append(lines) }
        }
        // A second at most after shutdown begins, the last lines go out below.
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                break  // Cancelled: the group is stopping.
            }
            try flush()
        }
        try flush()
        try file.close()
    }
}
#endif
