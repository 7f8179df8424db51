import Foundation  // cos, for the map's projection
package import LocationCore

/// The audit as one self-contained HTML page (inline SVG and CSS, nothing fetched), in the
/// replay report's style: a map of every client's request centres coloured by verdict, a
/// timeline with one row per client, and a table of verdict counts. `locsim serve
/// --audit-report FILE.html` writes it on shutdown.
package struct AuditReport: Sendable {
    /// Verdict colours: the replay report's fetch-reason colours, and darker reds for violations.
    package static let colours: [(FetchAudit.Verdict, String)] = [
        (.first, "#1f77b4"), (.moved, "#2ca02c"), (.elapsed, "#ff7f0e"), (.retry, "#9467bd"),
        (.tooSoon, "#d62728"), (.overlap, "#8c0000"), (.retryStorm, "#e377c2"),
    ]

    /// The audit shown.
    package let audit: FetchAudit
    /// A subtitle (the server's address, the run's dates).
    package let title: String

    /// - Parameters:
    ///   - audit: The audit to show.
    ///   - title: The subtitle.
    package init(audit: FetchAudit, title: String) {
        self.audit = audit
        self.title = title
    }

    /// Writes the page atomically (a temporary file beside it, synced and renamed into place).
    ///
    /// - Throws: `AtomicFileError` naming the path.
    package func write(to path: String) throws(AtomicFileError) {
        let file = try AtomicFile(path: path)
        try file.write(render())
        try file.commit()
    }

    /// The page.
    package func render() -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <title>locsim serve audit: \(XMLText.escaped(title))</title>
            <style>
            body{font:14px/1.4 -apple-system,system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
            h1{font-size:20px;margin:0 0 4px} .sub{color:#666;margin:0 0 16px}
            svg{background:#fff;border:1px solid #ddd;display:block;margin:0 0 12px}
            .legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
            table{border-collapse:collapse} td,th{padding:2px 12px 2px 0;text-align:left} th{color:#666;font-weight:normal}
            .bad{color:#d62728;font-weight:bold}
            </style></head><body>
            <h1>locsim serve: fetch-rule audit</h1><p class="sub">\(XMLText.escaped(title)) · \(audit.violationCount) violation\(audit.violationCount == 1 ? "" : "s")</p>

            """
        html += mapSVG()
        html += legend()
        html += timelineSVG()
        html += table()
        html += "</body></html>\n"
        return html
    }

    private var entries: [(client: String, entry: FetchAudit.Entry)] {
        audit.records.flatMap { record in record.entries.map { (record.client, $0) } }
    }

    private func colour(_ verdict: FetchAudit.Verdict) -> String {
        Self.colours.first { $0.0 == verdict }?.1 ?? "#888"
    }

    private func mapSVG() -> String {
        let width = 900.0, height = 560.0, margin = 30.0
        let all = entries
        guard !all.isEmpty else {
            return "<svg id=\"map\" width=\"\(Int(width))\" height=\"120\"><text x=\"20\" y=\"60\">No nearby requests.</text></svg>\n"
        }
        // Equirectangular about the mean latitude: fine at city scale, readable beyond.
        let latitudes = all.map(\.entry.center.latitude), longitudes = all.map(\.entry.center.longitude)
        let midLatitude = (latitudes.min()! + latitudes.max()!) / 2
        let scaleX = cos(midLatitude * .pi / 180)
        let spanX = max((longitudes.max()! - longitudes.min()!) * scaleX, 1e-6)
        let spanY = max(latitudes.max()! - latitudes.min()!, 1e-6)
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        // Centred in the frame.
        let offsetX = (width - 2 * margin - spanX * scale) / 2, offsetY = (height - 2 * margin - spanY * scale) / 2
        func point(_ c: Coordinate) -> (Double, Double) {
            (margin + offsetX + (c.longitude - longitudes.min()!) * scaleX * scale,
             height - margin - offsetY - (c.latitude - latitudes.min()!) * scale)
        }
        var svg = "<svg id=\"map\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n"
        for record in audit.records where record.entries.count > 1 {
            let path = record.entries.map { point($0.center) }.map { "\(Self.fixed($0.0)),\(Self.fixed($0.1))" }.joined(separator: " ")
            svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"#bbb\" stroke-width=\"1\"/>\n"
        }
        for (client, entry) in all {
            let (x, y) = point(entry.center)
            svg += "<circle cx=\"\(Self.fixed(x))\" cy=\"\(Self.fixed(y))\" r=\"\(entry.verdict.isViolation ? 5 : 4)\" fill=\"\(colour(entry.verdict))\">"
            svg += "<title>\(XMLText.escaped("#\(entry.sequence) \(client) \(UTCTimestamp.format(entry.time)): \(entry.reason)"))</title></circle>\n"
        }
        return svg + "</svg>\n"
    }

    private func legend() -> String {
        var html = "<p class=\"legend\">"
        for (verdict, colour) in Self.colours {
            html += "<span><i class=\"sw\" style=\"background:\(colour)\"></i>\(verdict.rawValue.split(separator: "_").joined(separator: " "))</span>"
        }
        return html + "</p>\n"
    }

    private func timelineSVG() -> String {
        let records = audit.records
        let all = entries
        guard let start = all.map(\.entry.time).min(), let end = all.map(\.entry.time).max() else { return "" }
        let width = 900.0, left = 160.0, right = 20.0, row = 22.0
        let height = Double(records.count) * row + 30
        let span = max(end.timeIntervalSince(start), 1)
        var svg = "<svg id=\"timeline\" width=\"\(Int(width))\" height=\"\(Int(height))\">\n"
        for (i, record) in records.enumerated() {
            let y = 20 + Double(i) * row
            svg += "<text x=\"4\" y=\"\(Self.fixed(y + 4))\" font-size=\"12\">\(XMLText.escaped(record.client))</text>\n"
            svg += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(width - right)\" y2=\"\(y)\" stroke=\"#eee\"/>\n"
            for entry in record.entries {
                let x = left + (width - left - right) * entry.time.timeIntervalSince(start) / span
                svg += "<circle cx=\"\(Self.fixed(x))\" cy=\"\(Self.fixed(y))\" r=\"4\" fill=\"\(colour(entry.verdict))\">"
                svg += "<title>\(XMLText.escaped("#\(entry.sequence) \(UTCTimestamp.format(entry.time)) \(entry.reason)"))</title></circle>\n"
            }
        }
        svg += "<text x=\"\(left)\" y=\"\(Self.fixed(height - 4))\" font-size=\"11\" fill=\"#666\">\(UTCTimestamp.format(start))</text>\n"
        svg += "<text x=\"\(width - right)\" y=\"\(Self.fixed(height - 4))\" font-size=\"11\" fill=\"#666\" text-anchor=\"end\">\(UTCTimestamp.format(end))</text>\n"
        return svg + "</svg>\n"
    }

    private func table() -> String {
        var html = "<table id=\"summary\"><tr><th>client</th><th>requests</th>"
        for verdict in FetchAudit.Verdict.allCases { html += "<th>\(verdict.rawValue.split(separator: "_").joined(separator: " "))</th>" }
        html += "</tr>\n"
        for record in audit.records {
            html += "<tr><td>\(XMLText.escaped(record.client))</td><td>\(record.requests)</td>"
            for verdict in FetchAudit.Verdict.allCases {
                let count = record.verdicts[verdict] ?? 0
                html += verdict.isViolation && count > 0 ? "<td class=\"bad\">\(count)</td>" : "<td>\(count)</td>"
            }
            html += "</tr>\n"
        }
        return html + "</table>\n"
    }

    /// One decimal.
    private static func fixed(_ value: Double) -> String { DecimalText.fixed(value, decimals: 1) }
}
