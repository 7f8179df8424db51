import Logging

/// The log handler Hummingbird's logger gets: it keeps metadata as a dictionary and hands it to
/// the real handler only with a message.
///
/// Hummingbird sets a request id on its logger for every request. `StreamLogHandler` (the
/// command's) formats all its metadata into text whenever a key is set, so that cost every
/// request a string build for log lines that are almost never written; here setting a key is a
/// dictionary insert, and the text is made only when something is logged.
struct RequestLogHandler: LogHandler {
    private var inner: any LogHandler
    var metadata: Logger.Metadata = [:]

    /// Wraps `inner`, taking its level, metadata and metadata provider.
    init(wrapping inner: any LogHandler) {
        self.inner = inner
        metadata = inner.metadata
        self.inner.metadata = [:]
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        inner.log(event: event)
    }
}
