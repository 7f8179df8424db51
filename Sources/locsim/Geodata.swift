import Foundation

/// The place CSVs behind the default index, the same for every command: `--geodata` if given,
/// else `$LOCSIM_GEODATA`, else `./geodata`, else the geodata folder of the source tree this
/// binary was built from.
func resolvedGeodataDirectory(_ explicit: String?) -> String {
    if let explicit { return explicit }
    if let fromEnvironment = ProcessInfo.processInfo.environment["LOCSIM_GEODATA"], !fromEnvironment.isEmpty {
        return fromEnvironment
    }
    if FileManager.default.fileExists(atPath: "geodata") { return "geodata" }
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)  // Sources/locsim/Geodata.swift
    return components.joined(separator: "/") + "/geodata"
}
