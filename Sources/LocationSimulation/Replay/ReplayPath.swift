package import GPXFormat
package import LocationCore

/// What a ``GPXReplay`` plays: the points of a track, a route or a waypoint list, in file order.
///
/// A track keeps its segments (a segment break means the recording stopped, so it is never
/// interpolated across unless asked). A route or a waypoint list is one segment taken as a path;
/// if its points carry `<time>` (as in the waypoint files Xcode's simulator reads) they are
/// honoured like a track's.
package struct ReplayPath: Sendable, Hashable {
    /// Which GPX list the points came from; used to name points in errors and events.
    package enum Kind: String, Sendable, Hashable {
        case track, route, waypoints

        /// The GPX element its points are (what the reader's reports of them name).
        package var pointKind: GPXPointKind {
            switch self {
            case .track: .trackPoint
            case .route: .routePoint
            case .waypoints: .waypoint
            }
        }
    }

    /// Which list the points came from.
    package var kind: Kind
    /// The points, segment by segment, in file order. Empty segments are allowed and ignored.
    package var segments: [[GPXPoint]]
    /// What the receiver reported beside each point (an NMEA log's sky), segment by segment as
    /// ``segments``; `nil` for the formats that tell nothing of a receiver.
    package var receivers: [[ReceiverReport?]]?

    /// A path of explicit segments, with what a receiver reported beside each point when known.
    package init(kind: Kind, segments: [[GPXPoint]], receivers: [[ReceiverReport?]]? = nil) {
        self.kind = kind
        self.segments = segments
        self.receivers = receivers
    }

    /// One track, segments kept.
    package init(track: GPXTrack) {
        self.init(kind: .track, segments: track.segments)
    }

    /// Several tracks played one after another; each track's segments are kept, and the start of
    /// each track is a segment break.
    package init(tracks: [GPXTrack]) {
        self.init(kind: .track, segments: tracks.flatMap(\.segments))
    }

    /// A route taken as a path.
    package init(route: GPXRoute) {
        self.init(kind: .route, segments: [route.points])
    }

    /// A waypoint list taken as a path, in file order.
    package init(waypoints: [GPXPoint]) {
        self.init(kind: .waypoints, segments: [waypoints])
    }

    /// The document's tracks if any has a point; otherwise its first route with points; otherwise
    /// its waypoints.
    ///
    /// - Throws: ``SimulationError/Code/emptyPath`` when the document has no point at all.
    package init(document: GPXDocument) throws(SimulationError) {
        if document.tracks.contains(where: { $0.segments.contains { !$0.isEmpty } }) {
            self.init(tracks: document.tracks)
        } else if let route = document.routes.first(where: { !$0.points.isEmpty }) {
            self.init(route: route)
        } else if !document.waypoints.isEmpty {
            self.init(waypoints: document.waypoints)
        } else {
            throw SimulationError(
                .emptyPath, parameter: "document",
                message: "the GPX document has no track point, route point or waypoint")
        }
    }

    /// Number of points over all segments.
    package var pointCount: Int { segments.reduce(0) { $0 + $1.count } }
}

/// Where a point sits in a ``ReplayPath``: 0-based segment and 0-based index within it.
package struct ReplayPointPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Which GPX list the point came from.
    package var kind: ReplayPath.Kind
    /// 0-based segment number (always 0 for routes and waypoints).
    package var segment: Int
    /// 0-based index of the point within its segment.
    package var index: Int

    package init(kind: ReplayPath.Kind, segment: Int, index: Int) {
        self.kind = kind
        self.segment = segment
        self.index = index
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { (lhs.segment, lhs.index) < (rhs.segment, rhs.index) }

    /// `"track segment 2, point 17"`, `"route point 4"` or `"waypoint 9"` (0-based).
    package var description: String {
        switch kind {
        case .track: "track segment \(segment), point \(index)"
        case .route: "route point \(index)"
        case .waypoints: "waypoint \(index)"
        }
    }
}
