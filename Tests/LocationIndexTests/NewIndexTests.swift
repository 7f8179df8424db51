import Foundation
import LocationCore
@testable import LocationIndex
import Places
import LocSimTestHelpers
import Testing

/// `NearbyIndex.buildingNew(at:)`: a new index is built under a temporary name and published
/// whole, so its path never names an empty or half-built index (what `kill -9` during the first
/// import used to leave: an empty index that `serve --db` answered every query from with nothing).
@Suite("A new index is published whole", .ownThread, .timeLimit(.minutes(1)))
struct NewIndexTests {
    static let places = [
        Place(id: "a", name: "Alpha", coordinate: try! Coordinate(latitude: 35, longitude: 139)),
        Place(id: "b", name: "Beta", coordinate: try! Coordinate(latitude: 35.001, longitude: 139)),
    ]

    @Test("While it is built nothing is at the path; once built, the path holds all of it and no temporary file is left")
    func published() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("new.sqlite")
            let report = try NearbyIndex.buildingNew(at: path) { index in
                #expect(!FileManager.default.fileExists(atPath: path), "the path names nothing until the index is whole")
                #expect(index.path.hasPrefix(path + ".partial-"))
                // An exit now (a signal before a command's run) would remove it.
                #expect(PartialFiles.registered.contains(index.path))
                return try index.importPlaces(Self.places)
            }
            #expect(!PartialFiles.registered.contains { $0.hasPrefix(path) })
            #expect(report?.inserted == 2)
            #expect(try everything(NearbyIndex(path: path, configuration: .init(access: .readOnly))).map(\.id) == ["a", "b"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["new.sqlite"])
        }
    }

    @Test("An index whose file is replaced (moved over) or removed while open opens no connection to the file now there: its queries say so, as its health does")
    func replacedWhileOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("places.sqlite")
            _ = try NearbyIndex.buildingNew(at: path) { index in try index.importPlaces(Self.places) }
            let other = directory.file("rebuilt.sqlite")
            _ = try NearbyIndex.buildingNew(at: other) { index in try index.importPlaces([Self.places[0]]) }
            // No idle connections: every query opens one, by path.
            let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly, maximumIdleReaders: 0))
            #expect(try everything(index).map(\.id) == ["a", "b"])
            #expect(index.replacement == nil)

            #expect(rename(other, path) == 0)
            let replaced = try #require(throws: IndexError.self) { try everything(index) }
            #expect(replaced.code == .replaced && replaced.path == path, "\(replaced)")
            #expect(replaced.message.contains("restart"), "\(replaced.message)")
            #expect(index.replacement?.code == .replaced)
            // A new instance reads the file there now.
            #expect(try everything(NearbyIndex(path: path, configuration: .init(access: .readOnly))).map(\.id) == ["a"])

            let reopened = try NearbyIndex(path: path, configuration: .init(access: .readOnly, maximumIdleReaders: 0))
            #expect(unlink(path) == 0)
            #expect(reopened.replacement?.code == .replaced)
            #expect(throws: IndexError.self) { try everything(reopened) }
        }
    }

    @Test("What a killed build left (path.partial-PID of a process that is gone) is removed by the next build; a running process's is not")
    func abandonedBuildsRemoved() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("new.sqlite")
            // No process has a pid above the kernel's pid_max.
            let maximum = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
            let gone = try #require(Int32(maximum.trimmingCharacters(in: .whitespacesAndNewlines))) + 1
            let running = getppid()
            for name in ["new.sqlite.partial-\(gone)", "new.sqlite.partial-\(gone)-wal", "new.sqlite.partial-\(running)", "other.sqlite.partial-\(gone)"] {
                #expect(FileManager.default.createFile(atPath: directory.file(name), contents: Data("x".utf8)))
            }
            _ = try NearbyIndex.buildingNew(at: path) { index in try index.importPlaces(Self.places) }
            #expect(
                Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
                    == ["new.sqlite", "new.sqlite.partial-\(running)", "other.sqlite.partial-\(gone)"])
        }
    }

    @Test("A build that fails (a bad row) leaves nothing: no index at the path, no temporary file")
    func failed() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("new.sqlite")
            let csv = directory.file("bad.csv")
            try "id,name,lat,lon\na,Alpha,35,139\nb,Beta,north,139\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let error = try #require(throws: IndexError.self) {
                try NearbyIndex.buildingNew(at: path) { index in try index.importPlaces(fromFile: csv) }
            }
            #expect(error.code == .malformedRow && error.line == 3)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bad.csv"])
        }
    }

    @Test("The index's own failure during a build (here: cancelled) names the path asked for, not the temporary file")
    func failureNamesThePath() async throws {
        try await withScratchFolder("locsim-new-index") { directory in
            let path = directory + "/new.sqlite"
            // Places in three tiles, cancelled once the first tile is written: the writer's check.
            let places = Self.places + [Place(id: "c", name: "Gamma", coordinate: try Coordinate(latitude: 40, longitude: 10))]
            let build = Task {
                try NearbyIndex.buildingNew(at: path) { index in
                    try index.importPlaces(places, options: ImportOptions(progressInterval: 1)) { progress in
                        if progress.phase == .writing { withUnsafeCurrentTask { $0?.cancel() } }
                    }
                }
            }
            let error = try await #require(throws: IndexError.self) { try await build.value }
            #expect(error.code == .cancelled)
            #expect(error.path == path, "\(error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }

    @Test("An index that appeared at the path while this one was built (another import's) is kept, not replaced: nil, and this build discarded")
    func someoneElsesIsKept() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("new.sqlite")
            let report = try NearbyIndex.buildingNew(at: path) { index in
                // Another process's import publishes first.
                _ = try NearbyIndex(path: path).importPlaces([Self.places[1]])
                return try index.importPlaces([Self.places[0]])
            }
            #expect(report == nil)
            #expect(try everything(NearbyIndex(path: path, configuration: .init(access: .readOnly))).map(\.id) == ["b"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["new.sqlite"])
        }
    }
}
