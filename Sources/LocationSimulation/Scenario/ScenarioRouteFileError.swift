import Foundation

extension Scenario {
    /// An error of the route file a scenario names, told as the scenario's (`walk.json:
    /// route.file: …`): what `locsim replay --scenario`, `serve --player` and ``MapReplay``-style
    /// harnesses say, each in its own form (the command adds a hint and an exit status).
    package struct RouteFileError: Error, CustomStringConvertible {
        /// The scenario file.
        package var scenario: String
        /// The route file, as resolved against the scenario file's folder.
        package var file: String
        /// The route file's reader's error.
        package var underlying: any Error
        /// Whether the route file could not be read at all (missing, a folder, no permission):
        /// then a relative path's folder is worth saying. Found when thrown, not when told.
        package var isUnreadable: Bool

        package init(scenario: String, file: String, underlying: any Error) {
            self.scenario = scenario
            self.file = file
            self.underlying = underlying
            var isDirectory: ObjCBool = false
            isUnreadable =
                !FileManager.default.isReadableFile(atPath: file)
                || (FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) && isDirectory.boolValue)
        }

        /// What the scenario file's folder has to do with an unreadable route file.
        package static let relativePathNote = "a relative route.file is read from the scenario file's folder"

        package var description: String {
            "\(scenario): route.file: \(underlying)" + (isUnreadable ? " (\(Self.relativePathNote))" : "")
        }
    }
}
