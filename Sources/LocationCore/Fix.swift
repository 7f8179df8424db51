#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One location report: the single value type every source produces and every consumer reads.
///
/// Units: metres for altitude and accuracies, metres per second for speed, degrees clockwise
/// from true north (0..<360) for course. Accuracies are 1σ-style radii: the true position lies
/// within ``horizontalAccuracy`` of ``coordinate`` about 68% of the time (CoreLocation's and
/// gpsd's convention).
///
/// A fix whose ``mode`` is ``FixMode/noFix`` has no ``coordinate``: it reports receiver
/// status (for example gpsd's first reports after start-up) and is never a position.
public struct Fix: Sendable, Hashable, Codable {
    /// When the position was measured (not when it was received).
    public var time: Date
    /// The position, or `nil` exactly when ``mode`` is ``FixMode/noFix``.
    public var coordinate: Coordinate?
    /// Altitude in metres. Height above mean sea level where the source says so, otherwise above the ellipsoid.
    public var altitude: Double?
    /// Ground speed in metres per second, ≥ 0.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, 0..<360.
    public var course: Double?
    /// Horizontal accuracy radius in metres (1σ, about 68%).
    public var horizontalAccuracy: Double?
    /// Vertical accuracy in metres (1σ).
    public var verticalAccuracy: Double?
    /// Metres by which the geoid (mean sea level) lies above the WGS 84 ellipsoid here, when the
    /// source reports it (gpsd's `geoidSep`, NMEA GGA's separation); then an ``altitude`` is above
    /// mean sea level and the height above the ellipsoid is `altitude + geoidSeparation`.
    public var geoidSeparation: Double?
    /// What a real receiver reported beyond these fields (gpsd's `TPV` members such as
    /// `magvar`, `status`, `epx`/`epy`, `sep`), passed on whole when the fix is relayed; `nil`
    /// for every other source.
    public var receiver: ReceiverReport?
    /// Fix quality.
    public var mode: FixMode
    /// Where the fix came from.
    public var source: FixSource

    /// Creates a positioned fix. The mode defaults to 3D when an altitude is given, 2D otherwise.
    public init(
        time: Date,
        coordinate: Coordinate,
        altitude: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        mode: FixMode? = nil,
        source: FixSource
    ) {
        self.time = time
        self.coordinate = coordinate
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.mode = mode ?? (altitude == nil ? .twoDimensional : .threeDimensional)
        self.source = source
    }

    /// A status report without a position (``FixMode/noFix``).
    public static func noFix(time: Date, source: FixSource) -> Fix {
        Fix(time: time, source: source)
    }

    private init(time: Date, source: FixSource) {
        self.time = time
        self.coordinate = nil
        self.mode = .noFix
        self.source = source
    }

    /// `true` when the fix carries a usable position (2D or 3D with a coordinate).
    public var hasPosition: Bool { mode >= .twoDimensional && coordinate != nil }
}
