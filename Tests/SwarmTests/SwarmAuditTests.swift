import Foundation
import LocationCore
import LocSimTestHelpers
import LocationTestSupport
import MapFeature
import NearbyServer
import Swarm
import Testing

/// The swarm's players judged by the server's audit, as `locsim swarm --speed X` against
/// `locsim serve --audit-speed X`, in plain numbers: each send arrives at the audit at its wall
/// time (game time ÷ the speed), answered after 40 ms, failed (10%), or never answered (5%, the
/// swarm giving up after its 500 ms timeout). The audit may flag only the players that ignore
/// the rule, and must flag each of them. Each case computes for a while without an await, so it
/// runs on a thread of its own (`.ownThread`), not on the cooperative pool the awaiting suites need.
@Suite("Swarm and audit", .timeLimit(.minutes(1)), .ownThread)
struct SwarmAuditTests {
    enum Event {
        case arrive(LiveSwarm.Send, answered: Bool)
        case finish(LiveSwarm.Send, failed: Bool)
    }

    @Test(
        "Zero false verdicts at speed 1, 10 and 100 with 10% failed and 5% unanswered requests; every misbehaving player caught",
        arguments: [1.0, 10, 100])
    func zeroFalseVerdicts(speed: Double) throws {
        let motion = try LiveSwarmTests.motion(players: 100, seconds: 420)
        var swarm = LiveSwarm(configuration: try LiveSwarm.Configuration(motion: motion, misbehaviour: 0.05))
        let misbehaving = Set(swarm.misbehavingPlayers)
        #expect(!misbehaving.isEmpty)
        // Wall-clock figures, in the game microseconds the swarm counts.
        let latency = Int64(0.040 * speed * 1e6)
        let timeout = Int64(0.5 * speed * 1e6)
        var random = SplitMix64(seed: UInt64(speed))
        // Every arrival and answer, in game time; an answer before a send at the same instant.
        var events: [(micros: Int64, order: Int, event: Event)] = []
        var pending: [(due: Int64, send: LiveSwarm.Send, outcome: Result<Int, AppError>, answered: Bool)] = []
        func sent(_ send: LiveSwarm.Send) {
            let draw = Double.random(in: 0..<1, using: &random)
            let unanswered = draw < 0.05
            let failed = draw < 0.15
            events.append((send.micros, 1, .arrive(send, answered: !unanswered)))
            let outcome: Result<Int, AppError> = failed ? .failure(.networkUnavailable(unanswered ? "timed out" : "HTTP 503")) : .success(3)
            pending.append((send.micros + (unanswered ? timeout : latency), send, outcome, !unanswered))
        }
        func settle(upTo time: Int64) {
            while let next = pending.indices.min(by: { pending[$0].due < pending[$1].due }), pending[next].due <= time {
                let (due, send, outcome, answered) = pending.remove(at: next)
                // The server answers what it answers; the swarm gives up on the rest at its timeout.
                if answered {
                    let failed = if case .failure = outcome { true } else { false }
                    events.append((due, 0, .finish(send, failed: failed)))
                }
                if let followUp = swarm.complete(send, with: outcome, at: due) { sent(followUp) }
            }
        }
        var now: Int64 = 0
        let step: Int64 = 100_000
        while now - step < swarm.endMicros {
            settle(upTo: now)
            for send in swarm.advance(to: min(now, swarm.endMicros - 1)) {
                sent(send)
                settle(upTo: send.micros)
            }
            now += step
        }
        settle(upTo: .max)

        var audit = FetchAudit(
            configuration: FetchAudit.Configuration(rule: motion.throttle, tolerance: .milliseconds(50), speed: speed))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func wall(_ micros: Int64) -> Date { start.addingTimeInterval(Double(micros) / 1e6 / speed) }
        var tickets: [Int64: [Int: FetchAudit.Ticket]] = [:]
        for (micros, _, event) in events.sorted(by: { ($0.micros, $0.order) < ($1.micros, $1.order) }) {
            switch event {
            case .arrive(let send, let answered):
                let (ticket, _) = audit.arrive(
                    client: "player:swarm-\(send.player)", center: send.request.center, radius: send.request.radius, at: wall(micros),
                    answered: answered)
                if answered { tickets[send.micros, default: [:]][send.player] = ticket }
            case .finish(let send, let failed):
                let removed = tickets[send.micros]?.removeValue(forKey: send.player)
                let ticket = try #require(removed)
                audit.finish(ticket, status: failed ? 503 : 200, failed: failed, at: wall(micros))
            }
        }
        let flagged = Set(audit.records.filter { $0.violations > 0 }.map(\.client))
        let expected = Set(misbehaving.map { "player:swarm-\($0)" })
        #expect(flagged.subtracting(expected).isEmpty, "false verdicts: \(audit.records.filter { flagged.subtracting(expected).contains($0.client) }.map { "\($0.client) \($0.verdicts)" })")
        #expect(expected.subtracting(flagged).isEmpty, "misbehaving players not caught: \(expected.subtracting(flagged).sorted())")
        // The run had what it claims: retries after failures, and unanswered requests.
        #expect(audit.records.reduce(0) { $0 + ($1.verdicts[.retry] ?? 0) } > 50)
        #expect(audit.records.flatMap(\.entries).filter { $0.status == 0 }.count > 50)
    }
}
