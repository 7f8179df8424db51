import Foundation
import HTTPTypes
import Hummingbird
import LocationCore
import LocationIndex
import LocSimTestHelpers
import MapFeature
import NIOCore
@testable import NearbyServer
import Testing

/// A temporary index of seeded places: a dense cluster around Tokyo Station, rings around both
/// poles, places on both sides of the antimeridian, and names that need JSON escaping.
final class TestIndex: Sendable {
    let directory: String
    let index: NearbyIndex
    let places: [Place]

    static let tokyo = try! Coordinate(latitude: 35.6812, longitude: 139.7671)

    init() throws {
        directory = try newScratchFolder("locsim-serve-index")
        var random = SplitMix64(seed: 13)
        var places: [Place] = []
        let kinds = ["shrine", "park", "cafe", ""]
        // Tokyo: 3,000 places within about 60 km, denser near the centre.
        for i in 0..<3_000 {
            let distance = 60_000 * pow(random.uniform(0...1), 2)
            let bearing = random.uniform(0...360)
            let level: Int? = i % 5 == 0 ? nil : Int(random.next() % 10)
            places.append(Place(
                id: "tokyo-\(i)", name: "Place \(i)", coordinate: Self.tokyo.destination(distance: distance, bearing: bearing),
                kind: kinds[i % kinds.count], level: level))
        }
        // Two places at exactly the same spot: ties go by id.
        places.append(Place(id: "tie-b", name: "Tie B", coordinate: Self.tokyo, kind: "cafe"))
        places.append(Place(id: "tie-a", name: "Tie A", coordinate: Self.tokyo, kind: "cafe"))
        // Names that need escaping, and non-ASCII text.
        let awkward = ["quote \" here", "back\\slash", "tab\tnew\nline\r", "bell \u{07} and \u{1F}", "東京駅 🚉", "del \u{7F}", "/slash/"]
        for (i, name) in awkward.enumerated() {
            places.append(Place(
                id: "awkward-\(i)", name: name, coordinate: Self.tokyo.destination(distance: Double(i + 1) * 7, bearing: 45),
                kind: name))
        }
        // The poles and the antimeridian.
        for pole in [90.0, -90.0] {
            let centre = try Coordinate(latitude: pole, longitude: 0)
            for i in 0..<60 {
                places.append(Place(
                    id: "pole\(Int(pole))-\(i)", name: "Polar \(i)",
                    coordinate: centre.destination(distance: random.uniform(0...300_000), bearing: random.uniform(0...360))))
            }
        }
        places.append(Place(id: "pole-exact", name: "North Pole", coordinate: try Coordinate(latitude: 90, longitude: 0)))
        for i in 0..<200 {
            let longitude = i % 2 == 0 ? 180 - random.uniform(0...1.5) : -180 + random.uniform(0...1.5)
            places.append(Place(
                id: "anti-\(i)", name: "Date line \(i)",
                coordinate: try Coordinate(latitude: -16.5 + random.uniform(-1...1), longitude: longitude)))
        }
        index = try NearbyIndex(path: directory + "/places.sqlite")
        try index.importPlaces(places)
        self.places = places
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// A wall clock a test moves by hand.
final class ManualWallClock: Sendable {
    private let current: Locked<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Locked(start) }
    var now: Date { current.withLock { $0 } }
    func advance(seconds: Double) { current.withLock { $0 += seconds } }
}

/// Access-log lines collected in memory; `changes` wakes a test waiting for a line.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    let changes = Changes()
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) {
        lines.withLock { $0.append(line) }
        changes.signal()
    }

    /// Waits (30 s at most) until a line contains `text`, and returns it.
    @discardableResult
    func wait(for text: String) async throws -> String {
        try await changes.wait(for: "an access-log line with '\(text)'", account: { "lines: \(self.all)" }) {
            self.all.contains { $0.contains(text) }
        }
        return all.first { $0.contains(text) } ?? ""
    }
}

/// A server over `index`, timed by `clock` and a manual wall clock unless given.
func makeServer(
    _ configuration: NearbyServer.Configuration, repository: any LocationRepository, clock: some Clock<Duration> = ContinuousClock(),
    wall: ManualWallClock = ManualWallClock(), log: LogLines = LogLines(), format: AccessLog.Format = .text
) -> NearbyServer {
    NearbyServer(
        configuration: configuration, repository: repository, time: ServerTime(clock: clock, now: { wall.now }),
        accessLog: AccessLog(format: format, write: log.append))
}

/// The query string of a nearby request.
func nearbyURI(_ center: Coordinate, radius: Double? = nil, limit: Int? = nil) -> String {
    var uri = "/locations/nearby?lat=\(center.latitude)&lng=\(center.longitude)"
    if let radius { uri += "&radius=\(radius)" }
    if let limit { uri += "&limit=\(limit)" }
    return uri
}

/// The `{"error":{…}}` body.
struct ErrorBody: Decodable {
    struct Inner: Decodable {
        var code: String
        var message: String
        var parameter: String?
    }
    var error: Inner
}

extension TestResponse {
    var bytes: Data { Data(body.readableBytesView) }
    func decodePlaces() throws -> [Place] { try JSONDecoder().decode(NearbyLocationsResponse.self, from: bytes).places }
    func decodeError() throws -> ErrorBody.Inner { try JSONDecoder().decode(ErrorBody.self, from: bytes).error }
}

extension HTTPFields {
    static func player(_ id: String) -> HTTPFields { [HTTPField.Name("X-Player-ID")!: id] }
}
