import Foundation
import LocSimTestHelpers
import LocationCore
import LocationIndex
import LocationPostGIS
import Testing

struct StopImport: Error {}

@Suite(.timeLimit(.minutes(1))) struct PostGISImportTests {
    static let first = """
        id,name,lat,lon,kind
        a,Alpha,35.6812,139.7671,shop
        b,Beta,35.6813,139.7672,
        c,"Gamma, ""quoted""\tand tab",35.6814,139.7673,park
        """

    @Test func upsertByIDAndTextRoundTrips() async throws {
        try await withPostGIS { _, store in
            try await withScratchFolder { directory in
                try Self.first.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                let report = try await store.importPlaces(fromFile: directory + "/a.csv")
                #expect(report.inserted == 3)
                #expect(report.updated == 0)
                #expect(report.placeCount == 3)
                try "id,name,lat,lon\nb,Beta moved\\back,35.7,139.8\nd,Delta,35.68,139.76\n".write(
                    toFile: directory + "/b.csv", atomically: true, encoding: .utf8)
                let second = try await store.importPlaces(fromFile: directory + "/b.csv")
                #expect(second.inserted == 1)
                #expect(second.updated == 1)
                #expect(second.placeCount == 4)
                // The same files into SQLite give the same places, text included.
                let index = try sqliteIndex(in: directory, importing: ["a.csv", "b.csv"])
                let center = try Coordinate(latitude: 35.68, longitude: 139.76)
                let expected = try index.places(near: center, within: 50_000)
                #expect(try await store.places(near: center, within: 50_000) == expected)
                #expect(expected.contains { $0.place.name == "Beta moved\\back" })
                #expect(expected.contains { $0.place.name == "Gamma, \"quoted\"\tand tab" })
                let statistics = try await store.statistics()
                #expect(statistics.placeCount == 4)
                #expect(statistics.kindCount == 3)
            }
        }
    }

    @Test("A UUID in another case is the stored place, updated, as in an SQLite index; other ids keep their case")
    func uuidIDsWhateverTheirCase() async throws {
        try await withPostGIS { server, store in
            try await withScratchFolder { directory in
                let upper = "9F1C2A4E-0B7D-4C3A-8E21-5D6F7A8B9C0D", lower = upper.lowercased()
                try "id,name,lat,lon\n\(upper),Gate,35.0,139.0\nShrine-1,Shrine,35.1,139.1\n".write(
                    toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                #expect(try await store.importPlaces(fromFile: directory + "/a.csv").inserted == 2)
                // The same place in lower case, renamed; the same again with nothing else changed;
                // a non-UUID id in another case is another place.
                try "id,name,lat,lon\n\(lower),Gate renamed,35.0,139.0\nshrine-1,Other,35.1,139.1\n".write(
                    toFile: directory + "/b.csv", atomically: true, encoding: .utf8)
                let second = try await store.importPlaces(fromFile: directory + "/b.csv")
                #expect(second.inserted == 1 && second.updated == 1 && second.placeCount == 3, "\(second)")
                try "id,name,lat,lon\n\(upper),Gate renamed,35.0,139.0\n".write(toFile: directory + "/c.csv", atomically: true, encoding: .utf8)
                let third = try await store.importPlaces(fromFile: directory + "/c.csv")
                #expect(third.inserted == 0 && third.updated == 1 && third.placeCount == 3, "the case alone changed: \(third)")
                #expect(try await server.psqlValues("SELECT id || ' ' || name FROM locsim_place ORDER BY id") == "9F1C2A4E-0B7D-4C3A-8E21-5D6F7A8B9C0D Gate renamed\nShrine-1 Shrine\nshrine-1 Other")
                // What an SQLite index of the same files holds.
                let index = try sqliteIndex(in: directory, importing: ["a.csv", "b.csv", "c.csv"])
                let center = try Coordinate(latitude: 35.05, longitude: 139.05)
                #expect(try await store.places(near: center, within: 50_000) == (try index.places(near: center, within: 50_000)))
            }
        }
    }

    /// A bad row fails with the same error an SQLite import gives, and nothing is written.
    @Test func badInputGivesTheIndexErrorsAndWritesNothing() async throws {
        try await withPostGIS { server, store in
            try await withScratchFolder { directory in
                try Self.first.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                try await store.importPlaces(fromFile: directory + "/a.csv")
                let cases = [
                    "id,name,lat,lon\nx,X,35.x,139\n", "id,name,lat\nx,X,35\n", "id,name,lat,lon\nx,X,95,139\n",
                    "id,name,lat,lon\nx,X,35,139\nx,Y,35,139\n",
                    // U+0000, which PostgreSQL's text cannot hold: rejected by both, naming the column.
                    "id,name,lat,lon\nx,X\u{0}Y,35,139\n", "id,name,lat,lon,kind\nx,X,35,139,k\u{0}\n",
                ]
                for (number, text) in cases.enumerated() {
                    let path = directory + "/bad\(number).csv"
                    try text.write(toFile: path, atomically: true, encoding: .utf8)
                    let index = try NearbyIndex(path: directory + "/bad\(number).sqlite")
                    var sqliteError: IndexError?
                    do { try index.importPlaces(fromFile: path) } catch let error as IndexError { sqliteError = error }
                    var postgisError: IndexError?
                    do { try await store.importPlaces(fromFile: path) } catch let error as IndexError { postgisError = error }
                    #expect(sqliteError != nil)
                    #expect(postgisError == sqliteError, "case \(number)")
                }
                // Lenient: both skip the NUL row and keep the others.
                let nul = directory + "/nul.csv"
                try "id,name,lat,lon\nn1,Fine,35.1,139.1\nn2,Bad\u{0},35.1,139.1\n".write(toFile: nul, atomically: true, encoding: .utf8)
                let lenient = ImportOptions(isLenient: true)
                let sqliteReport = try NearbyIndex(path: directory + "/nul.sqlite").importPlaces(fromFile: nul, options: lenient)
                let postgisReport = try await store.importPlaces(fromFile: nul, options: lenient)
                #expect(sqliteReport.skipped == 1 && postgisReport.skipped == 1)
                #expect(sqliteReport.inserted == 1 && postgisReport.inserted == 1)
                #expect(postgisReport.issues == sqliteReport.issues)
                try await server.psql("DELETE FROM locsim_place WHERE id = 'n1'")
                do {
                    try await store.importPlaces(fromFile: directory + "/missing.csv")
                    Issue.record("a missing file imported")
                } catch let error as IndexError {
                    #expect(error.code == .unreadableInput)
                }
                #expect(try await store.statistics().placeCount == 3)
            }
        }
    }

    /// Imports ``first`` into `store` (through `directory`); its places within 5 km of its centre.
    static func importFirst(into store: PostGISPlaceStore, in directory: String) async throws -> (Coordinate, [NearbyPlace]) {
        try Self.first.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
        try await store.importPlaces(fromFile: directory + "/a.csv")
        let center = try Coordinate(latitude: 35.68, longitude: 139.76)
        return (center, try await store.places(near: center, within: 5_000))
    }

    /// An import stopped while its rows are being sent (a thrown progress callback; a cancelled
    /// task) leaves the previous places.
    @Test func interruptedImportKeepsThePreviousData() async throws {
        try await withPostGIS { _, store in
            try await withScratchFolder { directory in
                let (center, before) = try await Self.importFirst(into: store, in: directory)
                #expect(before.count == 3)
                let big = directory + "/big.csv"
                _ = try writeTestPlaces(to: big, seed: 5)
                do {
                    try await store.importPlaces(fromFile: big, options: ImportOptions(progressInterval: 1_000)) { step in
                        if step.phase == .writing, step.tilesWritten >= 4_000 { throw StopImport() }
                    }
                    Issue.record("the import was not stopped")
                } catch is StopImport {}
                #expect(try await store.places(near: center, within: 5_000) == before)
                let task = Task {
                    try await store.importPlaces(fromFile: big, options: ImportOptions(progressInterval: 500)) { step in
                        if step.phase == .writing, step.tilesWritten == 2_000 { withUnsafeCurrentTask { $0?.cancel() } }
                    }
                }
                let outcome = await task.result
                #expect(throws: (any Error).self) { try outcome.get() }
                #expect(try await store.places(near: center, within: 5_000) == before)
                #expect(try await store.statistics().placeCount == 3)
            }
        }
    }

    /// A CSV of 60,000 places in `directory` (several batches of an import), its path.
    static func writeSixtyThousandPlaces(in directory: String) throws -> String {
        let path = directory + "/big.csv"
        let rows = (0..<60_000).map { "q\($0),Place number \($0) of many,\(Double($0 % 1_000) * 0.01),\(Double($0 / 1_000) * 0.1),shop" }
        try (["id,name,lat,lon,kind"] + rows).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `locsim index import --postgres` cancelled by Ctrl-C or SIGTERM while its rows are on
    /// the wire: the task that runs the pool is the one cancelled. The import rolls back and the
    /// pool closes after it (closing the pool at the same moment crashed postgres-nio when
    /// imports used COPY, or left the import waiting forever).
    @Test func cancellingTheTaskThatRunsThePoolMidImportRollsBack() async throws {
        try await withPostGIS { server, store in
            try await withScratchFolder { directory in
                let (center, before) = try await Self.importFirst(into: store, in: directory)
                let big = try Self.writeSixtyThousandPlaces(in: directory)
                let url = try PostgresURL(parsing: server.url)
                let sentWhenCancelled = Locked(0)
                let task = Task {
                    try await PostGISPlaceStore.withRunning(url, clock: ContinuousClock(), logger: quietLogger) { importer in
                        try await importer.importPlaces(fromFile: big, options: ImportOptions(progressInterval: 1_000)) { step in
                            // After the first batches went out.
                            if step.phase == .writing, step.tilesWritten == 40_000 {
                                sentWhenCancelled.withLock { $0 = step.tilesWritten }
                                withUnsafeCurrentTask { $0?.cancel() }
                            }
                        }
                    }
                }
                let outcome = await task.result
                #expect(sentWhenCancelled.withLock { $0 } == 40_000)
                #expect(throws: (any Error).self) { try outcome.get() }
                #expect(try await store.places(near: center, within: 5_000) == before)
                #expect(try await store.statistics().placeCount == 3)
            }
        }
    }

    /// The server stopped (immediate shutdown, as a crash) while an import's rows are on the
    /// wire: the import fails at once as unavailable, and nothing of it was written. It waited
    /// for good, deaf to Ctrl-C (postgres-nio 1.33 leaves a statement sent on a connection that
    /// has just closed waiting).
    @Test func serverStoppedMidImportFailsAtOnceAndWritesNothing() async throws {
        try await withPostGIS { server, store in
            try await withScratchFolder { directory in
                let (center, before) = try await Self.importFirst(into: store, in: directory)
                let big = try Self.writeSixtyThousandPlaces(in: directory)
                let url = try PostgresURL(parsing: server.url)
                do {
                    _ = try await PostGISPlaceStore.withRunning(url, clock: ContinuousClock(), logger: quietLogger) { importer in
                        try await importer.importPlaces(fromFile: big, options: ImportOptions(progressInterval: PostGISPlaceStore.rowsPerBatch)) {
                            step in
                            // After the first batch: the next ones meet a server going away.
                            if step.phase == .writing, step.tilesWritten == PostGISPlaceStore.rowsPerBatch { server.send(SIGQUIT) }
                        }
                    }
                    Issue.record("the import ended as if its server had not stopped")
                } catch let error as PostGISError {
                    #expect(error.code == .unavailable, "\(error)")
                }
                try await server.halt()
                try await server.restart()
                #expect(try await store.places(near: center, within: 5_000) == before)
                #expect(try await store.statistics().placeCount == 3)
            }
        }
    }

    /// Readers during an import see all of the previous places or all of the new ones.
    @Test func readersDuringAnImportSeeWholeGenerations() async throws {
        try await withPostGIS { _, store in
            try await withScratchFolder { directory in
                try Self.first.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                try await store.importPlaces(fromFile: directory + "/a.csv")
                let big = directory + "/big.csv"
                _ = try writeTestPlaces(to: big, seed: 6)
                let index = try NearbyIndex(path: directory + "/x.sqlite")
                try index.importPlaces(fromFile: directory + "/a.csv")
                let center = try Coordinate(latitude: 35.68, longitude: 139.76)
                let old = try index.places(near: center, within: 3_000)
                try index.importPlaces(fromFile: big)
                let new = try index.places(near: center, within: 3_000)
                #expect(old != new)
                let reader = Task {
                    var seen = (old: 0, new: 0, other: 0)
                    while !Task.isCancelled {
                        let answer = try await store.places(near: center, within: 3_000)
                        if answer == old { seen.old += 1 } else if answer == new { seen.new += 1 } else { seen.other += 1 }
                        if seen.new > 0 { break }
                    }
                    return seen
                }
                try await store.importPlaces(fromFile: big)
                let seen = try await reader.value
                #expect(seen.other == 0)
                #expect(seen.new == 1)
            }
        }
    }

    @Test func wrongPasswordAndDownServerAreUnavailable() async throws {
        try await withPostGIS(queryTimeout: .seconds(2)) { server, store in
            try await withScratchFolder { directory in
                try Self.first.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                try await store.importPlaces(fromFile: directory + "/a.csv")
                let wrong = try PostgresURL(parsing: server.urlWithoutPassword, environment: ["PGPASSWORD": "not-it"])
                do {
                    _ = try await PostGISPlaceStore.withRunning(wrong, clock: ContinuousClock(), logger: quietLogger) { other in
                        try await other.statistics()
                    }
                    Issue.record("a wrong password was accepted")
                } catch let error as PostGISError {
                    #expect(error.code == .unavailable)
                    #expect(error.endpoint == "127.0.0.1:\(server.port)")
                    #expect(!error.description.contains("not-it"))
                }
                // Down: queries fail promptly as unavailable; back up: the same store answers again.
                try await server.halt()
                let center = try Coordinate(latitude: 35.68, longitude: 139.76)
                do {
                    _ = try await store.places(near: center, within: 1_000)
                    Issue.record("a query succeeded with the server down")
                } catch let error as PostGISError {
                    #expect(error.code == .unavailable)
                }
                try await server.restart()
                // The pool reconnects after its back-off (postgres-nio: 100 ms growing by 1.25 per
                // failed attempt while the server was down).
                try await eventually("the store answers after the restart") {
                    try await store.places(near: center, within: 1_000).count == 3
                }
            }
        }
    }
}
