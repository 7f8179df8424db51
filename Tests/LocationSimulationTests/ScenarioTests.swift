import Foundation
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import MapFeature
import Testing

/// The scenario file: a valid file becomes the delivery policy, trouble windows and app moves it
/// says; every wrong key or value is an error naming the file and the key path.
@Suite(.timeLimit(.minutes(1))) struct ScenarioTests {
    static func parse(_ text: String) throws(JSONFileError) -> Scenario {
        try Scenario.parse(Array(text.utf8), source: "s.json", directory: "/walks/")
    }

    @Test("A valid file: seed, route resolved against the file's folder, iOS rules, trouble, app moves, game, server")
    func validIOS() throws {
        let scenario = try Self.parse("""
            {
              "seed": 42,
              "route": {"file": "walk.gpx"},
              "device": {"platform": "ios", "distanceFilter": 50, "pausesAutomatically": "2m"},
              "trouble": [
                {"kind": "signalLoss", "at": "5m", "for": "60s"},
                {"kind": "coldStart", "at": "0", "for": "40s", "initialAccuracy": 70, "recovery": "1m30s"},
                {"kind": "urbanCanyon", "at": "10m", "for": "2m", "accuracy": [25, 60], "correlationTime": "20s"},
                {"kind": "jump", "at": "12m", "distance": 300, "bearing": 90, "honestAccuracy": true},
                {"kind": "stale", "at": "14m", "age": "2m"}
              ],
              "app": [{"at": "5m", "state": "background"}, {"at": "7m", "state": "foreground"}],
              "game": {"maximumFixAge": "10s"},
              "server": [{}, {"status": 503}]
            }
            """)
        #expect(scenario.seed == 42)
        #expect(scenario.route == .file("/walks/walk.gpx"))
        #expect(scenario.delivery == (try DeliveryPolicy(
            service: .standard(distanceFilter: 50), automaticPause: DeliveryPolicy.AutomaticPause(after: .seconds(120)))))
        #expect(scenario.trouble == [
            TroubleWindow(.signalLoss(), at: .seconds(300), for: .seconds(60)),
            TroubleWindow(.coldStart(initialAccuracy: 70, recovery: .seconds(90)), at: .zero, for: .seconds(40)),
            TroubleWindow(.urbanCanyon(accuracy: 25...60, correlationTime: .seconds(20)), at: .seconds(600), for: .seconds(120)),
            TroubleWindow(.jump(distance: 300, bearing: 90, honestAccuracy: true), at: .seconds(720)),
            TroubleWindow(.stale(age: .seconds(120)), at: .seconds(840)),
        ])
        #expect(scenario.app == [.init(at: .seconds(300), state: .background), .init(at: .seconds(420), state: .foreground)])
        #expect(scenario.maximumFixAge == .seconds(10))
        if case .array(let steps) = scenario.server { #expect(steps.count == 2) } else { Issue.record("server kept: \(String(describing: scenario.server))") }
    }

    @Test("The other services: significant change, approximate location, Android's fused provider; an empty file is every fix")
    func otherServices() throws {
        #expect(try Self.parse(#"{"device": {"platform": "ios", "significantChange": true}}"#).delivery
            == (try DeliveryPolicy(service: .significantChange())))
        #expect(try Self.parse(#"{"device": {"platform": "ios", "reducedAccuracy": true, "significantChange": false}}"#).delivery
            == (try DeliveryPolicy(service: .reducedAccuracy())))
        #expect(try Self.parse(#"{"device": {"platform": "ios", "distanceFilter": null, "pausesAutomatically": false}}"#).delivery
            == .everyFix)
        // null is no filter, so no service chosen beside significant change.
        #expect(try Self.parse(#"{"device": {"platform": "ios", "distanceFilter": null, "significantChange": true}}"#).delivery
            == (try DeliveryPolicy(service: .significantChange())))
        #expect(try Self.parse("""
            {"device": {"platform": "android", "minUpdateIntervalMillis": 5000, "minUpdateDistanceMeters": 10, "maxUpdateDelayMillis": 60000}}
            """).delivery
            == (try DeliveryPolicy(service: .fused(minimumInterval: .seconds(5), minimumDistance: 10, maximumDelay: .seconds(60)))))
        let empty = try Self.parse("{}")
        #expect(empty.delivery == .everyFix && empty.trouble.isEmpty && empty.app.isEmpty && empty.route == nil)
        #expect(empty.seed == 1 && empty.maximumFixAge == nil)
        #expect(try Self.parse(#"{"route": {"file": "/abs/walk.nmea"}}"#).route == .file("/abs/walk.nmea"))
    }

    /// A typed constant: as a literal in `arguments:` the type checker takes over a second on it.
    static let badKeyCases: [(String, String)] = [
        (#"{"sede": 1}"#, "sede"),
        (#"{"seed": -1}"#, "seed"),
        (#"{"seed": 1.5}"#, "seed"),
        (#"{"seed": "7"}"#, "seed"),
        (#"{"route": "walk.gpx"}"#, "route"),
        (#"{"route": {}}"#, "route"),
        (#"{"route": {"fil": "walk.gpx"}}"#, "route.fil"),
        (#"{"route": {"file": 3}}"#, "route.file"),
        (#"{"route": {"file": ""}}"#, "route.file"),
        (#"{"route": {"polyline": "_p~iF~ps|U", "precision": 5}}"#, "route.polyline"),  // one point
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "precision": 7}}"#, "route.precision"),
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "precision": 5.5}}"#, "route.precision"),
        (#"{"route": {"polyline": "_p~iF~ps|U_ulL", "precision": 5}}"#, "route.polyline"),  // a latitude alone
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnq", "precision": 5}}"#, "route.polyline"),  // cut short
        (#"{"route": {"polyline": "_p~iF~ps|U_ul Lnnq", "precision": 5}}"#, "route.polyline"),  // a space
        (#"{"route": {"polyline": 5}}"#, "route.polyline"),
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "speed": 0}}"#, "route.speed"),
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "start": "yesterday"}}"#, "route.start"),
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "start": "2024-11-08T03:00:00"}}"#, "route.start"),  // no zone
        (#"{"route": {"file": "walk.gpx", "speed": 2}}"#, "route.speed"),
        (#"{"route": {"legs": []}}"#, "route.legs"),
        (#"{"route": {"legs": {}}}"#, "route.legs"),
        (#"{"route": {"legs": [{"to": "1,2"}]}}"#, "route.legs[0].from"),
        (#"{"route": {"legs": [{"from": "1,2"}]}}"#, "route.legs[0].to"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3"}, {"from": "1,3", "to": "1,4"}]}}"#, "route.legs[1].from"),
        (#"{"route": {"legs": [{"from": "91,2", "to": "1,3"}]}}"#, "route.legs[0].from"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1;3"}]}}"#, "route.legs[0].to"),
        (#"{"route": {"legs": [{"from": "1,2", "to": [1, 3]}]}}"#, "route.legs[0].to"),
        (#"{"route": {"legs": [{"from": "1,2", "via": ["1,2", "x"], "to": "1,3"}]}}"#, "route.legs[0].via[1]"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "speed": 2, "profile": "run"}]}}"#, "route.legs[0].profile"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "profile": "fly"}]}}"#, "route.legs[0].profile"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "speed": 0}]}}"#, "route.legs[0].speed"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "stop": 60}]}}"#, "route.legs[0].stop"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "wait": "1m"}]}}"#, "route.legs[0].wait"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "stop": "100000d"}]}}"#, "route.legs[0].stop"),
        (#"{"route": {"legs": [{"from": "1,2", "to": "1,3"}], "speed": 3}}"#, "route.speed"),
        (#"{"device": "ios"}"#, "device"),
        (#"{"device": {}}"#, "device.platform"),
        (#"{"device": {"platform": "windows"}}"#, "device.platform"),
        (#"{"device": {"platform": "ios", "distanceFilter": -5}}"#, "device.distanceFilter"),
        (#"{"device": {"platform": "ios", "distanceFilter": "50"}}"#, "device.distanceFilter"),
        (#"{"device": {"platform": "ios", "distanceFilter": -1}}"#, "device.distanceFilter"),
        (#"{"device": {"platform": "android", "minUpdateIntervalMillis": 4999.9}}"#, "device.minUpdateIntervalMillis"),
        (#"{"device": {"platform": "android", "maxUpdateDelayMillis": 60000.7}}"#, "device.maxUpdateDelayMillis"),
        (#"{"device": {"platform": "ios", "significantChange": "yes"}}"#, "device.significantChange"),
        (#"{"device": {"platform": "ios", "reducedAccuracy": 1}}"#, "device.reducedAccuracy"),
        (#"{"device": {"platform": "ios", "significantChange": true, "reducedAccuracy": true}}"#, "device.reducedAccuracy"),
        (#"{"device": {"platform": "ios", "distanceFilter": 10, "significantChange": true}}"#, "device.significantChange"),
        (#"{"device": {"platform": "ios", "pausesAutomatically": true}}"#, "device.pausesAutomatically"),
        (#"{"device": {"platform": "ios", "pausesAutomatically": "soon"}}"#, "device.pausesAutomatically"),
        (#"{"device": {"platform": "ios", "pausesAutomatically": "0s"}}"#, "device.pausesAutomatically"),
        (#"{"device": {"platform": "ios", "minUpdateIntervalMillis": 5}}"#, "device.minUpdateIntervalMillis"),
        (#"{"device": {"platform": "android", "distanceFilter": 5}}"#, "device.distanceFilter"),
        (#"{"device": {"platform": "android", "minUpdateIntervalMillis": -1}}"#, "device.minUpdateIntervalMillis"),
        (#"{"device": {"platform": "android", "minUpdateDistanceMeters": "10"}}"#, "device.minUpdateDistanceMeters"),
        (#"{"device": {"platform": "android", "maxUpdateDelayMillis": 1e12}}"#, "device.maxUpdateDelayMillis"),
        (#"{"trouble": {}}"#, "trouble"),
        (#"{"trouble": [3]}"#, "trouble[0]"),
        (#"{"trouble": [{"at": "1m"}]}"#, "trouble[0].kind"),
        (#"{"trouble": [{"kind": "tunnel", "at": "1m"}]}"#, "trouble[0].kind"),
        (#"{"trouble": [{"kind": "signalLoss", "for": "1m"}]}"#, "trouble[0].at"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "-1m", "for": "1m"}]}"#, "trouble[0].at"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "1m"}]}"#, "trouble[0].for"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "366d1s"}]}"#, "trouble[0].for"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "8m", "for": "0s"}]}"#, "trouble[0].for"),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "8m", "for": "0"}]}"#, "trouble[0].for"),
        (#"{"trouble": [{"kind": "coldStart", "at": "0", "for": "0s"}]}"#, "trouble[0].for"),
        (#"{"trouble": [{"kind": "jump", "at": "9000h", "distance": 300}]}"#, "trouble[0].at"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "1m"}, {"kind": "jump", "at": "2m", "distance": 300}, {"kind": "signalLoss", "at": "5m", "for": "3 s"}]}"#, "trouble[2].for"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "1m", "initialAccuracy": -1}]}"#, "trouble[0].initialAccuracy"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "1m", "recovery": "0"}]}"#, "trouble[0].recovery"),
        (#"{"trouble": [{"kind": "coldStart", "at": "0", "for": "1m", "honestAccuracy": true}]}"#, "trouble[0].honestAccuracy"),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "1m", "for": "1m", "accuracy": [80, 20]}]}"#, "trouble[0].accuracy"),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "1m", "for": "1m", "accuracy": [0, 20]}]}"#, "trouble[0].accuracy"),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "1m", "for": "1m", "correlationTime": "0s"}]}"#, "trouble[0].correlationTime"),
        (#"{"trouble": [{"kind": "jump", "at": "1m"}]}"#, "trouble[0].distance"),
        (#"{"trouble": [{"kind": "jump", "at": "1m", "for": "1m", "distance": 3}]}"#, "trouble[0].for"),
        (#"{"trouble": [{"kind": "jump", "at": "1m", "distance": 3, "bearing": 400}]}"#, "trouble[0].bearing"),
        (#"{"trouble": [{"kind": "jump", "at": "1m", "distance": 3, "honestAccuracy": "no"}]}"#, "trouble[0].honestAccuracy"),
        (#"{"trouble": [{"kind": "stale", "at": "1m"}]}"#, "trouble[0].age"),
        (#"{"trouble": [{"kind": "stale", "at": "1m", "age": 120}]}"#, "trouble[0].age"),
        (#"{"app": {"at": "5m", "state": "background"}}"#, "app"),
        (#"{"app": [{"at": "5m"}]}"#, "app[0].state"),
        (#"{"app": [{"state": "background"}]}"#, "app[0].at"),
        (#"{"app": [{"at": 300, "state": "background"}]}"#, "app[0].at"),
        (#"{"app": [{"at": "400d", "state": "background"}]}"#, "app[0].at"),
        (#"{"app": [{"at": "5m", "state": "asleep"}]}"#, "app[0].state"),
        (#"{"app": [{"at": "5m", "state": "background", "why": "a call"}]}"#, "app[0].why"),
        (#"{"app": [{"at": "5m", "state": "background"}, {"at": "1m", "state": "foreground"}]}"#, "app[1].at"),
        (#"{"app": [{"at": "20m", "state": "foreground"}]}"#, "app[0].state"),
        (#"{"app": [{"at": "20m", "state": "background"}, {"at": "21m", "state": "background"}]}"#, "app[1].state"),
        (#"{"route": {"file": "walk.gpx", "polyline": "_p~iF~ps|U_ulLnnqC"}}"#, "route.polyline"),
        (#"{"game": {"maxFixAge": "10s"}}"#, "game.maxFixAge"),
        (#"{"game": {"maximumFixAge": "0s"}}"#, "game.maximumFixAge"),
        (#"{"game": {"maximumFixAge": 10}}"#, "game.maximumFixAge"),
        (#"{"server": {"status": 503}}"#, "server"),
    ]

    @Test("Every key's wrong value or name is an error naming the file and the key path", arguments: Self.badKeyCases)
    func badKeys(text: String, keyPath: String) {
        let error = #expect(throws: JSONFileError.self) { try Self.parse(text) }
        #expect(error?.keyPath == keyPath, "\(String(describing: error))")
        #expect(error?.source == "s.json")
        #expect(error?.description.hasPrefix("s.json: \(keyPath): ") == true, "\(String(describing: error))")
    }

    @Test("A message shows the value as written and says what would do", arguments: [
        (#"{"seed": -1}"#, "s.json: seed: must be a whole number 0...9007199254740991, got -1"),
        (#"{"seed": 9007199254740993}"#, "s.json: seed: must be a whole number 0...9007199254740991, got a larger number, which JSON does not carry exactly"),
        (#"{"seed": 1e400}"#, "s.json: seed: must be a whole number 0...9007199254740991, got a number too large for a Double"),
        (#"{"route": {}}"#, #"s.json: route: expected {"file": "walk.gpx"}, {"polyline": "…"} or {"legs": […]}"#),
        (#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "start": "yesterday"}}"#,
         #"s.json: route.start: expected a time with its zone such as 2024-11-07T18:00:00Z or 2024-11-08T03:00:00+09:00, got "yesterday""#),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "1m", "for": "1m", "accuracy": [80, 20]}]}"#,
         "s.json: trouble[0].accuracy: expected [lowest, highest] in metres, the lowest first, got [80, 20]"),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "1m", "for": "1m", "accuracy": [80]}]}"#,
         "s.json: trouble[0].accuracy: expected [lowest, highest] in metres, got a list of 1"),
        (#"{"game": {"maximumFixAge": "0s"}}"#, #"s.json: game.maximumFixAge: must be longer than 0 s, got "0s""#),
        (#"{"device": {"platform": "ios", "pausesAutomatically": "0s"}}"#, #"s.json: device.pausesAutomatically: must be longer than 0 s, got "0s""#),
        (#"{"app": [{"at": "20m", "state": "foreground"}]}"#,
         #"s.json: app[0].state: the app is already in the foreground (it starts there): moves alternate between "background" and "foreground""#),
        (#"{"app": [{"at": "20m", "state": "background"}, {"at": "21m", "state": "background"}]}"#,
         #"s.json: app[1].state: the app is already in the background (app[0]): moves alternate between "background" and "foreground""#),
        (#"{"route": {"file": "walk.gpx", "polyline": "_p~iF~ps|U_ulLnnqC"}}"#,
         "s.json: route.polyline: does not go with route.file: a route is a file or a polyline, give one"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "8m", "for": "0s"}]}"#, #"s.json: trouble[0].for: must be longer than 0 s, got "0s""#),
        (#"{"device": {"platform": "ios", "distanceFilter": -1}}"#,
         "s.json: device.distanceFilter: -1 is CoreLocation's kCLDistanceFilterNone: write null (or leave it out) for no filter"),
        (#"{"device": {"platform": "android", "minUpdateIntervalMillis": 4999.9}}"#,
         "s.json: device.minUpdateIntervalMillis: must be a whole number of milliseconds, got 4999.9"),
        // Trouble that would do nothing, or contradict itself in the log.
        (#"{"trouble": [{"kind": "coldStart", "at": "0", "for": "20s", "initialAccuracy": 0}]}"#,
         "s.json: trouble[0].initialAccuracy: must be more than 0 and at most 1000000 m, got 0"),
        (#"{"trouble": [{"kind": "jump", "at": "1m", "distance": 0}]}"#, "s.json: trouble[0].distance: must be more than 0 and at most 20000000 m, got 0"),
        (#"{"trouble": [{"kind": "jump", "at": "1m", "distance": -300}]}"#, "s.json: trouble[0].distance: must be more than 0 and at most 20000000 m, got -300"),
        (#"{"trouble": [{"kind": "signalLoss", "at": "1m", "for": "60s"}, {"kind": "jump", "at": "2m10s", "distance": 300}]}"#,
         "s.json: trouble[1].at: jump at 2:10 overlaps trouble[0] (signalLoss 1:00–2:00, recovering until 2:30): one window at a time, but for a jump or stale fix within an urbanCanyon"),
        (#"{"trouble": [{"kind": "urbanCanyon", "at": "5m", "for": "2m"}, {"kind": "coldStart", "at": "0", "for": "30s", "recovery": "5m"}]}"#,
         "s.json: trouble[1].at: coldStart 0:00–0:30, recovering until 5:30 overlaps trouble[0] (urbanCanyon 5:00–7:00): one window at a time, but for a jump or stale fix within an urbanCanyon"),
        (#"{"trouble": [{"kind": "jump", "at": "1m", "distance": 30}, {"kind": "stale", "at": "1m", "age": "30s"}]}"#,
         "s.json: trouble[1].at: stale at 1:00 overlaps trouble[0] (jump at 1:00): one window at a time, but for a jump or stale fix within an urbanCanyon"),
        (#"{"app": [{"at": "20m", "state": "background"}, {"at": "20m", "state": "foreground"}]}"#,
         "s.json: app[1].at: at the same time as app[0].at: moves are listed in time order, each after the one before"),
    ] as [(String, String)])
    func messages(text: String, message: String) {
        let error = #expect(throws: JSONFileError.self) { try Self.parse(text) }
        #expect(error?.description == message)
    }

    @Test("An unknown key of hostile length or bytes is named escaped and cut, and the message after it is whole")
    func hostileKey() {
        // 100,000 characters; a bell and a line end, written as JSON escapes.
        for key in [String(repeating: "x", count: 100_000), #"bad\u0007key\nwith lines"#] {
            let error = #expect(throws: JSONFileError.self) { try Self.parse(#"{"\#(key)": 1}"#) }
            let text = error?.description ?? ""
            #expect(text.count < 300, "\(text.prefix(200))")
            #expect(text.hasSuffix(": unknown key (seed, route, device, trouble, app, game, server)"), "\(text.suffix(200))")
            #expect(!text.contains("\n") && !text.contains("\u{7}"), "\(text)")
        }
    }

    @Test("Windows that follow each other, and a jump or stale fix within a street canyon, are accepted")
    func troubleOneAtATime() throws {
        let scenario = try Self.parse(#"""
            {"trouble": [{"kind": "signalLoss", "at": "1m", "for": "60s"}, {"kind": "urbanCanyon", "at": "2m30s", "for": "2m"},
                         {"kind": "jump", "at": "3m", "distance": 300}, {"kind": "stale", "at": "4m", "age": "1m"}, {"kind": "jump", "at": "4m30s", "distance": 5}]}
            """#)
        #expect(scenario.trouble.count == 5)
    }

    @Test("Thousands of windows in any order are checked by their times: one overlap deep among them is the one named")
    func manyWindows() throws {
        // 5,000 jumps a second apart, listed last to first, and a signal loss over the 2,500th.
        var windows = (0..<5_000).reversed().map { #"{"kind": "jump", "at": "\#($0)s", "distance": 5}"# }
        #expect(throws: Never.self) { try Self.parse(#"{"trouble": [\#(windows.joined(separator: ","))]}"#) }
        windows.append(#"{"kind": "signalLoss", "at": "2499.5s", "for": "0.4s", "recovery": "0.2s"}"#)
        let error = #expect(throws: JSONFileError.self) { try Self.parse(#"{"trouble": [\#(windows.joined(separator: ","))]}"#) }
        #expect(error?.description.hasPrefix("s.json: trouble[5000].at: signalLoss ") == true, "\(String(describing: error))")
        #expect(error?.description.contains("overlaps trouble[2499] (jump at 41:40)") == true, "\(String(describing: error))")
    }

    @Test("A duration is at most a year (366 days, as simulate --duration): a longer one is refused, naming the limit")
    func durationsUpToAYear() throws {
        let scenario = try Self.parse(#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "stop": "366d"}]}, "app": [{"at": "8784h", "state": "background"}]}"#)
        #expect(scenario.app.first?.at == .seconds(366 * 86_400))
        let error = #expect(throws: JSONFileError.self) {
            try Self.parse(#"{"route": {"legs": [{"from": "1,2", "to": "1,3", "stop": "100000d"}]}}"#)
        }
        #expect(error?.description == #"s.json: route.legs[0].stop: must be at most 366d (a year, as simulate --duration), got "100000d""#)
    }

    @Test("A route leg's point says what is wrong with it: the shape, which number, or its range")
    func legPointMessages() {
        for (point, says) in [
            ("1;3", "route.legs[0].to: must be LAT,LON in decimal degrees, such as 35.6812,139.7671, got \"1;3\""),
            ("1,x", "route.legs[0].to: the longitude 'x' is not a number (LAT,LON in decimal degrees), got \"1,x\""),
            ("91,3", "route.legs[0].to: the latitude 91.0 is out of range; expected degrees in -90...90, got \"91,3\""),
        ] {
            let error = #expect(throws: JSONFileError.self) {
                try Self.parse(#"{"route": {"legs": [{"from": "1,2", "to": "\#(point)"}]}}"#)
            }
            #expect(error?.description == "s.json: " + says, "\(String(describing: error))")
        }
    }

    @Test("Text that is not one JSON object, or with a key given twice, names the file and the place in it", arguments: [
        "", "{", "[]", "{} {}", "null", #"{"seed": 1, "seed": 2}"#, #"{"route": {"legs": [{"to": [0, 0], "to": [1, 1]}]}}"#,
    ])
    func notAnObject(text: String) {
        let error = #expect(throws: JSONFileError.self) { try Self.parse(text) }
        #expect(error?.keyPath == nil && error?.description.hasPrefix("s.json: ") == true, "\(String(describing: error))")
        if text.contains("seed") {
            #expect(error?.description == #"s.json: ambiguous JSON at line 1, column 13: the name "seed" appears twice in one object (first at line 1, column 2)"#)
        }
    }

    @Test("A missing file names its path")
    func missingFile() throws {
        try withScratchFolder("locsim-scenario") { folder in
            let path = folder + "/no-such-scenario.json"
            let error = #expect(throws: JSONFileError.self) { try Scenario.load(path: path) }
            #expect(error?.source == path && error?.keyPath == nil, "\(String(describing: error))")
        }
    }
}

/// The phone a scenario describes: what the map logic is handed, when, and the notes on the way.
@Suite(.timeLimit(.minutes(1))) struct ScenarioPhoneTests {
    static let origin = Date(timeIntervalSince1970: 1_760_000_000)

    /// A walk north at 1.4 m/s, one fix a second.
    /// A walk north at 1.4 m/s, one fix a second, each with the accuracy a receiver gives
    /// (`accuracy`; nil for a route's exact points, legs or a polyline).
    static func walk(_ count: Int, accuracy: Double? = 4) throws -> [Fix] {
        try (0..<count).map { second in
            Fix(time: origin.addingTimeInterval(Double(second)),
                coordinate: try Coordinate(latitude: 37.7599 + Double(second) * 1.4 / 111_195, longitude: -122.4148),
                horizontalAccuracy: accuracy, source: .synthetic)
        }
    }

    static func run(_ text: String, over fixes: [Fix]) throws -> [ScenarioPhone.Input] {
        var phone = try ScenarioPhone(scenario: try Scenario.parse(Array(text.utf8), source: "s.json", directory: ""))
        return fixes.flatMap { phone.offer($0) } + phone.finish()
    }

    static func time(_ input: ScenarioPhone.Input) -> Date {
        switch input {
        case .fix(_, let time), .note(_, let time): time
        }
    }

    @Test("Without device, trouble or app every fix is handed over at its own time, with no notes")
    func everyFix() throws {
        let fixes = try Self.walk(5)
        let inputs = try Self.run("{}", over: fixes)
        #expect(inputs.count == 5)
        for (input, fix) in zip(inputs, fixes) {
            guard case .fix(let delivered, let time) = input else { Issue.record("\(input)"); continue }
            #expect(delivered == fix && time == fix.time)
        }
    }

    @Test("A route's fix with no accuracy (legs, a polyline, a GPX without <hdop>) reaches the app with a clean receiver's 5 m, as a phone always says one; its own is kept")
    func accuracyAlwaysSaid() throws {
        let exact = try Self.walk(3, accuracy: nil)
        for input in try Self.run("{}", over: exact) {
            guard case .fix(let delivered, _) = input else { Issue.record("\(input)"); continue }
            #expect(delivered.horizontalAccuracy == GPSTrouble.cleanAccuracy)
        }
        for input in try Self.run("{}", over: try Self.walk(3, accuracy: 12)) {
            guard case .fix(let delivered, _) = input else { Issue.record("\(input)"); continue }
            #expect(delivered.horizontalAccuracy == 12)
        }
    }

    @Test("A stale fix is handed over when the receiver reports it, with its old time; the delivery clock never goes back")
    func staleFixOnTheReceiversClock() throws {
        let fixes = try Self.walk(20)
        let inputs = try Self.run(#"{"trouble": [{"kind": "stale", "at": "10s", "age": "5s"}]}"#, over: fixes)
        let times = inputs.map(Self.time)
        #expect(times == times.sorted())
        let stale = inputs.compactMap { input -> (Fix, Date)? in
            if case .fix(let fix, let time) = input, fix.time != time { (fix, time) } else { nil }
        }
        #expect(stale.count == 1)
        #expect(stale.first?.0 == fixes[5] && stale.first?.1 == fixes[10].time)
        #expect(inputs.contains { if case .note(.trouble(_, _, let effects), _) = $0, case .stale = effects.first { true } else { false } })
    }

    @Test("What the scenario set past the route's end is a warning naming the key: a window that never began, a move never applied; one that began is not")
    func unreached() throws {
        let text = #"""
            {"trouble": [{"kind": "signalLoss", "at": "5s", "for": "2s", "recovery": "1s"}, {"kind": "jump", "at": "9s", "distance": 30}, {"kind": "jump", "at": "10s", "distance": 30}],
             "app": [{"at": "3s", "state": "background"}, {"at": "9s", "state": "foreground"}, {"at": "1h", "state": "background"}]}
            """#
        var phone = try ScenarioPhone(scenario: try Scenario.parse(Array(text.utf8), source: "s.json", directory: ""))
        #expect(phone.unreached(in: "s.json") == [
            "locsim: warning: s.json: trouble[0] (signalLoss at 0:05) never begins: the route has no fix",
            "locsim: warning: s.json: trouble[1] (jump at 0:09) never begins: the route has no fix",
            "locsim: warning: s.json: trouble[2] (jump at 0:10) never begins: the route has no fix",
            "locsim: warning: s.json: app[0] (background at 0:03) is never applied: the route has no fix",
            "locsim: warning: s.json: app[1] (foreground at 0:09) is never applied: the route has no fix",
            "locsim: warning: s.json: app[2] (background at 1:00:00) is never applied: the route has no fix",
        ])
        // Ten fixes: the last 9 s after the first.
        for fix in try Self.walk(10) { _ = phone.offer(fix) }
        _ = phone.finish()
        #expect(phone.unreached(in: "s.json") == [
            "locsim: warning: s.json: trouble[2] (jump at 0:10) never begins: it comes after the route's end, 0:09 after its first fix",
            "locsim: warning: s.json: app[2] (background at 1:00:00) is never applied: it comes after the route's end, 0:09 after its first fix",
        ])
    }

    @Test("Background: a note for each move and each withheld fix; the cached fix at the return; a move after the last fix is not applied")
    func appMoves() throws {
        let fixes = try Self.walk(10)
        let inputs = try Self.run(
            #"{"app": [{"at": "3s", "state": "background"}, {"at": "6s", "state": "foreground"}, {"at": "1h", "state": "background"}]}"#,
            over: fixes)
        let notes = inputs.compactMap { input -> ScenarioPhone.Note? in if case .note(let note, _) = input { note } else { nil } }
        #expect(notes.filter { if case .app = $0 { true } else { false } }.count == 2)
        #expect(notes.filter { if case .withheld(_, .inBackground) = $0 { true } else { false } }.count == 3)
        #expect(inputs.contains { if case .fix(let fix, let time) = $0 { fix == fixes[2] && time == fixes[6].time } else { false } })
    }

    @Test("Android batching: one note with the batch, then its last fix at the batch's deadline")
    func batch() throws {
        let fixes = try Self.walk(30)
        let inputs = try Self.run(
            #"{"device": {"platform": "android", "minUpdateIntervalMillis": 2000, "maxUpdateDelayMillis": 10000}}"#, over: fixes)
        guard let index = inputs.firstIndex(where: { if case .note(.batch, _) = $0 { true } else { false } }),
            case .note(.batch(let batch), let at) = inputs[index], case .fix(let last, let time) = inputs[index + 1]
        else {
            Issue.record("no batch: \(inputs)")
            return
        }
        #expect(batch.count > 1 && last == batch.last && time == at && at == batch[0].time.addingTimeInterval(10))
    }

    @Test("route.polyline: decoded as the PyPI polyline package decodes it, bit for bit, at precision 5 and 6")
    func polylineMatchesReference() throws {
        struct Reference: Decodable {
            struct Case: Decodable {
                let precision: Int
                let encoded: String
                let points: [[Double]]
            }
            let cases: [Case]
        }
        let reference = try JSONDecoder().decode(
            Reference.self, from: Data(contentsOf: TestFiles.fixture("polyline-reference.json")))
        #expect(reference.cases.count >= 14)
        for item in reference.cases {
            let points = try EncodedPolyline.decode(item.encoded, precision: item.precision)
            #expect(points.map { [$0.latitude, $0.longitude] } == item.points, "\(item.encoded.prefix(40))")
        }
    }

    @Test("A polyline route: its points, walked at route.speed from route.start (defaults 1.4 m/s, 2000-01-01T00:00:00Z)")
    func polylineRoute() throws {
        let scenario = try ScenarioTests.parse(
            #"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@", "speed": 3, "start": "2024-11-07T18:00:00Z"}}"#)
        guard case .points(let points, let speed, let start) = scenario.route else {
            Issue.record("not a points route: \(String(describing: scenario.route))")
            return
        }
        #expect(points.map { [$0.latitude, $0.longitude] } == [[38.5, -120.2], [40.7, -120.95], [43.252, -126.453]])
        #expect(speed == 3)
        #expect(start == Date(timeIntervalSince1970: 1_731_002_400))
        let plain = try ScenarioTests.parse(#"{"route": {"polyline": "_p~iF~ps|U_ulLnnqC", "precision": 6}}"#)
        guard case .points(let six, let defaultSpeed, let defaultStart) = plain.route else {
            Issue.record("not a points route")
            return
        }
        #expect(six.first.map { [$0.latitude, $0.longitude] } == [3.85, -12.02])
        #expect(defaultSpeed == 1.4 && defaultStart == Scenario.defaultRouteStart)
    }

    @Test("route.legs: each leg from where the one before ended, at its speed or profile, its stop standing at its end; times always later; the same seed, the same fixes")
    func legsRoute() async throws {
        let text = """
            {"seed": 3, "route": {"start": "2024-11-07T18:00:00Z", "legs": [
              {"from": "37.7651,-122.4197", "to": "37.7600,-122.4190", "profile": "walk", "stop": "2m"},
              {"to": "37.7560,-122.4180", "via": ["37.7580,-122.4200"], "speed": 5.5},
              {"to": "37.7500,-122.4150", "profile": "drive"}
            ]}}
            """
        let scenario = try ScenarioTests.parse(text)
        guard case .legs(let legs) = scenario.route else {
            Issue.record("not legs: \(String(describing: scenario.route))")
            return
        }
        let points = ["37.7651,-122.4197", "37.7600,-122.4190", "37.7580,-122.4200", "37.7560,-122.4180", "37.7500,-122.4150"]
            .compactMap { try? Coordinate.parse(latitudeLongitude: $0).get() }
        #expect(legs.legs.map(\.through) == [[points[0], points[1]], [points[1], points[2], points[3]], [points[3], points[4]]])
        #expect(legs.legs.map(\.speed) == [.walk, .constant(5.5), .drive])
        #expect(legs.legs.map(\.stop) == [.seconds(120), .zero, .zero])
        #expect(legs.seed == 3 && legs.start == Date(timeIntervalSince1970: 1_731_002_400))

        func fixes() async throws -> [Fix] {
            var fixes: [Fix] = []
            for try await fix in try legs.motion(pacing: .virtual, clock: ContinuousClock()) { fixes.append(fix) }
            return fixes
        }
        let walked = try await fixes()
        #expect(walked.first?.time == legs.start && walked.first?.coordinate == points[0])
        #expect(zip(walked, walked.dropFirst()).allSatisfy { $0.time < $1.time }, "times strictly increase")
        #expect(walked.last.flatMap(\.coordinate).map { $0.distance(to: points[4]) < 1 } == true, "ends at the last leg's to")
        // Standing at the first leg's end for the stop's two minutes, then off at 5.5 m/s.
        let standing = walked.filter { $0.coordinate.map { $0.distance(to: points[1]) < 0.01 } == true }
        let stood = (standing.last?.time).flatMap { last in standing.first.map { last.timeIntervalSince($0.time) } }
        #expect(stood == 120, "stood \(String(describing: stood)) s at the first leg's end")
        #expect(walked.contains { $0.speed == 5.5 })
        #expect(try await fixes() == walked)
    }
}
