import LocationCore
import NIOCore
import NIOEmbedded
import Testing

@testable import LocationFeed
import LocSimTestHelpers

/// ``GPSDOutbox`` and its writability handler on an `EmbeddedChannel`: every write, drop and
/// flush is decided by the test, with no socket and no clock.
@Suite(.timeLimit(.minutes(1)), .ownThread)
struct GPSDOutboxChannelTests {
    /// An outbox on a fresh channel with its writability handler, and the drops it reported.
    static func outbox(limit: Int = 8) throws -> (EmbeddedChannel, GPSDOutbox, Locked<[Int]>) {
        let channel = EmbeddedChannel()
        let drops = Locked<[Int]>([])
        let outbox = GPSDOutbox(channel: channel, limit: limit) { count in drops.withLock { $0.append(count) } }
        try channel.pipeline.syncOperations.addHandler(GPSDOutbox.WritabilityHandler(outbox))
        return (channel, outbox, drops)
    }

    /// Everything written so far, as text.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var writes: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { writes.append(String(buffer: buffer)) }
        return writes
    }

    @Test("What is queued before the event loop runs leaves in one write, in order")
    func oneWrite() throws {
        let (channel, outbox, drops) = try Self.outbox()
        defer { _ = try? channel.finish() }
        outbox.send("a\r\n", watch: GPSDWatch())
        outbox.send("b\r\n", watch: GPSDWatch())
        #expect(try Self.written(channel).isEmpty, "nothing before the loop runs")
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["a\r\nb\r\n"])
        outbox.send("", watch: GPSDWatch())
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel).isEmpty, "an empty reply writes nothing")
        #expect(drops.withLock { $0 }.isEmpty)
    }

    @Test("While the socket takes nothing, the oldest are dropped and counted; once writable, the rest leave in one write")
    func slowClient() throws {
        let (channel, outbox, drops) = try Self.outbox(limit: 8)
        defer { _ = try? channel.finish() }
        channel.isWritable = false
        let sent = (0..<20).map { "r\($0)\r\n" }
        for line in sent { outbox.send(line, watch: GPSDWatch()) }
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel).isEmpty, "nothing is written to a socket that cannot take it")

        // Writable again: the handler flushes what waited.
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let writes = try Self.written(channel)
        try #require(writes.count == 1)
        let delivered = writes[0].split(separator: "\r\n").map { String($0) + "\r\n" }
        let dropped = drops.withLock { $0 }.reduce(0, +)
        #expect(!delivered.isEmpty && delivered.count <= 8)
        #expect(delivered.count + dropped == sent.count, "every report is either delivered or counted as dropped")
        #expect(delivered == Array(sent.suffix(delivered.count)), "the newest are kept, in order")

        // And the outbox is no longer blocked: the next reply leaves on the next loop turn.
        outbox.send("after\r\n", watch: GPSDWatch())
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["after\r\n"])
    }

    @Test("A writability change with nothing waiting writes nothing and passes the event on")
    func nothingWaiting() throws {
        let (channel, _, _) = try Self.outbox()
        defer { _ = try? channel.finish() }
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try Self.written(channel).isEmpty)
    }
}
