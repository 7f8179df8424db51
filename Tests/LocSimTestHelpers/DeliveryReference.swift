import Foundation
import Testing

/// The delivery reference (scripts/reference/make_delivery_reference.py,
/// Tests/MapFeatureTests/Fixtures/delivery-reference.json): small tracks, each case's delivery
/// rule, and the fetches (delivery time, fix) and withheld fixes the script computed from the
/// rules' definitions. Here too: each case written as a scenario file, for the command's
/// `replay --scenario` and the harness's `MapReplay.run(scenarioFile:)` alike.
public struct DeliveryReference: Decodable, Sendable {
    public struct Case: Decodable, Sendable {
        public let name: String
        public let track: String
        public let rule: Rule
        public let deliveries: [Delivery]
        public let withheld: [String: Int]
        /// `[seconds after the first fix, index of the fix fetched at]`.
        public let fetches: [[Int]]
    }
    public struct Rule: Decodable, Sendable {
        public let service: String
        public let distanceFilter: Double?
        public let pause: Pause?
        public let cellSize: Double?
        public let minimumInterval: Double?
        public let minimumDistance: Double?
        public let maximumDelay: Double?
        public let app: [[AppMove]]?
        public let maximumFixAge: Double?
    }
    public struct Pause: Decodable, Sendable { public let radius: Double, after: Double }
    public struct Delivery: Decodable, Sendable { public let t: Int }
    public enum AppMove: Decodable, Sendable {
        case time(Int), state(String)
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let time = try? container.decode(Int.self) { self = .time(time) } else { self = .state(try container.decode(String.self)) }
        }
    }
    /// The tracks' first time (Unix seconds); a fix a second.
    public let t0: Int
    /// Each track's points, `[latitude, longitude]`.
    public let tracks: [String: [[Double]]]
    public let cases: [Case]

    public static let shared: DeliveryReference = {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.path("Tests/MapFeatureTests/Fixtures/delivery-reference.json")))
            return try JSONDecoder().decode(DeliveryReference.self, from: data)
        } catch {
            fatalError("delivery-reference.json: \(error)")
        }
    }()

    /// The cases a scenario file can say (approximate location with its documented 5 km and 900 s only).
    public static var scenarioCaseNames: [String] {
        shared.cases.filter { $0.rule.service != "reducedAccuracy" || ($0.rule.cellSize == 5000 && $0.rule.minimumInterval == 900) }
            .map(\.name)
    }

    /// A folder of this process with the reference's tracks as GPX files (`NAME.gpx`).
    public static let folder: String = {
        let folder = processScratchFolder("locsim-scenario")
        do {
            for (name, points) in shared.tracks {
                var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
                for (index, point) in points.enumerated() {
                    let time = Date(timeIntervalSince1970: Double(shared.t0 + index)).formatted(.iso8601)
                    gpx += #"<trkpt lat="\#(point[0])" lon="\#(point[1])"><time>\#(time)</time></trkpt>"#
                }
                try (gpx + "</trkseg></trk></gpx>\n").write(toFile: "\(folder)/\(name).gpx", atomically: true, encoding: .utf8)
            }
        } catch {
            fatalError("cannot write the reference tracks: \(error)")
        }
        return folder
    }()

    /// A case's rule as a scenario file's text, its route the GPX file of `track` in ``folder``.
    public static func scenario(for rule: Rule, track: String, extra: String = "") throws -> String {
        var device: [String] = []
        switch rule.service {
        case "standard":
            device = [#""platform": "ios""#]
            if let filter = rule.distanceFilter { device.append(#""distanceFilter": \#(filter)"#) }
            if let pause = rule.pause {
                #expect(pause.radius == 25, "a scenario's pause has the documented 25 m")
                device.append(#""pausesAutomatically": "\#(Int(pause.after))s""#)
            }
        case "significantChange": device = [#""platform": "ios""#, #""significantChange": true"#]
        case "reducedAccuracy": device = [#""platform": "ios""#, #""reducedAccuracy": true"#]
        case "fused":
            device = [
                #""platform": "android""#, #""minUpdateIntervalMillis": \#(try #require(rule.minimumInterval) * 1000)"#,
                #""minUpdateDistanceMeters": \#(try #require(rule.minimumDistance))"#,
                #""maxUpdateDelayMillis": \#(try #require(rule.maximumDelay) * 1000)"#,
            ]
        default: Issue.record("unknown service \(rule.service)")
        }
        var keys = [#""route": {"file": "\#(track).gpx"}"#, #""device": {\#(device.joined(separator: ", "))}"#]
        if let app = rule.app {
            let moves = app.map { move -> String in
                guard case .time(let t) = move[0], case .state(let state) = move[1] else { return "" }
                return #"{"at": "\#(t)s", "state": "\#(state)"}"#
            }
            keys.append(#""app": [\#(moves.joined(separator: ", "))]"#)
        }
        if let age = rule.maximumFixAge { keys.append(#""game": {"maximumFixAge": "\#(Int(age))s"}"#) }
        if !extra.isEmpty { keys.append(extra) }
        return "{\n  " + keys.joined(separator: ",\n  ") + "\n}\n"
    }

    /// Writes `text` as `NAME.json` in ``folder``; returns its path.
    public static func write(_ text: String, name: String) throws -> String {
        let path = "\(folder)/\(name).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
