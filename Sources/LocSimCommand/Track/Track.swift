import ArgumentParser

struct Track: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect a walk: a GPX track, an NMEA log, a GeoJSON route or KML lines.",
        subcommands: [TrackStats.self]
    )
}
