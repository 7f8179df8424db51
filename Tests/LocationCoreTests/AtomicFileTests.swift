import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

@Suite("AtomicFile: all of the new content at the path, or none of it", .ownThread)
struct AtomicFileTests {
    /// A fresh directory, removed afterwards whatever happens.
    func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atomicfile-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test("Committed: the path holds exactly what was written, replacing the old file; no temporary is left")
    func commit() throws {
        try withDirectory { directory in
            let path = directory + "/out.txt"
            try "old".write(toFile: path, atomically: false, encoding: .utf8)
            let file = try AtomicFile(path: path)
            try file.write("first line\n")
            try file.write(Array("second line\n".utf8))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")  // not yet
            try file.commit()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "first line\nsecond line\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.txt"])
        }
    }

    @Test("Dropped uncommitted (an error mid-way): the old file is untouched and the temporary is gone")
    func dropped() throws {
        try withDirectory { directory in
            let path = directory + "/out.txt"
            try "old".write(toFile: path, atomically: false, encoding: .utf8)
            do {
                let file = try AtomicFile(path: path)
                try file.write("half of it")
                #expect(FileManager.default.fileExists(atPath: file.temporaryPath))
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.txt"])
        }
    }

    @Test("A directory that does not exist: the error names the path and the system's reason")
    func missingDirectory() throws {
        try withDirectory { directory in
            let path = directory + "/no/such/dir/out.txt"
            #expect {
                _ = try AtomicFile(path: path)
            } throws: { error in
                guard let error = error as? AtomicFileError else { return false }
                return error.path == path && error.reason.contains("No such file")
            }
        }
    }

    @Test("A commit that cannot rename (the path is a non-empty directory) fails and removes the temporary")
    func renameFails() throws {
        try withDirectory { directory in
            let path = directory + "/taken"
            try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
            let file = try AtomicFile(path: path)
            try file.write("data")
            #expect(throws: AtomicFileError.self) { try file.commit() }
            #expect(!FileManager.default.fileExists(atPath: file.temporaryPath))
            #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["inside"])
        }
    }
}
