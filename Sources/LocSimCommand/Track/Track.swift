import ArgumentParser

struct Track: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect GPX tracks.",
        subcommands: [TrackStats.self]
    )
}
