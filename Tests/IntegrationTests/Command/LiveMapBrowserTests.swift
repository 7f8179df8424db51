import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// The live map at `/` in a real browser: headless Chromium, driven over the DevTools protocol by
/// scripts/livemap-browser-check.py, loads the page of a running `locsim serve`, sees a player
/// move, presses its pause button and sees it stop; opened mid-run and reloaded, it draws what
/// the players did before (the server's history) and keeps up with them.
@Suite(.timeLimit(.minutes(1))) struct LiveMapBrowserTests {
    @Test(
        "Chromium loads the live map (token in the address), sees alice move, presses pause, and alice stops",
        .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func pauseInBrowser() async throws {
        // A base64-like token, pasted as is: its '+' is no space, its '/' and '=' are kept.
        let token = "map+t0ken/x=="
        let server = try await ServeProcess.start(gpsd: true, [
            "--token", token, "--player", "alice=line:35.6812,139.7671:35.6852,139.7528", "--player",
            "bob=line:35.6800,139.7650:35.6760,139.7700 --profile run", "--player-speed", "20",
        ])
        defer { server.command.stop() }
        try await withScratchFolder("locsim-live-map") { folder in
            // LOCSIM_LIVEMAP_SCREENSHOT=docs/images/live-map.png keeps the picture (how the docs' one was made).
            let screenshot = ProcessInfo.processInfo.environment["LOCSIM_LIVEMAP_SCREENSHOT"] ?? folder + "/live-map.png"
            let check = try await ChildProcess([
                "/usr/bin/python3", PackagePaths.path("scripts/livemap-browser-check.py"),
                "http://127.0.0.1:\(server.http)/#token=\(token)", "alice", screenshot,
            ])
            defer { check.stop() }
            let status = try await check.waitForExit(timeout: .seconds(180))
            #expect(status == .exited(0), "\(check.output) \(check.errors)")
            let seen = try #require(try JSONSerialization.jsonObject(with: Data(check.output.utf8)) as? [String: Any], "\(check.output)")
            #expect(seen["ok"] as? Bool == true, "\(seen)")
            // PNG signature: a real picture came back.
            let picture = try Data(contentsOf: URL(fileURLWithPath: screenshot))
            #expect(Array(picture.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            // The page's pause went through the API: the server says alice is paused.
            let alice = try await server.call("GET", "/players/alice", token: token).json
            #expect(alice["state"] as? String == "paused")
        }
    }

    @Test(
        "Opened mid-run and reloaded, the page draws alice's trail, fetches and places so far at once, its progress follows the API's fraction; names clear of each other, a scale that fits a world view",
        .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func reloadKeepsMemory() async throws {
        let token = "map-t0ken"
        // A GPX walk (its length known, so a fraction) at 20×: 3,854 fixes in about 190 s.
        let server = try await ServeProcess.start([
            "--token", token, "--player", "alice=" + PackagePaths.path("tracks/tokyo-marunouchi-walk.gpx") + " --speed 20",
            "--player", "bob=line:35.6800,139.7650:35.6760,139.7700 --profile run", "--player-speed", "5",
        ])
        defer { server.stop() }
        // alice has walked a while before the page opens.
        _ = try await server.waitFor("alice", "200 fixes of alice") { ($0["fixes"] as? Int ?? 0) >= 200 }
        let directory = NSTemporaryDirectory() + "locsim-live-map-reload-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // LOCSIM_LIVEMAP_KEEP=1 keeps the pictures (their folder is in the test's output).
        defer { if ProcessInfo.processInfo.environment["LOCSIM_LIVEMAP_KEEP"] == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let shots = ["before-reload.png", "after-reload.png", "world.png"].map { directory + "/" + $0 }
        let check = try await ChildProcess([
            "/usr/bin/python3", PackagePaths.path("scripts/livemap-browser-check.py"), "reload",
            "http://127.0.0.1:\(server.http)/#token=\(token)", "alice",
        ] + shots)
        defer { check.stop() }
        let status = try await check.waitForExit(timeout: .seconds(50))
        #expect(status == .exited(0), "\(check.output) \(check.errors)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(check.output.utf8)) as? [String: Any], "\(check.output)")
        #expect(seen["ok"] as? Bool == true, "\(seen)")
        #expect((seen["failures"] as? [String])?.isEmpty == true, "\(seen)")
        // Right after the reload the trail had about as many points as alice had sent fixes.
        let reloaded = try #require(seen["reloaded"] as? [String: Any], "\(seen)")
        #expect(reloaded["points"] as? Int ?? 0 >= 180, "\(reloaded)")
        for shot in shots {
            let picture = try Data(contentsOf: URL(fileURLWithPath: shot))
            #expect(Array(picture.prefix(4)) == [0x89, 0x50, 0x4E, 0x47], "\(shot)")
        }
        // The page removed the player it added.
        #expect(try await server.call("GET", "/players/london").status == 404)
    }
}
