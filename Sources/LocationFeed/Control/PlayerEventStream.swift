/// Server-Sent Events frames (`event: …` / `data: …` / blank line), as bytes ready to send, for
/// as long as the client listens; it ends when the player is removed (for one player's stream)
/// or when ``PlayerControlAPI/finishStreams()`` is called at shutdown.
public struct PlayerEventStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = Never

    let frames: AsyncStream<[UInt8]>

    public func makeAsyncIterator() -> Iterator { Iterator(base: frames.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<[UInt8]>.Iterator

        public mutating func next() async -> [UInt8]? { await base.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? {
            await base.next(isolation: actor)
        }
    }
}

@available(*, unavailable)
extension PlayerEventStream.Iterator: Sendable {}
