/// Server-Sent Events frames (`event: …` / `data: …` / blank line), as bytes ready to send, for
/// as long as the client listens; it ends when the player is removed (for one player's stream)
/// or when ``PlayerControlAPI/finishStreams()`` is called at shutdown.
///
/// Package access: the Server-Sent Events body of `PlayerControlAPI`.
package struct PlayerEventStream: AsyncSequence, Sendable {
    package typealias Element = [UInt8]
    package typealias Failure = Never

    let frames: AsyncStream<[UInt8]>

    package func makeAsyncIterator() -> Iterator { Iterator(base: frames.makeAsyncIterator()) }

    package struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<[UInt8]>.Iterator

        package mutating func next() async -> [UInt8]? { await base.next() }

        package mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? {
            await base.next(isolation: actor)
        }
    }
}

@available(*, unavailable)
extension PlayerEventStream.Iterator: Sendable {}
