import Foundation
import LocationCore

/// One self-contained HTML file (inline SVG and CSS, no script, nothing fetched) showing a
/// replay: the track on a map in a local projection, fetch points coloured by reason with the
/// fetch radius, places coloured by when they appeared, encounters, a timeline strip of fetches
/// and place counts, and the summary.
@MainActor
struct HTMLReport {
    let title: String
    let recorder: ReplayRecorder

    static let reasonColours: [(String, String)] = [
        ("first", "#1f77b4"), ("moved", "#2ca02c"), ("elapsed", "#ff7f0e"), ("retry", "#d62728"),
    ]

    /// Writes the report atomically (a temporary file beside it, synced and renamed into place).
    func write(to path: String) throws {
        do {
            let file = try AtomicFile(path: path)
            try file.write(render())
            try file.commit()
        } catch {
            throw CommandFailure("cannot write the report to \(path): \(error.reason)")
        }
        Terminal.err("report written to \(path)")
    }

    func render() -> String {
        let trace = recorder.trace
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <title>locsim replay: \(XMLText.escaped(title))</title>
            <style>
            body{font:14px/1.4 -apple-system,system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
            h1{font-size:20px;margin:0 0 4px} .sub{color:#666;margin:0 0 16px}
            svg{background:#fff;border:1px solid #ddd;display:block;margin:0 0 12px}
            .legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
            table{border-collapse:collapse} td{padding:2px 12px 2px 0} td:first-child{color:#666}
            </style></head><body>
            <h1>locsim replay</h1><p class="sub">\(XMLText.escaped(title))</p>

            """
        html += mapSVG(trace)
        html += legend()
        html += timelineSVG(trace)
        html += summaryTable()
        html += "</body></html>\n"
        return html
    }

    // MARK: Map

    private func mapSVG(_ trace: ReplayRecorder.Trace) -> String {
        let width = 900.0, height = 640.0
        guard let first = trace.fixes.first?.coordinate else {
            return "<svg id=\"map\" width=\"\(Int(width))\" height=\"120\"><text x=\"20\" y=\"60\">No accepted fixes.</text></svg>\n"
        }
        // Equirectangular projection about the track's centre: fine at city scale.
        let lat0 = trace.fixes.map(\.coordinate.latitude).reduce(0, +) / Double(trace.fixes.count)
        let lon0 = first.longitude
        let k = cos(lat0 * .pi / 180)
        func local(_ c: Coordinate) -> (Double, Double) {
            let dLon = normalizedLongitude(c.longitude - lon0)
            return (Sphere.radius * dLon * .pi / 180 * k, Sphere.radius * (c.latitude - lat0) * .pi / 180)
        }
        let points = trace.fixes.map { local($0.coordinate) }
        var minX = points.map(\.0).min()!, maxX = points.map(\.0).max()!
        var minY = points.map(\.1).min()!, maxY = points.map(\.1).max()!
        let pad = max(150, 0.15 * max(maxX - minX, maxY - minY))
        minX -= pad; maxX += pad; minY -= pad; maxY += pad
        let scale = min(width / (maxX - minX), height / (maxY - minY))
        let offsetX = (width - (maxX - minX) * scale) / 2, offsetY = (height - (maxY - minY) * scale) / 2
        func screen(_ c: Coordinate) -> (Double, Double) {
            let (x, y) = local(c)
            return (offsetX + (x - minX) * scale, height - offsetY - (y - minY) * scale)
        }
        func f(_ v: Double) -> String { formatFixed(v, 1) }

        var svg = "<svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n"
        svg += "<title>Track, fetches, places and encounters (local equirectangular projection)</title>\n"
        // Fetch radius circles, faint, under everything.
        for fetch in trace.fetches {
            let (x, y) = screen(fetch.center)
            svg += "<circle class=\"fetch-radius\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(fetch.radius * scale))\" fill=\"none\" stroke=\"\(colour(fetch.reason))\" stroke-opacity=\"0.18\"/>\n"
        }
        // Places, coloured from blue (appeared early) to red (appeared late).
        let t0 = trace.fixes.first!.time, t1 = trace.fixes.last!.time
        let span = max(1, t1.timeIntervalSince(t0))
        for (id, entry) in trace.places.sorted(by: { $0.key < $1.key }) {
            let (x, y) = screen(entry.place.coordinate)
            guard x >= -10, x <= width + 10, y >= -10, y <= height + 10 else { continue }
            let hue = Int(220 * (1 - min(1, max(0, entry.firstSeen.timeIntervalSince(t0) / span))))
            svg += "<circle class=\"place\" data-id=\"\(XMLText.escaped(id))\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"3.5\" fill=\"hsl(\(hue),70%,50%)\"><title>\(XMLText.escaped(entry.place.name)) (\(XMLText.escaped(id))), appeared \(UTCTimestamp.format(entry.firstSeen, fractionDigits: 0))</title></circle>\n"
        }
        // The track.
        let polyline = trace.fixes.map { let (x, y) = screen($0.coordinate); return "\(f(x)),\(f(y))" }.joined(separator: " ")
        svg += "<polyline class=\"track\" points=\"\(polyline)\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\" stroke-opacity=\"0.8\"/>\n"
        // Fetch points.
        for fetch in trace.fetches {
            let (x, y) = screen(fetch.center)
            svg += "<circle class=\"fetch fetch-\(fetch.reason)\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"5\" fill=\"\(colour(fetch.reason))\" stroke=\"#fff\"><title>fetch (\(fetch.reason)) at \(UTCTimestamp.format(fetch.time, fractionDigits: 0))</title></circle>\n"
        }
        // Encounters.
        for encounter in trace.encounters {
            let (x, y) = screen(encounter.place.coordinate)
            svg += "<g class=\"encounter\"><circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"9\" fill=\"none\" stroke=\"#9467bd\" stroke-width=\"2.5\"/><title>encounter: \(XMLText.escaped(encounter.place.name)) at \(formatFixed(encounter.distance, 1)) m, \(UTCTimestamp.format(encounter.time, fractionDigits: 0))</title></g>\n"
        }
        // Scale bar.
        let barMetres = niceLength(150 / scale)
        svg += "<g class=\"scale\"><line x1=\"20\" y1=\"\(Int(height) - 20)\" x2=\"\(f(20 + barMetres * scale))\" y2=\"\(Int(height) - 20)\" stroke=\"#333\" stroke-width=\"2\"/><text x=\"20\" y=\"\(Int(height) - 26)\" font-size=\"12\">\(formatFixed(barMetres, 0)) m</text></g>\n"
        svg += "</svg>\n"
        return svg
    }

    private func legend() -> String {
        var html = "<p class=\"legend\">"
        for (reason, colour) in Self.reasonColours {
            html += "<span><i class=\"sw\" style=\"background:\(colour)\"></i>fetch: \(reason)</span>"
        }
        html += "<span><i class=\"sw\" style=\"background:hsl(220,70%,50%)\"></i>place, appeared early</span>"
        html += "<span><i class=\"sw\" style=\"background:hsl(0,70%,50%)\"></i>appeared late</span>"
        html += "<span><i class=\"sw\" style=\"border:2px solid #9467bd;width:8px;height:8px\"></i>encounter</span>"
        html += "<span>faint circles: fetch radius</span></p>\n"
        return html
    }

    // MARK: Timeline

    private func timelineSVG(_ trace: ReplayRecorder.Trace) -> String {
        let width = 900.0, height = 140.0, left = 40.0, right = 10.0
        guard let t0 = trace.fixes.first?.time, let t1 = trace.fixes.last?.time else { return "" }
        let span = max(1, t1.timeIntervalSince(t0))
        func x(_ t: Date) -> Double { left + (width - left - right) * min(1, max(0, t.timeIntervalSince(t0) / span)) }
        func f(_ v: Double) -> String { formatFixed(v, 1) }
        var svg = "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n"
        svg += "<title>Timeline: fetches by reason, places on the map, encounters</title>\n"
        svg += "<text x=\"4\" y=\"22\" font-size=\"11\">fetch</text><text x=\"4\" y=\"80\" font-size=\"11\">places</text>\n"
        for fetch in trace.fetches {
            svg += "<line class=\"tick fetch-\(fetch.reason)\" x1=\"\(f(x(fetch.time)))\" y1=\"8\" x2=\"\(f(x(fetch.time)))\" y2=\"30\" stroke=\"\(colour(fetch.reason))\" stroke-width=\"2\"/>\n"
        }
        let maxCount = max(1, trace.placeCounts.map(\.count).max() ?? 1)
        var path = "M\(f(left)),130"
        var lastY = 130.0
        for sample in trace.placeCounts {
            let y = 130 - 80 * Double(sample.count) / Double(maxCount)
            path += " L\(f(x(sample.time))),\(f(lastY)) L\(f(x(sample.time))),\(f(y))"
            lastY = y
        }
        path += " L\(f(width - right)),\(f(lastY))"
        svg += "<path class=\"place-count\" d=\"\(path)\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.5\"/>\n"
        svg += "<text x=\"\(f(width - right - 4))\" y=\"\(f(max(12, lastY - 4)))\" font-size=\"11\" text-anchor=\"end\">\(trace.placeCounts.last?.count ?? 0) places (max \(maxCount))</text>\n"
        for encounter in trace.encounters {
            svg += "<circle class=\"encounter-mark\" cx=\"\(f(x(encounter.time)))\" cy=\"40\" r=\"3\" fill=\"#9467bd\"/>\n"
        }
        svg += "<text x=\"\(f(left))\" y=\"138\" font-size=\"10\">\(UTCTimestamp.format(t0, fractionDigits: 0))</text>"
        svg += "<text x=\"\(f(width - right))\" y=\"138\" font-size=\"10\" text-anchor=\"end\">\(UTCTimestamp.format(t1, fractionDigits: 0))</text>\n"
        svg += "</svg>\n"
        return svg
    }

    // MARK: Summary

    private func summaryTable() -> String {
        guard case .object(let members) = recorder.summaryValue() else { return "" }
        var html = "<table id=\"summary\">\n"
        for (key, value) in members where key != "type" {
            html += "<tr><td>\(XMLText.escaped(key.replacingOccurrences(of: "_", with: " ")))</td><td>\(XMLText.escaped(value.text))</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private func colour(_ reason: String) -> String {
        Self.reasonColours.first { $0.0 == reason }?.1 ?? "#888"
    }

    /// 1, 2 or 5 times a power of ten, at most `metres`.
    private func niceLength(_ metres: Double) -> Double {
        guard metres > 0, metres.isFinite else { return 100 }
        let power = pow(10, (log10(metres)).rounded(.down))
        for step in [5.0, 2, 1] where step * power <= metres { return step * power }
        return power
    }
}
