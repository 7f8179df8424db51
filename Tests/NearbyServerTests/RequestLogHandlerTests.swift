import Logging
@testable import NearbyServer
import Testing
import LocationCore
import LocSimTestHelpers

/// The handler Hummingbird's logger gets: metadata set per request reaches the real handler
/// with each message, merged with the message's own.
@Suite(.ownThread) struct RequestLogHandlerTests {
    final class Events: Sendable {
        let list = Locked<[LogEvent]>([])
    }

    /// Keeps what it is asked to log.
    struct Recording: LogHandler {
        let events: Events
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { events.list.withLock { $0.append(event) } }
    }

    @Test("Metadata set on the logger, the inner handler's own and a message's all arrive, the message's winning")
    func metadataReachesTheInnerHandler() throws {
        let events = Events()
        var recording = Recording(events: events)
        recording.metadata = ["server": "locsim"]
        recording.logLevel = .info
        let inner = recording
        var logger = Logger(label: "test", factory: { _ in RequestLogHandler(wrapping: inner) })
        #expect(logger.logLevel == .info)
        logger[metadataKey: "hb.request.id"] = "42"
        logger[metadataKey: "route"] = "nearby"
        logger.info("answered", metadata: ["route": "explicit"])
        logger.debug("below the level")
        let logged = events.list.withLock { $0 }
        try #require(logged.count == 1)
        #expect(logged[0].message == "answered")
        #expect(logged[0].metadata == ["server": "locsim", "hb.request.id": "42", "route": "explicit"])
        // The inner handler keeps no metadata of its own any more: all of it travels with the message.
        #expect(logger[metadataKey: "server"] == "locsim")
    }
}
