/// Server-Sent Events frames (`event: …` / `data: …` / blank line), as bytes ready to send, for
/// as long as the client listens; it ends when the player is removed (for one player's stream)
/// or when ``PlayerControlAPI/finishStreams()`` is called at shutdown.
///
/// The opening `state` frames, with each player's history (its trail and the places its map
/// shows: tens of kilobytes a player), are written as the reader takes them, on the reader's
/// task: the hub hands over its snapshots while it holds back every player's next fix, and only
/// the snapshots are taken then.
///
/// Package access: the Server-Sent Events body of `PlayerControlAPI`.
package struct PlayerEventStream: AsyncSequence, Sendable {
    package typealias Element = [UInt8]
    package typealias Failure = Never

    /// A frame as the stream holds it until it is read.
    enum Item: Sendable {
        /// A frame written already (events are small: a fix's TPV is written once for every client).
        case frame([UInt8])
        /// The opening `state` of a player, written when read; `id` only on the opening's last frame.
        case opening(PlayerHub.PlayerSnapshot, id: Int?)

        var bytes: [UInt8] {
            switch self {
            case .frame(let bytes): bytes
            case .opening(let snapshot, let id):
                PlayerControlAPI.stateFrame(snapshot.info, reason: "current", history: snapshot.history, id: id)
            }
        }
    }

    let items: AsyncStream<Item>

    package func makeAsyncIterator() -> Iterator { Iterator(base: items.makeAsyncIterator()) }

    package struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Item>.Iterator

        package mutating func next() async -> [UInt8]? { await base.next()?.bytes }

        package mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? {
            await base.next(isolation: actor)?.bytes
        }
    }
}

@available(*, unavailable)
extension PlayerEventStream.Iterator: Sendable {}
