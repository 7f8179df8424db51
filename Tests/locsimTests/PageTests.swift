import Foundation
@testable import LocSimCommand
import LocSimTestHelpers
import MapPages
import Testing

/// The pages of Sources/MapPages: each one file that fetches nothing, whose data cannot end its script.
@Suite(.timeLimit(.minutes(1))) struct PageTests {
    @Test(
        "Every page is one self-contained file: the shared stylesheet and renderer inlined, nothing by address",
        arguments: [MapPage.replay, .swarm, .live, .audit])
    func selfContained(_ page: MapPage) {
        let html = page.html(json: "null")
        #expect(HTMLPage.externalReferences(in: html) == [])
        #expect(!html.contains("{{"), "a placeholder is left")
        #expect(html.contains("function drawMap(") && html.contains("body{font:"))
        #expect(html.components(separatedBy: "<script>").count == 2 && html.components(separatedBy: "</script>").count == 2)
    }

    @Test("The data can neither end the script nor open a comment in it")
    func dataEscaped() {
        let html = MapPage.replay.html(json: #"{"title":"</script><!--<script>"}"#)
        #expect(html.components(separatedBy: "</script>").count == 2 && !html.contains("<!--"))
        #expect(html.contains(#"{"title":"\u003c/script>\u003c!--\u003cscript>"}"#))
    }

    @Test("One writer for every page written to a file (the reports, the audit report): whole at the path, or an error naming the page and the path")
    func pageWriter() throws {
        try withScratchFolder("locsim-pages") { directory in
            let page = MapPage.audit.html(json: "null")
            try HTMLReport.write(page, to: directory + "/audit.html", what: "the audit report")
            #expect(try String(contentsOfFile: directory + "/audit.html", encoding: .utf8) == page)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["audit.html"], "no temporary file is left")
            #expect {
                try HTMLReport.write(page, to: directory + "/missing/audit.html", what: "the audit report")
            } throws: { error in
                "\(error)" == "cannot write the audit report to \(directory)/missing/audit.html: No such file or directory"
            }
        }
    }

    @Test("The audit report, drawn: totals that count the clients let go, a row for them, long names cut clear of the dots (whole in the tooltip)",
          .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func auditDrawn() async throws {
        let long = "address:10.0.0.5/MyGame/1.2_CFNetwork/1494.0.7_Darwin/23.4.0"
        let entry = #"{"seq":1,"time":"2026-12-02T10:00:00Z","lat":35.68,"lng":139.76,"radius":5000,"verdict":"first","reason":"first request","status":200}"#
        let shown = try await HTMLPage.rendered(html: MapPage.audit.html(json: """
            {"title":"127.0.0.1:8080","audit":{"violations":3,"evicted":{"clients":2,"requests":4,"violations":3},"next":null,
             "clients":[{"client":"\(long)","requests":1,"violations":0,"verdicts":{"first":1},"timeline":[\(entry)]}]}}
            """))
        #expect(shown.contains("127.0.0.1:8080 · 5 requests from 3 clients · 3 violations"), "\(shown.prefix(2_000))")
        #expect(shown.contains("2 older clients let go to keep the audit within its cap: 3 violations among them"))
        #expect(shown.contains("<title>\(long)</title>") && shown.contains(String(long.prefix(23)) + "…"))
    }

    @Test("The swarm report, drawn: stacked request bars, two latency lines, the interval histogram, the tables",
          .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func swarmDrawn() async throws {
        let shown = try await HTMLPage.rendered(html: MapPage.swarm.html(json: """
            {"server":"http://127.0.0.1:1","summary":"swarm: 2 players","kinds":["first","moved","elapsed","retry","ignored"],
             "seconds":[{"second":0,"requests":[2,0,0,0,1],"p50":900,"p99":4000},{"second":1,"requests":[0,3,1,0,0],"p50":800,"p99":2500}],
             "intervals":[{"seconds":10,"count":4},{"seconds":12,"count":1}],"status":[[200,7]],"errors":[["connect","1","refused"]]}
            """))
        #expect(shown.contains("<pre id=\"summary\">swarm: 2 players</pre>"))
        // Bars: one per non-zero kind and second (4), then one per interval bucket (2).
        #expect(shown.components(separatedBy: "<rect ").count - 1 == 6)
        #expect(shown.components(separatedBy: "<polyline ").count - 1 == 2)
        #expect(shown.contains("<td>200</td><td>7</td>") && shown.contains("<td style=\"text-align:left\">refused</td>"))
        #expect(shown.contains(">4.0 ms</text>"))
        // Counts are whole: not "4.0 intervals".
        #expect(shown.contains(">4 req/s</text>") && shown.contains(">4 intervals</text>"))
        // Charts as wide as the other pages' maps: with the page's margins, within a 1000 px window.
        #expect(shown.components(separatedBy: #"width="900" height="220""#).count - 1 == 3 && !shown.contains(#"width="1000""#))
    }

    @Test("A swarm with no errors says so instead of drawing an empty table's headers",
          .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)"))
    func swarmWithoutErrors() async throws {
        let shown = try await HTMLPage.rendered(html: MapPage.swarm.html(json: """
            {"server":"http://127.0.0.1:1","summary":"swarm: 1 player","kinds":["first","moved","elapsed","retry","ignored"],
             "seconds":[{"second":0,"requests":[1,0,0,0,0],"p50":900,"p99":900}],"intervals":[],"status":[[200,1]],"errors":[]}
            """))
        #expect(shown.contains(#"<p id="errors">No errors.</p>"#), "\(shown.suffix(600))")
        #expect(!shown.contains("<th>kind</th>"))
        #expect(shown.contains("<td>200</td><td>1</td>"))
    }
}
