import ArgumentParser
import LocationCore

/// A command-line coordinate: `LAT,LON` in decimal degrees, for example `35.6812,139.7671`,
/// validated like ``LocationCore/Coordinate``. Every coordinate flag takes it, declared with
/// `@Option(coordinate:)`, so a bad value's message says what is wrong with it.
struct CoordinateArgument: Hashable {
    let coordinate: Coordinate

    /// The value of a coordinate flag, or why `argument` is none (shown after the flag's name).
    static func parse(_ argument: String) throws(Coordinate.TextProblem) -> CoordinateArgument {
        CoordinateArgument(coordinate: try Coordinate.parse(latitudeLongitude: argument).get())
    }

    private init(coordinate: Coordinate) {
        self.coordinate = coordinate
    }
}

extension Option {
    /// An optional coordinate flag, `<lat,lon>` in help. Its value is parsed unconditionally, so
    /// that a negative latitude (`-33.87,151.21`) is a value and not taken for a flag.
    init(coordinate help: String) where Value == CoordinateArgument? {
        self.init(parsing: .unconditional, help: ArgumentHelp(help, valueName: "lat,lon"), transform: CoordinateArgument.parse)
    }

    /// A repeatable coordinate flag (see ``init(coordinate:)``).
    init(wrappedValue: [CoordinateArgument], coordinates help: String) where Value == [CoordinateArgument] {
        self.init(
            wrappedValue: wrappedValue, parsing: .unconditionalSingleValue, help: ArgumentHelp(help, valueName: "lat,lon"),
            transform: CoordinateArgument.parse)
    }
}
