import PackagePlugin

/// Compiles a target's text files into the target as string constants: NearbyServer's
/// `Contract/openapi.json` (what `GET /openapi.json` answers) and MapPages' templates, stylesheet
/// and renderer. The package's one way to put a file into the binary; see
/// Sources/EmbedText/main.swift for why not `.embedInCode`.
@main
struct EmbedTextPlugin: BuildToolPlugin {
    /// The files each target embeds, by target name: the file (relative to the target's folder)
    /// and the constant's name.
    static let embedded: [String: [(file: String, name: String)]] = [
        "NearbyServer": [("Contract/openapi.json", "openAPIDocument")],
        "MapPages": [
            ("page.css", "pageCSS"), ("map.js", "mapJS"), ("replay.html", "replayHTML"), ("swarm.html", "swarmHTML"),
            ("live.html", "liveHTML"), ("audit.html", "auditHTML"),
        ],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget, let files = Self.embedded[target.name] else { return [] }
        let tool = try context.tool(named: "EmbedText")
        return files.map { file, name in
            let input = module.directoryURL.appending(path: file)
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name).swift")
            return .buildCommand(
                displayName: "Embedding \(file) in \(target.name) as \(name)", executable: tool.url,
                arguments: [input.path(), output.path(), name], inputFiles: [input], outputFiles: [output])
        }
    }
}
