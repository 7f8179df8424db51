import Foundation
import LocSimTestHelpers
import LocationCore
import MapFeature
import Testing

/// The phone's delivery rules against scripts/reference/make_delivery_reference.py, which computes
/// the deliveries and the game's fetches from the rules' definitions
/// (Fixtures/delivery-reference.json).
@Suite(.ownThread) struct LocationDeliveryTests {
    struct Reference: Decodable {
        struct Rule: Decodable {
            struct Pause: Decodable { let radius: Double; let after: Int64 }
            let service: String
            let distanceFilter: Double?
            let cellSize: Double?
            let minimumInterval: Int64?
            let minimumDistance: Double?
            let maximumDelay: Int64?
            let pause: Pause?
            /// The app's moves: `[seconds, "background" | "foreground"]`.
            let app: [[Move]]?
            let maximumFixAge: Int64?
        }
        enum Move: Decodable {
            case time(Int64), state(String)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let time = try? container.decode(Int64.self) { self = .time(time) } else { self = .state(try container.decode(String.self)) }
            }
        }
        struct Delivery: Decodable { let t: Int64; let fixes: [Int]; let snapped: [Double]?; let accuracy: Double? }
        struct Case: Decodable {
            let name: String
            let track: String
            let rule: Rule
            let deliveries: [Delivery]
            let withheld: [String: Int]
            /// `[seconds, fix index]` of each fetch.
            let fetches: [[Int64]]
        }
        let t0: Int64
        let tracks: [String: [[Double]]]
        let cases: [Case]
    }

    static let reference: Reference = {
        let path = PackagePaths.path("Tests/MapFeatureTests/Fixtures/delivery-reference.json")
        do {
            return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            fatalError("Fixtures/delivery-reference.json: \(error) (python3 scripts/reference/make_delivery_reference.py)")
        }
    }()

    static func policy(_ rule: Reference.Rule) throws -> DeliveryPolicy {
        let service: DeliveryPolicy.Service
        switch rule.service {
        case "standard": service = .standard(distanceFilter: rule.distanceFilter)
        case "significantChange": service = .significantChange()
        case "reducedAccuracy":
            service = .reducedAccuracy(cellSize: try #require(rule.cellSize), minimumInterval: .seconds(try #require(rule.minimumInterval)))
        case "fused":
            service = .fused(
                minimumInterval: .seconds(try #require(rule.minimumInterval)), minimumDistance: try #require(rule.minimumDistance),
                maximumDelay: .seconds(try #require(rule.maximumDelay)))
        default: throw ReferenceError(service: rule.service)
        }
        let pause = rule.pause.map { DeliveryPolicy.AutomaticPause(radius: $0.radius, after: .seconds($0.after)) }
        return try DeliveryPolicy(service: service, automaticPause: pause)
    }

    struct ReferenceError: Error { let service: String }

    @Test("Each rule delivers the reference's fixes at its times, and the game fetches at its times",
          arguments: reference.cases.map(\.name))
    func rule(name: String) throws {
        let reference = Self.reference
        let testCase = try #require(reference.cases.first { $0.name == name })
        let points = try #require(reference.tracks[testCase.track])
        let start = Date(timeIntervalSince1970: TimeInterval(reference.t0))
        let fixes = try points.enumerated().map { index, point in
            Fix(time: start.addingTimeInterval(TimeInterval(index)), coordinate: try Coordinate(latitude: point[0], longitude: point[1]),
                source: .synthetic)
        }
        var delivery = LocationDelivery(policy: try Self.policy(testCase.rule))
        var moves: [(at: Date, state: String)] = try (testCase.rule.app ?? []).map { move in
            guard case .time(let seconds) = move[0], case .state(let state) = move[1] else { throw ReferenceError(service: "app") }
            return (start.addingTimeInterval(TimeInterval(seconds)), state)
        }
        var events: [DeliveryEvent] = []
        for fix in fixes {
            while let move = moves.first, move.at <= fix.time {
                moves.removeFirst()
                events += move.state == "background" ? delivery.moveToBackground(at: move.at) : delivery.moveToForeground(at: move.at)
            }
            events += delivery.offer(fix)
        }
        events += delivery.finish()

        var delivered: [(at: Date, batch: [Fix])] = []
        var withheld: [String: Int] = [:]
        for event in events {
            switch event {
            case .delivered(let batch, let at): delivered.append((at, batch))
            case .withheld(_, let reason): withheld[reason.name, default: 0] += 1
            }
        }
        #expect(withheld == testCase.withheld)
        try #require(delivered.count == testCase.deliveries.count)
        for (got, want) in zip(delivered, testCase.deliveries) {
            #expect(got.at == start.addingTimeInterval(TimeInterval(want.t)), "delivery at \(want.t) s")
            #expect(got.batch.map { Int($0.time.timeIntervalSince(start)) } == want.fixes, "delivery at \(want.t) s")
            if let snapped = want.snapped, let coordinate = got.batch.last?.coordinate {
                #expect(abs(coordinate.latitude - snapped[0]) < 1e-9 && abs(coordinate.longitude - snapped[1]) < 1e-9)
                #expect(got.batch.last?.horizontalAccuracy.map { abs($0 - (want.accuracy ?? 0)) < 1e-9 } == true)
            }
        }

        // The app as the seed writes it: reads `locations.last`, measures time on the delivery clock.
        var throttle = FetchThrottle(configuration: try FetchThrottle.Configuration(maximumFixAge: testCase.rule.maximumFixAge.map { .seconds($0) }))
        var fetches: [[Int64]] = []
        for (at, batch) in delivered {
            guard let last = batch.last, throttle.assess(last, deliveredAt: at) == nil, let center = last.coordinate else { continue }
            if throttle.shouldFetch(center: center, at: at) != nil {
                throttle.recordFetch(center: center, at: at)
                throttle.recordSuccess()
                fetches.append([Int64(at.timeIntervalSince(start)), Int64(last.time.timeIntervalSince(start))])
            }
        }
        #expect(fetches == testCase.fetches)
    }

    @Test("A status report without a position is withheld; a later fix is still the first delivered")
    func noPosition() throws {
        var delivery = LocationDelivery(policy: try DeliveryPolicy(service: .standard(distanceFilter: 10)))
        let time = Date(timeIntervalSince1970: 1_760_000_000)
        let status = Fix.noFix(time: time, source: .synthetic)
        #expect(delivery.offer(status) == [.withheld(status, because: .noPosition)])
        let fix = Fix(time: time.addingTimeInterval(1), coordinate: try Coordinate(latitude: 1, longitude: 2), source: .synthetic)
        #expect(delivery.offer(fix) == [.delivered([fix], at: fix.time)])
    }

    @Test("With batching, a fix too soon after one held in the batch says 'let through', not 'delivered': nothing was yet")
    func batchedReasonText() throws {
        var delivery = LocationDelivery(
            policy: try DeliveryPolicy(service: .fused(minimumInterval: .seconds(5), minimumDistance: 10, maximumDelay: .seconds(60))))
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        let first = Fix(time: start, coordinate: try Coordinate(latitude: 1, longitude: 2), source: .synthetic)
        let soon = Fix(time: start.addingTimeInterval(2), coordinate: try Coordinate(latitude: 1.001, longitude: 2), source: .synthetic)
        #expect(delivery.offer(first).isEmpty, "held in the batch")
        let withheld = delivery.offer(soon)
        #expect(withheld == [.withheld(soon, because: .tooSoon(elapsed: .seconds(2), minimumInterval: .seconds(5)))])
        #expect(WithholdReason.tooSoon(elapsed: .seconds(2), minimumInterval: .seconds(5)).description == "2.0 s after the last fix let through, sooner than 5.0 s")
        #expect(WithholdReason.tooClose(distance: 3, minimumDistance: 10).description == "3.0 m from the last fix let through, closer than 10.0 m")
    }

    @Test("After an automatic pause, coming to the foreground hands back the last fix before the pause (the receiver was off), then delivers again")
    func resumeAfterPause() throws {
        let policy = try DeliveryPolicy(service: .standard(distanceFilter: nil), automaticPause: .init(after: .seconds(10)))
        var delivery = LocationDelivery(policy: policy)
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        let place = try Coordinate(latitude: 48.8584, longitude: 2.2945)
        var withheld = 0
        for second in 0..<20 {
            let fix = Fix(time: start.addingTimeInterval(TimeInterval(second)), coordinate: place, source: .synthetic)
            for case .withheld(_, .pausedAutomatically) in delivery.offer(fix) { withheld += 1 }
        }
        #expect(withheld == 10)
        #expect(delivery.pausedSince == start.addingTimeInterval(10))
        #expect(delivery.moveToForeground(at: start.addingTimeInterval(20)) == [
            .delivered([Fix(time: start.addingTimeInterval(9), coordinate: place, source: .synthetic)], at: start.addingTimeInterval(20))
        ])
        let next = Fix(time: start.addingTimeInterval(20), coordinate: place, source: .synthetic)
        #expect(delivery.offer(next) == [.delivered([next], at: next.time)])
    }

    @Test("Approximate location keeps nothing finer than its cell: no altitude (a 2D fix), speed or course, and the cached fix on return is approximate too")
    func approximateKeepsNothingFiner() throws {
        var delivery = LocationDelivery(policy: try DeliveryPolicy(service: .reducedAccuracy()))
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        func fix(_ second: Int, latitude: Double) throws -> Fix {
            Fix(time: start.addingTimeInterval(TimeInterval(second)), coordinate: try Coordinate(latitude: latitude, longitude: -122.42),
                altitude: 20.2, speed: 1.875, course: 243.26, horizontalAccuracy: 4.9, verticalAccuracy: 3, mode: .threeDimensional,
                source: .synthetic)
        }
        let first = try fix(0, latitude: 37.7630152)
        guard case .delivered(let batch, _) = try #require(delivery.offer(first).first), let snapped = batch.first else {
            Issue.record("the first fix was not delivered")
            return
        }
        #expect(snapped.coordinate != first.coordinate && snapped.horizontalAccuracy.map { $0 > 3_500 } == true)
        #expect(snapped.altitude == nil && snapped.verticalAccuracy == nil && snapped.speed == nil && snapped.course == nil)
        #expect(snapped.mode == .twoDimensional)
        // Withheld as too soon, but known to the OS: the one handed back on return, approximate.
        let later = try fix(60, latitude: 37.7640152)
        _ = delivery.offer(later)
        _ = delivery.moveToBackground(at: start.addingTimeInterval(61))
        let back = start.addingTimeInterval(120)
        guard case .delivered(let cached, let at) = try #require(delivery.moveToForeground(at: back).first), let returned = cached.first else {
            Issue.record("nothing handed back on return")
            return
        }
        #expect(at == back && returned.time == later.time)
        #expect(returned.coordinate != later.coordinate && returned.horizontalAccuracy == snapped.horizontalAccuracy)
        #expect(returned.speed == nil && returned.course == nil && returned.altitude == nil)
    }

    @Test("Approximate location near a pole and the antimeridian snaps into range")
    func snapEdges() throws {
        let policy = try DeliveryPolicy(service: .reducedAccuracy())
        for (latitude, longitude) in [(89.999, 179.9999), (-89.99, -180.0), (0.0, 179.99), (45.0, -0.0001)] {
            var delivery = LocationDelivery(policy: policy)
            let fix = Fix(time: Date(timeIntervalSince1970: 0), coordinate: try Coordinate(latitude: latitude, longitude: longitude),
                          source: .synthetic)
            guard case .delivered(let batch, _) = try #require(delivery.offer(fix).first), let snapped = batch.first?.coordinate else {
                Issue.record("not delivered at \(latitude), \(longitude)")
                continue
            }
            #expect((-90...90).contains(snapped.latitude) && (-180..<180).contains(snapped.longitude))
            #expect(fix.coordinate!.distance(to: snapped) <= 5_000 * 2.0.squareRoot() / 2 + 1 || abs(latitude) > 89.9)
        }
    }

    @Test("Bad parameters are refused, naming the parameter",
          arguments: [
            (DeliveryPolicy.Service.standard(distanceFilter: -1), "distanceFilter"),
            (.standard(distanceFilter: .nan), "distanceFilter"),
            (.significantChange(minimumDistance: .infinity), "minimumDistance"),
            (.significantChange(minimumInterval: .seconds(-1)), "minimumInterval"),
            (.reducedAccuracy(cellSize: 0), "cellSize"),
            (.fused(minimumInterval: .zero, minimumDistance: 0, maximumDelay: .seconds(-5)), "maximumDelay"),
          ])
    func badParameters(service: DeliveryPolicy.Service, parameter: String) {
        #expect { try DeliveryPolicy(service: service) } throws: { ($0 as? ConfigurationError)?.parameter == parameter }
    }

    @Test("The seed's app fetches at a stale cached position on returning from the background; maximumFixAge refuses it")
    func staleOnReturn() throws {
        let testCase = try #require(Self.reference.cases.first { $0.name == "background 2 minutes while walking" })
        // Both at the moment of return (420 s): first the fix cached at 299 s, then the fresh one.
        #expect(testCase.fetches.contains([420, 299]) && testCase.fetches.contains([420, 420]))
        let guarded = try #require(Self.reference.cases.first { $0.name == "background 2 minutes while walking, maximumFixAge 10 s" })
        #expect(!guarded.fetches.contains([420, 299]) && guarded.fetches.contains([420, 420]))
        let throttle = FetchThrottle(configuration: try .init(maximumFixAge: .seconds(10)))
        let fix = Fix(time: Date(timeIntervalSince1970: 1_000), coordinate: try Coordinate(latitude: 1, longitude: 1), source: .synthetic)
        #expect(throttle.assess(fix, deliveredAt: Date(timeIntervalSince1970: 1_121)) == .stale(age: .seconds(121)))
        #expect(throttle.assess(fix, deliveredAt: Date(timeIntervalSince1970: 1_010)) == nil)
        #expect { try FetchThrottle.Configuration(maximumFixAge: .zero) } throws: { ($0 as? ConfigurationError)?.parameter == "maximumFixAge" }
    }

    @Test("A bad automatic pause is refused, naming the parameter")
    func badPause() {
        #expect { try DeliveryPolicy(service: .standard(distanceFilter: nil), automaticPause: .init(after: .zero)) } throws: {
            ($0 as? ConfigurationError)?.parameter == "pause.after"
        }
        #expect { try DeliveryPolicy(service: .standard(distanceFilter: nil), automaticPause: .init(radius: -1, after: .seconds(1))) } throws: {
            ($0 as? ConfigurationError)?.parameter == "pause.radius"
        }
    }
}
