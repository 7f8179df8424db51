#if canImport(CoreLocation)
public import CoreLocation
public import LocationCore

/// The device's location as a ``/LocationCore/LocationProvider``: CoreLocation's live updates
/// (`CLLocationUpdate.liveUpdates()`), each turned into a ``/LocationCore/Fix``.
///
/// Only on Apple platforms. The app asks for location permission as usual; updates without a
/// location are skipped, and a location CoreLocation marks invalid (negative horizontal accuracy,
/// invalid coordinate) becomes a no-fix report, which ``MapViewModel`` ignores.
///
/// ```swift
/// .task { await model.run(CoreLocationProvider()) }
/// ```
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
public struct CoreLocationProvider: LocationProvider {
    public typealias Element = Fix

    /// Creates a provider using CoreLocation's default live configuration.
    public init() {}

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(updates: CLLocationUpdate.liveUpdates().makeAsyncIterator())
    }

    /// Reads live updates until the consuming task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var updates: CLLocationUpdate.Updates.Iterator

        /// The next location as a fix; `nil` when CoreLocation ends the stream.
        public mutating func next() async throws -> Fix? {
            while let update = try await updates.next() {
                if let location = update.location { return Fix(location) }
            }
            return nil
        }
    }
}

extension Fix {
    /// The fix a `CLLocation` describes (source ``/LocationCore/FixSource/coreLocation``).
    ///
    /// CoreLocation's "invalid" markers become `nil`: a negative vertical accuracy drops the
    /// altitude (so the fix is 2D), negative speed and course are dropped. A negative horizontal
    /// accuracy or an invalid coordinate makes the whole fix a no-fix report.
    public init(_ location: CLLocation) {
        let raw = location.coordinate
        guard location.horizontalAccuracy >= 0, CLLocationCoordinate2DIsValid(raw) else {
            self = .noFix(time: location.timestamp, source: .coreLocation)
            return
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: raw.latitude, longitude: raw.longitude)
        } catch {
            self = .noFix(time: location.timestamp, source: .coreLocation)
            return
        }
        let hasAltitude = location.verticalAccuracy >= 0
        self.init(
            time: location.timestamp,
            coordinate: coordinate,
            altitude: hasAltitude ? location.altitude : nil,
            speed: location.speed >= 0 ? location.speed : nil,
            course: location.course >= 0 ? location.course : nil,
            horizontalAccuracy: location.horizontalAccuracy,
            verticalAccuracy: hasAltitude ? location.verticalAccuracy : nil,
            source: .coreLocation)
    }
}
#endif
