package import Hummingbird
package import LocationCore
import NIOCore

/// A control API answer: an `Encodable` value written by the package's one JSON writer
/// (``/LocationCore/JSONWriter/encode(_:)``), members in declaration order, as a
/// `200 application/json` (``EditedResponse`` changes the status).
package protocol ControlAnswer: Encodable, ResponseGenerator {}

extension ControlAnswer {
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: try JSONWriter.text(of: self))))
    }
}

/// `GET /players/{name}`, and the answer to `POST /players` and to a control action: a player as
/// openapi.json's `Player` describes it.
package struct PlayerAnswer: ControlAnswer, Sendable {
    package var name: String
    /// The device path gpsd clients see, `/dev/locsim/NAME`.
    package var device: String
    /// What the player plays, for people (`tracks/walk.gpx`, `line …`).
    package var summary: String
    /// The seed of the player's sky: a 64-bit unsigned integer, as a string (a JavaScript number
    /// holds 53 bits).
    package var seed: String
    package var state: PlayerStatus.State
    /// False for a relayed receiver, which takes no control actions.
    package var controllable: Bool
    /// Times real time, to 3 decimals.
    package var speed: Double
    package var loop: Bool
    /// Seconds into the path (path time), to 3 decimals.
    package var offset: Double
    /// The path's length in path seconds, to 3 decimals, when known.
    package var duration: Double?
    /// `offset / duration`, to 6 decimals, when the duration is known.
    package var fraction: Double?
    /// Fixes sent so far.
    package var fixes: Int
    /// The newest fix as the very gpsd `TPV` report the feed's clients got; none before the first
    /// fix and while a seek or teleport waits for its fix.
    package var fix: JSONFragment?

    package init(_ info: PlayerHub.PlayerInfo) {
        let status = info.status
        name = info.name
        device = info.device
        summary = info.summary
        seed = String(info.seed)
        state = status.state
        controllable = status.isControllable
        speed = JSONWriter.rounded(status.speedFactor, decimals: 3)
        loop = status.loops
        offset = JSONWriter.rounded(status.offset, decimals: 3)
        duration = status.duration.map { JSONWriter.rounded($0, decimals: 3) }
        fraction = status.fraction.map { JSONWriter.rounded($0, decimals: 6) }
        fixes = info.fixes
        fix = info.latest.map { JSONFragment($0.tpv) }
    }
}

extension PlayerStatus.State: Encodable {}

/// `GET /players`: every player, in the order added (openapi.json's `PlayerList`).
package struct PlayerListAnswer: ControlAnswer, Sendable {
    package var players: [PlayerAnswer]
}

/// `DELETE /players/{name}` (openapi.json's `PlayerRemoved`).
package struct PlayerRemovedAnswer: ControlAnswer, Sendable {
    package var removed: String
}

/// The data of a `state` event (openapi.json's `PlayerStateEvent`): why it was sent, the player as
/// ``PlayerAnswer`` shows it, and on a stream's opening frame the player's history.
struct PlayerStateEvent: Encodable {
    var reason: String
    var player: PlayerAnswer
    /// The trail and kept notes (``PlayerHistory/json``), on the opening frame only.
    var history: JSONFragment?
}
