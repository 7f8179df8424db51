import Foundation
import LocSimTestHelpers
import LocationCore
import LocationTestSupport
import MapFeature
import Testing

/// The three phone recordings in ../shared/data/tracks replayed through `MapViewModel` against
/// the GeoNames places around them, compared with an independent Python implementation of the
/// rule (Fixtures/reference/phone_replays.py → Fixtures/phone-replays.json).
@Suite(.enabled(if: SharedData.isPresent, SharedData.absentReason), .timeLimit(.minutes(1)))
struct PhoneRecordingReplayTests {
    struct Reference: Decodable {
        var fixes: Int
        var fetches: [[FetchEntry]]
        var placesShown: Int
    }

    enum FetchEntry: Decodable, Equatable {
        case number(Double)
        case text(String)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            do { self = .number(try container.decode(Double.self)) } catch { self = .text(try container.decode(String.self)) }
        }
    }

    static let references: [String: Reference] = {
        let path = PackagePaths.path("Tests/MapFeatureTests/Fixtures/phone-replays.json")
        do {
            return try JSONDecoder().decode([String: Reference].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            fatalError("cannot read \(path): \(error)")
        }
    }()

    @MainActor
    @Test("Each recording fetches exactly when the reference says, with the same answers", arguments: [
        "berkeley-run-2015", "orinda-walk-2018", "tokyo-iphone-2018",
    ])
    func replay(track: String) async throws {
        let reference = try #require(Self.references[track])
        let index = try GeoNamesPlaces.index()
        let log = try await MapReplay(repository: index).run(routeFile: SharedData.path("tracks/\(track).gpx"))

        log.expectWellBehaved()
        #expect(log.acceptedFixes.count == reference.fixes)
        let epoch = try #require(log.epoch)
        let actual = zip(log.fetches, log.answers).map { request, answer -> [FetchEntry] in
            let offset = Double(VirtualTime.microseconds(request.time) - VirtualTime.microseconds(epoch)) / 1e6
            return [.number(offset), .text(request.reason.rawValue), .number(Double(answer.count))]
        }
        #expect(log.fetches.count == reference.fetches.count)
        for (index, (mine, theirs)) in zip(actual, reference.fetches).enumerated() where mine != theirs {
            Issue.record("fetch \(index): \(mine) but the reference has \(theirs)")
            break
        }
        #expect(log.placesEverShown.count == reference.placesShown)
    }

    @MainActor
    @Test("Replaying the Tokyo recording twice gives the identical log")
    func determinism() async throws {
        let index = try GeoNamesPlaces.index()
        let replay = MapReplay(repository: RecordingRepository(clock: VirtualClock(), otherwise: .forward(to: index, after: .milliseconds(1_700))))
        let path = SharedData.path("tracks/tokyo-iphone-2018.gpx")
        let first = try await replay.run(routeFile: path)
        let second = try await MapReplay(repository: RecordingRepository(clock: VirtualClock(), otherwise: .forward(to: index, after: .milliseconds(1_700))))
            .run(routeFile: path)
        #expect(first == second)
        first.expectWellBehaved()
        #expect(first.coalescedCount > 0, "with 1.7 s answers some fixes must have been coalesced")
    }
}

/// GeoNames cities1000 from ../shared/data, loaded once into an in-memory index (ids `row<N>`,
/// N the 1-based data row).
enum GeoNamesPlaces {
    private static let loaded: Result<InMemoryNearbyIndex, any Error> = Result {
        let path = SharedData.path("places/geonames-cities1000.csv")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var places: [Place] = []
        places.reserveCapacity(150_000)
        for (number, line) in text.split(whereSeparator: \.isNewline).enumerated().dropFirst() {
            let fields = splitCSV(line)
            guard fields.count == 6, let latitude = Double(fields[0]), let longitude = Double(fields[1]) else {
                throw CSVError(message: "\(path):\(number + 1): expected lat,lon,name,admin1,admin2,cc")
            }
            places.append(Place(id: "row\(number)", name: fields[2], coordinate: try Coordinate(latitude: latitude, longitude: longitude)))
        }
        guard places.count > 100_000 else { throw CSVError(message: "\(path): only \(places.count) places read") }
        return InMemoryNearbyIndex(places: places)
    }

    static func index() throws -> InMemoryNearbyIndex { try loaded.get() }

    struct CSVError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Splits one CSV line, honouring double quotes (and `""` inside them).
    static func splitCSV(_ line: Substring) -> [String] {
        let characters = Array(line)
        var fields: [String] = [], field = "", quoted = false, index = 0
        while index < characters.count {
            let character = characters[index]
            if quoted {
                if character == "\"" {
                    if index + 1 < characters.count, characters[index + 1] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else if character != "\r" {
                field.append(character)
            }
            index += 1
        }
        fields.append(field)
        return fields
    }
}
