extension GPXDocument {
    /// Reads a whole GPX file into memory. For large files, stream with ``GPXReader`` instead.
    ///
    /// - Throws: ``GPXParseError`` naming file, line and column.
    public init(contentsOfFile path: String, options: GPXReader.Options = .strict) throws(GPXParseError) {
        try self.init(reader: GPXReader(contentsOfFile: path, options: options))
    }

    /// Reads GPX text held in memory.
    public init(string: String, options: GPXReader.Options = .strict) throws(GPXParseError) {
        try self.init(reader: GPXReader(string: string, options: options))
    }

    /// Collects every event of `reader`.
    public init(reader: GPXReader) throws(GPXParseError) {
        self.init()
        var track = GPXTrack()
        var segment: [GPXPoint] = []
        var route = GPXRoute()
        while let event = try reader.next() {
            switch event {
            case .trackStarted: track = GPXTrack()
            case .segmentStarted: segment = []
            case .point(let point, .trackPoint): segment.append(point)
            case .segmentEnded: track.segments.append(segment)
            case .trackEnded(let name):
                track.name = name
                tracks.append(track)
            case .routeStarted: route = GPXRoute()
            case .point(let point, .routePoint): route.points.append(point)
            case .routeEnded(let name):
                route.name = name
                routes.append(route)
            case .point(let point, .waypoint): waypoints.append(point)
            }
        }
        creator = reader.creator
    }
}
