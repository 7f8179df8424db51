import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LocationCore
import LocationIndex
import LocSimTestHelpers
import LocationTestSupport
import MapFeature
@testable import NearbyServer
import Testing

/// The fetch-rule audit seen through the server: arrival times come from a wall clock the test
/// moves by hand, so every verdict is exact.
@Suite(.timeLimit(.minutes(1))) struct AuditTests {
    struct AuditBody: Decodable {
        struct Client: Decodable {
            struct Entry: Decodable {
                var seq: Int
                var verdict: String
                var reason: String
                var status: Int?
            }
            var client: String
            var requests: Int
            var violations: Int
            var verdicts: [String: Int]
            var timeline: [Entry]
        }
        var violations: Int
        var clients: [Client]
    }

    func audit(_ client: some TestClientProtocol) async throws -> AuditBody {
        try await client.execute(uri: "/audit", method: .get) { response in
            try JSONDecoder().decode(AuditBody.self, from: response.bytes)
        }
    }

    @Test("A client polling every 2 s is flagged TOO SOON; one that follows the rule is not")
    func badClientIsFlagged() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let wall = ManualWallClock()
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index), wall: wall)
        let start = TestIndex.tokyo
        let near = start.destination(distance: 12, bearing: 90)
        let far = start.destination(distance: 131, bearing: 0)
        try await server.application().test(.router) { client in
            // The bad client: the same corner every 2 s for 20 s, wobbling 12 m.
            for i in 0..<10 {
                let center = i % 2 == 0 ? start : near
                try await client.execute(uri: nearbyURI(center, radius: 500), method: .get, headers: .player("bad")) {
                    #expect($0.status == .ok)
                }
                wall.advance(seconds: 2)
            }
            // The good client: first, then 30.4 s later, then 131 m away 5 s later.
            for (center, wait) in [(start, 30.4), (start, 5.0), (far, 0.0)] {
                try await client.execute(uri: nearbyURI(center, radius: 500), method: .get, headers: .player("good")) {
                    #expect($0.status == .ok)
                }
                wall.advance(seconds: wait)
            }
            let body = try await audit(client)
            let bad = try #require(body.clients.first { $0.client == "player:bad" })
            #expect(bad.requests == 10)
            #expect(bad.verdicts["first"] == 1)
            #expect(bad.verdicts["too_soon"] == 9)
            #expect(bad.violations == 9)
            let wobble = Int(start.distance(to: near).rounded())
            #expect(bad.timeline[1].reason == "TOO SOON: \(wobble) m and 2.0 s since the last fetch")
            let good = try #require(body.clients.first { $0.client == "player:good" })
            #expect(good.timeline.map(\.verdict) == ["first", "elapsed", "moved"])
            #expect(good.timeline[1].reason == "elapsed 30.4 s")
            #expect(good.timeline[2].reason == "moved \(Int(start.distance(to: far).rounded())) m")
            #expect(good.violations == 0)
            #expect(body.violations == 9)
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(decoding: response.bytes, as: UTF8.self)
                #expect(text.contains("locsim_audit_violations_total{verdict=\"too_soon\"} 9\n"))
                #expect(text.contains("locsim_http_requests_total{route=\"/locations/nearby\",status=\"200\"} 13\n"))
            }
        }
    }

    @Test("After a failure a back-off is a retry, an immediate request a RETRY STORM (script: the second request fails)")
    func backOffAndRetryStorm() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let wall = ManualWallClock()
        let script = try FaultScript.parse(Data(#"[{}, {"status": 503}, {}, {"status": 500}]"#.utf8), source: "test")
        let server = makeServer(
            try NearbyServer.Configuration(faults: try FaultPlan.Configuration(script: script)), repository: OfflineLocationRepository(index: places.index),
            wall: wall)
        let shortest = FetchThrottle.Configuration.game.retry
        let required = shortest.initialDelay.fractionalSeconds * (1 - shortest.jitter)
        try await server.application().test(.router) { client in
            let center = TestIndex.tokyo
            // Patient: first; 31 s later fails (503, Retry-After); 1 s later retries.
            try await client.execute(uri: nearbyURI(center), method: .get, headers: .player("patient")) { #expect($0.status == .ok) }
            wall.advance(seconds: 31)
            try await client.execute(uri: nearbyURI(center), method: .get, headers: .player("patient")) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
                let error = try response.decodeError()
                #expect(error.code == "injected_failure")
            }
            wall.advance(seconds: 1)
            try await client.execute(uri: nearbyURI(center), method: .get, headers: .player("patient")) { #expect($0.status == .ok) }
            // Stormy: its first request gets the scripted 500, and it asks again 0.3 s later.
            try await client.execute(uri: nearbyURI(center), method: .get, headers: .player("stormy")) {
                #expect($0.status == .internalServerError)
            }
            wall.advance(seconds: 0.3)
            try await client.execute(uri: nearbyURI(center), method: .get, headers: .player("stormy")) { #expect($0.status == .ok) }

            let body = try await audit(client)
            let patient = try #require(body.clients.first { $0.client == "player:patient" })
            #expect(patient.timeline.map(\.verdict) == ["first", "elapsed", "retry"])
            #expect(patient.timeline.map(\.status) == [200, 503, 200])
            #expect(patient.timeline[2].reason == "retry 1.0 s after a failure")
            #expect(patient.violations == 0)
            let stormy = try #require(body.clients.first { $0.client == "player:stormy" })
            #expect(stormy.timeline.map(\.verdict) == ["first", "retry_storm"])
            #expect(stormy.timeline[1].reason == "RETRY STORM: 0.3 s after a failure, back-off \(FetchAudit.seconds(required)) s")
        }
    }

    @Test("A second request while the first is still being answered is an OVERLAP")
    func overlap() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let clock = VirtualClock()
        let script = try FaultScript.parse(Data(#"[{"delay": "10s"}]"#.utf8), source: "test")
        let server = makeServer(
            try NearbyServer.Configuration(faults: try FaultPlan.Configuration(script: script)), repository: OfflineLocationRepository(index: places.index),
            clock: clock)
        try await server.application().test(.router) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: .player("eager")) {
                        #expect($0.status == .ok)
                    }
                }
                // The first request is now waiting out its scripted 10 s.
                await clock.waitForSleepers(1)
                try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: .player("eager")) {
                    #expect($0.status == .ok)
                }
                await clock.advance(by: .seconds(10))
                try await group.waitForAll()
            }
            let body = try await audit(client)
            #expect(body.clients.first?.timeline.map(\.verdict) == ["first", "overlap"])
            #expect(body.clients.first?.timeline[1].reason == "OVERLAP: 1 request in flight")
        }
    }

    @Test("Clients are told apart by X-Player-ID, then token, then address")
    func clientNames() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.application().test(.router) { client in
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: .player("p1")) { _ in }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: [.authorization: "Bearer abc"]) { _ in }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get) { _ in }
        }
        #expect(server.state.audit.records.map(\.client) == ["player:p1", server.tokenRule.clientName(forToken: "abc"), "address:unknown"])
    }

    @Test("A flood of distinct X-Player-IDs stays within the audit's client cap; dropped clients still count")
    func clientTableIsBounded() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let wall = ManualWallClock()
        let cap = 16
        let server = makeServer(
            try NearbyServer.Configuration(audit: FetchAudit.Configuration(maximumClients: cap)), repository: OfflineLocationRepository(index: places.index),
            wall: wall)
        // Four times the cap evicts plenty; a small radius keeps each answer a few places, so the
        // 3 × floodCount requests stay cheap when the whole suite runs at once on two cores.
        let floodCount = 4 * cap
        let uri = nearbyURI(TestIndex.tokyo, radius: 100)
        let (requests, violations, largest) = try await server.application().test(.router) { client in
            var requests = 0
            var violations = 0
            var largest = 0
            for i in 0..<floodCount {
                // A flood client asks twice, 1 s apart: first, then TOO SOON.
                for _ in 0..<2 {
                    try await client.execute(uri: uri, method: .get, headers: .player("flood-\(i)")) {
                        #expect($0.status == .ok)
                    }
                    requests += 1
                    wall.advance(seconds: 1)
                }
                violations += 1
                // A regular client asks every round: seen most recently, it is never the one dropped.
                try await client.execute(uri: uri, method: .get, headers: .player("regular")) {
                    #expect($0.status == .ok)
                }
                requests += 1
                if i > 0 { violations += 1 }
                largest = max(largest, server.state.audit.clients.count)
            }
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(decoding: $0.bytes, as: UTF8.self) }
            let audit = server.state.audit
            #expect(metrics.contains("locsim_audit_clients \(audit.clients.count)\n"))
            #expect(metrics.contains("locsim_audit_clients_evicted_total \(audit.evictedClients)\n"))
            return (requests, violations, largest)
        }
        let audit = server.state.audit
        #expect(largest <= cap)
        #expect(audit.clients.count <= cap)
        #expect(audit.evictedClients > 0)
        #expect(audit.clientCount == floodCount + 1)
        #expect(audit.records.contains { $0.client == "player:regular" })
        #expect(audit.records.count == audit.clients.count)
        // Nothing the dropped clients did is forgotten in the totals (--audit-strict reads them).
        #expect(audit.requestCount == requests)
        #expect(audit.violationCount == violations)
    }

    /// An audit of a client whose name is markup.
    static func hostileReport() -> (html: String, client: String) {
        var audit = FetchAudit()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let hostile = "player:<script>alert(1)</script><!--&"
        _ = audit.arrive(client: hostile, center: TestIndex.tokyo, radius: 100, at: start)
        let (ticket, _) = audit.arrive(client: hostile, center: TestIndex.tokyo, radius: 100, at: start.addingTimeInterval(2))
        audit.finish(ticket, status: 200, failed: false, at: start.addingTimeInterval(2))
        return (AuditReport(audit: audit, title: "test").render(), hostile)
    }

    @Test("The HTML report is self-contained, and what clients send cannot end its script")
    func htmlReport() {
        let html = Self.hostileReport().html
        // Every `<` in the page's data is `\u003c`.
        #expect(!html.contains("<script>alert") && !html.contains("<!--"))
        #expect(html.contains(#"player:\u003cscript>alert(1)\u003c/script>\u003c!--&"#))
        #expect(html.components(separatedBy: "</script>").count == 2)
        #expect(HTMLPage.externalReferences(in: html) == [])
    }

    @Test("The HTML report, drawn, shows the client as text and every verdict", .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func htmlReportDrawn() async throws {
        let (html, hostile) = Self.hostileReport()
        let shown = try await HTMLPage.rendered(html: html)
        #expect(shown.contains(XMLText.escaped(hostile)))
        #expect(shown.contains("<td class=\"bad\">1</td>"))
        #expect(shown.contains("<svg id=\"map\"") && shown.contains("<svg id=\"timeline\"") && shown.contains("<table id=\"summary\""))
        #expect(shown.contains("<circle"))
        for verdict in FetchAudit.Verdict.allCases { #expect(shown.contains(">\(verdict.rawValue.replacingOccurrences(of: "_", with: " "))</th>")) }
    }
}
