import LocationCore
import Swarm

/// `locsim swarm --server … --report FILE.html`: one self-contained page (inline SVG, no
/// scripts, nothing fetched) with the run's numbers and charts.
struct SwarmHTMLReport {
    let stats: LiveSwarmStats
    let server: String
    let speed: Double
    let configuration: VirtualSwarm.Configuration
    let playersByKind: [Int]
    var tracks = 0

    static let colours = ["#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#d62728"]

    var html: String {
        let summary = stats.text(server: server, speed: speed, configuration: configuration, playersByKind: playersByKind, tracks: tracks)
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>locsim swarm: \(XMLText.escaped(server))</title>
            <style>body{font:14px system-ui,sans-serif;margin:24px;max-width:1100px}pre{background:#f6f6f6;padding:12px;overflow-x:auto}
            table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}
            svg{background:#fafafa;border:1px solid #ddd}.key span{margin-right:14px}</style></head><body>
            <h1>locsim swarm</h1>
            <pre id="summary">\(XMLText.escaped(summary))</pre>

            """
        page += "<h2>Requests per second, by reason</h2>\n<div class=\"key\">"
        for (index, kind) in LiveSwarmStats.kinds.enumerated() {
            page += "<span><svg width=\"12\" height=\"12\"><rect width=\"12\" height=\"12\" fill=\"\(Self.colours[index])\"/></svg> \(kind)</span>"
        }
        page += "</div>\n" + requestChart() + "\n"
        page += "<h2>Latency per second (p50, p99)</h2>\n" + latencyChart() + "\n"
        page += "<h2>Interval between a player's requests (game time)</h2>\n" + intervalChart() + "\n"
        page += "<h2>Status codes</h2>\n<table id=\"status\"><tr><th>status</th><th>answers</th></tr>"
        for (status, count) in stats.statusCodes.sorted(by: { $0.key < $1.key }) {
            page += "<tr><td>\(status)</td><td>\(count)</td></tr>"
        }
        page += "</table>\n<h2>Errors</h2>\n<table id=\"errors\"><tr><th>kind</th><th>count</th><th>first</th></tr>"
        for (kind, count) in stats.errors.sorted(by: { $0.key < $1.key }) {
            page += "<tr><td>\(kind)</td><td>\(count)</td><td style=\"text-align:left\">\(XMLText.escaped(stats.firstErrors[kind] ?? ""))</td></tr>"
        }
        page += "</table>\n</body></html>\n"
        return page
    }

    private static let width = 1000.0, height = 220.0, left = 50.0, bottom = 24.0

    /// Axes with a y label at the top and x from 0 to `xMax`.
    private func frame(id: String, yMax: Double, yUnit: String, xMax: Double, xUnit: String) -> String {
        let w = Self.width, h = Self.height
        return "<svg id=\"\(id)\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\">"
            + "<line x1=\"\(Self.left)\" y1=\"8\" x2=\"\(Self.left)\" y2=\"\(h - Self.bottom)\" stroke=\"#888\"/>"
            + "<line x1=\"\(Self.left)\" y1=\"\(h - Self.bottom)\" x2=\"\(w - 8)\" y2=\"\(h - Self.bottom)\" stroke=\"#888\"/>"
            + "<text x=\"4\" y=\"16\" font-size=\"11\">\(DecimalText.fixed(yMax, decimals: yMax < 10 ? 1 : 0)) \(yUnit)</text>"
            + "<text x=\"\(Self.left)\" y=\"\(h - 6)\" font-size=\"11\">0</text>"
            + "<text x=\"\(w - 90)\" y=\"\(h - 6)\" font-size=\"11\">\(DecimalText.fixed(xMax, decimals: 0)) \(xUnit)</text>"
    }

    private func x(_ value: Double, of maximum: Double) -> Double {
        Self.left + (Self.width - Self.left - 8) * (maximum > 0 ? value / maximum : 0)
    }

    private func y(_ value: Double, of maximum: Double) -> Double {
        (Self.height - Self.bottom) - (Self.height - Self.bottom - 8) * (maximum > 0 ? value / maximum : 0)
    }

    private func requestChart() -> String {
        let seconds = stats.seconds
        let peak = Double(max(1, seconds.map(\.total).max() ?? 1))
        let span = Double(max(1, seconds.count))
        var svg = frame(id: "requests", yMax: peak, yUnit: "req/s", xMax: span, xUnit: "s")
        let barWidth = max(0.5, x(1, of: span) - x(0, of: span) - 0.5)
        for second in seconds {
            var base = 0.0
            for (kind, count) in second.requests.enumerated() where count > 0 {
                let top = y(base + Double(count), of: peak), bottom = y(base, of: peak)
                svg += "<rect x=\"\(DecimalText.fixed(x(Double(second.second), of: span), decimals: 1))\" y=\"\(DecimalText.fixed(top, decimals: 1))\" "
                    + "width=\"\(DecimalText.fixed(barWidth, decimals: 1))\" height=\"\(DecimalText.fixed(bottom - top, decimals: 1))\" fill=\"\(Self.colours[kind])\"/>"
                base += Double(count)
            }
        }
        return svg + "</svg>"
    }

    private func latencyChart() -> String {
        let seconds = stats.seconds
        let peak = Double(max(1, seconds.map(\.p99Micros).max() ?? 1)) / 1_000
        let span = Double(max(1, seconds.count))
        var svg = frame(id: "latency", yMax: peak, yUnit: "ms", xMax: span, xUnit: "s")
        for (colour, value) in [("#1f77b4", \LiveSwarmStats.Second.p50Micros), ("#d62728", \LiveSwarmStats.Second.p99Micros)] {
            let points = seconds.map {
                "\(DecimalText.fixed(x(Double($0.second) + 0.5, of: span), decimals: 1)),\(DecimalText.fixed(y(Double($0[keyPath: value]) / 1_000, of: peak), decimals: 1))"
            }
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>"
        }
        return svg + "</svg>"
    }

    private func intervalChart() -> String {
        let buckets = stats.intervalHistogram
        let peak = Double(max(1, buckets.map(\.count).max() ?? 1))
        let span = Double(max(1, buckets.last?.seconds ?? 1))
        var svg = frame(id: "intervals", yMax: peak, yUnit: "intervals", xMax: span, xUnit: "s")
        let barWidth = max(1, x(1, of: span) - x(0, of: span) - 1)
        for bucket in buckets {
            let top = y(Double(bucket.count), of: peak)
            svg += "<rect x=\"\(DecimalText.fixed(x(Double(bucket.seconds - 1), of: span), decimals: 1))\" y=\"\(DecimalText.fixed(top, decimals: 1))\" "
                + "width=\"\(DecimalText.fixed(barWidth, decimals: 1))\" height=\"\(DecimalText.fixed(Self.height - Self.bottom - top, decimals: 1))\" fill=\"#555\">"
                + "<title>≤ \(bucket.seconds) s: \(bucket.count)</title></rect>"
        }
        return svg + "</svg>"
    }
}
