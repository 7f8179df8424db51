import Foundation
import LocationCore

/// One self-contained HTML file (inline SVG and CSS, no script, nothing fetched) showing a
/// replay: the track on a map in a local projection, fetch points coloured by reason with the
/// fetch radius, failed fetches crossed out with their error, places shaded by when they
/// appeared, encounters, a timeline strip of fetches, failures, encounters and place counts,
/// and the summary.
///
/// Colours: the four fetch reasons use four distinct hues; places use one other hue (magenta) from
/// light (appeared early) to dark (appeared late), so no place can be mistaken for a fetch; a
/// failed fetch is a dark cross. Labels sit in a gutter or an axis row of their own, never on
/// the data.
@MainActor
struct HTMLReport {
    let title: String
    let recorder: ReplayRecorder

    static let reasonColours: [(String, String)] = [
        ("first", "#1f77b4"), ("moved", "#2ca02c"), ("elapsed", "#ff7f0e"), ("retry", "#d62728"),
    ]
    /// A failed fetch's cross.
    static let failureColour = "#222222"
    /// The place hue (magenta, at least 30° from every reason colour and the encounter purple) and its lightness from a place that
    /// appeared at the start (light) to one that appeared at the end (dark).
    static let placeHue = 320
    static let placeLightness = (early: 72.0, late: 24.0)

    /// The fill of a place that appeared `fraction` (0…1) of the way through the replay.
    static func placeColour(_ fraction: Double) -> String {
        let t = min(1, max(0, fraction.isFinite ? fraction : 0))
        let lightness = placeLightness.early + (placeLightness.late - placeLightness.early) * t
        return "hsl(\(placeHue),70%,\(DecimalText.fixed(lightness, decimals: 0))%)"
    }

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
            body>svg{background:#fff;border:1px solid #ddd;display:block;margin:0 0 12px} .legend svg{display:inline-block}
            .legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
            table{border-collapse:collapse;margin:0 0 12px} td{padding:2px 12px 2px 0;vertical-align:top} td:first-child{color:#666}
            h2{font-size:16px;margin:16px 0 4px}
            </style></head><body>
            <h1>locsim replay</h1><p class="sub">\(XMLText.escaped(title))</p>

            """
        html += mapSVG(trace)
        html += legend()
        html += timelineSVG(trace)
        html += summaryTable()
        html += failuresTable(trace)
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
        func f(_ v: Double) -> String { DecimalText.fixed(v, decimals: 1) }

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
            let fill = Self.placeColour(entry.firstSeen.timeIntervalSince(t0) / span)
            svg += "<circle class=\"place\" data-id=\"\(XMLText.escaped(id))\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"3.5\" fill=\"\(fill)\"><title>\(XMLText.escaped(entry.place.name)) (\(XMLText.escaped(id))), appeared \(UTCTimestamp.format(entry.firstSeen, fractionDigits: 0))</title></circle>\n"
        }
        // The track.
        let polyline = trace.fixes.map { let (x, y) = screen($0.coordinate); return "\(f(x)),\(f(y))" }.joined(separator: " ")
        svg += "<polyline class=\"track\" points=\"\(polyline)\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\" stroke-opacity=\"0.8\"/>\n"
        // Fetch points.
        for fetch in trace.fetches {
            let (x, y) = screen(fetch.center)
            svg += "<circle class=\"fetch fetch-\(fetch.reason)\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"5\" fill=\"\(colour(fetch.reason))\" stroke=\"#fff\"><title>fetch (\(fetch.reason)) at \(UTCTimestamp.format(fetch.time, fractionDigits: 0))</title></circle>\n"
        }
        // Failed fetches: a cross over the fetch point, the error in its tooltip.
        for failure in trace.failures {
            let (x, y) = screen(failure.center)
            svg += "<g class=\"fetch-failed\">\(Self.cross(x: x, y: y, size: 6))<title>fetch #\(failure.id) failed at \(UTCTimestamp.format(failure.time, fractionDigits: 0)): \(XMLText.escaped(failure.error))</title></g>\n"
        }
        // Encounters.
        for encounter in trace.encounters {
            let (x, y) = screen(encounter.place.coordinate)
            svg += "<g class=\"encounter\"><circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"9\" fill=\"none\" stroke=\"#9467bd\" stroke-width=\"2.5\"/><title>encounter: \(XMLText.escaped(encounter.place.name)) at \(DecimalText.fixed(encounter.distance, decimals: 1)) m, \(UTCTimestamp.format(encounter.time, fractionDigits: 0))</title></g>\n"
        }
        // Scale bar.
        let barMetres = niceLength(150 / scale)
        svg += "<g class=\"scale\"><line x1=\"20\" y1=\"\(Int(height) - 20)\" x2=\"\(f(20 + barMetres * scale))\" y2=\"\(Int(height) - 20)\" stroke=\"#333\" stroke-width=\"2\"/><text x=\"20\" y=\"\(Int(height) - 26)\" font-size=\"12\">\(DecimalText.fixed(barMetres, decimals: 0)) m</text></g>\n"
        svg += "</svg>\n"
        return svg
    }

    private func legend() -> String {
        var html = "<p class=\"legend\">"
        for (reason, colour) in Self.reasonColours {
            html += "<span><i class=\"sw\" style=\"background:\(colour)\"></i>fetch: \(reason)</span>"
        }
        html += "<span><svg width=\"12\" height=\"12\" style=\"vertical-align:middle;margin-right:4px\">\(Self.cross(x: 6, y: 6, size: 5))</svg>fetch failed</span>"
        html += "<span><i class=\"sw\" style=\"background:\(Self.placeColour(0))\"></i>place, appeared early</span>"
        html += "<span><i class=\"sw\" style=\"background:\(Self.placeColour(1))\"></i>place, appeared late</span>"
        html += "<span><i class=\"sw\" style=\"border:2px solid #9467bd;width:8px;height:8px\"></i>encounter</span>"
        html += "<span>faint circles: fetch radius</span></p>\n"
        return html
    }

    /// An ×, centred on (x, y), `size` pixels from the centre to each end.
    static func cross(x: Double, y: Double, size: Double) -> String {
        func f(_ v: Double) -> String { DecimalText.fixed(v, decimals: 1) }
        let style = "stroke=\"\(failureColour)\" stroke-width=\"2\" stroke-linecap=\"round\""
        return "<line x1=\"\(f(x - size))\" y1=\"\(f(y - size))\" x2=\"\(f(x + size))\" y2=\"\(f(y + size))\" \(style)/>"
            + "<line x1=\"\(f(x - size))\" y1=\"\(f(y + size))\" x2=\"\(f(x + size))\" y2=\"\(f(y - size))\" \(style)/>"
    }

    // MARK: Timeline

    /// The timeline's layout: a label gutter on the left, one row per kind of mark, the place
    /// count below them, and an axis row at the bottom for the times and the count's caption.
    enum Timeline {
        static let width = 900.0, height = 170.0
        /// The data area spans `left...width - right`; row labels end before `left`.
        static let left = 80.0, right = 10.0
        static let fetchRow = (top: 8.0, bottom: 30.0)
        static let failureRow = 42.0
        static let encounterRow = 60.0
        static let countArea = (top: 74.0, bottom: 140.0)
        /// Text baseline of the axis row, below every data row.
        static let axisBaseline = 160.0
        static let labelFontSize = 11.0
        static let axisFontSize = 10.0
    }

    private func timelineSVG(_ trace: ReplayRecorder.Trace) -> String {
        typealias L = Timeline
        guard let t0 = trace.fixes.first?.time, let t1 = trace.fixes.last?.time else { return "" }
        let span = max(1, t1.timeIntervalSince(t0))
        func x(_ t: Date) -> Double { L.left + (L.width - L.left - L.right) * min(1, max(0, t.timeIntervalSince(t0) / span)) }
        func f(_ v: Double) -> String { DecimalText.fixed(v, decimals: 1) }
        func label(_ text: String, row y: Double) -> String {
            "<text class=\"row-label\" x=\"4\" y=\"\(f(y + 4))\" font-size=\"\(f(L.labelFontSize))\">\(text)</text>"
        }
        var svg = "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(L.width))\" height=\"\(Int(L.height))\" viewBox=\"0 0 \(Int(L.width)) \(Int(L.height))\">\n"
        svg += "<title>Timeline: fetches by reason, failed fetches, encounters, places on the map</title>\n"
        svg += label("fetches", row: (L.fetchRow.top + L.fetchRow.bottom) / 2) + label("failed", row: L.failureRow)
            + label("encounters", row: L.encounterRow) + label("places", row: (L.countArea.top + L.countArea.bottom) / 2) + "\n"
        for fetch in trace.fetches {
            svg += "<line class=\"tick fetch-\(fetch.reason)\" x1=\"\(f(x(fetch.time)))\" y1=\"\(f(L.fetchRow.top))\" x2=\"\(f(x(fetch.time)))\" y2=\"\(f(L.fetchRow.bottom))\" stroke=\"\(colour(fetch.reason))\" stroke-width=\"2\"/>\n"
        }
        for failure in trace.failures {
            svg += "<g class=\"failure-mark\">\(Self.cross(x: x(failure.time), y: L.failureRow, size: 4))<title>fetch #\(failure.id) failed at \(UTCTimestamp.format(failure.time, fractionDigits: 0)): \(XMLText.escaped(failure.error))</title></g>\n"
        }
        for encounter in trace.encounters {
            svg += "<circle class=\"encounter-mark\" cx=\"\(f(x(encounter.time)))\" cy=\"\(f(L.encounterRow))\" r=\"3\" fill=\"#9467bd\"><title>\(XMLText.escaped(encounter.place.name)), \(UTCTimestamp.format(encounter.time, fractionDigits: 0))</title></circle>\n"
        }
        let maxCount = max(1, trace.placeCounts.map(\.count).max() ?? 1)
        let base = L.countArea.bottom, rise = L.countArea.bottom - L.countArea.top
        var path = "M\(f(L.left)),\(f(base))"
        var lastY = base
        for sample in trace.placeCounts {
            let y = base - rise * Double(sample.count) / Double(maxCount)
            path += " L\(f(x(sample.time))),\(f(lastY)) L\(f(x(sample.time))),\(f(y))"
            lastY = y
        }
        path += " L\(f(L.width - L.right)),\(f(lastY))"
        svg += "<path class=\"place-count\" d=\"\(path)\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.5\"/>\n"
        let axis = "font-size=\"\(f(L.axisFontSize))\" y=\"\(f(L.axisBaseline))\""
        svg += "<text class=\"axis\" x=\"\(f(L.left))\" \(axis)>\(UTCTimestamp.format(t0, fractionDigits: 0))</text>"
        svg += "<text class=\"axis\" x=\"\(f((L.left + L.width - L.right) / 2))\" \(axis) text-anchor=\"middle\">places on the map: \(trace.placeCounts.last?.count ?? 0) at the end, at most \(trace.placeCounts.map(\.count).max() ?? 0)</text>"
        svg += "<text class=\"axis\" x=\"\(f(L.width - L.right))\" \(axis) text-anchor=\"end\">\(UTCTimestamp.format(t1, fractionDigits: 0))</text>\n"
        svg += "</svg>\n"
        return svg
    }

    // MARK: Summary

    private func summaryTable() -> String {
        var html = "<table id=\"summary\">\n"
        for (key, value) in recorder.summary.rows {
            html += "<tr><td>\(XMLText.escaped(key.replacingOccurrences(of: "_", with: " ")))</td><td>\(XMLText.escaped(value))</td></tr>\n"
        }
        return html + "</table>\n"
    }

    /// Every failed fetch with its error (the first `failureRows`; a count of the rest).
    private func failuresTable(_ trace: ReplayRecorder.Trace) -> String {
        guard !trace.failures.isEmpty else { return "" }
        let failureRows = 50
        var html = "<h2>Failed fetches (\(trace.failures.count))</h2>\n<table id=\"failures\">\n"
        for failure in trace.failures.prefix(failureRows) {
            html += "<tr><td>\(UTCTimestamp.format(failure.time, fractionDigits: 3))</td><td>#\(failure.id)</td><td>\(XMLText.escaped(failure.error))</td></tr>\n"
        }
        if trace.failures.count > failureRows {
            html += "<tr><td></td><td></td><td>… and \(trace.failures.count - failureRows) more (the jsonl log has every one)</td></tr>\n"
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
