import LocationCore
import MapPages

/// The audit as one self-contained page (MapPages' audit.html draws what `GET /audit` answers): a
/// map of every client's request centres coloured by verdict, a timeline with one row per client,
/// and a table of verdict counts. `locsim serve --audit-report FILE.html` writes it on shutdown.
package struct AuditReport: Sendable {
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

    /// The page.
    package func render() -> String {
        let data = JSONWriter.objectText(capacity: 4096) { json in
            json.member("title", title)
            json.key("audit")
            NearbyServerState.write(audit, to: &json)
        }
        return MapPage.audit.html(json: data)
    }
}
