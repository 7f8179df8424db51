import Foundation
import HTTPTypes
import Hummingbird
import LocationCore
import LocationIndex
import LocSimTestHelpers
import NIOCore
@testable import MapFeature
@testable import NearbyServer
import Testing

/// Real sockets on loopback: Hummingbird's `.live` server with the app's own HTTP client.
@Suite(.timeLimit(.minutes(1))) struct LiveTests {
    @Test("End to end: HTTPLocationRepository gets the index's places; a 400 names the parameter; the token applies")
    func endToEnd() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(port: 0, token: "live-token"), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let base = URL(string: "http://127.0.0.1:\(port)")!
            let repository = try HTTPLocationRepository(baseURL: base, token: "live-token")
            for radius in [1.0, 500, 5_000, 50_000] {
                let answered = try await repository.fetchNearby(center: TestIndex.tokyo, radius: radius)
                #expect(answered == (try places.index.places(near: TestIndex.tokyo, within: radius).map(\.place)))
            }
            // The cap is a 400 the app's client maps to a validation error on `radius`.
            do {
                _ = try await repository.fetchNearby(center: TestIndex.tokyo, radius: 60_000)
                Issue.record("a radius over the cap was answered")
            } catch let error as AppError {
                #expect(error.code == .validation)
                #expect(error.parameter == "radius")
                #expect(error.statusCode == 400)
            }
            let anonymous = try HTTPLocationRepository(baseURL: base, token: nil)
            do {
                _ = try await anonymous.fetchNearby(center: TestIndex.tokyo, radius: 100)
                Issue.record("answered without the token")
            } catch let error as AppError {
                #expect(error.code == .unauthorized)
            }
        }
    }

    /// Each client is one keep-alive connection on a raw socket (on a thread of its own), not a
    /// URLSession: 64 sessions at once in one process is where swift-corelibs-foundation's
    /// libcurl glue fails on its own (a CI run saw "Empty reply from server" here, as
    /// ServeCommandTests' SIGTERM test did before it moved to raw sockets). A connection the
    /// server closes early still fails the test, with the client, the request and the bytes read.
    /// The bodies are decoded by the app's own client code.
    @Test("64 concurrent clients each get exactly the index's answer")
    func concurrentClients() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let server = makeServer(try NearbyServer.Configuration(port: 0), repository: OfflineLocationRepository(index: places.index))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for i in 0..<64 {
                    group.addTask {
                        // Each client its own connection, its own point and radius, four requests on it.
                        let connection = try RawConnection(port: port)
                        let center = TestIndex.tokyo.destination(distance: Double(i) * 700, bearing: Double(i) * 37)
                        let radius = [300.0, 2_000, 5_000, 20_000][i % 4]
                        let target = nearbyURI(center, radius: radius)
                        var allEqual = true
                        for request in 0..<4 {
                            let answer: RawConnection.Answer
                            do {
                                answer = try await connection.exchange(target, token: nil)
                            } catch {
                                throw HarnessError("client \(i), request \(request + 1) of 4, GET \(target): \(error)")
                            }
                            let contentType = answer.headers.first { $0.name.lowercased() == "content-type" }?.value
                            let answered = try HTTPLocationRepository.decode(
                                status: answer.status, contentType: contentType, body: Data(answer.body), endpoint: "client \(i)")
                            let expected = try places.index.places(near: center, within: radius).map(\.place)
                            allEqual = allEqual && answered == expected
                        }
                        return (i, allEqual)
                    }
                }
                var results: [(Int, Bool)] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(results.count == 64)
            let wrong = results.filter { !$0.1 }.map(\.0)
            #expect(wrong.isEmpty, "clients with a wrong answer: \(wrong)")
        }
        #expect(server.state.metrics.requestCount(route: "/locations/nearby", status: 200) == 256)
    }

    @Test("Pipelined requests on one connection are answered in order, a GET with a body among them")
    func pipelinedOrder() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let repository = OfflineLocationRepository(index: places.index)
        let server = makeServer(try NearbyServer.Configuration(port: 0), repository: repository)
        let points = (0..<5).map { TestIndex.tokyo.destination(distance: Double($0) * 900, bearing: Double($0) * 50) }
        @Sendable func expected(_ i: Int, radius: Double, limit: Int? = nil) async throws -> [UInt8] {
            Array(buffer: try await repository.nearbyBody(near: points[i], within: radius, limit: limit).body)
        }
        try await server.test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            // Seven requests in one write.
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
            #expect(answers[0].body == (try await expected(0, radius: 800)))
            #expect(String(decoding: answers[1].body, as: UTF8.self) == "ok\n")
            #expect(answers[2].body == (try await expected(1, radius: 2_000)))
            #expect(answers[3].body == (try await expected(2, radius: 500)))
            #expect(answers[4].body == (try await expected(3, radius: 1_500, limit: 3)))
            #expect(answers[6].body == (try await expected(4, radius: 700)))
        }
        #expect(server.state.metrics.requestCount(route: "/locations/nearby", status: 200) == 5)
    }
}
