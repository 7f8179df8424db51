import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// The live map at `/` in a real browser: headless Chromium, driven over the DevTools protocol by
/// scripts/livemap-browser-check.py, loads the page of a running `locsim serve`, sees a player
/// move, presses its pause button and sees it stop.
@Suite(.timeLimit(.minutes(1))) struct LiveMapBrowserTests {
    @Test(
        "Chromium loads the live map (token in the address), sees alice move, presses pause, and alice stops",
        .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func pauseInBrowser() async throws {
        let token = "map-t0ken"
        let server = try await ServeProcess.start(gpsd: true, [
            "--token", token, "--player", "alice=line:35.6812,139.7671:35.6852,139.7528", "--player",
            "bob=line:35.6800,139.7650:35.6760,139.7700 --profile run", "--player-speed", "20",
        ])
        defer { server.command.stop() }
        // LOCSIM_LIVEMAP_SCREENSHOT=docs/images/live-map.png keeps the picture (how the docs' one was made).
        let screenshot = ProcessInfo.processInfo.environment["LOCSIM_LIVEMAP_SCREENSHOT"]
            ?? NSTemporaryDirectory() + "locsim-live-map-\(getpid()).png"
        defer { if ProcessInfo.processInfo.environment["LOCSIM_LIVEMAP_SCREENSHOT"] == nil { try? FileManager.default.removeItem(atPath: screenshot) } }
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
