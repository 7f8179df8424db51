import Foundation
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import MapFeature
import Testing

/// Scheduled GPS trouble against scripts/reference/make_trouble_reference.py, which computes the
/// reported fixes and the game's fetches from the definitions, with its own copy of the seeded
/// streams (Fixtures/trouble-reference.json).
@Suite(.timeLimit(.minutes(1))) struct GPSTroubleTests {
    struct Reference: Decodable {
        struct Window: Decodable {
            let kind: String
            let at: Int64
            let `for`: Int64?
            let initialAccuracy: Double?
            let recovery: Int64?
            let accuracy: [Double]?
            let correlationTime: Int64?
            let distance: Double?
            let bearing: Double?
            let honest: Bool?
            let age: Int64?
        }
        struct Case: Decodable {
            let name: String
            let seed: UInt64
            let windows: [Window]
            let dropped: [Int]
            /// `[true index, time offset, latitude, longitude, accuracy or nil]`.
            let changed: [[Double?]]
            let fetches: [[Double]]
        }
        let track: [[Double]]
        let cases: [Case]
    }

    static let reference: Reference = {
        do {
            return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: TestFiles.fixture("trouble-reference.json")))
        } catch {
            fatalError("Fixtures/trouble-reference.json: \(error) (python3 scripts/reference/make_trouble_reference.py)")
        }
    }()

    struct UnknownKind: Error { let kind: String }

    static func window(_ w: Reference.Window) throws -> TroubleWindow {
        let kind: TroubleWindow.Kind
        switch w.kind {
        case "signalLoss": kind = .signalLoss(initialAccuracy: try #require(w.initialAccuracy), recovery: .seconds(try #require(w.recovery)))
        case "coldStart": kind = .coldStart(initialAccuracy: try #require(w.initialAccuracy), recovery: .seconds(try #require(w.recovery)))
        case "urbanCanyon":
            let range = try #require(w.accuracy)
            kind = .urbanCanyon(accuracy: range[0]...range[1], correlationTime: .seconds(try #require(w.correlationTime)))
        case "jump": kind = .jump(distance: try #require(w.distance), bearing: w.bearing, honestAccuracy: w.honest ?? false)
        case "stale": kind = .stale(age: .seconds(try #require(w.age)))
        default: throw UnknownKind(kind: w.kind)
        }
        return TroubleWindow(kind, at: .seconds(w.at), for: .seconds(w.for ?? 0))
    }

    @Test("Each trouble kind reports the reference's fixes, and the game fetches at its times",
          arguments: reference.cases.map(\.name))
    func trouble(name: String) throws {
        let reference = Self.reference
        let testCase = try #require(reference.cases.first { $0.name == name })
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        var trouble = try GPSTrouble(windows: testCase.windows.map(Self.window), seed: testCase.seed)
        let changed = Dictionary(uniqueKeysWithValues: testCase.changed.map { (Int($0[0]!), $0) })
        var reported: [Fix] = []
        for (index, point) in reference.track.enumerated() {
            let truth = Fix(time: start.addingTimeInterval(Double(index)), coordinate: try Coordinate(latitude: point[0], longitude: point[1]),
                            source: .gpx)
            let (fix, effects) = trouble.apply(to: truth)
            guard let fix else {
                #expect(testCase.dropped.contains(index), "fix \(index) dropped")
                #expect(effects.count == 1)
                continue
            }
            #expect(!testCase.dropped.contains(index), "fix \(index) kept")
            if let want = changed[index] {
                #expect(!effects.isEmpty, "fix \(index) says why it changed")
                #expect(fix.time == start.addingTimeInterval(want[1]!), "fix \(index) time")
                let coordinate = try #require(fix.coordinate)
                #expect(abs(coordinate.latitude - want[2]!) < 1e-9 && abs(coordinate.longitude - want[3]!) < 1e-9,
                        "fix \(index): \(coordinate) against \(want[2]!), \(want[3]!)")
                if let accuracy = want[4] {
                    #expect(fix.horizontalAccuracy.map { abs($0 - accuracy) < 1e-9 } == true, "fix \(index) accuracy")
                } else {
                    #expect(fix.horizontalAccuracy == nil, "fix \(index) accuracy")
                }
            } else {
                #expect(fix == truth, "fix \(index) unchanged")
            }
            reported.append(fix)
        }
        var throttle = FetchThrottle()
        var fetches: [[Double]] = []
        for fix in reported {
            guard throttle.assess(fix) == nil, let center = fix.coordinate, throttle.shouldFetch(center: center, at: fix.time) != nil else { continue }
            throttle.recordFetch(center: center, at: fix.time)
            throttle.recordSuccess()
            let offset = fix.time.timeIntervalSince(start)
            fetches.append([offset, offset])
        }
        #expect(fetches == testCase.fetches)
    }

    @Test("A street canyon's accuracy stays in its range and its error drifts rather than jitters")
    func canyonIsCorrelated() throws {
        var trouble = try GPSTrouble(windows: [TroubleWindow(.urbanCanyon(), at: .zero, for: .seconds(3_600))], seed: 42)
        let start = Date(timeIntervalSince1970: 0)
        let place = try Coordinate(latitude: 10, longitude: 10)
        var offsets: [Double] = []
        for second in 0..<3_600 {
            let (fix, _) = trouble.apply(to: Fix(time: start.addingTimeInterval(Double(second)), coordinate: place, source: .synthetic))
            let reported = try #require(fix)
            #expect((20...80).contains(try #require(reported.horizontalAccuracy)))
            offsets.append(try #require(reported.coordinate).distance(to: place))
        }
        // Lag-1 correlation of a 30 s Gauss–Markov error is about exp(−1/30) ≈ 0.97; white noise's is 0.
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        let centred = offsets.map { $0 - mean }
        let products: [Double] = zip(centred, centred.dropFirst()).map { $0 * $1 }
        let squares: [Double] = centred.map { $0 * $0 }
        let lag1 = products.reduce(0, +) / squares.reduce(0, +)
        #expect(lag1 > 0.8)
    }

    @Test("TroubledFixes: a provider's fixes as GPSTrouble reports them, each change told with its offset; read again, the same")
    func troubledFixes() async throws {
        let start = Date(timeIntervalSince1970: 1_000)
        let place = try Coordinate(latitude: 10, longitude: 10)
        let fixes = (0..<120).map { Fix(time: start.addingTimeInterval(Double($0)), coordinate: place, source: .synthetic) }
        let windows = [TroubleWindow(.signalLoss(), at: .seconds(30), for: .seconds(20))]
        let told = Locked<[(offset: Double, dropped: Bool)]>([])
        let provider = try TroubledFixes(ArrayProvider(fixes: fixes), windows: windows, seed: 5) { offset, _, reported, _ in
            told.withLock { $0.append((offset, reported == nil)) }
        }
        var expected = try GPSTrouble(windows: windows, seed: 5)
        let direct = fixes.compactMap { expected.apply(to: $0).fix }
        var first: [Fix] = []
        for try await fix in provider { first.append(fix) }
        #expect(first == direct)
        #expect(first.count == 100, "20 s of signal loss drop 20 fixes")
        let notes = told.withLock { $0 }
        let droppedAt: [Double] = (30..<50).map { Double($0) }
        #expect(notes.filter(\.dropped).map(\.offset) == droppedAt)
        #expect(notes.contains { !$0.dropped && $0.offset == 50 }, "reacquiring from the first fix after the tunnel")
        var again: [Fix] = []
        for try await fix in provider { again.append(fix) }
        #expect(again == first)
    }

    @Test("Bad windows are refused, naming the key path",
          arguments: [
            (TroubleWindow(.signalLoss(), at: .seconds(-1), for: .seconds(5)), "trouble[1].at"),
            (TroubleWindow(.signalLoss(), at: .zero, for: .seconds(-5)), "trouble[1].for"),
            (TroubleWindow(.signalLoss(), at: .seconds(60)), "trouble[1].for"),  // no length: a recovery from nothing
            (TroubleWindow(.coldStart(recovery: .zero), at: .zero, for: .seconds(5)), "trouble[1].recovery"),
            (TroubleWindow(.urbanCanyon(accuracy: 0...80), at: .zero, for: .seconds(5)), "trouble[1].accuracy"),
            (TroubleWindow(.jump(distance: .nan), at: .zero), "trouble[1].distance"),
            (TroubleWindow(.jump(distance: 10, bearing: 400), at: .zero), "trouble[1].bearing"),
            (TroubleWindow(.stale(age: .zero), at: .zero), "trouble[1].age"),
            // Two minutes before a fix one minute in: before the route's first fix.
            (TroubleWindow(.stale(age: .seconds(120)), at: .seconds(60)), "trouble[1].age"),
          ])
    func badWindow(window: TroubleWindow, key: String) {
        let fine = TroubleWindow(.jump(distance: 10), at: .zero)
        #expect { try GPSTrouble(windows: [fine, window], seed: 1) } throws: { ($0 as? SimulationError)?.parameter == key }
    }
}

/// Fixes from an array, as a provider.
private struct ArrayProvider: LocationProvider {
    let fixes: [Fix]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Fix>
        mutating func next() async -> Fix? { rest.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: fixes[...]) }
}
