import Foundation
import HTTPTypes
import Hummingbird
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
        var next: Int?
        var clients: [Client]
    }

    func audit(_ client: ServerTestClient, query: String = "") async throws -> AuditBody {
        try await client.execute(uri: "/audit" + query, method: .get) { response in
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
        try await server.test(.router) { client in
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

    @Test(
        "A move's reason shows it more than the rule's distance: whole metres, or the decimals it takes",
        arguments: [
            (131.2, "moved 131 m"), (100.6, "moved 101 m"), (100.4, "moved 100.4 m"), (100.04, "moved 100.04 m"),
            (100.0004, "moved 100.001 m"), (100.00004, "moved 100.001 m"),
        ])
    func movedReason(metres: Double, reason: String) {
        #expect(FetchAudit.Detail.moved(metres: metres, over: 100).text == reason)
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
        try await server.test(.router) { client in
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
        try await server.test(.router) { client in
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
        try await server.test(.router) { client in
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: .player("p1")) { _ in }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: [.authorization: "Bearer abc"]) { _ in }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get) { _ in }
        }
        #expect(server.state.audit.records.map(\.client) == ["player:p1", server.tokenRule.clientName(forToken: "abc"), "address:unknown"])
    }

    @Test("A relaunched app starts afresh: a new X-Audit-Session (or ?session=), or POST /audit/reset; verdicts so far still count")
    func sessionsAndReset() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let wall = ManualWallClock()
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index), wall: wall)
        let center = TestIndex.tokyo
        try await server.test(.router) { client in
            func ask(_ player: String, session: String? = nil, query: String = "") async throws {
                var headers = HTTPFields.player(player)
                if let session { headers[HTTPField.Name("X-Audit-Session")!] = session }
                try await client.execute(uri: nearbyURI(center) + query, method: .get, headers: headers) { #expect($0.status == .ok) }
                wall.advance(seconds: 5)
            }
            // One UI test, then the app relaunched 5 s later at the same place, each in a session.
            try await ask("ui", session: "test-1")
            try await ask("ui", session: "test-1")  // too soon: the same launch
            try await ask("ui", session: "test-2")  // a new launch: first
            try await ask("ui", query: "&session=test-3")  // the query form
            try await ask("ui", query: "&session=test-3")  // the same session: too soon
            // A reset for one client (named as /audit names it), then for all.
            try await ask("other")
            try await client.execute(uri: "/audit/reset?client=player:ui", method: .post) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"restarted":1}"#)
            }
            try await ask("ui")
            try await ask("other")  // not reset: too soon
            try await client.execute(uri: "/audit/reset", method: .post) { #expect(String(buffer: $0.body) == #"{"restarted":2}"#) }
            try await ask("other")
            // Errors: an unknown client is a 404, GET is a 405 naming POST.
            try await client.execute(uri: "/audit/reset?client=player:nobody", method: .post) { response in
                #expect(response.status == .notFound)
                let error = try response.decodeError()
                #expect(error.parameter == "client")
            }
            try await client.execute(uri: "/audit/reset", method: .get) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST")
            }
            let body = try await audit(client)
            let ui = try #require(body.clients.first { $0.client == "player:ui" })
            #expect(ui.timeline.map(\.verdict) == ["first", "too_soon", "first", "first", "too_soon", "first"])
            // A session's first request says which session, so a relaunch reads as one.
            #expect(ui.timeline.filter { $0.verdict == "first" }.map(\.reason) == [
                #"first request of session "test-1""#, #"first request of session "test-2""#, #"first request of session "test-3""#,
                "first request",
            ])
            #expect(body.clients.first { $0.client == "player:other" }?.timeline.first?.reason == "first request")
            let other = try #require(body.clients.first { $0.client == "player:other" })
            #expect(other.timeline.map(\.verdict) == ["first", "too_soon", "first"])
            // What was seen before a restart still counts.
            #expect(body.violations == 3)
            #expect(body.next == nil)
            // Two entries a page: the counts stay whole; the pages, followed, are the timeline.
            var pages: [AuditBody] = [try await audit(client, query: "?limit=2")]
            while let next = pages.last?.next { pages.append(try await audit(client, query: "?limit=2&cursor=\(next)")) }
            #expect(pages.count == 5)
            #expect(pages.allSatisfy { $0.violations == 3 && $0.clients.map(\.requests) == [6, 3] })
            #expect(pages.map { $0.clients.map(\.timeline.count).reduce(0, +) } == [2, 2, 2, 2, 1])
            #expect(pages.flatMap { $0.clients.flatMap(\.timeline) }.map(\.seq).sorted() == Array(1...9))
            // Bad paging parameters are 400s naming them.
            let badPaging: [(query: String, parameter: String)] = [
                ("?limit=0", "limit"), ("?limit=10001", "limit"), ("?limit=two", "limit"), ("?cursor=-1", "cursor"), ("?cursor=1.5", "cursor"),
            ]
            for (query, parameter) in badPaging {
                try await client.execute(uri: "/audit" + query, method: .get) { (response: TestResponse) throws -> Void in
                    #expect(response.status == .badRequest, "\(query)")
                    let error = try response.decodeError()
                    let named: String? = parameter
                    #expect(error.parameter == named, "\(query)")
                }
            }
        }
    }

    @Test("A request in flight when its client restarts does not make the new session's first request an OVERLAP")
    func restartWithRequestInFlight() throws {
        var audit = FetchAudit()
        let start = Date(timeIntervalSince1970: 1_000_000)
        let (old, _) = audit.arrive(client: "player:a", center: TestIndex.tokyo, radius: 5_000, at: start, session: "1")
        let (_, entry) = audit.arrive(
            client: "player:a", center: TestIndex.tokyo, radius: 5_000, at: start.addingTimeInterval(1), session: "2")
        #expect(entry.verdict == .first)
        // The old request's failure arrives late: its status is filled in, the new session is untouched.
        audit.finish(old, status: 503, failed: true, at: start.addingTimeInterval(2))
        let (_, third) = audit.arrive(
            client: "player:a", center: TestIndex.tokyo.destination(distance: 150, bearing: 0), radius: 5_000,
            at: start.addingTimeInterval(2.1), session: "2")
        #expect(third.verdict == .overlap)  // the second request is still in flight
        #expect(audit.records.first?.entries.map(\.status) == [503, nil, nil])
    }

    @Test("Pages of the timelines: following 'next' from cursor 0 gives every kept entry once, oldest first over all clients, each page within its limit")
    func pagesCoverTheKeptTimelines() throws {
        // 7 clients in a seeded interleaving, 40 kept per client (so the oldest were trimmed).
        var audit = FetchAudit(configuration: FetchAudit.Configuration(maximumEntriesPerClient: 40))
        var random = SplitMix64(seed: 17)
        let start = Date(timeIntervalSince1970: 1_000_000)
        for index in 0..<700 {
            let client = "player:p\(Int.random(in: 0..<7, using: &random))"
            let (ticket, _) = audit.arrive(
                client: client, center: TestIndex.tokyo, radius: 5_000, at: start.addingTimeInterval(Double(index)))
            audit.finish(ticket, status: 200, failed: false, at: start.addingTimeInterval(Double(index)))
        }
        let kept = audit.records.flatMap(\.entries).map(\.sequence).sorted()
        #expect(kept.count < 700)
        for limit in [1, 13, 40, kept.count - 1, kept.count, 10_000] {
            var seen: [Int] = []
            var cursor = 0
            var pages = 0
            while true {
                let page = audit.page(after: cursor, limit: limit)
                let sequences = page.timelines.flatMap { $0.map(\.sequence) }
                #expect(sequences.count <= limit)
                // Each client's slice is its own entries (the page keeps the records' order).
                for (record, timeline) in zip(audit.records, page.timelines) {
                    #expect(Set(timeline.map(\.sequence)).isSubset(of: Set(record.entries.map(\.sequence))))
                }
                seen += sequences.sorted()
                pages += 1
                guard let next = page.next else { break }
                #expect(sequences.count == limit)
                #expect(next == sequences.max())
                cursor = next
            }
            #expect(seen == kept, "limit \(limit)")
            #expect(pages == max(1, (kept.count + limit - 1) / limit), "limit \(limit)")
        }
        // A cursor past everything: an empty page, no next.
        let empty = audit.page(after: 700, limit: 5)
        #expect(empty.timelines.allSatisfy { $0.isEmpty })
        #expect(empty.next == nil)
    }

    @Test("--audit-speed divides the interval and the back-off (not the tolerance): a swarm at 10x is judged in its own time")
    func auditSpeed() throws {
        let rule = FetchThrottle.Configuration.game
        let fast = FetchAudit.Configuration(rule: rule, tolerance: .milliseconds(100), speed: 10).auditThrottle()
        #expect(fast.minimumInterval == rule.minimumInterval / 10 - .milliseconds(100))
        #expect(fast.minimumDistance == rule.minimumDistance)
        let keep = (1 - rule.retry.jitter) / 10
        #expect(abs(fast.retry.initialDelay.fractionalSeconds - rule.retry.initialDelay.fractionalSeconds * keep) < 1e-6)
        #expect(abs(fast.retry.maximumDelay.fractionalSeconds - rule.retry.maximumDelay.fractionalSeconds * keep) < 1e-6)
        // 3.1 s apart at speed 10 is 31 game seconds: elapsed, not too soon.
        var audit = FetchAudit(configuration: FetchAudit.Configuration(rule: rule, tolerance: .milliseconds(100), speed: 10))
        let start = Date(timeIntervalSince1970: 1_000_000)
        let (first, _) = audit.arrive(client: "p", center: TestIndex.tokyo, radius: 5_000, at: start)
        audit.finish(first, status: 200, failed: false, at: start)
        let (_, entry) = audit.arrive(client: "p", center: TestIndex.tokyo, radius: 5_000, at: start.addingTimeInterval(3.1))
        #expect(entry.verdict == .elapsed)
        // An audit whose scaled interval is within the tolerance could flag nothing: refused,
        // naming the tolerance; just over it is accepted.
        for (speed, tolerance, refused) in [(30.0, Duration.seconds(1), true), (1, .seconds(30), true), (29, .seconds(1), false)] {
            let audit = FetchAudit.Configuration(rule: rule, tolerance: tolerance, speed: speed)
            #expect((audit.intervalProblem != nil) == refused, "speed \(speed), tolerance \(tolerance)")
            if refused {
                let error = #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(audit: audit) }
                #expect(error?.option == "audit-tolerance")
            } else {
                _ = try NearbyServer.Configuration(audit: audit)
            }
        }
        #expect(FetchAudit.Configuration(rule: rule, speed: 30).intervalProblem?.message.hasPrefix("the interval 30 s at speed 30 leaves 1 s between") == true)
        // An interval of 0 makes every request due, whatever the tolerance: refused too, naming the interval.
        let noInterval = try FetchThrottle.Configuration(minimumDistance: 100, minimumInterval: .zero)
        for tolerance in [Duration.zero, .seconds(1)] {
            let error = #expect(throws: ServerConfigurationError.self) {
                try NearbyServer.Configuration(audit: FetchAudit.Configuration(rule: noInterval, tolerance: tolerance))
            }
            #expect(error?.option == "throttle-interval" && error?.message.contains("every request due") == true, "\(String(describing: error))")
        }
        // Out-of-range speeds fall back to 1.
        #expect(FetchAudit.Configuration(speed: 0).speed == 1)
        #expect(FetchAudit.Configuration(speed: .nan).speed == 1)
    }

    @Test("Clients named by the team's device header, then by address and User-Agent; --accept-any-token admits any well-formed token")
    func clientHeaderAndAnyToken() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(
            try NearbyServer.Configuration(acceptAnyToken: true, auditClientHeader: "X-Device-ID"),
            repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            let token: HTTPFields = [.authorization: "Bearer app-real-token.v2"]
            var device = token
            device[HTTPField.Name("X-Device-ID")!] = "iPhone 15 / A1"
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: device) { #expect($0.status == .ok) }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: token) { #expect($0.status == .ok) }
            // No token, or one that is not a token, is still a 401.
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: [.authorization: "Bearer"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: [.authorization: "Bearer é"]) {
                #expect($0.status == .unauthorized)
                #expect(String(buffer: $0.body).contains("the bearer token is malformed"), "\(String(buffer: $0.body))")
            }
            // Each refusal says what is wrong with the header (never that the token is not the
            // server's: any well-formed one is).
            for value in ["Basic dXNlcjpwdw==", "Bearer", "Bearer a b"] {
                try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: [.authorization: value]) {
                    #expect($0.status == .unauthorized, "\(value)")
                    #expect(!String(buffer: $0.body).contains("not this server's"), "\(value): \(String(buffer: $0.body))")
                }
            }
        }
        #expect(server.state.audit.records.map(\.client) == [
            "device:iPhone%2015%20/%20A1", server.tokenRule.clientName(forToken: "app-real-token.v2"),
        ])
        // Without a token or a header, the address and the User-Agent (one word, 64 characters at most).
        let open = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await open.test(.router) { client in
            let agent = "MyGame/1.2 CFNetwork/1494.0.7 Darwin/23.4.0 " + String(repeating: "x", count: 80)
            try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: [.userAgent: agent]) { _ in }
        }
        #expect(open.state.audit.records.map(\.client) == [
            "address:unknown/MyGame/1.2%20CFNetwork/1494.0.7%20Darwin/23.4.0%20" + String(repeating: "x", count: 20),
        ])
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(token: "t", acceptAnyToken: true) }
        // Any token is as good as none to a stranger: on the network, only with allowAnonymous, saying why.
        let onNetwork = #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(host: "0.0.0.0", acceptAnyToken: true) }
        #expect(onNetwork?.option == "accept-any-token")
        _ = try NearbyServer.Configuration(host: "0.0.0.0", allowAnonymous: true, acceptAnyToken: true)
        #expect(throws: ServerConfigurationError.self) { try NearbyServer.Configuration(auditClientHeader: "bad header") }
        // A header that carries a credential would put it in the log, /audit and the report.
        for header in ["Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token", "X-Session-ID", "x-amz-security-token"] {
            #expect(throws: ServerConfigurationError.self, "\(header)") { try NearbyServer.Configuration(auditClientHeader: header) }
        }
        for header in ["X-Device-ID", "X-Install-ID", "X-Player-Name"] {
            #expect(try NearbyServer.Configuration(auditClientHeader: header).auditClientHeader == header)
        }
    }

    @Test("A parameter of /audit or /audit/reset given twice, or in other letter case, is a 400 naming it, as on the nearby route; the reset takes no other")
    func repeatedParameters() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            for (uri, method, parameter) in [
                ("/audit?limit=3&limit=4", HTTPRequest.Method.get, "limit"), ("/audit?cursor=1&cursor=2", .get, "cursor"),
                ("/audit/reset?client=player:a&client=player:b", .post, "client"),
                ("/audit?LIMIT=3", .get, "limit"), ("/audit?Cursor=1", .get, "cursor"), ("/audit/reset?Client=player:a", .post, "client"),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(String(buffer: response.body).contains(#""parameter":"\#(parameter)""#), "\(uri): \(String(buffer: response.body))")
                }
            }
            // Other parameters are no concern of a route that only reads (a cache buster)...
            try await client.execute(uri: "/audit?limit=2&_=123", method: .get) { #expect($0.status == .ok) }
            // ...but a misspelt one on the reset would reset every client instead of one: refused, nothing done.
            try await client.execute(uri: "/audit/reset?clinet=player:a", method: .post) { response in
                let body = String(buffer: response.body)
                #expect(response.status == .badRequest && body.contains(#""parameter":"clinet""#), "\(body)")
                #expect(body.contains("clinet is no parameter of POST /audit/reset (it takes client); nothing was done"), "\(body)")
            }
        }
    }

    @Test("An X-Player-ID is one visible word of at most 64 characters: a client cannot write a log line of its own")
    func playerIDIsOneWord() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        let forged = "bob GET /locations/nearby?lat=0&lng=0 200 0.1 ms 1 places first"
        try await server.test(.router) { client in
            for id in [forged, "a\u{202E}b", String(repeating: "y", count: 100)] {
                try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: .player(id)) { #expect($0.status == .ok) }
            }
        }
        #expect(server.state.audit.records.map(\.client) == [
            "player:bob%20GET%20/locations/nearby?lat=0&lng=0%20200%200.1%20ms%201%20places%20first", "player:a%E2%80%AEb",
            "player:" + String(repeating: "y", count: 64),
        ])
    }

    @Test("Two X-Player-IDs that are not ASCII are two clients (たろう and はなこ were both player:___); /audit/reset finds each by either name")
    func playerIDsStayDistinct() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.router) { client in
            for id in ["たろう", "はなこ", "50%off", "50%25off"] {
                try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get, headers: .player(id)) { #expect($0.status == .ok) }
            }
            // Each one request, none too soon after another's.
            #expect(server.state.audit.violationCount == 0)
            #expect(server.state.audit.records.map(\.client) == [
                "player:%E3%81%9F%E3%82%8D%E3%81%86", "player:%E3%81%AF%E3%81%AA%E3%81%93", "player:50%25off", "player:50%2525off",
            ])
            // By the header's value (percent-encoded in the URL, as any text there), by /audit's
            // name pasted as it is, and by /audit's name percent-encoded.
            for query in ["player:%E3%81%9F%E3%82%8D%E3%81%86", "player%3A%25E3%2581%25AF%25E3%2581%25AA%25E3%2581%2593", "player:50%2525off"] {
                try await client.execute(uri: "/audit/reset?client=" + query, method: .post) {
                    #expect($0.status == .ok, "\(query): \(String(buffer: $0.body))")
                    #expect(String(buffer: $0.body) == #"{"restarted":1}"#, "\(query)")
                }
            }
        }
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
        let (requests, violations, largest) = try await server.test(.router) { client in
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
