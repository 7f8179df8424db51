import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import Testing

/// What a person sees in `--report FILE.html` (drawn by headless Chromium): values they can read,
/// colours they can tell apart, labels clear of the data, and failed fetches with their errors.
@Suite(.timeLimit(.minutes(1)), .enabled(if: HTMLPage.chromium != nil, "needs Chromium (apt-get install chromium; scripts/bootstrap.sh)")) struct ReportTests {
    /// Replays a walk with `--report` and returns the page as Chromium draws it (``HTMLPage/rendered(_:)``).
    static func report(_ arguments: [String]) async throws -> String {
        try await withScratchFolder("locsim-report") { folder in
            let path = folder + "/report.html"
            let result = try await CLI.run(["replay"] + arguments + ["--fast", "--report", path])
            #expect(result.status == 0, "\(result.stderr)")
            return try await HTMLPage.rendered(path)
        }
    }

    static let tokyo = ["tracks/tokyo-marunouchi-walk.gpx", "--radius", "1500", "--geodata", "geodata"]
    /// A scenario whose phone loses, changes and withholds fixes and goes to the background.
    static let background = ["--scenario", "tracks/scenarios/background-walk.json", "--geodata", "geodata"]

    @Test("A scenario's report shows what its phone did: a row of lost, changed and withheld fixes and the app's time in the background, counted as the summary counts them")
    func phoneShown() async throws {
        let html = try await Self.report(Self.background)
        let subtitle = try #require(html.range(of: #"<p class="sub" id="subtitle">"#).map { String(html[$0.upperBound...].prefix { $0 != "<" }) })
        #expect(subtitle.hasPrefix("tracks/scenarios/background-walk.json (its route: "), "\(subtitle)")
        let start = try #require(html.range(of: #"<svg id="timeline""#))
        let end = try #require(html[start.lowerBound...].range(of: "</svg>"))
        let timeline = String(html[start.lowerBound..<end.upperBound])
        #expect(Self.texts(timeline).contains { $0.text == "phone" })
        // The summary's own counts: "2609 withheld (…); trouble: 60 lost, 31 changed; no batches".
        let row = try #require(Self.rows(html, table: "summary").first { $0.first == "phone" }?.last)
        func count(before word: String) throws -> Int {
            let range = try #require(row.range(of: " " + word), "\(row)")
            return try #require(Int(row[..<range.lowerBound].split(whereSeparator: { !$0.isNumber }).last ?? ""), "\(row)")
        }
        for (kind, word) in [("lost", "lost"), ("changed", "changed"), ("withheld", "withheld")] {
            let expected = try count(before: word)
            #expect(expected > 0)
            #expect(timeline.components(separatedBy: "class=\"phone-mark phone-\(kind)\"").count - 1 == expected, "\(kind)")
        }
        // One background stretch (17:40 to 17:42), its times in its tooltip; fetches stop inside it.
        let bands = timeline.components(separatedBy: #"<rect class="phone-background""#).dropFirst()
        #expect(bands.count == 1)
        #expect(bands.first?.contains("<title>app in the background 2024-11-07T17:40:00Z – 2024-11-07T17:42:00Z</title>") == true)
        let band = try #require(bands.first)
        let left = try #require(Self.attribute("x", in: " " + band).flatMap(Double.init))
        let width = try #require(Self.attribute("width", in: " " + band).flatMap(Double.init))
        let ticks = Self.attributes("x1", ofElementsWith: #"class="tick"#, in: timeline).compactMap(Double.init)
        #expect(!ticks.contains { $0 > left + 1 && $0 < left + width - 1 }, "a fetch while the app was in the background")
        // On the map: a ring where trouble lost or changed a fix.
        #expect(html.components(separatedBy: #"<circle class="phone-lost""#).count - 1 == (try count(before: "lost")))
    }

    @Test("A place's name in a tooltip is isolated: a direction override in it (U+202E) cannot turn the words after it around")
    func namesIsolated() async throws {
        try await withScratchFolder("locsim-report-bidi") { geodata in
            // At the walk's first point, so it appears and is met.
            try "id,name,lat,lon,kind\nbidi1,evil\u{202E}gnp.exe,35.6811824,139.7670915,shop\n".write(
                toFile: geodata + "/places.csv", atomically: true, encoding: .utf8)
            let html = try await Self.report(["tracks/tokyo-marunouchi-walk.gpx", "--radius", "1500", "--geodata", geodata])
            #expect(html.contains("<title>\u{2068}evil\u{202E}gnp.exe\u{2069} (\u{2068}bidi1\u{2069}), appeared "), "\(html.prefix(3_000))")
            #expect(html.contains("<title>encounter: \u{2068}evil\u{202E}gnp.exe\u{2069} at "))
        }
    }

    @Test("The summary shows fetches by reason as words and numbers, not JSON")
    func summaryValues() async throws {
        let html = try await Self.report(Self.tokyo)
        let row = try #require(Self.rows(html, table: "summary").first { $0.first == "fetches by reason" })
        #expect(row.count == 2)
        let text = row[1]
        #expect(!text.contains("{") && !text.contains("\""), "\(text)")
        // Each reason with its count, in the jsonl summary's order.
        let parts = text.components(separatedBy: ", ").map { $0.split(separator: " ") }
        #expect(parts.map { String($0[0]) } == ["first", "moved", "elapsed", "retry"], "\(text)")
        #expect(parts.allSatisfy { $0.count == 2 && Int($0[1]) != nil }, "\(text)")
        #expect(!html.contains("<td>null</td>"))
    }

    @Test("Every legend colour is distinct, and places never share a hue with a fetch reason")
    func distinctColours() async throws {
        let html = try await Self.report(Self.tokyo)
        let legend = try #require(html.range(of: #"<p class="legend">"#).map { html[$0.upperBound...] })
        let end = try #require(legend.range(of: "</p>"))
        let spans = legend[..<end.lowerBound].components(separatedBy: "<span>").dropFirst()
        var colours: [String: String] = [:]
        for span in spans {
            guard let background = span.range(of: "background:") else { continue }
            let colour = String(span[background.upperBound...].prefix { $0 != "\"" })
            let label = String(span[(span.range(of: "</i>")?.upperBound ?? span.endIndex)...].prefix { $0 != "<" })
            colours[label] = colour
        }
        let fetchHues = try colours.filter { $0.key.hasPrefix("fetch: ") }.map { try Self.hue(of: $0.value) }
        let placeHues = try colours.filter { $0.key.hasPrefix("place") }.map { try Self.hue(of: $0.value) }
        #expect(fetchHues.count == 4 && placeHues.count == 2, "\(colours)")
        #expect(Set(colours.values).count == colours.count, "two legend entries share a colour: \(colours)")
        for place in placeHues {
            for fetch in fetchHues {
                let gap = abs(place - fetch).truncatingRemainder(dividingBy: 360)
                #expect(min(gap, 360 - gap) >= 30, "place hue \(place) is close to a fetch hue \(fetch): \(colours)")
            }
        }
        // The map uses the legend's colours: every place is drawn in the place hue.
        let placeHue = try #require(placeHues.first)
        for fill in Self.attributes("fill", ofElementsWith: #"class="place""#, in: html) {
            #expect(try Self.hue(of: fill) == placeHue, "\(fill)")
        }
    }

    @Test("Timeline labels sit in the gutter or the axis row and do not overlap each other", arguments: [tokyo, background])
    func labelsClearOfData(_ arguments: [String]) async throws {
        let html = try await Self.report(arguments)
        let start = try #require(html.range(of: #"<svg id="timeline""#))
        let end = try #require(html[start.lowerBound...].range(of: "</svg>"))
        let timeline = String(html[start.lowerBound..<end.upperBound])
        // The data area starts where the first fetch tick is drawn at the first fix's time.
        let dataLeft = try #require(Self.attributes("x1", ofElementsWith: #"class="tick"#, in: timeline).compactMap(Double.init).min())
        let dataBottom = try #require(Self.pathYs(timeline).max())
        let labels = Self.texts(timeline)
        #expect(labels.count >= 6, "\(labels)")
        for label in labels {
            let inGutter = label.box.maxX <= dataLeft
            let belowData = label.box.minY >= dataBottom
            #expect(inGutter || belowData, "label '\(label.text)' is drawn over the data: \(label.box)")
        }
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] {
                #expect(!a.box.intersects(b.box), "labels '\(a.text)' and '\(b.text)' overlap")
            }
        }
    }

    // MARK: Reading the SVG

    struct Box: CustomStringConvertible {
        var minX, minY, maxX, maxY: Double
        func intersects(_ other: Box) -> Bool {
            minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
        }
        var description: String { "x \(minX)…\(maxX), y \(minY)…\(maxY)" }
    }

    /// Every `<text>` element with a box estimated generously from its font size (glyphs at most
    /// 0.62 em wide, as DejaVu Sans's widest lower-case digits and letters are).
    static func texts(_ svg: String) -> [(text: String, box: Box)] {
        svg.components(separatedBy: "<text").dropFirst().compactMap { chunk in
            guard let close = chunk.firstIndex(of: ">"), let end = chunk.range(of: "</text>") else { return nil }
            let tag = String(chunk[..<close])
            let text = String(chunk[chunk.index(after: close)..<end.lowerBound])
            guard let x = attribute("x", in: tag).flatMap(Double.init), let y = attribute("y", in: tag).flatMap(Double.init),
                  let size = attribute("font-size", in: tag).flatMap(Double.init)
            else { return nil }
            let width = 0.62 * size * Double(text.count)
            let anchor = attribute("text-anchor", in: tag) ?? "start"
            let minX = anchor == "end" ? x - width : anchor == "middle" ? x - width / 2 : x
            return (text, Box(minX: minX, minY: y - size, maxX: minX + width, maxY: y + 0.25 * size))
        }
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        guard let range = tag.range(of: " \(name)=\"") else { return nil }
        return String(tag[range.upperBound...].prefix { $0 != "\"" })
    }

    static func attributes(_ name: String, ofElementsWith marker: String, in html: String) -> [String] {
        html.components(separatedBy: "<").filter { $0.contains(marker) }.compactMap { attribute(name, in: " " + $0) }
    }

    /// The y coordinates of the place-count path.
    static func pathYs(_ svg: String) -> [Double] {
        guard let d = attributes("d", ofElementsWith: #"class="place-count""#, in: svg).first else { return [] }
        return d.split(whereSeparator: { $0 == " " || $0 == "M" || $0 == "L" }).compactMap { pair in
            pair.split(separator: ",").last.flatMap { Double($0) }
        }
    }

    static func rows(_ html: String, table id: String) -> [[String]] {
        guard let start = html.range(of: "<table id=\"\(id)\">"), let end = html[start.upperBound...].range(of: "</table>") else { return [] }
        return html[start.upperBound..<end.lowerBound].components(separatedBy: "<tr>").dropFirst().map { row in
            row.components(separatedBy: "<td>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        }
    }

    struct ColourError: Error { var colour: String }

    /// The hue in degrees of `#rrggbb` or `hsl(h,…)`.
    static func hue(of colour: String) throws -> Double {
        if colour.hasPrefix("hsl(") {
            guard let h = Double(colour.dropFirst(4).prefix { $0 != "," }) else { throw ColourError(colour: colour) }
            return h
        }
        guard colour.hasPrefix("#"), colour.count == 7, let value = Int(colour.dropFirst(), radix: 16) else {
            throw ColourError(colour: colour)
        }
        let r = Double((value >> 16) & 0xff) / 255, g = Double((value >> 8) & 0xff) / 255, b = Double(value & 0xff) / 255
        let maxC = max(r, g, b), minC = min(r, g, b), delta = maxC - minC
        guard delta > 0 else { return 0 }
        var h: Double
        if maxC == r {
            h = ((g - b) / delta).truncatingRemainder(dividingBy: 6)
        } else if maxC == g {
            h = (b - r) / delta + 2
        } else {
            h = (r - g) / delta + 4
        }
        h *= 60
        return h < 0 ? h + 360 : h
    }
}
