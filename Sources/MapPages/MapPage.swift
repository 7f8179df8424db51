import Foundation

/// locsim's HTML pages: the replay report, the swarm report, the live map and the audit report.
///
/// Each is one self-contained file, nothing fetched: its template (`replay.html`, …) with the
/// shared stylesheet (`page.css`), the shared SVG renderer (`map.js`) and the page's data (JSON)
/// written into it. The files beside this one are compiled into the binary as string constants
/// (the package's EmbedTextPlugin), so there is no bundle to find at run time (docs/development/pages.md).
package enum MapPage: Sendable, CaseIterable {
    case replay, swarm, live, audit

    /// The page, with `json` as its data (written with LocationCore's `JSONWriter`, the
    /// package's one JSON writer).
    package func html(json: String) -> String {
        let template = switch self {
        case .replay: replayHTML
        case .swarm: swarmHTML
        case .live: liveHTML
        case .audit: auditHTML
        }
        // `<` only occurs inside JSON strings, where `\u003c` means the same: the data can neither
        // close the script element (`</script>`) nor open a comment in it (`<!--`).
        return template
            .replacingOccurrences(of: "{{style}}", with: pageCSS)
            .replacingOccurrences(of: "{{renderer}}", with: mapJS)
            .replacingOccurrences(of: "{{data}}", with: json.replacingOccurrences(of: "<", with: "\\u003c"))
    }
}
