import ArgumentParser

/// The package traits this `locsim` was built with (Package.swift): `Server` (serve, swarm
/// --server, the live feeds) and `PostGIS` (`--postgres`). A plain `swift build` has both;
/// `--disable-default-traits` (the main job's build) leaves them out, and asking for what is
/// missing fails at parse time with the command that gives it.
enum BuildTraits {
    /// Throws ``missing(_:for:)`` when this build lacks the Server trait (a build without PostGIS
    /// refuses `--postgres` in `PostgresTarget.validate(_:flag:)`).
    static func requireServer(for feature: String) throws {
        #if !Server
        throw missing("Server", for: feature)
        #endif
    }

    static func missing(_ trait: String, for feature: String) -> ValidationError {
        ValidationError(
            "\(feature) needs locsim built with the \(trait) trait, and this one was built without it "
                + "(--disable-default-traits); build it with 'swift build -c release --product locsim'")
    }
}

#if !Server
/// `locsim serve` in a build without the Server trait: still listed, so asking for it says what
/// to do instead of "unexpected argument".
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the game's GET /locations/nearby (not in this build: it needs the Server trait).")

    @Argument(parsing: .allUnrecognized) var arguments: [String] = []

    func validate() throws { throw BuildTraits.missing("Server", for: "locsim serve") }
}
#endif
