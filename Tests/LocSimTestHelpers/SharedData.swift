import Foundation
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

