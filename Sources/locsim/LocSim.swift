import ArgumentParser

@main
struct LocSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locsim",
        abstract: "Simulate and capture location, and run the game's map-screen logic headless.",
        version: "0.1.0",
        subcommands: [Track.self, Index.self]
    )
}

struct Track: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect GPX tracks.",
        subcommands: []
    )
}
