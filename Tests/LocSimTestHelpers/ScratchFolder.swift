import Foundation

/// Runs `body` with a fresh folder under the system's temporary directory (named `label`, the
/// process id and a random part), and removes the folder and all in it when `body` returns or
/// throws: the one way the test targets make a scratch folder.
public func withScratchFolder<T>(_ label: String = "locsim-test", _ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "\(label)-\(getpid())-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
