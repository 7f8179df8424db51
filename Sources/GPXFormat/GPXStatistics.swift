#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// Summary figures of a GPX file, computed while streaming (`locsim track stats`).
///
/// - ``distance`` is the WGS-84 geodesic length summed between consecutive track points of each
///   segment, never across a segment break (a break means the recording stopped).
/// - ``duration`` is the last timed track point's time minus the first's, in file order; `nil`
///   when no track point has a time, or when the last time is before the first (a receiver
///   whose clock jumped back: a negative duration means nothing; gpxpy gives none either).
///   With out-of-order times it can be shorter than the span;
///   ``timeReversals`` counts the track points whose time is earlier than the latest before them
///   (the reader's ``GPXReader/timeReversals`` says where they are).
/// - ``start`` and ``end`` are the first and last track points.
/// - ``bounds`` covers every point: track points, route points and waypoints. It is a plain
///   latitude/longitude box; a file that crosses ±180° gets a box spanning the whole width.
public struct GPXStatistics: Sendable, Hashable {
    public var tracks = 0
    public var segments = 0
    /// Track points.
    public var points = 0
    public var routePoints = 0
    public var waypoints = 0
    /// Metres.
    public var distance = 0.0
    /// Seconds.
    public var duration: Double?
    public var start: GPXPoint?
    public var end: GPXPoint?
    public var bounds: Bounds?
    /// Points skipped by a lenient reader (bad coordinates).
    public var skippedPoints = 0
    /// Optional values a lenient reader dropped (their points are counted above).
    public var droppedValues = 0
    /// Track points whose time is earlier than the latest track-point time before them.
    public var timeReversals = 0
    /// Where a lenient reader found the input cut off mid-write (``GPXReader/truncation``):
    /// the figures above are of what came before the cut.
    public var truncation: GPXParseError?

    /// A latitude/longitude box in degrees.
    public struct Bounds: Sendable, Hashable {
        public var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double
    }

    public init() {}

    /// Streams `reader` to the end and summarises it.
    ///
    /// - Throws: ``GPXParseError`` from the reader.
    public init(reader: GPXReader) throws(GPXParseError) {
        var running = Running()
        while let event = try reader.next() {
            switch event {
            case .trackStarted: tracks += 1
            case .segmentStarted: startSegment(&running)
            case .point(let point, let kind):
                switch kind {
                case .trackPoint: addTrackPoint(point, &running)
                case .routePoint:
                    include(point.coordinate)
                    routePoints += 1
                case .waypoint:
                    include(point.coordinate)
                    waypoints += 1
                }
            case .segmentEnded: running.previous = nil
            case .trackEnded, .routeStarted, .routeEnded: break
            }
        }
        running.finish(&self)
        skippedPoints = reader.skippedPoints
        droppedValues = reader.droppedValues
        truncation = reader.truncation
    }

    /// Summarises one track made of `segments`, the same way as a GPX file's track (NMEA logs
    /// and other recordings that are a list of points); with no segment, no track.
    public init(trackSegments segments: some Sequence<[GPXPoint]>) {
        var running = Running()
        for segment in segments {
            tracks = 1
            startSegment(&running)
            for point in segment { addTrackPoint(point, &running) }
        }
        running.finish(&self)
    }

    /// What a summary keeps while it streams.
    private struct Running {
        var previous: Coordinate?
        var firstTime: Date?
        var lastTime: Date?
        var latestTime: Date?

        func finish(_ stats: inout GPXStatistics) {
            if let firstTime, let lastTime, lastTime >= firstTime { stats.duration = lastTime.timeIntervalSince(firstTime) }
        }
    }

    private mutating func startSegment(_ running: inout Running) {
        segments += 1
        running.previous = nil
    }

    private mutating func addTrackPoint(_ point: GPXPoint, _ running: inout Running) {
        include(point.coordinate)
        points += 1
        if let previous = running.previous { distance += previous.geodesicDistance(to: point.coordinate) }
        running.previous = point.coordinate
        if start == nil { start = point }
        end = point
        if let time = point.time {
            if running.firstTime == nil { running.firstTime = time }
            running.lastTime = time
            if let latest = running.latestTime, time < latest {
                timeReversals += 1
            } else {
                running.latestTime = time
            }
        }
    }

    private mutating func include(_ c: Coordinate) {
        guard var box = bounds else {
            bounds = Bounds(minLatitude: c.latitude, minLongitude: c.longitude, maxLatitude: c.latitude, maxLongitude: c.longitude)
            return
        }
        box.minLatitude = min(box.minLatitude, c.latitude)
        box.maxLatitude = max(box.maxLatitude, c.latitude)
        box.minLongitude = min(box.minLongitude, c.longitude)
        box.maxLongitude = max(box.maxLongitude, c.longitude)
        bounds = box
    }
}
