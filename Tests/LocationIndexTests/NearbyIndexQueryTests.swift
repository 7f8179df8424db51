import Foundation
import LocationCore
@testable import LocationIndex
import LocSimTestHelpers
import Testing

@Suite("Radius queries against a brute-force haversine", .timeLimit(.minutes(1)), .ownThread)
struct NearbyIndexQueryTests {
    static let kinds = ["", "shrine", "cafe", "park", "station"]

    /// 4,000 seeded places concentrated where boxes go wrong: both poles, ±180°, the equator,
    /// a dense city, plus a uniform background. Coordinates are on the 1e-7° storage grid.
    static func places(seed: UInt64) -> [Place] {
        var random = SplitMix64(seed: seed)
        var places: [Place] = []
        func add(_ latitude: Double, _ longitude: Double) {
            let number = places.count
            places.append(
                Place(
                    id: "p\(number)", name: "Place \(number)",
                    coordinate: gridCoordinate(latitude: latitude, longitude: longitude),
                    kind: kinds[number % kinds.count], level: number % 3 == 0 ? nil : number % 7))
        }
        for _ in 0..<600 { add(Double.random(in: 84...90, using: &random), Double.random(in: -180..<180, using: &random)) }
        for _ in 0..<600 { add(Double.random(in: -90 ... -84, using: &random), Double.random(in: -180..<180, using: &random)) }
        for _ in 0..<800 {
            let offset = Double.random(in: -1.5...1.5, using: &random)
            add(Double.random(in: -70...70, using: &random), 180 + offset)
        }
        for _ in 0..<600 { add(Double.random(in: -1...1, using: &random), Double.random(in: -180..<180, using: &random)) }
        for _ in 0..<600 {
            add(35.68 + Double.random(in: -0.03...0.03, using: &random), 139.76 + Double.random(in: -0.03...0.03, using: &random))
        }
        for _ in 0..<800 {
            add(asin(Double.random(in: -1...1, using: &random)) * 180 / .pi, Double.random(in: -180..<180, using: &random))
        }
        // Exact edge values.
        add(90, 0); add(90, 123.4567891); add(-90, -45); add(0, -180); add(45, -180); add(-12.5, 179.9999999)
        // Exact ties in distance: ids decide the order.
        add(10, 10); add(10, 10); add(10, 10)
        return places
    }

    struct Query: CustomStringConvertible {
        var center: Coordinate
        var radius: Double
        var limit: Int?
        var description: String { "\(center) r=\(radius) limit=\(limit.map(String.init) ?? "none")" }
    }

    static func queries(seed: UInt64, places: [Place]) -> [Query] {
        var random = SplitMix64(seed: seed)
        var queries: [Query] = []
        func radius() -> Double { exp(Double.random(in: log(1.0)...log(2_000_000.0), using: &random)) }
        func add(_ latitude: Double, _ longitude: Double, _ radius: Double) {
            let limit: Int? = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 1...40, using: &random) : nil
            queries.append(Query(center: gridCoordinate(latitude: latitude, longitude: longitude), radius: radius, limit: limit))
        }
        for _ in 0..<300 { add(Double.random(in: 80...90, using: &random), Double.random(in: -180..<180, using: &random), radius()) }
        for _ in 0..<300 { add(Double.random(in: -90 ... -80, using: &random), Double.random(in: -180..<180, using: &random), radius()) }
        for _ in 0..<500 {
            add(Double.random(in: -75...75, using: &random), 180 + Double.random(in: -1...1, using: &random), radius())
        }
        for _ in 0..<400 { add(Double.random(in: -1...1, using: &random), Double.random(in: -180..<180, using: &random), radius()) }
        // Near a place, with small radii, so 1 m … 1 km queries find something.
        for _ in 0..<900 {
            let place = places[Int.random(in: 0..<places.count, using: &random)].coordinate
            let center = place.destination(
                distance: Double.random(in: 0...30, using: &random), bearing: Double.random(in: 0..<360, using: &random))
            add(center.latitude, center.longitude, exp(Double.random(in: 0...log(1_000.0), using: &random)))
        }
        for _ in 0..<600 {
            add(asin(Double.random(in: -1...1, using: &random)) * 180 / .pi, Double.random(in: -180..<180, using: &random), radius())
        }
        // Exactly at the poles and on the antimeridian; the largest radius.
        add(90, 0, 500_000); add(-90, 100, 1_000); add(0, -180, 200_000); add(10, 10, 1)
        add(12, 34, Sphere.halfCircumference); add(-89.9999999, 179.9999999, 2_000_000)
        return queries
    }

    @Test("Same ids, order and distances as brute force on 3,000 seeded queries", arguments: [0.02, 1.0])
    func matchesBruteForce(tileSize: Double) throws {
        let places = Self.places(seed: 42)
        let queries = Self.queries(seed: 7, places: places)
        #expect(queries.count > 3_000)
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(
                path: directory.file("q.sqlite"), configuration: .init(tileSize: tileSize))
            try index.importPlaces(places)
            var nonEmpty = 0
            let reference = BruteForce(places)
            reference.selfCheck(queries.prefix(10).map { ($0.center, $0.radius) })
            for query in queries {
                let expected = reference.answer(center: query.center, radius: query.radius, limit: query.limit)
                let actual = try index.places(near: query.center, within: query.radius, limit: query.limit)
                #expect(actual == expected, "\(query)")
                if actual != expected { break }
                if !expected.isEmpty { nonEmpty += 1 }
            }
            // The queries must exercise something: many find places.
            #expect(nonEmpty > queries.count / 3)
        }
    }

    @Test("A crowded spot is split into several tile rows and still found whole")
    func crowdedSpot() throws {
        let center = gridCoordinate(latitude: 48.8566, longitude: 2.3522)
        let places = (0..<6_000).map { number in
            Place(id: String(format: "crowd-%05d", number), name: "A rather long place name number \(number)", coordinate: center)
        }
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("crowd.sqlite"))
            try index.importPlaces(places)
            let statistics = try index.statistics()
            #expect(statistics.tileRowCount > 1)
            let found = try index.places(near: center, within: 10)
            #expect(found.map(\.place.id) == places.map(\.id).sorted())
            #expect(try index.places(near: center, within: 10, limit: 3).map(\.place.id) == ["crowd-00000", "crowd-00001", "crowd-00002"])
        }
    }

    @Test("The tile read uses the integer primary key (EXPLAIN QUERY PLAN)")
    func queryPlanUsesPrimaryKey() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("plan.sqlite"))
            let plan = try index.tileQueryPlan()
            #expect(plan.count == 1)
            #expect(plan.first?.contains("SEARCH placeTile USING INTEGER PRIMARY KEY") == true, "\(plan)")
        }
    }

    @Test("Rejects radius ≤ 0, NaN, infinite, below 1 m or above half the circumference, and limit ≤ 0",
        arguments: [0.0, -5, .nan, .infinity, 0.5, Sphere.halfCircumference * 1.0001])
    func rejectsBadRadius(radius: Double) throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("r.sqlite"))
            let center = try Coordinate(latitude: 1, longitude: 2)
            let error = try #require(throws: IndexError.self) { try index.places(near: center, within: radius) }
            #expect(error.code == .invalidArgument)
            #expect(error.parameter == "radius")
            #expect(try index.places(near: center, within: Sphere.halfCircumference).isEmpty)
        }
    }

    @Test("Rejects a limit ≤ 0", arguments: [0, -1])
    func rejectsBadLimit(limit: Int) throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("l.sqlite"))
            let error = try #require(throws: IndexError.self) {
                try index.places(near: Coordinate(latitude: 1, longitude: 2), within: 10, limit: limit)
            }
            #expect(error.code == .invalidArgument)
            #expect(error.parameter == "limit")
        }
    }

    @Test("The offline repository answers fetchNearby like the index, and rejects bad lat/lng")
    func offlineRepository() async throws {
        let places = Self.places(seed: 3)
        try await withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("repo.sqlite"))
            try index.importPlaces(places)
            let repository = OfflineLocationRepository(index: index)
            let center = try Coordinate(latitude: 35.68, longitude: 139.76)
            let fetched = try await repository.fetchNearby(center: center, radius: 5_000)
            #expect(fetched == bruteForce(places, center: center, radius: 5_000).map(\.place))
            #expect(!fetched.isEmpty)
            let bySeedSpelling = try await repository.fetchNearby(lat: 35.68, lng: 139.76, radius: 5_000)
            #expect(bySeedSpelling == fetched)
            await #expect(throws: CoordinateError.self) { _ = try await repository.fetchNearby(lat: .nan, lng: 0, radius: 10) }
            await #expect(throws: CoordinateError.self) { _ = try await repository.fetchNearby(lat: 91, lng: 0, radius: 10) }
            await #expect(throws: CoordinateError.self) { _ = try await repository.fetchNearby(lat: 0, lng: 181, radius: 10) }
            #expect(try await repository.fetchNearby(center: center, radius: 5_000, limit: 5) == Array(fetched.prefix(5)))
            let replayed = await repository.respond(center: center, radius: 5_000, at: .seconds(1))
            #expect(try replayed.result.get() == fetched)
            #expect(replayed.latency == .zero)
        }
    }
}
