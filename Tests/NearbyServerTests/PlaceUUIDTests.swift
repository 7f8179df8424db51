import Foundation
import HTTPTypes
import LocationCore
import LocationIndex
import LocSimTestHelpers
@testable import NearbyServer
import Testing

/// `--id-format uuid`: the same UUIDs as Python's `uuid.uuid5` in locsim's namespace
/// (scripts/reference/place_uuid.py, run by the test), in every nearby answer.
@Suite(.timeLimit(.minutes(1))) struct PlaceUUIDTests {
    static let ids = [
        "mission-00000", "tokyo-01959", "", "a", "東京駅 🚉", "quote \" here", String(repeating: "x", count: 300),
        "8B0D0A32-D03F-5A98-AFAC-89869B64BDB9", "8b0d0a32-d03f-5a98-afac-89869b64bdb9", "8b0d0a32-d03f-5a98-afac-89869b64bdbg",
        "8b0d0a32d03f5a98afac89869b64bdb9",
    ]

    @Test("name-based UUIDs as Python's uuid5 gives them; an id that is already a UUID unchanged")
    func matchesPython() async throws {
        let script = PackagePaths.path("scripts/reference/place_uuid.py")
        let outcome = try await ChildProcess.run(["/usr/bin/python3", script] + Self.ids)
        #expect(outcome.termination == .exited(0), "\(outcome.errors)")
        let expected = outcome.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(expected.count == Self.ids.count)
        #expect(Self.ids.map(PlaceUUID.uuid(for:)) == expected)
        #expect(Place.isUUID(PlaceUUID.uuid(for: "mission-00000")))
    }

    @Test("serve --id-format uuid: every id in the answer is its UUID, in the same order; health is the backend's")
    func answersCarryUUIDs() async throws {
        let places = try TestIndex()
        defer { places.remove() }
        let plain = OfflineLocationRepository(index: places.index)
        let stored = makeServer(try NearbyServer.Configuration(), repository: plain)
        let mapped = makeServer(try NearbyServer.Configuration(), repository: UUIDIdentifiedRepository(base: plain))
        for uri in [nearbyURI(TestIndex.tokyo, radius: 5_000), nearbyURI(TestIndex.tokyo, radius: 500, limit: 20)] {
            let before = try await stored.test(.router) { try await $0.execute(uri: uri, method: .get) }
            let after = try await mapped.test(.router) { try await $0.execute(uri: uri, method: .get) }
            #expect(after.status == .ok)
            let storedIDs = try Self.ids(in: before)
            #expect(!storedIDs.isEmpty)
            #expect(try Self.ids(in: after) == storedIDs.map(PlaceUUID.uuid(for:)))
        }
        let down = UUIDIdentifiedRepository(base: AuthTests.DownBackend(problem: "backend x is down", warnings: []))
        #expect(await down.healthProblem() == "backend x is down")
    }

    static func ids(in response: TestResponse) throws -> [String] {
        struct Body: Decodable {
            struct Location: Decodable { var id: String }
            var locations: [Location]
        }
        return try JSONDecoder().decode(Body.self, from: response.bytes).locations.map(\.id)
    }
}
