import Foundation
import LocSimTestHelpers

/// The gpsd receiver logs in `../shared/data/gpsd` (not part of the repository).
enum GPSDLogs {
    static var isPresent: Bool { SharedData.isPresent && FileManager.default.fileExists(atPath: SharedData.path("gpsd")) }

    /// The names of the logs (`NAME.log` with a `NAME.tpv.jsonl` beside it), optionally narrowed
    /// with `GPSD_LOGS=name,name` while investigating one.
    static let names: [String] = {
        let logs = SharedData.files(in: "gpsd", withExtension: "log").map {
            String(($0 as NSString).lastPathComponent.dropLast(4))
        }
        let narrowed = ProcessInfo.processInfo.environment["GPSD_LOGS"].map { $0.split(separator: ",").map(String.init) }
        return logs.filter { name in
            FileManager.default.fileExists(atPath: SharedData.path("gpsd/\(name).tpv.jsonl"))
                && (narrowed?.contains(name) ?? true)
        }
    }()

    static func url(_ file: String) -> URL { URL(fileURLWithPath: SharedData.path("gpsd/\(file)")) }
}
