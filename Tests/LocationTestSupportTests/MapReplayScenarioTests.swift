import Foundation
import LocationCore
import LocationTestSupport
import LocSimTestHelpers
import MapFeature
import Testing

/// `MapReplay.run(scenarioFile:)`: a scenario file run in an app developer's own tests gives what
/// `locsim replay --scenario FILE --fast` gives: the delivery reference's fetches (delivery time,
/// fix), deliveries and withheld fixes (scripts/reference/make_delivery_reference.py, the same
/// cases ScenarioCommandTests runs through the command), and the phone's notes in the log.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct MapReplayScenarioTests {
    let replay = MapReplay(repository: InMemoryNearbyIndex(places: []))

    @Test("Each delivery case from a scenario file: the reference's fetches, deliveries and withheld fixes", arguments: DeliveryReference.scenarioCaseNames)
    func referenceCase(name: String) async throws {
        let reference = try #require(DeliveryReference.shared.cases.first { $0.name == name })
        let points = try #require(DeliveryReference.shared.tracks[reference.track])
        let file = try DeliveryReference.write(
            try DeliveryReference.scenario(for: reference.rule, track: reference.track),
            name: "harness-" + name.filter { $0.isLetter || $0.isNumber })
        let log = try await replay.run(scenarioFile: file)
        let t0 = Date(timeIntervalSince1970: Double(DeliveryReference.shared.t0))
        #expect(log.fetches.map { Int(($0.time.timeIntervalSince(t0) * 1000).rounded()) } == reference.fetches.map { $0[0] * 1000 },
                "fetch times (ms after the first fix)")
        for (request, expected) in zip(log.fetches, reference.fetches) {
            let point = points[expected[1]]
            #expect(abs(request.center.latitude - point[0]) < 1e-9 && abs(request.center.longitude - point[1]) < 1e-9,
                    "fetch at \(expected[0]) s is at fix \(expected[1])")
        }
        #expect(log.acceptedFixes.count + log.rejectedFixes.count == reference.deliveries.count, "one fix event per delivery")
        var withheld: [String: Int] = [:]
        for entry in log.withheldFixes { withheld[entry.reason.name, default: 0] += 1 }
        #expect(withheld == reference.withheld)
    }

    @Test("The shipped example: the app's moves, the withheld fixes and the trouble are in the log, in time order; the same file gives the same log")
    func shippedExample() async throws {
        let path = PackagePaths.path("tracks/scenarios/background-walk.json")
        let log = try await replay.run(scenarioFile: path)
        let kinds = log.phone.map(\.kind)
        #expect(kinds.contains(.movedToBackground) && kinds.contains(.movedToForeground))
        #expect(log.withheldFixes.contains { if case .inBackground = $0.reason { true } else { false } })
        #expect(log.phone.contains { if case .trouble(_, nil, let effects) = $0.kind { effects == ["signal lost"] } else { false } })
        #expect(zip(log.phone, log.phone.dropFirst()).allSatisfy { $0.time <= $1.time && $0.eventsBefore <= $1.eventsBefore })
        #expect(log.lines.contains { $0.hasSuffix("phone: app in the background") }, "the notes are in the log's lines")
        #expect(log.lines.count == log.events.count + log.phone.count)
        #expect(try await replay.run(scenarioFile: path) == log)
    }

    @Test("A route as legs: its fixes through the phone, from the first leg's from")
    func legs() async throws {
        let log = try await replay.run(scenarioFile: PackagePaths.path("tracks/scenarios/legs-walk.json"))
        #expect(log.acceptedFixes.first?.coordinate == Coordinate(uncheckedLatitude: 37.7651, longitude: -122.4197))
        #expect(log.fetches.count > 5 && !log.withheldFixes.isEmpty)
        #expect(log.phone.contains { $0.kind == .movedToBackground })
    }

    @Test("What the route file's replay dropped is in the log's warnings, as locsim replay says it (gpxpy's count)")
    func routeFileWarnings() async throws {
        let directory = PackagePaths.path("Tests/GPXFormatTests/Fixtures/realworld/")
        let reference = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "backwards-times.json")))
        let count = try #require((reference as? [String: Any])?["track_reversals"] as? Int)
        let file = try DeliveryReference.write(
            #"{"route": {"file": "\#(directory)backwards-times.gpx"}}"#, name: "harness-backwards")
        let log = try await replay.run(scenarioFile: file)
        // The head says whether the list below it is all of them.
        let end = count > 5 ? "; the first 5:" : ":"
        #expect(log.warnings.first == "locsim: warning: dropped \(count) points whose time goes backwards (a replay never reorders)\(end)")
        #expect(log.warnings.count == 1 + min(count, 5), "\(log.warnings)")
        #expect(log.acceptedFixes.count + log.rejectedFixes.count > 0)
    }

    @Test("Fixes given replace the scenario's route, as a track argument does on the command line; what the scenario sets past their end is warned about")
    func fixesReplaceTheRoute() async throws {
        let script = FixScript(origin: Coordinate(uncheckedLatitude: 35.68, longitude: 139.76))
        let fixes = (0..<600).map { script.fix(at: Double($0), north: 1.4 * Double($0)) }
        let log = try await replay.run(scenarioFile: PackagePaths.path("tracks/scenarios/background-walk.json"), fixes: fixes)
        #expect(log.acceptedFixes.first?.coordinate == fixes.first?.coordinate)
        // distanceFilter 10 m at 1.4 m/s: about one fix in eight reaches the app.
        #expect(log.withheldFixes.count > 400, "\(log.withheldFixes.count) withheld")
        // Ten minutes of fixes: the scenario's jump at 15 min and app moves at 20 and 22 min are past their end.
        let path = PackagePaths.path("tracks/scenarios/background-walk.json")
        #expect(log.warnings == [
            "locsim: warning: \(path): trouble[1] (jump at 15:00) never begins: it comes after the route's end, 9:59 after its first fix",
            "locsim: warning: \(path): app[0] (background at 20:00) is never applied: it comes after the route's end, 9:59 after its first fix",
            "locsim: warning: \(path): app[1] (foreground at 22:00) is never applied: it comes after the route's end, 9:59 after its first fix",
        ])
    }

    @Test("A bad scenario names the file and the key path; one without a route asks for fixes")
    func refused() async throws {
        let bad = try DeliveryReference.write(#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "soon"}]}"#, name: "harness-bad")
        await #expect {
            try await replay.run(scenarioFile: bad)
        } throws: { error in
            ((error as? ReplayError)?.underlying).map { "\($0)" }?.hasPrefix("\(bad): trouble[0].for: ") == true
        }
        let noRoute = try DeliveryReference.write(#"{"device": {"platform": "ios", "distanceFilter": 50}}"#, name: "harness-no-route")
        await #expect {
            try await replay.run(scenarioFile: noRoute)
        } throws: { error in
            ((error as? ReplayError)?.underlying).map { "\($0)" }?.contains("has no route: give the fixes") == true
        }
        // A route file that cannot be read is told as the scenario's, as locsim replay tells it.
        let missing = try DeliveryReference.write(#"{"route": {"file": "nowhere-to-be-found.gpx"}}"#, name: "harness-missing-route")
        await #expect {
            try await replay.run(scenarioFile: missing)
        } throws: { error in
            let text = ((error as? ReplayError)?.underlying).map { "\($0)" } ?? ""
            return text.hasPrefix("\(missing): route.file: ") && text.contains("nowhere-to-be-found.gpx")
                && text.hasSuffix("(a relative route.file is read from the scenario file's folder)")
        }
    }
}
