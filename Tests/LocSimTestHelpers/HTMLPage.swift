import Foundation

/// locsim's HTML pages (Sources/MapPages) under test: whether a file is self-contained, and what it
/// shows once its script has run, in headless Chromium.
public enum HTMLPage {
    /// Chromium, if it is installed (scripts/bootstrap.sh installs it).
    public static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Everything in `html` that would reach beyond the file: stylesheets, scripts or images by
    /// address, CSS imports and URLs, any address but the SVG namespace's.
    public static func externalReferences(in html: String) -> [String] {
        html.matches(of: #/<link|\ssrc=|@import|url\(|https?:\/\/(?!www\.w3\.org\/2000\/svg['"])[^\s'"<]*/#).map { String(html[$0.range]) }
    }

    /// The page in `file` as Chromium has it once its scripts ran (`--dump-dom`), without its
    /// script elements: the markup of what it shows.
    ///
    /// - Throws: `HarnessError` without Chromium, or when it fails.
    public static func rendered(_ file: String) async throws -> String {
        guard let chromium else { throw HarnessError("needs Chromium (apt-get install chromium; scripts/bootstrap.sh)") }
        let run = try await withScratchFolder("locsim-chromium") { profile in
            try await ChildProcess.run(
                [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile, "--dump-dom", "file://" + file],
                timeout: .seconds(50))
        }
        guard run.status == 0, run.output.contains("</html>") else {
            throw HarnessError("chromium --dump-dom \(file): \(run.termination)\n\(run.errors)")
        }
        var dom = run.output
        while let start = dom.range(of: "<script"), let end = dom[start.upperBound...].range(of: "</script>") {
            dom.removeSubrange(start.lowerBound..<end.upperBound)
        }
        return dom
    }

    /// `html` written to a file in a scratch folder and drawn by Chromium (``rendered(_:)``).
    public static func rendered(html: String) async throws -> String {
        try await withScratchFolder("locsim-page") { folder in
            let file = folder + "/page.html"
            try html.write(toFile: file, atomically: true, encoding: .utf8)
            return try await rendered(file)
        }
    }
}
