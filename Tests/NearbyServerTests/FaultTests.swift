import Foundation
import HTTPTypes
import Hummingbird
import LocationCore
import LocationIndex
import LocationTestSupport
@testable import NearbyServer
import Testing

@Suite(.timeLimit(.minutes(1))) struct FaultTests {
    @Test("The same seed gives the same outcomes; rates come out near their share")
    func seededPlan() throws {
        let configuration = try FaultPlan.Configuration(
            latency: .milliseconds(800), latencyJitter: .milliseconds(200), failRate: 0.1, timeoutRate: 0.05, seed: 42)
        var a = FaultPlan(configuration: configuration)
        var b = FaultPlan(configuration: configuration)
        let first = (0..<4_000).map { _ in a.next() }
        #expect(first == (0..<4_000).map { _ in b.next() })
        var other = FaultPlan(configuration: try FaultPlan.Configuration(failRate: 0.1, timeoutRate: 0.05, seed: 43))
        #expect((0..<50).map { _ in other.next() } != Array(first.prefix(50)))

        let timeouts = first.filter { $0 == .timeout }.count
        let failures = first.filter { if case .failure = $0 { true } else { false } }
        // Binomial counts within five standard deviations of their means.
        func near(_ count: Int, p: Double, n: Int) -> Bool { abs(Double(count) - p * Double(n)) < 5 * (Double(n) * p * (1 - p)).squareRoot() }
        #expect(near(timeouts, p: 0.05, n: 4_000))
        #expect(near(failures.count, p: 0.95 * 0.1, n: 4_000))
        #expect(failures.allSatisfy { $0 == .failure(status: 500, delay: $0.delay) || $0 == .failure(status: 503, delay: $0.delay) })
        // Delays stay within latency ± jitter.
        for outcome in first where outcome != .timeout {
            #expect(outcome.delay >= .milliseconds(600) && outcome.delay <= .milliseconds(1_000))
        }
    }

    @Test("A jitter wider than the latency is refused, naming the parameter: it would be cut at zero")
    func jitterWithinLatency() throws {
        #expect(throws: FaultError(
            "a jitter of ± 0.2 s spreads a latency of 0.1 s below zero, where a delay cannot go (give a latency at least as large as the jitter)",
            parameter: "latency-jitter")) {
            try FaultPlan.Configuration(latency: .milliseconds(100), latencyJitter: .milliseconds(200))
        }
        #expect(throws: FaultError.self) { try FaultPlan.Configuration(latencyJitter: .milliseconds(1)) }
        var plan = FaultPlan(configuration: try FaultPlan.Configuration(latency: .milliseconds(100), latencyJitter: .milliseconds(100)))
        #expect((0..<200).allSatisfy { _ in (.zero ... .milliseconds(200)).contains(plan.next().delay) })
    }

    @Test("A script decides the first requests in order, then the real answer follows")
    func scriptOrder() throws {
        let script = try FaultScript.parse(
            Data(#"[{}, {"delay": 250}, {"status": 503, "delay": "1.5s"}, {"timeout": true}, {"status": 200, "body": "{}"}]"#.utf8),
            source: "qa.json")
        var plan = FaultPlan(configuration: try FaultPlan.Configuration(script: script))
        #expect(plan.next() == .answer(delay: .zero))
        #expect(plan.next() == .answer(delay: .milliseconds(250)))
        #expect(plan.next() == .failure(status: 503, delay: .milliseconds(1_500)))
        #expect(plan.next() == .timeout)
        #expect(plan.next() == .body(status: 200, body: Array("{}".utf8), delay: .zero))
        #expect(plan.next() == .answer(delay: .zero))
        // 204 and 304 are answered as HTTP has them: with no body, none being needed.
        let bodiless = try FaultScript.parse(Data(#"[{"status": 204}, {"status": 304}]"#.utf8), source: "qa.json")
        #expect(bodiless.map(\.outcome) == [.body(status: 204, body: [], delay: .zero), .body(status: 304, body: [], delay: .zero)])
    }

    // Read by LocationCore's JSONValue (was JSONSerialization): text that is not JSON is named by
    // the byte where it breaks, a trailing comma is refused, values are quoted as JSON writes them.
    @Test("Bad scripts are refused naming the key path of what is wrong (the step 0-based), or the byte where the text stops being JSON", arguments: [
        (#"{"status": 500}"#, "a JSON list"), (#"[{}, {"stauts": 500}]"#, "qa.json: [1].stauts: unknown key (status, delay, body, timeout)"),
        (#"[{"status": 99}]"#, "qa.json: [0].status: must be a whole number 200...599 (a 1xx is an interim answer, not the answer), got 99"),
        (#"[{"status": 101, "body": "x"}]"#, "qa.json: [0].status: must be a whole number 200...599"),
        (#"[{"status": 204, "body": "x"}]"#, "qa.json: [0]: status 204 is answered without a body (HTTP sends none): drop 'body'"),
        (#"[{"status": 200.5}]"#, "got 200.5"), (#"[{"status": "503"}]"#, #"got "503""#),
        (#"[{"delay": "fast"}]"#, #"qa.json: [0].delay: must be milliseconds or a duration like 800ms or 2s, got "fast""#),
        (#"[{"delay": -5}]"#, "qa.json: [0].delay: must not be negative, got -5"),
        (#"[{"delay": "-2s"}]"#, #"qa.json: [0].delay: must not be negative, got "-2s""#),
        // A string's number has no unit: "2" would be 2 s where the number 2 is 2 ms.
        (#"[{"delay": "2"}]"#, #"qa.json: [0].delay: needs its unit as a string ("2ms" or "2s"); a JSON number is milliseconds, got "2""#),
        (#"[{"delay": "367d"}]"#, #"qa.json: [0].delay: must be at most a day (24h), got "367d""#),
        (#"[{"delay": 86400001}]"#, "qa.json: [0].delay: must be at most a day (86400000 ms), got 86400001"),
        (#"[{"delay": 1e400}]"#, "qa.json: [0].delay: must be milliseconds or a duration like 800ms or 2s, got a number too large for a Double"),
        (#"[{"delay": true}]"#, "got true"), (#"[{"timeout": true, "status": 500}]"#, "qa.json: [0]: a timeout step"),
        (#"[{"status": 302}]"#, "qa.json: [0]: status 302 needs a body"), (#"[1]"#, "qa.json: [0]: expected an object"),
        (#"[{}, {"status": 503, "status": 200}]"#, #"qa.json: ambiguous JSON at line 1, column 22: the name "status" appears twice in one object (first at line 1, column 7)"#),
        ("[", "qa.json: not valid JSON: the text ends early at line 1, column 2"),
        ("[\n {\"status\": 503},\n {\"delay\": \"2s\"", "qa.json: not valid JSON: the text ends early at line 3, column 16 (expected ',' or '}')"), ("[{},\n {\"status\" 500}]", "qa.json: not valid JSON at line 2, column 12: expected ':'"),
        ("[{},]", "not valid JSON at line 1, column 5: expected a value"),
        ("not json", "qa.json: not valid JSON at line 1, column 1: expected a value"), ("[nul]", "not valid JSON at line 1, column 2: expected a value"),
    ])
    func badScripts(json: String, message: String) {
        do {
            _ = try FaultScript.parse(Data(json.utf8), source: "qa.json")
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.message.hasPrefix("qa.json"))
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test("Through the server: the scripted third request fails, the fourth is slow, the fifth is malformed")
    func scriptedSession() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let clock = VirtualClock()
        let script = try FaultScript.parse(
            Data(#"[{}, {}, {"status": 503}, {"delay": "800ms"}, {"status": 200, "body": "not json"}, {"status": 429}, {"status": 500}]"#.utf8),
            source: "qa.json")
        let log = LogLines()
        let server = makeServer(
            try NearbyServer.Configuration(faults: try FaultPlan.Configuration(script: script)), repository: OfflineLocationRepository(index: places.index),
            clock: clock, log: log)
        try await server.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get) { response in
                        let answered = try response.decodePlaces()
                        #expect(answered == (try places.index.places(near: TestIndex.tokyo, within: 100).map(\.place)))
                    }
                }
                await clock.waitForSleepers(1)
                await clock.advance(by: .milliseconds(800))
                try await group.waitForAll()
            }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(decoding: response.bytes, as: UTF8.self) == "not json")
            }
            // Too many requests says when to come back, as an unavailable server does; a 500 does not.
            try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "1")
            }
            try await client.execute(uri: nearbyURI(TestIndex.tokyo, radius: 100), method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(response.headers[.retryAfter] == nil)
            }
        }
        let lines = log.all
        #expect(lines.count == 7)
        #expect(lines[2].contains(" 503 ") && lines[2].contains("fault: fail 503"))
        #expect(lines[3].contains("fault: delay after 800 ms"))
        #expect(lines[4].contains("fault: scripted body 200"))
    }

    @Test("A timeout fault holds the request until shutdown begins, then answers 503 with Retry-After and Connection: close")
    func timeoutReleasedOnShutdown() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let clock = VirtualClock()
        let server = makeServer(
            try NearbyServer.Configuration(faults: try FaultPlan.Configuration(timeoutRate: 1)), repository: OfflineLocationRepository(index: places.index),
            clock: clock)
        try await server.test(.router) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get) { response in
                        #expect(response.status == .serviceUnavailable)
                        // As every 503 that means "later": Retry-After; and the connection's last answer.
                        #expect(response.headers[.retryAfter] == "1")
                        #expect(response.headers[.connection] == "close")
                    }
                }
                // Held: 299 s of its 300 s pass and still no answer.
                await clock.waitForSleepers(1)
                await clock.advance(by: .seconds(299))
                await clock.waitForSleepers(1)
                // Shutdown begins while the request is held: it is answered at once, the
                // clock unmoved.
                server.state.beginShutdown()
                try await group.waitForAll()
            }
        }
        // A request that is never answered counts as failed at once.
        #expect(server.state.audit.records.first?.entries.first?.status == 0)
    }

    @Test("A timeout fault's hold ends after --timeout-hold on the injected clock, with a 503")
    func timeoutHoldEnds() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let clock = VirtualClock()
        let log = LogLines()
        let server = makeServer(
            try NearbyServer.Configuration(faults: try FaultPlan.Configuration(timeoutRate: 1), timeoutHold: .seconds(20)),
            repository: OfflineLocationRepository(index: places.index), clock: clock, log: log)
        try await server.test(.router) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await client.execute(uri: nearbyURI(TestIndex.tokyo), method: .get) { response in
                        #expect(response.status == .serviceUnavailable)
                        let error = try response.decodeError()
                        #expect(error.message == "request held (timeout fault)")
                    }
                }
                await clock.waitForSleepers(1)
                await clock.advance(by: .seconds(20))
                try await group.waitForAll()
            }
        }
        #expect(log.all.first?.contains(" 503 20000.000 ms ") == true)
    }
}
