import ArgumentParser
import LocationCore

/// A command-line coordinate: `LAT,LON` in decimal degrees, for example `35.6812,139.7671`,
/// validated like ``LocationCore/Coordinate``.
struct CoordinateArgument: ExpressibleByArgument, Hashable {
    let coordinate: Coordinate

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let latitude = decimalValue(parts[0].filter { $0 != " " }),
            let longitude = decimalValue(parts[1].filter { $0 != " " }),
            let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
        else { return nil }
        self.coordinate = coordinate
    }
}
