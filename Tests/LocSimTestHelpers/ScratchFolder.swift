import Foundation
import LocationCore

/// Runs `body` with a fresh folder under the system's temporary directory (named `label`, the
/// process id and a random part), and removes the folder and all in it when `body` returns or
/// throws: the one way the test targets make a scratch folder.
public func withScratchFolder<T>(_ label: String = "locsim-test", _ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "\(label)-\(getpid())-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A folder for fixtures a test process builds once and shares (a default-index cache, reference
/// tracks): `label` and the process id under the system's temporary directory, created on first
/// use and removed, with all in it, when the process exits.
public func processScratchFolder(_ label: String) -> String {
    let path = NSTemporaryDirectory() + "\(label)-\(getpid())"
    ProcessScratch.folders.withLock { folders in
        if folders.isEmpty { atexit { ProcessScratch.removeAll() } }
        if !folders.contains(path) { folders.append(path) }
    }
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        fatalError("cannot create the scratch folder \(path): \(error)")
    }
    return path
}

private enum ProcessScratch {
    static let folders = Locked<[String]>([])

    static func removeAll() {
        for path in folders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
