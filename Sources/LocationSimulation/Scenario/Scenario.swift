#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import LocationCore
package import MapFeature

/// One run described once: the route, the phone's delivery rules, GPS trouble, the app's
/// lifecycle, the game's fix-age rule and the server's per-request outcomes, read from a JSON
/// scenario file (docs/guides/scenarios.md, "The scenario file").
///
/// ```json
/// {
///   "seed": 7,
///   "route": {"file": "sf-mission-walk.gpx"},
///   "device": {"platform": "ios", "distanceFilter": 50},
///   "trouble": [{"kind": "signalLoss", "at": "5m", "for": "60s"}],
///   "app": [{"at": "10m", "state": "background"}, {"at": "12m", "state": "foreground"}],
///   "game": {"maximumFixAge": "10s"}
/// }
/// ```
///
/// Every key is optional. Offsets and durations are strings in locsim's one duration syntax
/// (``/LocationCore/DurationText``), counted from the route's first fix. Unknown keys, repeated
/// keys and bad values are ``JSONFileError``s naming the file and the key path
/// (`trouble[2].for`, `device.distanceFilter`).
package struct Scenario: Sendable {
    /// Where the fixes come from.
    package enum Route: Sendable, Hashable {
        /// A GPX file or an NMEA log, its path resolved against the scenario file's folder.
        case file(String)
        /// Points with no times (`{"polyline": …}`, as routing services return a route), walked
        /// at `speed` metres a second from `start`, the time of the first fix.
        case points([Coordinate], speed: Double, start: Date)
        /// Legs (`{"legs": […]}`): from, via, to, at a speed or a motion profile, with stops.
        case legs(RouteLegs)
    }

    /// When an untimed route's first fix is, unless `route.start` says: a fixed instant, so a
    /// scenario's output is the same on every run (the run is in virtual time anyway).
    package static let defaultRouteStart = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z

    /// The app's state after a move.
    package enum AppState: String, Sendable, Hashable {
        case background, foreground
    }

    /// The app moves to the foreground or the background, `at` after the first fix.
    package struct AppMove: Sendable, Hashable {
        package var at: Duration
        package var state: AppState

        package init(at: Duration, state: AppState) {
            self.at = at
            self.state = state
        }
    }

    /// The longest duration a scenario takes anywhere (an offset, a stop, a trouble's length):
    /// 366 days, as `simulate --duration`. A scenario plays a walk, a day or a trip; a stop of
    /// 100,000 days is a slip of the keyboard, and would have a `--fast` replay write fixes for
    /// hours.
    package static let longestDuration: Duration = .seconds(366 * 86_400)

    /// What this scenario sets past the end of its route, which ends `end` after its first fix
    /// (`nil`: a route with no fix), as `locsim: warning:` lines naming `file` and the key: a
    /// trouble window that never begins, an app move never applied. A window that begins before
    /// the end and would last past it is not one: it does what it can. Said after a replay
    /// (``ScenarioPhone/unreached(in:)``) and, for a route whose end is known, before a player
    /// walks it (`serve --player NAME=FILE.json`).
    package func unreached(routeEnd end: Double?, in file: String) -> [String] {
        let reason =
            end.map { "it comes after the route's end, \(DurationText.clockText($0)) after its first fix" }
            ?? "the route has no fix"
        func beyond(_ at: Duration) -> Bool { end.map { at.fractionalSeconds > $0 } ?? true }
        func offset(_ at: Duration) -> String { DurationText.clockText(at.fractionalSeconds) }
        var lines: [String] = []
        for (index, window) in trouble.enumerated() where beyond(window.at) {
            lines.append("locsim: warning: \(file): trouble[\(index)] (\(window.kind.name) at \(offset(window.at))) never begins: \(reason)")
        }
        for (index, move) in app.enumerated() where beyond(move.at) {
            lines.append("locsim: warning: \(file): app[\(index)] (\(move.state.rawValue) at \(offset(move.at))) is never applied: \(reason)")
        }
        return lines
    }

    /// The seed of the trouble windows' draws (default 1).
    package var seed: UInt64 = 1
    /// The route, or `nil` when the scenario leaves it to the command line.
    package var route: Route?
    /// The phone's delivery rules (``/MapFeature/DeliveryPolicy/everyFix`` without `device`).
    package var delivery: DeliveryPolicy = .everyFix
    /// GPS trouble, in the file's order.
    package var trouble: [TroubleWindow] = []
    /// The app's moves, in time order.
    package var app: [AppMove] = []
    /// `game.maximumFixAge`: the game ignores a fix older than this when it arrives.
    package var maximumFixAge: Duration?
    /// `server`: the per-request outcomes `serve --script` takes, kept as read for the server
    /// (not applied by `replay`).
    package var server: JSONValue?

    package init() {}

    /// Reads a scenario file; a route's relative path is resolved against the file's folder.
    ///
    /// - Throws: ``JSONFileError`` naming the file, and the key path when the text is wrong.
    package static func load(path: String) throws(JSONFileError) -> Scenario {
        let data: [UInt8]
        do {
            data = try SystemIO.readFile(path)
        } catch {
            throw JSONFileError(source: path, keyPath: nil, "cannot read the scenario: \(FileErrorText.reason(for: error))")
        }
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        return try parse(data, source: path, directory: directory)
    }

    /// Reads a scenario from JSON bytes with the package's one JSON reader.
    ///
    /// - Parameters:
    ///   - source: Names the text in errors (the file's path).
    ///   - directory: The folder a relative route path is resolved against, ending in `/` (`""`:
    ///     the path as given).
    /// - Throws: ``JSONFileError`` naming `source` and the key path.
    package static func parse(_ bytes: some Collection<UInt8>, source: String, directory: String) throws(JSONFileError) -> Scenario {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw JSONFileError(source: source, keyPath: nil, "\(error)")
        }
        return try Reader(source: source).scenario(json, directory: directory)
    }
}

/// Reads the JSON tree, key by key, saying where a value is wrong.
private struct Reader {
    let source: String

    func failure(_ keyPath: String?, _ message: String) -> JSONFileError {
        JSONFileError(source: source, keyPath: keyPath, message)
    }

    /// The members of the object at `keyPath`, refusing names outside `allowed`.
    func members(_ value: JSONValue, at keyPath: String?, allowed: [String]) throws(JSONFileError) -> [String: JSONValue] {
        guard case .object(let list) = value else { throw failure(keyPath, "expected an object, got \(value.text)") }
        var members: [String: JSONValue] = [:]
        for (name, member) in list {
            guard allowed.contains(name) else {
                // A key of the file's own, shown escaped and cut with its length (a 10 MB key, a
                // control character), as every cut value is.
                let shown = TextExcerpt.render(name, limit: 64) + (name.utf8.count > 64 ? "(\(name.count)_characters)" : "")
                throw failure(
                    keyPath.map { "\($0).\(shown)" } ?? shown,
                    "unknown key (\(keyPath.map { "in \($0): " } ?? "")\(allowed.joined(separator: ", ")))")
            }
            members[name] = member  // never twice: the JSON reader refuses a repeated name
        }
        return members
    }

    /// A duration of at most ``Scenario/longestDuration``.
    func duration(_ value: JSONValue, at keyPath: String) throws(JSONFileError) -> Duration {
        guard let text = value.string else {
            throw failure(keyPath, "expected a duration string such as \"30s\", \"5m\" or \"1:30\", got \(value.text)")
        }
        switch DurationText.parse(text) {
        case .success(let duration) where duration > Scenario.longestDuration:
            throw failure(keyPath, "must be at most 366d (a year, as simulate --duration), got \"\(text)\"")
        case .success(let duration): return duration
        case .failure(let problem): throw failure(keyPath, "\(problem), got \"\(text)\"")
        }
    }

    /// A finite number within `range`.
    func number(_ value: JSONValue, at keyPath: String, in range: ClosedRange<Double>, unit: String) throws(JSONFileError) -> Double {
        guard let number = value.number else { throw failure(keyPath, "expected a number of \(unit), got \(value.text)") }
        guard number.isFinite, range.contains(number) else {
            throw failure(keyPath, "must be \(JSONValue.number(range.lowerBound).text)...\(JSONValue.number(range.upperBound).text) \(unit), got \(value.text)")
        }
        return number
    }

    func bool(_ value: JSONValue, at keyPath: String) throws(JSONFileError) -> Bool {
        guard case .bool(let flag) = value else { throw failure(keyPath, "expected true or false, got \(value.text)") }
        return flag
    }

    func string(_ value: JSONValue, at keyPath: String) throws(JSONFileError) -> String {
        guard let text = value.string else { throw failure(keyPath, "expected a string, got \(value.text)") }
        return text
    }

    func list(_ value: JSONValue, at keyPath: String) throws(JSONFileError) -> [JSONValue] {
        guard case .array(let items) = value else { throw failure(keyPath, "expected a list, got \(value.text)") }
        return items
    }

    func scenario(_ json: JSONValue, directory: String) throws(JSONFileError) -> Scenario {
        let top = try members(json, at: nil, allowed: ["seed", "route", "device", "trouble", "app", "game", "server"])
        var scenario = Scenario()
        if let value = top["seed"] {
            // Integers JSON carries exactly (a double's 53 bits).
            guard let seed = value.number, seed.isFinite, (0...9_007_199_254_740_991).contains(seed), seed == seed.rounded() else {
                // Past 2^53 the number read is not the one written (9007199254740993 reads as
                // …992): echoing it would show a value the file does not hold.
                if let seed = value.number, seed.isFinite, seed > 9_007_199_254_740_991 {
                    throw failure("seed", "must be a whole number 0...9007199254740991, got a larger number, which JSON does not carry exactly")
                }
                throw failure("seed", "must be a whole number 0...9007199254740991, got \(value.text)")
            }
            scenario.seed = UInt64(seed)
        }
        if let value = top["route"] { scenario.route = try route(value, directory: directory, seed: scenario.seed) }
        if let value = top["device"] { scenario.delivery = try device(value) }
        if let value = top["trouble"] {
            for (index, item) in try list(value, at: "trouble").enumerated() {
                scenario.trouble.append(try window(item, at: "trouble[\(index)]"))
            }
            // The windows' own checks (ranges), with the same key paths.
            do {
                _ = try GPSTrouble(windows: scenario.trouble, seed: scenario.seed)
            } catch {
                throw failure(error.parameter, error.message)
            }
        }
        if let value = top["app"] { scenario.app = try app(value) }
        if let value = top["game"] {
            let game = try members(value, at: "game", allowed: ["maximumFixAge"])
            if let age = game["maximumFixAge"] {
                let duration = try duration(age, at: "game.maximumFixAge")
                guard duration > .zero else { throw failure("game.maximumFixAge", "must be longer than 0 s, got \(age.text)") }
                scenario.maximumFixAge = duration
            }
        }
        if let value = top["server"] {
            guard case .array = value else { throw failure("server", "expected a list of per-request outcomes (as serve --script takes), got \(value.text)") }
            scenario.server = value
        }
        return scenario
    }

    func route(_ value: JSONValue, directory: String, seed: UInt64) throws(JSONFileError) -> Scenario.Route {
        let route = try members(value, at: "route", allowed: ["file", "polyline", "precision", "speed", "start", "legs"])
        if let legs = route["legs"] {
            for key in ["file", "polyline", "precision", "speed"] where route[key] != nil {
                throw failure("route.\(key)", "does not go with route.legs (each leg has its own speed or profile)")
            }
            return .legs(RouteLegs(legs: try self.legs(legs), start: try start(route["start"]), seed: seed))
        }
        if let file = route["file"] {
            if route["polyline"] != nil {
                throw failure("route.polyline", "does not go with route.file: a route is a file or a polyline, give one")
            }
            for key in ["precision", "speed", "start"] where route[key] != nil {
                throw failure("route.\(key)", "goes with route.polyline, not route.file (a file's times say when and how fast)")
            }
            let path = try string(file, at: "route.file")
            guard !path.isEmpty else { throw failure("route.file", "must not be empty") }
            let resolved = path.hasPrefix("/") ? path : directory + path
            guard RouteFileFormat(path: resolved) != nil else {
                throw failure("route.file", "'\(path)' has \(RouteFileFormat.describeExtension(path)); a walk is read from \(RouteFileFormat.known)")
            }
            return .file(resolved)
        }
        guard let encoded = route["polyline"] else {
            throw failure("route", "expected {\"file\": \"walk.gpx\"}, {\"polyline\": \"…\"} or {\"legs\": […]}")
        }
        var precision = 5
        if let value = route["precision"] {
            let digits = try number(value, at: "route.precision", in: 5...6, unit: "decimal digits")
            guard digits == digits.rounded() else { throw failure("route.precision", "expected 5 or 6, got \(value.text)") }
            precision = Int(digits)
        }
        let text = try string(encoded, at: "route.polyline")
        let points: [Coordinate]
        do {
            points = try EncodedPolyline.decode(text, precision: precision)
        } catch {
            throw failure("route.polyline", error.description)
        }
        guard points.count >= 2 else {
            throw failure("route.polyline", "a route needs at least 2 points, got \(points.count)")
        }
        let speed = try route["speed"].map { value throws(JSONFileError) in
            try number(value, at: "route.speed", in: 0.1...1000, unit: "m/s")
        } ?? 1.4
        return .points(points, speed: speed, start: try start(route["start"]))
    }

    /// `route.start`, or ``Scenario/defaultRouteStart``.
    func start(_ value: JSONValue?) throws(JSONFileError) -> Date {
        guard let value else { return Scenario.defaultRouteStart }
        let text = try string(value, at: "route.start")
        guard let (date, hasZone) = UTCTimestamp.parseZoned(text) else {
            throw failure("route.start", "expected a time with its zone such as 2024-11-07T18:00:00Z or 2024-11-08T03:00:00+09:00, got \(value.text)")
        }
        guard hasZone else {
            throw failure("route.start", "\(value.text) has no zone: add Z for UTC or the offset meant, such as +09:00")
        }
        return date
    }

    /// `route.legs`: the first leg has `from`; each has `to`, and may have `via`, `speed` or
    /// `profile`, and `stop`.
    func legs(_ value: JSONValue) throws(JSONFileError) -> [RouteLegs.Leg] {
        let items = try list(value, at: "route.legs")
        guard !items.isEmpty else { throw failure("route.legs", "must hold at least one leg") }
        var legs: [RouteLegs.Leg] = []
        var end: Coordinate?
        for (index, item) in items.enumerated() {
            let at = "route.legs[\(index)]"
            let leg = try members(item, at: at, allowed: ["from", "to", "via", "speed", "profile", "stop"])
            func point(_ value: JSONValue, _ keyPath: String) throws(JSONFileError) -> Coordinate {
                let text = try string(value, at: keyPath)
                switch Coordinate.parse(latitudeLongitude: text) {
                case .success(let coordinate): return coordinate
                case .failure(let problem): throw failure(keyPath, "\(problem), got \(value.text)")
                }
            }
            let from: Coordinate
            switch (leg["from"], end) {
            case (let value?, nil): from = try point(value, at + ".from")
            case (nil, let previous?): from = previous
            case (nil, nil): throw failure(at + ".from", "missing: the first leg says where the route starts")
            case (_?, _?): throw failure(at + ".from", "a later leg starts where the one before ended; leave out from")
            }
            guard let toValue = leg["to"] else { throw failure(at + ".to", "missing: where the leg goes") }
            var through = [from]
            if let via = leg["via"] {
                for (number, value) in try list(via, at: at + ".via").enumerated() { through.append(try point(value, at + ".via[\(number)]")) }
            }
            through.append(try point(toValue, at + ".to"))
            let speed: SpeedProfile
            switch (leg["speed"], leg["profile"]) {
            case (_?, _?): throw failure(at + ".profile", "give speed or profile, not both")
            case (let value?, nil): speed = .constant(try number(value, at: at + ".speed", in: 0.1...1000, unit: "m/s"))
            case (nil, let value?):
                let name = try string(value, at: at + ".profile")
                switch name {
                case "walk": speed = .walk
                case "run": speed = .run
                case "cycle": speed = .cycle
                case "drive": speed = .drive
                default: throw failure(at + ".profile", "expected walk, run, cycle or drive, got \(value.text)")
                }
            case (nil, nil): speed = .walk
            }
            var stop = Duration.zero
            if let value = leg["stop"] { stop = try duration(value, at: at + ".stop") }
            legs.append(RouteLegs.Leg(through: through, speed: speed, stop: stop))
            end = through.last
        }
        return legs
    }

    func device(_ value: JSONValue) throws(JSONFileError) -> DeliveryPolicy {
        let ios = ["platform", "distanceFilter", "significantChange", "reducedAccuracy", "pausesAutomatically"]
        let android = ["platform", "minUpdateIntervalMillis", "minUpdateDistanceMeters", "maxUpdateDelayMillis"]
        guard case .object = value else { throw failure("device", "expected an object, got \(value.text)") }
        guard let platformValue = value["platform"] else { throw failure("device.platform", "missing: \"ios\" or \"android\"") }
        let platform = try string(platformValue, at: "device.platform")
        let service: DeliveryPolicy.Service
        var pause: DeliveryPolicy.AutomaticPause?
        let metres = 0.0...40_000_000
        switch platform {
        case "ios":
            let device = try members(value, at: "device", allowed: ios)
            var chosen: [String] = []
            var filter: Double?
            // null is no filter (every fix), as false is no significant change: not a service chosen.
            if let raw = device["distanceFilter"] {
                if case .null = raw {} else {
                    if raw.number == -1 {
                        throw failure(
                            "device.distanceFilter", "-1 is CoreLocation's kCLDistanceFilterNone: write null (or leave it out) for no filter")
                    }
                    filter = try number(raw, at: "device.distanceFilter", in: metres, unit: "metres")
                    chosen.append("distanceFilter")
                }
            }
            var significant = false, reduced = false
            if let raw = device["significantChange"] {
                significant = try bool(raw, at: "device.significantChange")
                if significant { chosen.append("significantChange") }
            }
            if let raw = device["reducedAccuracy"] {
                reduced = try bool(raw, at: "device.reducedAccuracy")
                if reduced { chosen.append("reducedAccuracy") }
            }
            if chosen.count > 1 {
                throw failure("device.\(chosen[1])", "one service at a time: \(chosen.joined(separator: " and ")) exclude each other")
            }
            service = significant ? .significantChange() : reduced ? .reducedAccuracy() : .standard(distanceFilter: filter)
            if let raw = device["pausesAutomatically"] {
                if case .bool(false) = raw {} else {
                    guard raw.string != nil else {
                        throw failure("device.pausesAutomatically", "expected false or how long the player stays before updates pause (\"2m\"), got \(raw.text)")
                    }
                    let after = try duration(raw, at: "device.pausesAutomatically")
                    guard after > .zero else { throw failure("device.pausesAutomatically", "must be longer than 0 s, got \(raw.text)") }
                    pause = DeliveryPolicy.AutomaticPause(after: after)
                }
            }
        case "android":
            let device = try members(value, at: "device", allowed: android)
            let milliseconds = 0.0...86_400_000
            func millis(_ key: String) throws(JSONFileError) -> Duration {
                guard let raw = device[key] else { return .zero }
                let value = try number(raw, at: "device.\(key)", in: milliseconds, unit: "milliseconds")
                // Android's LocationRequest.Builder takes whole milliseconds (a long).
                guard value.rounded() == value else {
                    throw failure("device.\(key)", "must be a whole number of milliseconds, got \(raw.text)")
                }
                return .milliseconds(Int64(value))
            }
            let distance = try device["minUpdateDistanceMeters"].map { (raw) throws(JSONFileError) in
                try number(raw, at: "device.minUpdateDistanceMeters", in: metres, unit: "metres")
            } ?? 0
            service = .fused(
                minimumInterval: try millis("minUpdateIntervalMillis"), minimumDistance: distance,
                maximumDelay: try millis("maxUpdateDelayMillis"))
        default:
            throw failure("device.platform", "expected \"ios\" or \"android\", got \(platformValue.text)")
        }
        do {
            return try DeliveryPolicy(service: service, automaticPause: pause)
        } catch {
            // The values were checked above; this names the policy's own parameter if not.
            throw failure("device", "\(error)")
        }
    }

    func window(_ value: JSONValue, at keyPath: String) throws(JSONFileError) -> TroubleWindow {
        guard case .object = value else { throw failure(keyPath, "expected an object, got \(value.text)") }
        guard let kindValue = value["kind"] else {
            throw failure("\(keyPath).kind", "missing: signalLoss, coldStart, urbanCanyon, jump or stale")
        }
        let kindName = try string(kindValue, at: "\(keyPath).kind")
        let parameters: [String]
        switch kindName {
        case "signalLoss", "coldStart": parameters = ["for", "initialAccuracy", "recovery"]
        case "urbanCanyon": parameters = ["for", "accuracy", "correlationTime"]
        case "jump": parameters = ["distance", "bearing", "honestAccuracy"]
        case "stale": parameters = ["age"]
        default: throw failure("\(keyPath).kind", "expected signalLoss, coldStart, urbanCanyon, jump or stale, got \(kindValue.text)")
        }
        let item = try members(value, at: keyPath, allowed: ["kind", "at"] + parameters)
        func required(_ key: String) throws(JSONFileError) -> JSONValue {
            guard let value = item[key] else { throw failure("\(keyPath).\(key)", "missing (a \(kindName) window needs it)") }
            return value
        }
        func optionalDuration(_ key: String) throws(JSONFileError) -> Duration? {
            try item[key].map { (raw) throws(JSONFileError) in try duration(raw, at: "\(keyPath).\(key)") }
        }
        func optionalNumber(_ key: String, _ unit: String) throws(JSONFileError) -> Double? {
            try item[key].map { (raw) throws(JSONFileError) in
                try number(raw, at: "\(keyPath).\(key)", in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, unit: unit)
            }
        }
        let at = try duration(try required("at"), at: "\(keyPath).at")
        let kind: TroubleWindow.Kind
        switch kindName {
        case "signalLoss":
            kind = .signalLoss(
                initialAccuracy: try optionalNumber("initialAccuracy", "metres") ?? 50, recovery: try optionalDuration("recovery") ?? .seconds(30))
        case "coldStart":
            kind = .coldStart(
                initialAccuracy: try optionalNumber("initialAccuracy", "metres") ?? 65, recovery: try optionalDuration("recovery") ?? .seconds(60))
        case "urbanCanyon":
            var range = 20.0...80
            if let raw = item["accuracy"] {
                let bounds = try list(raw, at: "\(keyPath).accuracy")
                guard bounds.count == 2, let low = bounds[0].number, let high = bounds[1].number else {
                    throw failure("\(keyPath).accuracy", "expected [lowest, highest] in metres, got \(bounds.count == 2 ? "[\(bounds[0].text), \(bounds[1].text)]" : "a list of \(bounds.count)")")
                }
                guard low <= high else {
                    throw failure("\(keyPath).accuracy", "expected [lowest, highest] in metres, the lowest first, got [\(bounds[0].text), \(bounds[1].text)]")
                }
                range = low...high
            }
            kind = .urbanCanyon(accuracy: range, correlationTime: try optionalDuration("correlationTime") ?? .seconds(30))
        case "jump":
            // Its range is the window's own check's (GPSTrouble), as every trouble number's is.
            let distance = try number(
                try required("distance"), at: "\(keyPath).distance", in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, unit: "metres")
            let honest = try item["honestAccuracy"].map { (raw) throws(JSONFileError) in try bool(raw, at: "\(keyPath).honestAccuracy") }
            kind = .jump(distance: distance, bearing: try optionalNumber("bearing", "degrees"), honestAccuracy: honest ?? false)
        default:
            kind = .stale(age: try duration(try required("age"), at: "\(keyPath).age"))
        }
        let length: Duration
        if parameters.contains("for") {
            let raw = try required("for")
            length = try duration(raw, at: "\(keyPath).for")
            // Said here, with the value as written, as every other duration of the file.
            guard length > .zero else { throw failure("\(keyPath).for", "must be longer than 0 s, got \(raw.text)") }
        } else {
            length = .zero
        }
        return TroubleWindow(kind, at: at, for: length)
    }

    func app(_ value: JSONValue) throws(JSONFileError) -> [Scenario.AppMove] {
        var moves: [Scenario.AppMove] = []
        for (index, item) in try list(value, at: "app").enumerated() {
            let keyPath = "app[\(index)]"
            let move = try members(item, at: keyPath, allowed: ["at", "state"])
            guard let atValue = move["at"] else { throw failure("\(keyPath).at", "missing") }
            guard let stateValue = move["state"] else { throw failure("\(keyPath).state", "missing: \"background\" or \"foreground\"") }
            let at = try duration(atValue, at: "\(keyPath).at")
            guard let state = Scenario.AppState(rawValue: try string(stateValue, at: "\(keyPath).state")) else {
                throw failure("\(keyPath).state", "expected \"background\" or \"foreground\", got \(stateValue.text)")
            }
            if let last = moves.last, at <= last.at {
                // Two moves at once would undo each other unseen (or, back to the foreground,
                // hand the app a cached fix it never left for).
                throw failure(
                    "\(keyPath).at",
                    (at == last.at ? "at the same time as" : "earlier than") + " app[\(index - 1)].at: moves are listed in time order, each after the one before")
            }
            // The app starts in the foreground, and each move changes its state: a move to the
            // state it is in would do nothing (or, to the foreground, hand it a cached fix as if
            // it came back): most likely the other state was meant.
            let current = moves.last?.state ?? .foreground
            if state == current {
                throw failure(
                    "\(keyPath).state",
                    "the app is already in the \(state.rawValue) "
                        + (moves.isEmpty ? "(it starts there)" : "(app[\(index - 1)])")
                        + ": moves alternate between \"background\" and \"foreground\"")
            }
            moves.append(Scenario.AppMove(at: at, state: state))
        }
        return moves
    }
}

extension Scenario.Route {
    /// A route made ready to play: a path (a file or a polyline, whose end is known before it
    /// plays) or motion (legs, whose end is known only once played).
    package enum Playable {
        /// A replay, with what reading its file warned about (``GPXReplay/reading(routeFile:lenient:configuration:clock:now:)``).
        case path(GPXReplay<ContinuousClock>, warnings: [String])
        /// Legs' synthetic motion, at the configuration's rate (one fix a second unless it says).
        case motion(RouteLegs.Motion<ContinuousClock>)
    }

    /// The route read and made ready to play with `configuration` (pacing, rate, offset,
    /// timestamps): the one place a scenario's kinds of route are told apart, for `replay`,
    /// `serve --player NAME=scenario.json` and ``MapReplay``-style harnesses alike. A polyline is
    /// walked at its speed from its start, a fix a second unless `configuration.rate` says;
    /// legs take the rate, and the replay's `startOffset` does not apply to them.
    ///
    /// - Parameters:
    ///   - scenario: The scenario file that names this route: a route file's error is told as
    ///     its (``Scenario/RouteFileError``).
    ///   - lenient: A GPX file is read leniently (``GPXReplay/reading(routeFile:lenient:configuration:clock:now:)``).
    ///   - now: The time a replay's rebased timestamps start from.
    /// - Throws: ``Scenario/RouteFileError`` around the route file's reader's error, or a
    ///   ``SimulationError`` for a configuration out of range.
    package func playable(
        scenario: String, configuration: GPXReplay<ContinuousClock>.Configuration, lenient: Bool = false,
        now: @escaping @Sendable () -> Date
    ) throws -> Playable {
        switch self {
        case .file(let path):
            let read: (replay: GPXReplay<ContinuousClock>, warnings: [String])
            do {
                read = try GPXReplay.reading(
                    routeFile: path, lenient: lenient, configuration: configuration, clock: ContinuousClock(), now: now)
            } catch {
                throw Scenario.RouteFileError(scenario: scenario, file: path, underlying: error)
            }
            return .path(read.replay, warnings: read.warnings)
        case .points(let points, let speed, let start):
            return .path(
                try GPXReplay(untimedRoute: points, speed: speed, start: start, configuration: configuration, clock: ContinuousClock()),
                warnings: [])
        case .legs(let legs):
            return .motion(try legs.motion(rate: configuration.rate ?? 1, pacing: configuration.pacing, clock: ContinuousClock()))
        }
    }
}
