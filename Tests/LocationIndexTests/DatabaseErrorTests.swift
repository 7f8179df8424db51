import Foundation
import LocationCore
@testable import LocationIndex
import Testing

@Suite("Databases that are not, or no longer, usable indexes", .timeLimit(.minutes(1)))
struct DatabaseErrorTests {
    static let places = NearbyIndexQueryTests.places(seed: 21)

    @Test("A text file is not a locsim index")
    func textFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("places.csv")
            try String(repeating: "id,name,lat,lon\n1,a,2,3\n", count: 200).write(toFile: path, atomically: true, encoding: .utf8)
            let error = try #require(throws: IndexError.self) { try NearbyIndex(path: path) }
            #expect(error.code == .notAnIndex)
            #expect(error.path == path)
            #expect(error.message.contains("not an SQLite database"))
        }
    }

    @Test("Another application's SQLite database is detected by its application_id and left alone")
    func foreignDatabase() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("other.sqlite")
            try SQLiteConnection(path: path, readOnly: false, create: true).execute("CREATE TABLE song(title TEXT); INSERT INTO song VALUES ('x')")
            let error = try #require(throws: IndexError.self) { try NearbyIndex(path: path) }
            #expect(error.code == .notAnIndex)
            #expect(try SQLiteConnection(path: path, readOnly: false, create: true).integer("SELECT count(*) FROM song") == 1)
            // The application id alone is not enough: the metadata must name the format too.
            try SQLiteConnection(path: path, readOnly: false, create: true).execute("PRAGMA application_id = \(0x4C53_4958)")
            #expect(throws: IndexError.self) { try NearbyIndex(path: path) }
        }
    }

    @Test("An index from a newer locsim (higher user_version) is refused")
    func newerVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            _ = try NearbyIndex(path: path)
            try SQLiteConnection(path: path, readOnly: false, create: true).execute("PRAGMA user_version = 99")
            let error = try #require(throws: IndexError.self) { try NearbyIndex(path: path) }
            #expect(error.code == .unsupportedVersion)
        }
    }

    @Test("An index whose user_version was edited below its tables' is corrupt, read-only or not (a negative one crashed)")
    func editedVersion() throws {
        try withTemporaryDirectory { directory in
            for version in [-1, 0, 1] {
                let path = directory.file("v\(version).sqlite")
                do {
                    let index = try NearbyIndex(path: path)
                    try index.importPlaces(Self.places)
                }
                try SQLiteConnection(path: path, readOnly: false, create: true).execute("PRAGMA user_version = \(version)")
                for access in [NearbyIndex.Configuration.Access.readWrite, .readOnly] where version < 1 || access == .readWrite {
                    let error = try #require(throws: IndexError.self) { try NearbyIndex(path: path, configuration: .init(access: access)) }
                    #expect(error.code == .corrupt, "\(version) \(access): \(error)")
                    #expect(error.path == path)
                    #expect(error.message.contains("rebuild the index"), "\(error.message)")
                }
            }
        }
    }

    @Test("Metadata edited to text is named as it is, not read as 0")
    func metadataText() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            _ = try NearbyIndex(path: path)
            try SQLiteConnection(path: path, readOnly: false, create: true).execute("UPDATE metadata SET value = 'abc' WHERE key = 'tileSizeE7'")
            let error = try #require(throws: IndexError.self) { try NearbyIndex(path: path, configuration: .init(access: .readOnly)) }
            #expect(error.code == .corrupt)
            #expect(error.message == "metadata key tileSizeE7 is 'abc', not an integer; rebuild the index", "\(error.message)")
        }
    }

    @Test("A damaged file fails queries and the integrity check with a corrupt error")
    func corrupt() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            do {
                let index = try NearbyIndex(path: path)
                try index.importPlaces(Self.places)
            }  // closed: the WAL is checkpointed into the file
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            let size = try handle.seekToEnd()
            #expect(size > 3 * 65_536)
            try handle.seek(toOffset: 2 * 65_536)  // the third page: tile rows
            handle.write(Data(repeating: 0xA5, count: Int(size) - 2 * 65_536))
            try handle.close()
            let index = try NearbyIndex(path: path)
            let query = try #require(throws: IndexError.self) { try everything(index) }
            #expect(query.code == .corrupt)
            #expect(query.sqliteCode != nil)
            let check = try #require(throws: IndexError.self) { try index.verifyIntegrity() }
            #expect(check.code == .corrupt)
        }
    }

    @Test("An index cut short (an interrupted copy, a full disk) is corrupt, to be rebuilt, not 'not an SQLite database'")
    func truncated() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            do {
                let index = try NearbyIndex(path: path)
                try index.importPlaces(Self.places)
            }
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            let size = try handle.seekToEnd()
            try handle.truncate(atOffset: size / 3)
            try handle.close()
            let error = try #require(throws: IndexError.self) { try NearbyIndex(path: path, configuration: .init(access: .readOnly)) }
            #expect(error.code == .corrupt, "\(error)")
            #expect(error.message.contains("rebuild"), "\(error.message)")
        }
    }

    @Test("A name overwritten in place (sound pages, sound layout) fails the query and the integrity check, naming the row")
    func overwrittenText() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            let marker = "Marker Place Zq"
            do {
                let index = try NearbyIndex(path: path)
                try index.importPlaces(Self.places + [Place(id: "m", name: marker, coordinate: try Coordinate(latitude: 35, longitude: 139))])
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let range = try #require(bytes.range(of: Data(marker.utf8)))
            bytes.replaceSubrange(range, with: Data(repeating: 0xFF, count: range.count))
            try bytes.write(to: URL(fileURLWithPath: path))
            let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
            #expect(index.damage == nil)
            let query = try #require(throws: IndexError.self) { try index.places(near: try Coordinate(latitude: 35, longitude: 139), within: 100) }
            #expect(query.code == .corrupt && query.message.contains("not UTF-8"), "\(query)")
            // Remembered: the file stays damaged until it is rebuilt (a server's health says so).
            #expect(index.damage == query)
            let check = try #require(throws: IndexError.self) { try index.verifyIntegrity() }
            #expect(check.code == .corrupt && check.message.contains("placeTile row") && check.message.contains("not UTF-8"), "\(check)")
        }
    }

    @Test("A row whose text offsets overlap (damaged, yet well-formed SQLite) fails the query as corrupt")
    func overlappingTextSpans() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            let spot = try Coordinate(latitude: 35.68, longitude: 139.76)
            let places = (0..<3).map { Place(id: "p\($0)", name: "Place \($0)", coordinate: spot) }
            do { try NearbyIndex(path: path).importPlaces(places) }
            // Rewrite the one row: same three places, but the end offsets of the names point back
            // to 0, so each place's span (id start … name end) claims the whole text.
            let text = Array(places.map { $0.id + $0.name }.joined().utf8)
            var blob: [UInt8] = []
            func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { blob += $0 } }
            append(UInt32(3))
            for _ in 0..<3 { append(Int32(356_800_000)) }
            for _ in 0..<3 { append(Int32(1_397_600_000)) }
            for _ in 0..<3 { append(UInt16(0)) }
            for _ in 0..<3 { append(Int32.min) }
            for end in [text.count, 0, text.count, 0, text.count, text.count] { append(UInt16(end)) }
            blob += text
            let hex = blob.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
            let raw = try SQLiteConnection(path: path, readOnly: false, create: true)
            #expect(try raw.integer("SELECT count(*) FROM placeTile") == 1)
            try raw.execute("UPDATE placeTile SET data = X'\(hex)'")
            let index = try NearbyIndex(path: path)
            let error = try #require(throws: IndexError.self) { try index.places(near: spot, within: 100) }
            #expect(error.code == .corrupt)
            #expect(error.path == path)
        }
    }

    @Test("Tile rows copied or deleted by hand (places answered twice, or lost) fail the verification")
    func rowsEditedByHand() throws {
        try withTemporaryDirectory { directory in
            for (name, edit) in [
                ("copied", "INSERT INTO placeTile SELECT key + 1, count, data FROM placeTile"),
                ("deleted", "DELETE FROM placeTile WHERE key = (SELECT min(key) FROM placeTile)"),
                ("miscounted", "UPDATE placeTile SET count = count + 1"),
            ] {
                let path = directory.file("\(name).sqlite")
                try NearbyIndex(path: path).importPlaces(Self.places)
                try NearbyIndex(path: path).verifyIntegrity()
                try SQLiteConnection(path: path, readOnly: false, create: true).execute(edit)
                let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
                let error = try #require(throws: IndexError.self, "\(name)") { try index.verifyIntegrity() }
                #expect(error.code == .corrupt, "\(name)")
                #expect(error.path == path)
                #expect(error.message.contains("rebuild the index"), "\(name): \(error.message)")
            }
        }
    }

    @Test("Kind rows deleted by hand are corrupt for an import (a freed code would relabel every place holding it), a query and the verification")
    func kindRowsDeleted() throws {
        try withTemporaryDirectory { directory in
            for (number, edit) in ["DELETE FROM placeKind", "DELETE FROM placeKind WHERE code = 1", "DELETE FROM placeKind WHERE code = 0"].enumerated() {
                let path = directory.file("kinds\(number).sqlite")
                try NearbyIndex(path: path).importPlaces(Self.places)
                try SQLiteConnection(path: path, readOnly: false, create: true).execute(edit)
                let more = [Place(id: "new", name: "New", coordinate: try Coordinate(latitude: 10, longitude: 10), kind: "lighthouse")]
                let imported = try #require(throws: IndexError.self, "\(edit)") { try NearbyIndex(path: path).importPlaces(more) }
                #expect(imported.code == .corrupt && imported.path == path, "\(edit): \(imported)")
                #expect(imported.message.hasPrefix("placeKind "), "\(edit): \(imported.message)")
                #expect(imported.message.hasSuffix("; rebuild the index"), "\(edit): \(imported.message)")
                let verified = try #require(throws: IndexError.self, "\(edit)") { try NearbyIndex(path: path).verifyIntegrity() }
                #expect(verified.code == .corrupt, "\(edit)")
            }
        }
    }

    @Test("A read-only index answers queries and refuses imports; a missing file cannot be opened read-only")
    func readOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            try NearbyIndex(path: path).importPlaces(Self.places)
            let index = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
            #expect(try everything(index).count == Self.places.count)
            let error = try #require(throws: IndexError.self) { try index.importPlaces(Self.places) }
            #expect(error.code == .readOnly)
            let missing = try #require(throws: IndexError.self) {
                try NearbyIndex(path: directory.file("absent.sqlite"), configuration: .init(access: .readOnly))
            }
            #expect(missing.code == .cannotOpen)
            // The folder is there: the file is what is missing.
            #expect(missing.message == "No such file or directory; there is no file at this path", "\(missing)")
            try index.verifyIntegrity()
        }
    }

    @Test("A folder, or a file in a folder that is not there, says so in the system's words, read-only or not", arguments: [false, true])
    func folderOrMissingFolder(readOnly: Bool) throws {
        try withTemporaryDirectory { directory in
            let access: NearbyIndex.Configuration = .init(access: readOnly ? .readOnly : .readWrite)
            let folder = try #require(throws: IndexError.self) { try NearbyIndex(path: directory.path, configuration: access) }
            #expect(folder.code == .cannotOpen)
            #expect(folder.message == "Is a directory; give the path of a file, not a folder")
            #expect(folder.path == directory.path)
            let nowhere = try #require(throws: IndexError.self) {
                try NearbyIndex(path: directory.file("no-such-folder/i.sqlite"), configuration: access)
            }
            #expect(nowhere.code == .cannotOpen)
            #expect(nowhere.message == "No such file or directory; check that the folder exists")
        }
    }

    @Test("Leaving WAL mode is refused while another connection has the file open; afterwards queries work, imports do not")
    func rollbackJournal() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            let index = try NearbyIndex(path: path)
            try index.importPlaces(Self.places)
            #expect(try everything(index).count == Self.places.count)  // leaves an idle reader in the pool
            do {
                let other = try SQLiteConnection(path: path, readOnly: false, create: true)
                try other.execute("BEGIN")
                try other.execute("SELECT count(*) FROM placeTile")
                let error = try #require(throws: IndexError.self) { try index.useRollbackJournal() }
                #expect(error.code == .busy)
                // Nothing changed: the writer is still open.
                #expect(try index.importPlaces(Self.places).unchanged == Self.places.count)
                try other.execute("COMMIT")
            }
            try index.useRollbackJournal()
            #expect(try everything(index).count == Self.places.count)
            let refused = try #require(throws: IndexError.self) { try index.importPlaces(Self.places) }
            #expect(refused.code == .readOnly)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(files == ["i.sqlite"])
            let reopened = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
            #expect(try everything(reopened).count == Self.places.count)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["i.sqlite"])
        }
    }

    @Test("A read-only index that its reader may write leaves no -wal or -shm beside it once closed, and still refuses imports")
    func readOnlyLeavesNoWALFiles() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            do { try NearbyIndex(path: path).importPlaces(Self.places) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["i.sqlite"])
            do {
                let reader = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
                #expect(try everything(reader).count == Self.places.count)
                let refused = try #require(throws: IndexError.self) { try reader.importPlaces(Self.places) }
                #expect(refused.code == .readOnly)
            }
            // `locsim index query` on an index it imported left both files before: a read-only
            // SQLite connection cannot remove them.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["i.sqlite"])
        }
    }

    @Test("While another connection holds the write lock, imports fail with busy and reads go on")
    func locked() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            let index = try NearbyIndex(path: path, configuration: .init(busyTimeout: .milliseconds(50)))
            try index.importPlaces(Self.places)
            let other = try SQLiteConnection(path: path, readOnly: false, create: true)
            try other.execute("BEGIN IMMEDIATE")
            let error = try #require(throws: IndexError.self) { try index.importPlaces(Self.places) }
            #expect(error.code == .busy)
            #expect(error.message.contains("retry"))
            #expect(try everything(index).count == Self.places.count)
            try other.execute("ROLLBACK")
            #expect(try index.importPlaces(Self.places).unchanged == Self.places.count)
        }
    }

    @Test("An invalid tile size is rejected by name")
    func badTileSize() throws {
        try withTemporaryDirectory { directory in
            let error = try #require(throws: IndexError.self) {
                try NearbyIndex(path: directory.file("t.sqlite"), configuration: .init(tileSize: 0))
            }
            #expect(error.parameter == "tileSize")
        }
    }
}

@Suite("Readers during an import", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test("A query made while an import is writing sees the previous snapshot, then the new one")
    func readDuringImport() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let old = NearbyIndexQueryTests.places(seed: 31)
            try index.importPlaces(old)
            let new = old.map { Place(id: $0.id, name: "new", coordinate: $0.coordinate, kind: "new", level: 9) }
                + (0..<500).map { Place(id: "extra\($0)", name: "extra", coordinate: gridCoordinate(latitude: Double($0) / 10, longitude: 5)) }
            let center = try Coordinate(latitude: 20, longitude: 5)
            let before = try index.places(near: center, within: 3_000_000)
            #expect(before == bruteForce(old, center: center, radius: 3_000_000))
            var readsDuringWrite = 0
            try index.importPlaces(new, options: .init(progressInterval: 20)) { progress throws in
                guard progress.phase == .writing else { return }
                let during = try index.places(near: center, within: 3_000_000)
                #expect(during == before)
                readsDuringWrite += 1
            }
            #expect(readsDuringWrite > 5)
            #expect(try index.places(near: center, within: 3_000_000) == bruteForce(new, center: center, radius: 3_000_000))
        }
    }

    @Test("Readers on other threads during imports see either all of an import or none of it")
    func concurrentReaders() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            let index = try NearbyIndex(path: path)
            let generations = (0..<4).map { (generation: Int) in
                NearbyIndexQueryTests.places(seed: 40).map {
                    Place(id: $0.id, name: "generation \(generation)", coordinate: $0.coordinate, level: generation)
                }
            }
            try index.importPlaces(generations[0])
            let center = try Coordinate(latitude: 89, longitude: 0)
            let radius = 1_000_000.0
            let expected = generations.map { bruteForce($0, center: center, radius: radius) }
            let writing = Flag()
            let seen = try await withThrowingTaskGroup(of: Set<Int>.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        // Each reader opens the file itself, like another process would.
                        let reader = try NearbyIndex(path: path, configuration: .init(access: .readOnly))
                        var generationsSeen = Set<Int>()
                        repeat {
                            let result = try reader.places(near: center, within: radius)
                            let generation = try #require(expected.firstIndex(of: result), "a mixed snapshot")
                            generationsSeen.insert(generation)
                            await Task.yield()
                        } while writing.isSet
                        return generationsSeen
                    }
                }
                group.addTask {
                    for generation in generations.dropFirst() {
                        try index.importPlaces(generation)
                        await Task.yield()
                    }
                    writing.clear()
                    return []
                }
                return try await group.reduce(into: Set<Int>()) { $0.formUnion($1) }
            }
            #expect(!seen.isEmpty)
            #expect(try index.places(near: center, within: radius) == expected[3])
        }
    }
}

/// A thread-safe boolean, set until cleared.
final class Flag: Sendable {
    private let state = Locked(true)
    var isSet: Bool { state.withLock { $0 } }
    func clear() { state.withLock { $0 = false } }
}
