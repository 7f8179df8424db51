import Foundation
import LocationCore
import LocationTestSupport
import MapFeature
import Testing
import LocSimTestHelpers

/// The map logic on the delivery clock (#31 item 4): a fix handed over later than its own time
/// is judged by the time rule at the delivery time, as the app's `Date()` would, and by
/// `maximumFixAge` on its age at arrival.
@Suite(.ownThread) struct DeliveryClockTests {
    let script = FixScript(origin: tokyo)

    @Test("An old fix delivered 2 minutes later fetches for elapsed time, at the delivery time, at its old position")
    func staleFixFetches() throws {
        var session = MapSession()
        _ = try #require(session.receive(script.fix(at: 0)).request).id
        _ = session.complete(try #require(session.inFlight), with: .success([]), at: script.time(0))
        // The fix of 20 s, 28 m on: neither rule holds at its own time; at 140 s the time rule does.
        let old = script.fix(at: 20, north: 28)
        #expect(session.throttle.decision(for: old) == .notDue(distance: script.position(north: 28).distance(to: script.position()), elapsed: .seconds(20)))
        let output = session.receive(old, deliveredAt: script.time(140))
        let request = try #require(output.request)
        #expect(request.reason == .elapsed && request.time == script.time(140) && request.center == script.position(north: 28))
        #expect(output.events.first == MapEvent(time: script.time(140), kind: .fixAccepted(old)))
    }

    @Test("With maximumFixAge the old fix is rejected as stale, and the next fresh one is judged on the delivery clock")
    func maximumFixAge() throws {
        var session = MapSession(configuration: try .init(maximumFixAge: .seconds(10)))
        let first = try #require(session.receive(script.fix(at: 0)).request)
        _ = session.complete(first, with: .success([]), at: script.time(0))
        let old = script.fix(at: 20, north: 28)
        let output = session.receive(old, deliveredAt: script.time(140))
        #expect(output.events.map(\.kind) == [.fixRejected(old, .stale(age: .seconds(120)))])
        #expect(output.request == nil && session.latestFix == script.fix(at: 0))
        #expect(session.receive(script.fix(at: 140, north: 196), deliveredAt: script.time(140)).request?.reason == .moved)
    }

    @Test("Delivered at its own time, a fix is what receive(_:) makes of it")
    func ownTime() throws {
        var a = MapSession(), b = MapSession()
        for second in stride(from: 0.0, through: 120, by: 7) {
            let fix = script.fix(at: second, north: second * 1.4)
            #expect(a.receive(fix) == b.receive(fix, deliveredAt: fix.time))
            if let request = a.inFlight {
                #expect(a.complete(request, with: .success([]), at: fix.time) == b.complete(request, with: .success([]), at: fix.time))
            }
        }
    }
}
