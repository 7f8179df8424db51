#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// The players' control API of a real `locsim serve` process, called over loopback by a raw
/// HTTP client, with Server-Sent Events and a gpsd client watching the same players.
@Suite(.timeLimit(.minutes(1))) struct PlayerAPICommandTests {
    static let token = "t0k3n"
    static let line = "line:35.6812,139.7671:35.6852,139.7528"

    @Test("Every route over HTTP: the token rule, list, add (spec and GPX body), state, each control, 400s naming the field, 404s, 405, delete")
    func routes() async throws {
        let server = try await ServeProcess.start(gpsd: true, [
            "--token", Self.token, "--player", "alice=\(Self.line) --seed 3", "--player-speed", "4",
        ])
        defer { server.command.stop() }

        // The token rule of the nearby endpoint; the page at / holds no data and is open.
        let anonymous = try await server.call("GET", "/players", token: nil)
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["www-authenticate"] == "Bearer")
        await #expect(try server.call("GET", "/players", token: "wrong").status == 401)
        await #expect(try server.call("POST", "/players/alice/control", #"{"action":"pause"}"#, token: nil).status == 401)
        await #expect(try server.call("GET", "/players/events", token: nil).status == 401)
        let page = try await server.call("GET", "/", token: nil)
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)

        let listed = try await server.call("GET", "/players")
        #expect(listed.status == 200)
        #expect((listed.json["players"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["alice"])
        let alice = try await server.waitFor("alice", "a first fix") { $0["fix"] != nil }
        #expect(alice["device"] as? String == "/dev/locsim/alice")
        #expect(alice["state"] as? String == "playing")
        #expect(alice["speed"] as? Double == 4)
        #expect((alice["duration"] as? Double ?? 0) > 0)
        #expect(((alice["fix"] as? [String: Any])?["class"] as? String) == "TPV")

        // A synthetic spec, as --player takes it, and a GPX body.
        let bob = try await server.call("POST", "/players", #"{"name":"bob","spec":"\#(Self.line) --profile run","speed":2}"#)
        #expect(bob.status == 201, "\(bob.body)")
        #expect(bob.json["speed"] as? Double == 2)
        let gpx = try String(contentsOfFile: PackagePaths.path("tracks/tokyo-marunouchi-walk.gpx"), encoding: .utf8)
        let walk = try await server.call("POST", "/players?name=walk&loop=true", gpx, contentType: "application/gpx+xml")
        #expect(walk.status == 201, "\(walk.body)")
        #expect(walk.json["loop"] as? Bool == true)
        #expect(walk.json["summary"] as? String == "GPX body, \(gpx.components(separatedBy: "<trkpt ").count - 1) points")
        // A point whose time goes backwards is dropped, and the answer says so (as standard error does).
        let back = """
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="35.68" lon="139.76"><time>2024-05-01T00:00:00Z</time></trkpt>
            <trkpt lat="35.6801" lon="139.76"><time>2024-05-01T00:00:10Z</time></trkpt>
            <trkpt lat="35.6802" lon="139.76"><time>2024-05-01T00:00:05Z</time></trkpt>
            <trkpt lat="35.6803" lon="139.76"><time>2024-05-01T00:00:20Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let backwards = try await server.call("POST", "/players?name=back", back, contentType: "application/gpx+xml")
        #expect(backwards.status == 201, "\(backwards.body)")
        #expect(
            backwards.json["summary"] as? String == "GPX body, 3 points; dropped 1 point whose time goes backwards (a replay never reorders)",
            "\(backwards.body)")
        #expect(try await server.call("DELETE", "/players/back").status == 200)
        let names = await (try server.call("GET", "/players").json["players"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["alice", "bob", "walk"])
        _ = try await server.waitFor("walk", "the GPX player's first fix") { $0["fix"] != nil }
        // A GPX file's end is known from the start: the walk shows its length and seeks by fraction.
        let walkState = try await server.call("GET", "/players/walk").json
        #expect((walkState["duration"] as? Double ?? 0) > 3_000, "\(walkState)")
        let walkHalf = try await server.call("POST", "/players/walk/control", #"{"action":"seek","fraction":0.5}"#)
        #expect(walkHalf.status == 200, "\(walkHalf.body)")
        // The answer is the state after the seek: at half way, plus what the real-time player
        // played while the answer was made (less than a second of the walk), never before it.
        let duration = walkState["duration"] as? Double ?? 1
        let fraction = walkHalf.json["fraction"] as? Double ?? .nan
        #expect(fraction >= 0.5 - 1e-9 && fraction < 0.5 + 1 / duration, "\(walkHalf.body)")

        let refused: [(String, String, Int, String)] = [
            ("/players", #"{"name":"carol","spec":"tracks/tokyo-marunouchi-walk.gpx"}"#, 400, "spec"),
            ("/players", #"{"name":"carol","spec":"line:35.68,139.76"}"#, 400, "spec"),
            ("/players", #"{"name":"carol","spec":"\#(Self.line)","speed":0}"#, 400, "speed"),
            // Two speeds that disagree: neither wins silently.
            ("/players", #"{"name":"carol","spec":"\#(Self.line) --speed 3","speed":7}"#, 400, "speed"),
            ("/players", #"{"name":"bob","spec":"\#(Self.line)"}"#, 409, "name"),
            ("/players", #"{"spec":"\#(Self.line)"}"#, 400, "name"),
            ("/players", "{", 400, "body"),
        ]
        for (path, body, status, parameter) in refused {
            let answer = try await server.call("POST", path, body)
            #expect(answer.status == status, "\(body): \(answer.body)")
            #expect(answer.errorParameter == parameter, "\(body): \(answer.body)")
        }
        // Two speeds that differ past the third decimal are not shown as the same number.
        let close = try await server.call("POST", "/players", #"{"name":"carol","spec":"\#(Self.line) --speed 5","speed":5.0000001}"#)
        #expect(close.body.contains("the spec says --speed 5.0 and 'speed' is 5.0000001"), "\(close.body)")
        let badGPX = try await server.call("POST", "/players?name=carol", "<gpx><trk>", contentType: "application/gpx+xml")
        #expect(badGPX.status == 400)
        #expect(badGPX.errorParameter == "body")

        // Each control action answers the player's new state.
        let control = "/players/alice/control"
        let paused = try await server.call("POST", control, #"{"action":"pause"}"#)
        #expect(paused.status == 200)
        #expect(paused.json["state"] as? String == "paused")
        await #expect(try server.call("POST", control, #"{"action":"speed","speed":8}"#).json["speed"] as? Double == 8)
        let seeked = try await server.call("POST", control, #"{"action":"seek","offset":10}"#).json
        #expect(abs((seeked["offset"] as? Double ?? .nan) - 10) < 1e-6)
        let half = try await server.call("POST", control, #"{"action":"seek","fraction":0.5}"#).json
        #expect(abs((half["fraction"] as? Double ?? .nan) - 0.5) < 1e-6)
        await #expect(try server.call("POST", control, #"{"action":"loop","loop":true}"#).json["loop"] as? Bool == true)
        await #expect(try server.call("POST", control, #"{"action":"teleport","lat":35.6895,"lng":139.6917}"#).status == 200)
        let moved = try await server.waitFor("alice", "the teleported fix") { json in
            ((json["fix"] as? [String: Any])?["lat"] as? Double) == 35.6895
        }
        #expect(((moved["fix"] as? [String: Any])?["lon"] as? Double) == 139.6917)
        await #expect(try server.call("POST", control, #"{"action":"resume"}"#).json["state"] as? String == "playing")

        let badControls: [(String, String)] = [
            (#"{"action":"jump"}"#, "action"), (#"{"action":"speed","speed":1e}"#, "body"),
            (#"{"action":"speed","speed":1e9}"#, "speed"),
            (#"{"action":"speed","speed":2000}"#, "speed"), (#"{"action":"seek","fraction":2}"#, "fraction"),
            (#"{"action":"teleport","lat":95,"lng":0}"#, "lat"), (#"{"action":"loop","loop":1}"#, "loop"),
        ]
        for (body, parameter) in badControls {
            let answer = try await server.call("POST", control, body)
            #expect(answer.status == 400, "\(body): \(answer.body)")
            #expect(answer.errorParameter == parameter, "\(body): \(answer.body)")
        }

        for (method, path) in [("GET", "/players/nobody"), ("POST", "/players/nobody/control"), ("DELETE", "/players/nobody"),
            ("GET", "/players/nobody/fixes")]
        {
            let answer = try await server.call(method, path, method == "POST" ? #"{"action":"pause"}"# : "")
            #expect(answer.status == 404, "\(method) \(path)")
            #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "not_found")
        }
        let put = try await server.call("PUT", "/players")
        #expect(put.status == 405)
        #expect(put.headers["allow"] == "GET, POST, HEAD")
        // HEAD wherever GET works: the same length, no body; on an event stream, no stream.
        let head = try await server.call("HEAD", "/")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["content-length"] == String(page.body.utf8.count))
        #expect(try await server.call("HEAD", "/players").status == 200)
        let events = try await server.call("HEAD", "/players/events")
        #expect(events.status == 200)
        #expect(events.body.isEmpty)
        // The GET's length is unknown: no Content-Length (a 0 would be false), framed as the GET.
        #expect(events.headers["content-length"] == nil, "\(events.headers)")
        #expect(events.headers["transfer-encoding"] == "chunked", "\(events.headers)")

        await #expect(try server.call("DELETE", "/players/bob").status == 200)
        await #expect(try server.call("GET", "/players/bob").status == 404)

        server.command.interrupt()
        #expect(try await server.command.waitForExit(timeout: .seconds(30)) == .exited(0))
    }

    @Test("A page of another origin cannot change the server's state (CSRF): its POST or DELETE is a 403 naming Origin; the server's own page and non-browser clients can")
    func otherOriginsRefused() async throws {
        let server = try await ServeProcess.start(["--player", "alice=\(Self.line)"])
        defer { server.command.stop() }
        // Without --gpsd-port the start-up lines list the players too.
        try await server.command.wait(for: "alice's start-up line") { lines in lines.contains { $0.text.hasPrefix("  /dev/locsim/alice: line") } }
        let evil = ["Origin": "http://evil.example"]
        for (method, path, body) in [
            ("POST", "/players/alice/control", #"{"action":"pause"}"#),
            ("POST", "/players", #"{"name":"csrf","spec":"stationary:35.68,139.76 --duration 1m"}"#),
            ("DELETE", "/players/alice", ""), ("POST", "/audit/reset", ""),
        ] {
            let refused = try await server.call(method, path, body, contentType: "text/plain", headers: evil)
            #expect(refused.status == 403, "\(method) \(path): \(refused.body)")
            #expect((refused.json["error"] as? [String: Any])?["parameter"] as? String == "Origin", "\(refused.body)")
        }
        // DNS rebinding: a page of evil.example, whose name now points at 127.0.0.1, sends its
        // own origin as Origin and its name as Host; a name the server is not known by is refused.
        let rebound = try await server.call(
            "POST", "/players/alice/control", #"{"action":"pause"}"#, contentType: "text/plain",
            headers: ["Origin": "http://evil.example:\(server.http)", "Host": "evil.example:\(server.http)"])
        #expect(rebound.status == 403, "\(rebound.body)")
        #expect(try await server.call("GET", "/players/csrf").status == 404, "no player was added")
        #expect(try await server.call("GET", "/players/alice").json["state"] as? String != "paused")
        // The live map (this server's own origin) and a client with no Origin are served.
        let own = ["Origin": server.base]
        #expect(try await server.call("POST", "/players/alice/control", #"{"action":"pause"}"#, headers: own).status == 200)
        let byName = ["Origin": "http://localhost:\(server.http)", "Host": "localhost:\(server.http)"]
        #expect(try await server.call("POST", "/players/alice/control", #"{"action":"resume"}"#, headers: byName).status == 200)
        #expect(try await server.call("POST", "/players/alice/control", #"{"action":"pause"}"#, headers: own).status == 200)
        #expect(try await server.call("POST", "/players/alice/control", #"{"action":"resume"}"#).status == 200)
        // Reading stays open to any origin (a browser keeps the answer from the other page).
        #expect(try await server.call("GET", "/players", headers: evil).status == 200)
    }

    @Test("Server-Sent Events show pause, resume and teleport as they happen, a gpsd client sees the teleport, a quiet stream gets heartbeats")
    func eventsAndGPSD() async throws {
        let server = try await ServeProcess.start(
            gpsd: true, ["--token", Self.token, "--player", "alice=\(Self.line)", "--player-speed", "4", "--event-heartbeat", "500ms"])
        defer { server.command.stop() }
        let fixes = try SocketLines.events(port: server.http, path: "/players/alice/fixes", token: Self.token)
        defer { fixes.stop() }
        let all = try SocketLines.events(port: server.http, path: "/players/events", token: Self.token)
        defer { all.stop() }
        let gpsd = try SocketLines(port: try #require(server.gpsd), request: #"?WATCH={"enable":true,"json":true};"#)
        defer { gpsd.stop() }

        try await fixes.wait("two fix events") { $0.events("fix").count >= 2 }
        #expect(fixes.lines.first == "HTTP/1.1 200 OK")
        #expect(fixes.lines.contains { $0.lowercased() == "content-type: text/event-stream" })
        #expect(fixes.events("state").first?["reason"] as? String == "current")

        await #expect(try server.call("POST", "/players/alice/control", #"{"action":"pause"}"#).status == 200)
        try await fixes.wait("the pause event") { lines in
            lines.events("state").contains { ($0["reason"] as? String) == "pause" }
        }
        let pauseEvent = fixes.events("state").first { ($0["reason"] as? String) == "pause" }
        #expect((pauseEvent?["player"] as? [String: Any])?["state"] as? String == "paused")

        await #expect(try server.call("POST", "/players/alice/control", #"{"action":"teleport","lat":35.6895,"lng":139.6917}"#).status == 200)
        try await fixes.wait("the teleported fix") { lines in
            lines.events("fix").contains { (($0["fix"] as? [String: Any])?["lat"] as? Double) == 35.6895 }
        }
        try await all.wait("the teleported fix on /players/events") { lines in
            lines.events("fix").contains { (($0["fix"] as? [String: Any])?["lon"] as? Double) == 139.6917 }
        }
        try await gpsd.wait("the gpsd TPV at the teleport point") { client in
            client.lines.contains { line in
                guard let tpv = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return false }
                return tpv["class"] as? String == "TPV" && tpv["device"] as? String == "/dev/locsim/alice"
                    && tpv["lat"] as? Double == 35.6895 && tpv["lon"] as? Double == 139.6917
            }
        }

        let before = fixes.events("fix").count
        await #expect(try server.call("POST", "/players/alice/control", #"{"action":"resume"}"#).status == 200)
        try await fixes.wait("fixes again after resume") { lines in
            lines.events("state").contains { ($0["reason"] as? String) == "resume" } && lines.events("fix").count >= before + 2
        }
        // After the teleport the walk goes on from the new point, not from the old path.
        let last = try #require(fixes.events("fix").last?["fix"] as? [String: Any])

        // At 4×, through a pause and a teleport, each TPV is stamped with the wall clock it was
        // sent at, later than the one before: none ahead of the clock, the newest just behind it.
        let stamps = gpsd.lines.compactMap { line -> Date? in
            guard let tpv = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                tpv["class"] as? String == "TPV", let time = tpv["time"] as? String
            else { return nil }
            return try? Date(time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
        }
        #expect(stamps.count >= 3)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "\(stamps)")
        let newest = try #require(stamps.last)
        #expect(newest.timeIntervalSinceNow < 0.5 && newest.timeIntervalSinceNow > -10, "newest TPV at \(newest), now \(Date())")
        // The event stream gives the player's own time beside it: its offset into the path.
        #expect(fixes.events("fix").allSatisfy { $0["offset"] is Double })
        #expect(abs((last["lat"] as? Double ?? 0) - 35.6895) < 0.01)

        // Deleting the player ends its stream with a 'removed' event.
        await #expect(try server.call("DELETE", "/players/alice").status == 200)
        try await fixes.wait("the removed event") { $0.lines.contains("event: removed") }
        try await all.wait("the removed event on /players/events") { $0.lines.contains("event: removed") }

        // With no player left nothing happens, yet the open stream gets its keep-alive comment
        // (every 500 ms here, by --event-heartbeat; 15 s unless told).
        let beats = all.lines.filter { $0 == ": keep-alive" }.count
        try await all.wait("a heartbeat on the quiet stream") { $0.lines.filter { $0 == ": keep-alive" }.count > beats }

        // SIGINT with event streams open: they end and the server exits 0.
        server.command.interrupt()
        #expect(try await server.command.waitForExit(timeout: .seconds(30)) == .exited(0))
    }
}
