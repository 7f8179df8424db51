import Foundation

/// The real-world data in `../shared/data` relative to the package root (not part of the repository).
enum SharedData {
    /// `<package root>/../shared/data`, located from this file's path.
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // LocationGPSDTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("../shared/data")
        .standardizedFileURL

    static var isPresent: Bool { FileManager.default.fileExists(atPath: directory.appendingPathComponent("gpsd").path) }

    /// The names of the receiver logs in `gpsd/` (`NAME.log` with a `NAME.tpv.jsonl` beside it).
    static let gpsdLogNames: [String] = {
        let folder = directory.appendingPathComponent("gpsd")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasSuffix(".log") }
            .map { String($0.dropLast(4)) }
            .filter { names.contains($0 + ".tpv.jsonl") }
            .filter { name in ProcessInfo.processInfo.environment["GPSD_LOGS"].map { $0.split(separator: ",").contains(Substring(name)) } ?? true }
            .sorted()
    }()

    static func gpsdFile(_ name: String) -> URL { directory.appendingPathComponent("gpsd/\(name)") }
}
