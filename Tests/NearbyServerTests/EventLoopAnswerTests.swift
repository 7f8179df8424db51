#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Hummingbird
import HummingbirdTesting
import LocSimTestHelpers
import LocationCore
import LocationIndex
import LocationTestSupport
@testable import NearbyServer
import Testing

/// The nearby route answered on the connection's event loop (`ImmediateAnswerHandler`) against
/// the same server with every request in Hummingbird's task, over real sockets.
@Suite(.timeLimit(.minutes(1))) struct EventLoopAnswerTests {
    /// Requests that cover the contract's answers: places at several radii, a limit, the poles and
    /// the antimeridian, each bad parameter, the cap, and the token's three cases.
    static func requests() throws -> [(target: String, token: String?)] {
        let tokyo = TestIndex.tokyo
        var requests: [(String, String?)] = [
            (nearbyURI(tokyo, radius: 1), "t"), (nearbyURI(tokyo, radius: 500), "t"), (nearbyURI(tokyo), "t"),
            (nearbyURI(tokyo, radius: 50_000), "t"), (nearbyURI(tokyo, radius: 5_000, limit: 7), "t"),
            (nearbyURI(try Coordinate(latitude: 90, longitude: 0), radius: 200_000), "t"),
            (nearbyURI(try Coordinate(latitude: -89.5, longitude: 120), radius: 100_000), "t"),
            (nearbyURI(try Coordinate(latitude: 0, longitude: 180), radius: 150_000), "t"),
            (nearbyURI(try Coordinate(latitude: 0, longitude: -179.9), radius: 150_000), "t"),
            ("/locations/nearby?lat=x&lng=1", "t"), ("/locations/nearby?lat=1", "t"), ("/locations/nearby?lat=1&lng=2&radius=nan", "t"),
            ("/locations/nearby?lat=1&lng=2&radius=60000", "t"), ("/locations/nearby?lat=1&lng=2&limit=0", "t"),
            ("/locations/nearby?lat=%33%35.68&lng=139.76", "t"), (nearbyURI(tokyo, radius: 300), nil), (nearbyURI(tokyo, radius: 300), "wrong"),
        ]
        requests.append(("/healthz", nil))
        return requests
    }

    @Test("Event-loop answers are byte for byte the task path's, with the same audit, metrics and access log")
    func sameAnswersBothWays() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        var onLoop = try NearbyServer.Configuration(port: 0, token: "t")
        onLoop.answersOnEventLoop = true
        var inTask = onLoop
        inTask.answersOnEventLoop = false
        // A clock that does not move: both access logs then say 0 ms.
        let logs = (LogLines(), LogLines())
        let fast = makeServer(onLoop, repository: OfflineLocationRepository(index: places.index), clock: VirtualClock(), log: logs.0)
        let slow = makeServer(inTask, repository: OfflineLocationRepository(index: places.index), clock: VirtualClock(), log: logs.1)
        let requests = try Self.requests()
        try await fast.application().test(.live) { fastClient in
            try await slow.application().test(.live) { slowClient in
                let fastConnection = try RawConnection(port: try #require(fastClient.port))
                let slowConnection = try RawConnection(port: try #require(slowClient.port))
                for (target, token) in requests {
                    let a = try await fastConnection.exchange(target, token: token)
                    let b = try await slowConnection.exchange(target, token: token)
                    #expect(a.statusLine == b.statusLine, "\(target)")
                    // Names as sent (case included), in order.
                    #expect(a.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" }
                        == b.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" }, "\(target)")
                    #expect(a.body == b.body, "\(target)")
                    #expect(b.headers.contains { $0.name == "Date" })
                    if target.hasPrefix("/locations/nearby") {
                        // The event loop's Date is the injected wall clock's.
                        #expect(a.headers.first { $0.name == "Date" }?.value == HTTPDate.text(secondsSince1970: 1_700_000_000))
                    }
                }
                let audits = (try await fastConnection.exchange("/audit", token: "t"), try await slowConnection.exchange("/audit", token: "t"))
                #expect(audits.0.body == audits.1.body)
            }
        }
        let nearby = requests.filter { $0.target.hasPrefix("/locations/nearby") }.count
        #expect(fast.state.metrics.eventLoopAnswers == nearby)
        #expect(slow.state.metrics.eventLoopAnswers == 0)
        for status in [200, 400, 401] {
            #expect(fast.state.metrics.requestCount(route: "/locations/nearby", status: status)
                == slow.state.metrics.requestCount(route: "/locations/nearby", status: status))
        }
        #expect(fast.state.metrics.placesServed == slow.state.metrics.placesServed)
        #expect(fast.state.metrics.placesServed > 0)
        #expect(logs.0.all == logs.1.all)
        #expect(logs.0.all.count == requests.count + 1)
    }

    @Test("Pipelined requests are answered in order when some go to Hummingbird's task and some do not")
    func pipelinedOrder() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let repository = OfflineLocationRepository(index: places.index)
        let server = makeServer(try NearbyServer.Configuration(port: 0), repository: repository)
        let points = (0..<6).map { TestIndex.tokyo.destination(distance: Double($0) * 900, bearing: Double($0) * 50) }
        @Sendable func expected(_ i: Int, radius: Double, limit: Int? = nil) throws -> [UInt8] {
            Array(buffer: try repository.nearbyBodyNow(near: points[i], within: radius, limit: limit).body)
        }
        try await server.application().test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            // One write: the first is answered at once, /healthz goes to the task, and what
            // follows it (a GET with a body among them) must wait its turn.
            var batch = RawConnection.request(nearbyURI(points[0], radius: 800))
            batch += RawConnection.request("/healthz")
            batch += RawConnection.request(nearbyURI(points[1], radius: 2_000))
            batch += RawConnection.request(nearbyURI(points[2], radius: 500), body: "{}")
            batch += RawConnection.request(nearbyURI(points[3], radius: 1_500, limit: 3))
            batch += RawConnection.request("/nowhere")
            batch += RawConnection.request(nearbyURI(points[4], radius: 700))
            try await connection.send(batch)
            var answers: [RawConnection.Answer] = []
            for _ in 0..<7 { answers.append(try await connection.readAnswer()) }
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 404, 200])
            #expect(answers[0].body == (try expected(0, radius: 800)))
            #expect(String(decoding: answers[1].body, as: UTF8.self) == "ok\n")
            #expect(answers[2].body == (try expected(1, radius: 2_000)))
            #expect(answers[3].body == (try expected(2, radius: 500)))
            #expect(answers[4].body == (try expected(3, radius: 1_500, limit: 3)))
            #expect(answers[6].body == (try expected(4, radius: 700)))
            // The first had nothing before it; the rest may have been handed on.
            let answeredOnLoop = server.state.metrics.eventLoopAnswers
            #expect(answeredOnLoop >= 1 && answeredOnLoop <= 4)
            // Once every handed-on request is answered, the next nearby request is the loop's again.
            let last = try await connection.exchange(nearbyURI(points[5], radius: 900), token: nil)
            #expect(last.body == (try expected(5, radius: 900)))
            #expect(server.state.metrics.eventLoopAnswers == answeredOnLoop + 1)
        }
        #expect(server.state.metrics.requestCount(route: "/locations/nearby", status: 200) == 6)
    }

    @Test("Faults, a backend that suspends, or Connection: close keep a request in Hummingbird's task")
    func taskPathCases() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let faulty = makeServer(
            try NearbyServer.Configuration(port: 0, faults: try FaultPlan.Configuration(latency: .milliseconds(1))),
            repository: OfflineLocationRepository(index: places.index))
        /// The index behind a repository the server cannot ask without suspending.
        struct Wrapped: LocationRepository {
            let base: OfflineLocationRepository
            func fetchNearby(center: Coordinate, radius: Double) async throws -> [Place] {
                try await base.fetchNearby(center: center, radius: radius)
            }
        }
        let repository = makeServer(
            try NearbyServer.Configuration(port: 0), repository: Wrapped(base: OfflineLocationRepository(index: places.index)))
        let plain = makeServer(try NearbyServer.Configuration(port: 0), repository: OfflineLocationRepository(index: places.index))
        for (server, close) in [(faulty, false), (repository, false), (plain, true)] {
            try await server.application().test(.live) { client in
                let connection = try RawConnection(port: try #require(client.port))
                let answer = try await connection.exchange(nearbyURI(TestIndex.tokyo, radius: 400), token: nil, close: close)
                #expect(answer.status == 200)
                #expect(answer.body.count > 20)
            }
            #expect(server.state.metrics.eventLoopAnswers == 0)
            #expect(server.state.metrics.requestCount(route: "/locations/nearby", status: 200) == 1)
        }
    }

    @Test("The Date header is RFC 9110's IMF-fixdate, as Foundation's formatter writes it")
    func httpDate() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var random = SplitMix64(seed: 7)
        // 1900-01-01 … 2199-12-31, the epoch and the seconds around it, leap days.
        var seconds: [Int64] = [0, -1, 1, 86_399, 86_400, -86_400, 951_782_400, 951_868_799, 4_107_542_400 - 1]
        for _ in 0..<2_000 { seconds.append(Int64(random.next() % 9_467_280_000) - 2_208_988_800) }
        for second in seconds {
            #expect(HTTPDate.text(secondsSince1970: second) == formatter.string(from: Date(timeIntervalSince1970: Double(second))))
        }
    }
}
