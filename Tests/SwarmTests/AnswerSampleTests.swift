import Foundation
import LocationCore
import LocationIndex
import LocSimTestHelpers
import MapFeature
import Swarm
import Testing

@Suite("VirtualSwarm answers from an index", .timeLimit(.minutes(1)))
struct AnswerSampleTests {
    @Test("sampled players' answers are the index's answers at their fetch centres")
    func answersMatchTheIndex() async throws {
        try await withScratchFolder("locsim-swarm-answers") { folder in
            let path = folder + "/answers.sqlite"
            let center = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
            var places: [Place] = []
            for row in 0..<30 {
                for column in 0..<30 {
                    let point = center.destination(distance: Double(row) * 150, bearing: 0)
                        .destination(distance: Double(column) * 150, bearing: 90)
                    places.append(Place(id: "p\(row)-\(column)", name: "Place \(row) \(column)", coordinate: point))
                }
            }
            let index = try NearbyIndex(path: path)
            try index.importPlaces(places)
            let rule = try FetchThrottle.Configuration(radius: 800)
            let configuration = try VirtualSwarm.Configuration(
                players: 6, durationSeconds: 600, seed: 5, mix: SwarmMix(parsing: "walk=0.5,drive=0.5"),
                area: SwarmArea(center: center, radius: 2000), starts: places.map(\.coordinate), throttle: rule)
            let swarm = VirtualSwarm(configuration: configuration)
            let load = try await swarm.run(shards: 2, answers: VirtualSwarm.AnswerSample(index: index, players: 3))
            #expect(load.sampledPlayers == 3)

            // The same three players through MapSession, each fetch asked of the index directly.
            var expected: [Int: Int] = [:]
            for player in 0..<3 {
                var session = MapSession(configuration: rule)
                let epoch = Date(timeIntervalSinceReferenceDate: 800_000_000)
                for (second, coordinate) in swarm.track(ofPlayer: player) {
                    let time = epoch.addingTimeInterval(Double(second))
                    if let request = session.receive(Fix(time: time, coordinate: coordinate, source: .synthetic)).request {
                        expected[try index.places(near: request.center, within: request.radius).count, default: 0] += 1
                        _ = session.complete(request, with: .success([]), at: time)
                    }
                }
            }
            #expect(load.answerSizes == expected)
            #expect(expected.count > 1, "the answers should differ in size")
        }
    }
}
