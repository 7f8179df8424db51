import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import LocationIndex
import LocationSimulation
import LocationTestSupport
import MapFeature
import Testing

/// The whole harness: GPX files and synthetic motion (LocationSimulation) through `MapViewModel`
/// in virtual time, against the offline SQLite index (LocationIndex).
@MainActor
@Suite(.timeLimit(.minutes(1))) struct OfflineIndexReplayTests {
    nonisolated static let shibuya = Coordinate(uncheckedLatitude: 35.6580, longitude: 139.7016)
    nonisolated static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// 2,000 places within 8 km of Shibuya, coordinates already at the index's 1e-7° resolution
    /// so the index and the in-memory copy hold the very same values.
    static let places: [Place] = {
        var state: UInt64 = 6
        func unit() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) * 0x1.0p-53
        }
        func e7(_ degrees: Double) -> Double { Double(Int32((degrees * 1e7).rounded())) / 1e7 }
        return (0..<2_000).map { index in
            let point = shibuya.destination(distance: 8_000 * unit().squareRoot(), bearing: 360 * unit())
            return Place(id: String(format: "p%04d", index), name: "Shrine \(index)",
                         coordinate: Coordinate(uncheckedLatitude: e7(point.latitude), longitude: e7(point.longitude)),
                         kind: "shrine", level: index % 5)
        }
    }()

    /// A temporary index holding `places`, removed after `body` whatever happens.
    func withIndex<T>(_ places: [Place], _ body: (NearbyIndex) async throws -> T) async throws -> T {
        try await withScratchFolder("locsim-map-index") { folder in
            let index = try NearbyIndex(path: folder + "/map.sqlite")
            try index.importPlaces(places)
            return try await body(index)
        }
    }

    /// An hour's seeded random walk around Shibuya with a realistic receiver: a poor start-up
    /// accuracy (400 m settling over 90 s), outliers and drop-outs, delivered as fast as the
    /// harness asks.
    func walk(seed: UInt64) throws -> SyntheticMotion<VirtualClock> {
        let noise = NoiseModel(seed: seed &+ 1, warmUp: .init(initialAccuracy: 400, duration: 90),
                               outliers: .init(probability: 0.02, distance: 50...400),
                               dropouts: .init(meanInterval: 600, duration: 20))
        return try SyntheticMotion(
            path: .randomWalk(from: Self.shibuya, within: 3_000), speed: .walk, seed: seed,
            configuration: .init(pacing: .virtual, duration: 3_600, startTime: Self.start, noise: noise),
            clock: VirtualClock(autoAdvance: true), now: { Self.start })
    }

    @Test("Synthetic motion against the SQLite index: well behaved, deterministic, same as the in-memory index")
    func syntheticAgainstIndex() async throws {
        try await withIndex(Self.places) { index in
            let offline = OfflineLocationRepository(index: index)
            func replay(_ repository: any LocationRepository) async throws -> ReplayLog {
                let server = RecordingRepository(clock: VirtualClock(), otherwise: .forward(to: repository, after: .milliseconds(1_300)))
                return try await MapReplay(repository: server).run(walk(seed: 42))
            }
            let first = try await replay(offline)
            first.expectWellBehaved()
            #expect(first.fetches.count > 100)
            #expect(first.placesEverShown.count > 500)
            #expect(!first.rejectedFixes.isEmpty, "the receiver's warm-up fixes (worse than 100 m) must be rejected")
            #expect(try await replay(offline) == first)
            #expect(try await replay(InMemoryNearbyIndex(places: Self.places)) == first)
        }
    }

    @Test("A GPX file replays the same through run(routeFile:) and through a GPXReplay of it")
    func gpxFileAndGPXReplay() async throws {
        // A walk written by the synthetic mover, then read back both ways.
        var fixes: [Fix] = []
        for try await fix in try walk(seed: 9) where fix.hasPosition { fixes.append(fix) }
        try await withScratchFolder("locsim-map-walk") { folder in
            let path = folder + "/walk.gpx"
            let writer = try GPXWriter(path: path)
            for fix in fixes { try writer.write(fix) }
            try writer.finish()

            try await withIndex(Self.places) { index in
                let replay = MapReplay(repository: OfflineLocationRepository(index: index))
                let fromFile = try await replay.run(routeFile: path)
                let provider = try GPXReplay(
                    path: ReplayPath(document: GPXDocument(contentsOfFile: path)), configuration: .init(pacing: .virtual),
                    clock: VirtualClock(autoAdvance: true), now: { Self.start })
                let fromProvider = try await replay.run(provider)
                fromFile.expectWellBehaved()
                #expect(fromProvider.fetches == fromFile.fetches)
                #expect(fromProvider.answers.map(\.count) == fromFile.answers.map(\.count))
                #expect(fromFile.acceptedFixes.count == fixes.count)
            }
        }
    }
}

/// The phone recordings against the GeoNames places imported into the SQLite index: the same
/// fetches and answers as the Python reference (Fixtures/phone-replays.json).
@MainActor
@Suite(.enabled(if: SharedData.isPresent, SharedData.absentReason), .timeLimit(.minutes(1)))
struct PhoneRecordingIndexReplayTests {
    @Test("Each recording against the imported GeoNames index matches the reference", arguments: [
        "berkeley-run-2015", "orinda-walk-2018", "tokyo-iphone-2018",
    ])
    func replay(track: String) async throws {
        let reference = try #require(PhoneRecordingReplayTests.references[track])
        let index = try await Self.geoNames.value
        let log = try await MapReplay(repository: OfflineLocationRepository(index: index))
            .run(routeFile: SharedData.path("tracks/\(track).gpx"))
        log.expectWellBehaved()
        let epoch = try #require(log.epoch)
        let actual = zip(log.fetches, log.answers).map { request, answer -> [PhoneRecordingReplayTests.FetchEntry] in
            let offset = Double(VirtualTime.microseconds(request.time) - VirtualTime.microseconds(epoch)) / 1e6
            return [.number(offset), .text(request.reason.rawValue), .number(Double(answer.count))]
        }
        #expect(actual.count == reference.fetches.count)
        for (index, (mine, theirs)) in zip(actual, reference.fetches).enumerated() where mine != theirs {
            Issue.record("fetch \(index): \(mine) but the reference has \(theirs)")
            break
        }
        #expect(log.placesEverShown.count == reference.placesShown)
    }

    /// GeoNames' places imported once for the three recordings, which only read them (an import
    /// of the 144,563 places is seconds of a debug build's CPU), in the test process's shared
    /// scratch folder (removed when the process exits).
    nonisolated static let geoNames: Task<NearbyIndex, any Error> = Task {
        let index = try NearbyIndex(path: processScratchFolder("locsim-geonames") + "/geonames.sqlite")
        let report = try index.importPlaces(fromFile: SharedData.path("places/geonames-cities1000.csv"), options: ImportOptions(format: .geoNames))
        guard report.placeCount > 140_000 else { throw HarnessError("GeoNames import: \(report.placeCount) places") }
        return index
    }
}
