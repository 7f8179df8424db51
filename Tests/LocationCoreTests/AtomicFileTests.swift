import Foundation
import LocationCore
import Testing
import LocSimTestHelpers

@Suite("AtomicFile: all of the new content at the path, or none of it", .ownThread, .timeLimit(.minutes(1)))
struct AtomicFileTests {
    @Test("Committed: the path holds exactly what was written, replacing the old file with its permissions; no temporary is left")
    func commit() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let path = directory + "/out.txt"
            try "old".write(toFile: path, atomically: false, encoding: .utf8)
            try #require(chmod(path, 0o600) == 0)  // a private file stays private
            let file = try AtomicFile(path: path)
            try file.write("first line\n")
            try file.write(Array("second line\n".utf8))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")  // not yet
            try file.commit()
            #expect(!PartialFiles.registered.contains { $0.hasPrefix(path) })
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "first line\nsecond line\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.txt"])
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        }
    }

    @Test("Dropped uncommitted (an error mid-way): the old file is untouched and the temporary is gone")
    func dropped() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let path = directory + "/out.txt"
            try "old".write(toFile: path, atomically: false, encoding: .utf8)
            do {
                let file = try AtomicFile(path: path)
                try file.write("half of it")
                #expect(FileManager.default.fileExists(atPath: try #require(file.temporaryPath)))
                #expect(PartialFiles.registered.contains(try #require(file.temporaryPath)))  // an exit would remove it
            }
            #expect(!PartialFiles.registered.contains { $0.hasPrefix(path) })
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.txt"])
        }
    }

    @Test("A directory that does not exist: the error names the path and the system's reason")
    func missingDirectory() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let path = directory + "/no/such/dir/out.txt"
            #expect {
                _ = try AtomicFile(path: path)
            } throws: { error in
                guard let error = error as? AtomicFileError else { return false }
                return error.path == path && error.reason.contains("No such file")
            }
        }
    }

    @Test("A commit that cannot rename (a non-empty directory took the path meanwhile) fails and removes the temporary")
    func renameFails() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let path = directory + "/taken"
            let file = try AtomicFile(path: path)
            try file.write("data")
            try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
            #expect(throws: AtomicFileError.self) { try file.commit() }
            #expect(!FileManager.default.fileExists(atPath: try #require(file.temporaryPath)))
            #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["inside"])
        }
    }

    @Test("A directory at the path is refused at once, in the system's words")
    func directory() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            #expect {
                _ = try AtomicFile(path: directory)
            } throws: { error in
                (error as? AtomicFileError)?.reason == "Is a directory"
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(left.isEmpty)
        }
    }

    @Test("A symbolic link is written through: the file it names gets the content, the link stays, even when the file is new")
    func symbolicLink() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            try FileManager.default.createDirectory(atPath: directory + "/real", withIntermediateDirectories: true)
            for (link, target) in [("existing.txt", "real/old.txt"), ("dangling.txt", "real/new.txt")] {
                if link == "existing.txt" { try "old".write(toFile: directory + "/" + target, atomically: false, encoding: .utf8) }
                try FileManager.default.createSymbolicLink(atPath: directory + "/" + link, withDestinationPath: target)
                let file = try AtomicFile(path: directory + "/" + link)
                try file.write("new")
                try file.commit()
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + link) == target)
                #expect(try String(contentsOfFile: directory + "/" + target, encoding: .utf8) == "new")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/real").sorted() == ["new.txt", "old.txt"])
        }
    }

    @Test("In a shared folder (sticky, world-writable), a link another user made is not followed, as the kernel's protected_symlinks has it; one's own is")
    func sharedFolderLinks() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let shared = directory + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
            try #require(chmod(shared, 0o1777) == 0)
            let victim = directory + "/victim.txt"
            try "mine".write(toFile: victim, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: shared + "/report.html", withDestinationPath: victim)
            // Another user's link (nobody's): refused, the file it names untouched.
            let other: uid_t = geteuid() == 65534 ? 65533 : 65534
            try #require(lchown(shared + "/report.html", other, gid_t(other)) == 0, "lchown needs root")
            #expect {
                _ = try AtomicFile(path: shared + "/report.html")
            } throws: { error in
                (error as? AtomicFileError)?.reason.contains("symbolic link in a shared folder (sticky, world-writable) that another user made") == true
            }
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine")
            // This user's own link there is written through.
            try #require(lchown(shared + "/report.html", geteuid(), getegid()) == 0)
            let file = try AtomicFile(path: shared + "/report.html")
            try file.write("report")
            try file.commit()
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "report")
        }
    }

    @Test("Something at the temporary file's predictable name (a link to another file) is removed, never written through")
    func plantedTemporary() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let path = directory + "/out.txt"
            let victim = directory + "/victim.txt"
            try "mine".write(toFile: victim, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: AtomicFile.partialPath(path), withDestinationPath: victim)
            let file = try AtomicFile(path: path)
            try file.write("new")
            try file.commit()
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["out.txt", "victim.txt"])
        }
    }

    @Test("canonicalPath: every spelling of one file to be written (a dangling link, `..`, a linked folder) is one path")
    func canonicalPath() throws {
        try withScratchFolder("locsim-atomic-file") { directory in
            let fileManager = FileManager.default
            try fileManager.createDirectory(atPath: directory + "/real/sub", withIntermediateDirectories: true)
            try fileManager.createSymbolicLink(atPath: directory + "/folder", withDestinationPath: "real")
            try fileManager.createSymbolicLink(atPath: directory + "/real/link.html", withDestinationPath: "new.html")
            let target = AtomicFile.canonicalPath(directory + "/real/new.html")
            #expect(target.hasSuffix("/real/new.html") && !fileManager.fileExists(atPath: target))
            for spelling in ["real/sub/../new.html", "folder/new.html", "folder/link.html", "real/./link.html"] {
                #expect(AtomicFile.canonicalPath(directory + "/" + spelling) == target, "\(spelling)")
            }
            #expect(AtomicFile.canonicalPath(directory + "/real/other.html") != target)
            // A folder that does not exist is left as written (the write will fail and say so).
            #expect(AtomicFile.canonicalPath(directory + "/absent/new.html") == directory + "/absent/new.html")
        }
    }

    @Test("A FIFO is written as it is: its reader gets the content, and it stays a FIFO; with no reader, refused at once")
    func fifo() throws {
        try withScratchFolder("locsim-atomic-fifo") { directory in
            let path = directory + "/pipe"
            try #require(mkfifo(path, 0o600) == 0)
            // Nobody reads it yet: refused at once, not a wait for a reader that may never come.
            let alone = try #require(throws: AtomicFileError.self) { try AtomicFile(path: path) }
            #expect(alone.reason == "a FIFO with no reader; start its reader first")
            // Its reader (opened first, not waiting for a writer).
            let reader = open(path, O_RDONLY | O_NONBLOCK)
            try #require(reader >= 0)
            defer { close(reader) }
            try AtomicFile.checkWritable(path)  // no open: the reader would see an empty stream
            let file = try AtomicFile(path: path)
            try file.write("through the pipe\n")
            try file.commit()
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(reader, &buffer, buffer.count)
            #expect(count >= 0 && String(decoding: buffer[..<max(count, 0)], as: UTF8.self) == "through the pipe\n")
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["pipe"])
        }
    }
}
