import Foundation
import LocationCore

/// Runs `body` with a fresh folder under the system's temporary directory (named `label`, the
/// process id and a random part), and removes the folder and all in it when `body` returns or
/// throws: the one way the test targets make a scratch folder. A test process killed meanwhile
/// cannot remove it; the first use of `label` in a later process does.
public func withScratchFolder<T>(
    _ label: String = "locsim-test", isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
) async throws -> T {
    let path = try ProcessScratch.makeFolder(label)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// ``withScratchFolder(_:_:)-async`` for a synchronous test (one marked `.ownThread`).
public func withScratchFolder<T>(_ label: String = "locsim-test", _ body: (String) throws -> T) throws -> T {
    let path = try ProcessScratch.makeFolder(label)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A new scratch folder named as ``withScratchFolder(_:_:)-async`` names it, in `parent` (the
/// system's temporary directory unless given), for a fixture object that outlives one closure and
/// removes the folder itself when it is done (in `deinit` or a `remove()` of its own). Everything
/// else uses ``withScratchFolder(_:_:)-async``.
public func newScratchFolder(_ label: String = "locsim-test", in parent: String? = nil) throws -> String {
    try ProcessScratch.makeFolder(label, in: ProcessScratch.parent(parent))
}

/// A folder for fixtures a test process builds once and shares (a default-index cache, reference
/// tracks, PostgreSQL's template cluster): `label` and the process id in `parent` (the system's
/// temporary directory unless given), created on first use and removed, with all in it, when the
/// process exits. A process killed before it exits (at a time limit, by a signal) cannot remove
/// its own: the first use of a label in a process removes that label's folders of processes that
/// are gone, so a killed run leaves nothing behind the next run.
public func processScratchFolder(_ label: String, in parent: String? = nil) -> String {
    let parent = ProcessScratch.parent(parent)
    let path = parent + "\(label)-\(getpid())"
    ProcessScratch.folders.withLock { folders in
        if folders.isEmpty { atexit { ProcessScratch.removeAll() } }
        if !folders.contains(path) { folders.append(path) }
    }
    ProcessScratch.sweepOnce(label: label, in: parent)
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        fatalError("cannot create the scratch folder \(path): \(error)")
    }
    return path
}

enum ProcessScratch {
    static let folders = Locked<[String]>([])
    /// The labels (with their parent folder) swept in this process.
    static let swept = Locked<Set<String>>([])

    /// `parent` ending in `/`, or the system's temporary directory when none is given.
    static func parent(_ parent: String?) -> String {
        parent.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? NSTemporaryDirectory()
    }

    /// A new folder `label-PID-UUID` in `parent` (ending in `/`), after sweeping `label`'s
    /// folders of gone processes there.
    static func makeFolder(_ label: String, in parent: String = NSTemporaryDirectory()) throws -> String {
        sweepOnce(label: label, in: parent)
        let path = parent + "\(label)-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func removeAll() {
        for path in folders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// At the first use of `label` in `parent` in this process: removes the `label-PID` and
    /// `label-PID-…` folders there whose process no longer exists. A folder that cannot be listed
    /// or removed is left (another run may be removing it at the same moment).
    static func sweepOnce(label: String, in parent: String) {
        guard swept.withLock({ $0.insert(parent + label).inserted }) else { return }
        let prefix = label + "-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            let digits = entry.dropFirst(prefix.count).prefix { $0 != "-" }
            guard digits.first?.isNumber == true, let pid = Int32(digits), pid != getpid(), isGone(pid) else { continue }
            try? FileManager.default.removeItem(atPath: parent + entry)
        }
    }

    /// Whether no process has this id (`kill(pid, 0)` fails with `ESRCH`; `EPERM` means one does).
    static func isGone(_ pid: Int32) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }
}
