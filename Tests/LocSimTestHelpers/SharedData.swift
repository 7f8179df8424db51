public import Foundation
public import Testing

/// Paths shared by the project's own test targets (not a product: users' tests don't need it).
public enum PackagePaths {
    /// The package root, found from this file's location.
    public static let root: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/LocSimTestHelpers/SharedData.swift
        return components.joined(separator: "/")
    }()

    /// A path inside the package.
    public static func path(_ relative: String) -> String { root + "/" + relative }
}

/// The real-world data beside the repository in `../shared/data` (phone GPX recordings, gpsd
/// receiver logs, GeoNames places). CI has it; a fresh clone elsewhere may not. Tests that need
/// it are enabled with `.enabled(if: SharedData.isPresent, SharedData.absentReason)`, so a run
/// without it says clearly what was skipped and why.
public enum SharedData {
    /// `../shared/data` relative to the package root, or `$LOCSIM_SHARED_DATA` when set.
    public static let directory: String = {
        if let override = ProcessInfo.processInfo.environment["LOCSIM_SHARED_DATA"], !override.isEmpty {
            return override
        }
        return PackagePaths.root + "/../shared/data"
    }()

    /// Whether the folder exists.
    public static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The message shown for tests skipped without the data.
    public static let absentReason: Comment =
        "needs ../shared/data (real recordings, receiver logs, GeoNames); not present beside this clone"

    /// A path inside the shared data folder.
    public static func path(_ relative: String) -> String { directory + "/" + relative }

    /// The files in a subfolder with a given extension, sorted by name; empty when absent.
    public static func files(in subfolder: String, withExtension ext: String) -> [String] {
        let folder = path(subfolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix("." + ext) }.sorted().map { folder + "/" + $0 }
    }
}


/// gpsd's receiver logs in `../shared/data/gpsd`: `NAME.log` with gpsd's own output for it in
/// `NAME.tpv.jsonl` beside it.
public enum GPSDLogs {
    /// `../shared/data/gpsd`.
    public static let folder = URL(fileURLWithPath: SharedData.path("gpsd"))

    public static var isPresent: Bool { SharedData.isPresent && FileManager.default.fileExists(atPath: folder.path) }

    /// The `NAME` of every log that has its `NAME.tpv.jsonl` (empty when the data is absent),
    /// optionally narrowed with `GPSD_LOGS=name,name` while investigating one; the largest log
    /// first.
    ///
    /// Largest first because test cases take their places among those running side by side in
    /// the order they are listed: in name order the largest log (bundg_zeus_9, 5,009 lines, then
    /// about 28 s fed in lock-step through gpsd in one case) came near the end and was most of the
    /// run's last half-minute; first, it runs while the rest of the suite does.
    public static let names: [String] = {
        let logs = SharedData.files(in: "gpsd", withExtension: "log")
        let narrowed = ProcessInfo.processInfo.environment["GPSD_LOGS"].map { $0.split(separator: ",").map(String.init) }
        let kept = logs.compactMap { path -> (name: String, size: Int)? in
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(name + ".tpv.jsonl").path),
                narrowed?.contains(name) ?? true
            else { return nil }
            // Only the order depends on the size: a log whose size cannot be read goes last.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return (name, size)
        }
        return kept.sorted { $0.size != $1.size ? $0.size > $1.size : $0.name < $1.name }.map(\.name)
    }()

    /// A file in the folder.
    public static func url(_ file: String) -> URL { folder.appendingPathComponent(file) }
}
