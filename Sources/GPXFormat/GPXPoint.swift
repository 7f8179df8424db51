#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LocationCore

/// One GPX point (`trkpt`, `rtept` or `wpt`) with the fields locsim reads and writes.
///
/// GPX names are mapped to Swift words: `ele` → ``elevation``, `hdop` → ``horizontalDilution``,
/// `sat` → ``satellites``. Speed and course come from GPX 1.0's `<speed>`/`<course>` elements or
/// from the usual extensions (Garmin `TrackPointExtension` `speed`/`course`, and plain
/// `<speed>`/`<course>` inside `<extensions>`).
public struct GPXPoint: Sendable, Hashable {
    public var coordinate: Coordinate
    /// `<ele>`: elevation in metres.
    public var elevation: Double?
    /// `<time>`, always converted to UTC.
    public var time: Date?
    /// `<geoidheight>`: the height of the geoid (mean sea level) above the WGS-84 ellipsoid, in
    /// metres, as NMEA GGA's geoid separation; ``elevation`` is then above mean sea level, and
    /// the height above the ellipsoid is their sum.
    public var geoidHeight: Double?
    /// Speed in metres per second.
    public var speed: Double?
    /// Course in degrees clockwise from true north.
    public var course: Double?
    /// `<hdop>`.
    public var horizontalDilution: Double?
    /// `<vdop>`.
    public var verticalDilution: Double?
    /// `<pdop>`.
    public var positionDilution: Double?
    /// `<sat>`: satellites used.
    public var satellites: Int?
    /// `<fix>`.
    public var fix: GPXFixType?
    /// `<name>`.
    public var name: String?

    public init(
        coordinate: Coordinate, elevation: Double? = nil, time: Date? = nil, speed: Double? = nil,
        course: Double? = nil, horizontalDilution: Double? = nil, verticalDilution: Double? = nil,
        positionDilution: Double? = nil, satellites: Int? = nil, fix: GPXFixType? = nil, name: String? = nil,
        geoidHeight: Double? = nil
    ) {
        self.coordinate = coordinate
        self.elevation = elevation
        self.time = time
        self.speed = speed
        self.course = course
        self.horizontalDilution = horizontalDilution
        self.verticalDilution = verticalDilution
        self.positionDilution = positionDilution
        self.satellites = satellites
        self.fix = fix
        self.name = name
        self.geoidHeight = geoidHeight
    }
}

/// GPX's `<fix>` values.
public enum GPXFixType: String, Sendable, Hashable, CaseIterable {
    case none, twoDimensional = "2d", threeDimensional = "3d", dgps, pps
}

/// Which list a point belongs to.
public enum GPXPointKind: String, Sendable, Hashable {
    case trackPoint = "trkpt", routePoint = "rtept", waypoint = "wpt"
}

/// A track: named, made of segments; a segment break means the recording stopped.
public struct GPXTrack: Sendable, Hashable {
    public var name: String?
    public var segments: [[GPXPoint]]
    public init(name: String? = nil, segments: [[GPXPoint]] = []) {
        self.name = name
        self.segments = segments
    }
}

/// A route: an ordered list of points to follow.
public struct GPXRoute: Sendable, Hashable {
    public var name: String?
    public var points: [GPXPoint]
    public init(name: String? = nil, points: [GPXPoint] = []) {
        self.name = name
        self.points = points
    }
}

/// A whole GPX file in memory. For large files prefer ``GPXReader``, which streams.
public struct GPXDocument: Sendable, Hashable {
    public var creator: String?
    public var tracks: [GPXTrack]
    public var routes: [GPXRoute]
    public var waypoints: [GPXPoint]

    public init(creator: String? = nil, tracks: [GPXTrack] = [], routes: [GPXRoute] = [], waypoints: [GPXPoint] = []) {
        self.creator = creator
        self.tracks = tracks
        self.routes = routes
        self.waypoints = waypoints
    }
}

extension GPXPoint {
    /// A point carrying a fix's values. `nil` when the fix has no position.
    ///
    /// - Parameters:
    ///   - fix: The fix whose position, time, altitude, speed and course the point carries.
    ///   - horizontalAccuracyPerHDOP: Metres of accuracy per unit of dilution of precision
    ///     (gpsd's model: 19, for both axes): with it, the horizontal accuracy becomes `<hdop>`
    ///     and the vertical one `<vdop>`, rounded to 10⁻⁶ (so 46.93 m is 2.47, not
    ///     2.4699999999999998); a replay with the same figure turns them back. `nil` (the default)
    ///     leaves the accuracies out, as GPX has no element for them.
    public init?(fix: Fix, horizontalAccuracyPerHDOP: Double? = nil) {
        guard let coordinate = fix.coordinate else { return nil }
        self.init(
            coordinate: coordinate, elevation: fix.altitude, time: fix.time, speed: fix.speed, course: fix.course,
            fix: fix.mode == .threeDimensional ? .threeDimensional : .twoDimensional,
            geoidHeight: fix.geoidSeparation.flatMap { $0.isFinite ? $0 : nil })
        if let perHDOP = horizontalAccuracyPerHDOP {
            horizontalDilution = fix.horizontalAccuracy.map { ($0 / perHDOP * 1e6).rounded() / 1e6 }
            verticalDilution = fix.verticalAccuracy.map { ($0 / perHDOP * 1e6).rounded() / 1e6 }
        }
    }

    /// The fix this point describes, or `nil` when it has no time.
    ///
    /// Horizontal accuracy is not part of GPX; it is left `nil` (HDOP is not a distance).
    public func fix(source: FixSource = .gpx) -> Fix? {
        guard let time else { return nil }
        let mode: FixMode? =
            switch fix {
            case .none?: .noFix
            case .twoDimensional?: .twoDimensional
            case .threeDimensional?, .dgps?, .pps?: .threeDimensional
            case nil: nil
            }
        if mode == .noFix { return .noFix(time: time, source: source) }
        var result = Fix(
            time: time, coordinate: coordinate, altitude: elevation, speed: speed, course: course, mode: mode,
            source: source)
        result.geoidSeparation = geoidHeight
        return result
    }
}
