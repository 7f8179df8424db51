import ArgumentParser
import LocationCore

/// A command-line coordinate: `LAT,LON` in decimal degrees, for example `35.6812,139.7671`,
/// validated like ``LocationCore/Coordinate``.
struct CoordinateArgument: ExpressibleByArgument, Hashable {
    let coordinate: Coordinate

    init?(argument: String) {
        guard let coordinate = Coordinate(latitudeLongitude: argument) else { return nil }
        self.coordinate = coordinate
    }
}
