import Foundation
import LocationCore
@testable import LocationIndex
import Places
import LocSimTestHelpers
import Testing

/// Everything in the index, via a query that covers the whole sphere, ordered by id.
func everything(_ index: NearbyIndex) throws -> [Place] {
    try index.places(near: Coordinate(latitude: 0, longitude: 0), within: Sphere.halfCircumference)
        .map(\.place).sorted { $0.id < $1.id }
}

@Suite("Import: formats, upserts, atomicity", .timeLimit(.minutes(1)), .ownThread)
struct ImportTests {
    @Test("CSV in UTF-16 that is not UTF-16 (a lone surrogate, an odd last byte) is refused with its line, never read as U+FFFD")
    func csvBadUTF16() throws {
        // "id,name,lat,lon\n" then a row whose name holds a lone high surrogate, little-endian.
        var loneSurrogate: [UInt8] = [0xFF, 0xFE]
        for unit in Array("id,name,lat,lon\na,".utf16) + [0xD800] + Array(",1,2\n".utf16) {
            loneSurrogate += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        var oddEnd: [UInt8] = [0xFE, 0xFF]
        for unit in "id,name,lat,lon\n".utf16 { oddEnd += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        oddEnd.append(0x00)
        let cases: [(bytes: [UInt8], line: Int, says: String)] = [(loneSurrogate, 2, "a lone surrogate"), (oddEnd, 2, "an odd number of bytes")]
        for (bytes, line, says) in cases {
            try withTemporaryDirectory { directory in
                let path = directory.file("places.csv")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let index = try NearbyIndex(path: directory.file("i.sqlite"))
                let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path) }
                #expect(error.code == .malformedRow)
                #expect(error.path == path && error.line == line, "\(error)")
                #expect(error.message.contains(says), "\(error)")
                #expect(try everything(index).isEmpty)
            }
        }
    }

    @Test("CSV: columns by name in any order, quoting, optional kind and level")
    func csvRoundTrip() throws {
        let csv = "\u{FEFF}" + [
            "lon,extra,name,id,level,kind,lat",
            #"139.7671,x,"Tokyo Station, Marunouchi",t1,3,station,35.6812"#,
            #"139.7454,y,"The ""Tower""",t2,,landmark,35.6586"# + "\r",
            #"-122.4194,z,"Line one"#,
            #"line two",sf1,-2,,37.7749"#,
            "",
            "-180,w,Dateline,d1,0,buoy,-16.5",
            "180,w,Dateline east,d2,1,buoy,-16.6",
            "",
        ].joined(separator: "\n")
        try withTemporaryDirectory { directory in
            let path = directory.file("places.csv")
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let report = try index.importPlaces(fromFile: path)
            #expect(report.rowsRead == 5)
            #expect(report.inserted == 5)
            #expect(report.updated == 0)
            #expect(report.placeCount == 5)
            let expected = [
                Place(id: "d1", name: "Dateline", coordinate: try Coordinate(latitude: -16.5, longitude: -180), kind: "buoy", level: 0),
                Place(id: "d2", name: "Dateline east", coordinate: try Coordinate(latitude: -16.6, longitude: -180), kind: "buoy", level: 1),
                Place(id: "sf1", name: "Line one\nline two", coordinate: try Coordinate(latitude: 37.7749, longitude: -122.4194), kind: "", level: -2),
                Place(id: "t1", name: "Tokyo Station, Marunouchi", coordinate: try Coordinate(latitude: 35.6812, longitude: 139.7671), kind: "station", level: 3),
                Place(id: "t2", name: "The \"Tower\"", coordinate: try Coordinate(latitude: 35.6586, longitude: 139.7454), kind: "landmark", level: nil),
            ]
            #expect(try everything(index) == expected)
        }
    }

    @Test("GeoJSON: string, numeric and derived ids; properties; re-import is stable")
    func geoJSONRoundTrip() throws {
        let json = """
            {"type":"FeatureCollection","features":[
              {"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.2945,48.8584]},
               "properties":{"name":"Eiffel","kind":"tower","level":5}},
              {"type":"Feature","id":42,"geometry":{"type":"Point","coordinates":[-0.1246,51.5007]},
               "properties":{"name":"Big Ben"}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[12.4922,41.8902]},
               "properties":{"name":"Colosseum","id":"c"}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[151.2153,-33.8568]},
               "properties":{"name":"Opera House"}}
            ]}
            """
        try withTemporaryDirectory { directory in
            let path = directory.file("p.geojson")
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            #expect(try index.importPlaces(fromFile: path).inserted == 4)
            let places = try everything(index)
            #expect(places.map(\.name) == ["Eiffel", "Big Ben", "Colosseum", "Opera House"].sorted {
                let ids = ["Eiffel": "a", "Big Ben": "42", "Colosseum": "c"]
                return (ids[$0] ?? "gj") < (ids[$1] ?? "gj")
            })
            #expect(places.first { $0.id == "a" } == Place(
                id: "a", name: "Eiffel", coordinate: try Coordinate(latitude: 48.8584, longitude: 2.2945), kind: "tower", level: 5))
            let derived = try #require(places.first { $0.name == "Opera House" })
            #expect(derived.id.hasPrefix("gj"))
            let again = try index.importPlaces(fromFile: path)
            #expect(again.inserted == 0 && again.updated == 0 && again.unchanged == 4)
            #expect(try everything(index) == places)
            // One name changed: updated, the other three as stored.
            try json.replacingOccurrences(of: "Big Ben", with: "Elizabeth Tower").write(toFile: path, atomically: true, encoding: .utf8)
            let changed = try index.importPlaces(fromFile: path)
            #expect(changed.inserted == 0 && changed.updated == 1 && changed.unchanged == 3, "\(changed)")
        }
    }

    @Test("GeoNames layout: kind city, ids derived from the row, repeated rows numbered")
    func geoNamesFixture() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let path = try fixture("geonames-sample.csv")
            let report = try index.importPlaces(fromFile: path, options: .init(format: .geoNames))
            #expect(report.rowsRead == 6 && report.inserted == 6)
            let places = try everything(index)
            #expect(places.allSatisfy { $0.kind == "city" && $0.level == nil && $0.id.hasPrefix("gn") })
            #expect(places.filter { $0.name == "Twin Town" }.map(\.id).contains { $0.hasSuffix("-2") })
            #expect(places.contains { $0.name == "Comma, Town" })
            let again = try index.importPlaces(fromFile: path, options: .init(format: .geoNames))
            #expect(again.unchanged == 6 && again.updated == 0 && again.inserted == 0)
            #expect(try everything(index) == places)
        }
    }

    @Test("Re-import updates by id: moved, renamed and new places; old positions gone")
    func upsert() throws {
        var random = SplitMix64(seed: 5)
        func place(_ number: Int, _ generation: Int) -> Place {
            Place(
                id: "id\(number)", name: "gen \(generation) #\(number)",
                coordinate: gridCoordinate(
                    latitude: 35.6 + Double.random(in: 0...0.2, using: &random),
                    longitude: 139.6 + Double.random(in: 0...0.2, using: &random)),
                kind: generation == 1 ? "old" : "new", level: generation)
        }
        let first = (0..<2_000).map { place($0, 1) }
        let second = (1_000..<3_000).map { place($0, 2) }
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            try index.importPlaces(first)
            let report = try index.importPlaces(second)
            #expect(report.inserted == 1_000 && report.updated == 1_000 && report.unchanged == 0 && report.placeCount == 3_000)
            let merged = (Array(first[..<1_000]) + second).sorted { $0.id < $1.id }
            #expect(try everything(index) == merged)
            let center = try Coordinate(latitude: 35.7, longitude: 139.7)
            #expect(try index.places(near: center, within: 3_000) == bruteForce(merged, center: center, radius: 3_000))
            #expect(try index.statistics().placeCount == 3_000)
            #expect(try index.statistics().nameBytes == merged.reduce(0) { $0 + $1.name.utf8.count })
        }
    }

    @Test("Re-import counts a place given exactly as stored as unchanged, any other byte as updated (a decomposed é too)")
    func unchangedByBytes() throws {
        let spot = try Coordinate(latitude: 35.68, longitude: 139.76)
        let cafe = Place(id: "cafe", name: "Caf\u{E9}", coordinate: spot, kind: "shop", level: 1)
        let other = Place(id: "other", name: "Other", coordinate: spot, kind: "shop", level: nil)
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            #expect(try index.importPlaces([cafe, other]).inserted == 2)
            let same = try index.importPlaces([cafe, other])
            #expect(same.inserted == 0 && same.updated == 0 && same.unchanged == 2, "\(same)")
            var decomposed = cafe
            decomposed.name = "Cafe\u{301}"  // == cafe.name to Swift, other bytes
            #expect(decomposed.name == cafe.name)
            var moved = other
            moved.level = 0
            let changed = try index.importPlaces([decomposed, moved])
            #expect(changed.inserted == 0 && changed.updated == 2 && changed.unchanged == 0, "\(changed)")
        }
    }

    @Test("A bad row in strict mode names file, line and column, and leaves the previous data intact")
    func strictBadRowKeepsPreviousData() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let before = NearbyIndexQueryTests.places(seed: 9)
            try index.importPlaces(before)
            var lines = ["id,name,lat,lon"]
            for number in 0..<5_000 { lines.append("new\(number),New \(number),\(Double(number % 90)),\(Double(number % 180))") }
            lines[4_001] = "new4000,Broken,35.x,139.7"
            let path = directory.file("bad.csv")
            try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let error = try #require(throws: IndexError.self) {
                try index.importPlaces(fromFile: path, options: .init(progressInterval: 1_000))
            }
            #expect(error.code == .malformedRow)
            #expect(error.path == path && error.line == 4_002 && error.column == "lat")
            #expect(error.description.contains("bad.csv:4002: column \"lat\""))
            #expect(try everything(index) == before.sorted { $0.id < $1.id })
        }
    }

    @Test("Progress ends with the whole count of each phase, whatever the interval: the rows read, then every tile written")
    func progressEndsWhole() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let places = NearbyIndexQueryTests.places(seed: 9)
            for interval in [7, 100_000] {
                let reports = Locked<[ImportProgress]>([])
                try index.importPlaces(places, options: .init(progressInterval: interval)) { step in reports.withLock { $0.append(step) } }
                let steps = reports.withLock { $0 }
                let reading = steps.filter { $0.phase == .reading }, writing = steps.filter { $0.phase == .writing }
                #expect(reading.last?.rowsRead == places.count, "interval \(interval)")
                #expect(writing.last.map { $0.tilesWritten == $0.tilesTotal && $0.tilesTotal > 0 } == true, "interval \(interval)")
                #expect(steps.firstIndex { $0.phase == .writing }! > steps.lastIndex { $0.phase == .reading }!)
                // No count is told twice.
                #expect(Set(reading.map(\.rowsRead)).count == reading.count && Set(writing.map(\.tilesWritten)).count == writing.count)
                // Writing is told at least every tenth of the tiles, whatever the interval (the
                // command's 100,000 rows left a large import's writing silent).
                let total = try #require(writing.last?.tilesTotal)
                #expect(writing.count >= min(10, total), "interval \(interval): \(writing.count) reports of \(total) tiles")
            }
        }
    }

    @Test("A failure injected in the middle of writing rolls the whole import back")
    func failureWhileWritingRollsBack() throws {
        struct InjectedFailure: Error {}
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let before = NearbyIndexQueryTests.places(seed: 9)
            try index.importPlaces(before)
            let snapshot = try everything(index)
            let replacement = NearbyIndexQueryTests.places(seed: 10).map {
                Place(id: $0.id, name: "replaced", coordinate: $0.coordinate, kind: "x", level: 1)
            }
            var tilesSeen = 0
            #expect(throws: InjectedFailure.self) {
                try index.importPlaces(replacement, options: .init(progressInterval: 50)) { progress in
                    if progress.phase == .writing {
                        tilesSeen = progress.tilesWritten
                        if progress.tilesWritten >= 200 { throw InjectedFailure() }
                    }
                }
            }
            #expect(tilesSeen >= 200)
            #expect(try everything(index) == snapshot)
            #expect(try index.statistics().placeCount == snapshot.count)
            // The index still takes writes afterwards.
            #expect(try index.importPlaces(replacement).updated > 0)
        }
    }

    @Test("Lenient mode skips bad rows, counts them and names each")
    func lenient() throws {
        let csv = """
            id,name,lat,lon,level
            ok1,Fine,10,20,
            bad1,NaN lat,nan,20,
            bad2,Out of range,91,20,
            bad3,Bad lon,10,east,
            bad4,Too few,10
            bad5,Bad level,10,20,high
            ,Empty id,10,20,
            ok1,Duplicate wins,11,21,
            ok2,Fine too,-10,-20,4
            """
        try withTemporaryDirectory { directory in
            let path = directory.file("mixed.csv")
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let strict = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path) }
            #expect(strict.code == .malformedRow && strict.line == 3 && strict.column == "lat")
            #expect(try everything(index).isEmpty)
            let report = try index.importPlaces(fromFile: path, options: .init(isLenient: true))
            #expect(report.rowsRead == 9)
            #expect(report.skipped == 7)
            #expect(report.inserted == 2)
            #expect(report.issues.map(\.line) == [3, 4, 5, 6, 7, 8, 9])
            #expect(report.issues.map(\.column) == ["lat", "lat", "lon", nil, "level", "id", "id"])
            #expect(report.issues.map(\.code) == [.malformedRow, .malformedRow, .malformedRow, .malformedRow, .malformedRow, .malformedRow, .duplicateID])
            #expect(try everything(index).map(\.name) == ["Duplicate wins", "Fine too"])
        }
    }

    @Test("Coordinates are decimals only: nan, inf and hexadecimal floats are not numbers, with row and column named",
          arguments: [("nan", "lat"), ("-inf", "lat"), ("0x1p3", "lat"), ("infinity", "lon"), ("1_0", "lon"), ("", "lon")])
    func decimalsOnly(value: String, column: String) throws {
        let row = column == "lat" ? "p1,One,\(value),20" : "p1,One,10,\(value)"
        let csv = "id,name,lat,lon\nok,Fine,10,20\n\(row)\n"
        try withTemporaryDirectory { directory in
            let path = directory.file("bad.csv")
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path) }
            #expect(error.code == .malformedRow && error.line == 3 && error.column == column, "\(error)")
            #expect(error.description.contains("\"\(value)\" is not a number"), "\(error)")
            #expect(try everything(index).isEmpty, "nothing half-written")
        }
    }

    @Test("A CSV row with invalid UTF-8 is skipped in lenient mode, not imported with replacement characters")
    func invalidUTF8() throws {
        var bytes = Array("id,name,lat,lon\nok,Fine,10,20\nbad,Caf".utf8)
        bytes += [0xC3, 0x28]  // a broken two-byte sequence
        bytes += Array(",11,21\n".utf8)
        try withTemporaryDirectory { directory in
            let path = directory.file("utf8.csv")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let strict = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path) }
            #expect(strict.code == .malformedRow && strict.line == 3 && strict.column == "name")
            let report = try index.importPlaces(fromFile: path, options: .init(isLenient: true))
            #expect(report.inserted == 1 && report.skipped == 1)
            #expect(try everything(index).map(\.id) == ["ok"])
        }
    }

    @Test("Ids are compared byte for byte, as SQLite and PostgreSQL compare text: café in NFC and in NFD are two places, in one file or two")
    func idsByBytes() throws {
        let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
        #expect(nfc == nfd, "Swift calls them equal: the case the import must not follow")
        try withTemporaryDirectory { directory in
            let first = directory.file("nfc.csv"), second = directory.file("nfd.csv"), both = directory.file("both.csv")
            try "id,name,lat,lon\n\(nfc),A,10,20\n".write(toFile: first, atomically: true, encoding: .utf8)
            try "id,name,lat,lon\n\(nfd),B,10,20\n".write(toFile: second, atomically: true, encoding: .utf8)
            try "id,name,lat,lon\n\(nfc),A,10,20\n\(nfd),B,10,20\n".write(toFile: both, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            _ = try index.importPlaces(fromFile: first)
            let report = try index.importPlaces(fromFile: second)
            #expect(report.inserted == 1 && report.updated == 0, "\(report)")
            #expect(Set(try everything(index).map { Array($0.id.utf8) }) == [Array(nfc.utf8), Array(nfd.utf8)])
            let fresh = try NearbyIndex(path: directory.file("j.sqlite"))
            #expect(try fresh.importPlaces(fromFile: both).inserted == 2)
        }
    }

    @Test("A file of more distinct kinds than an index stores is refused at the row of the first too many, naming line and column")
    func tooManyKinds() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("kinds.csv")
            let rows = (0...ParsedPlaceFile.maximumKinds).map { "p\($0),P,10,20,k\($0)" }
            try (["id,name,lat,lon,kind"] + rows).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path, options: .init(isLenient: true)) }
            #expect(error.code == .invalidArgument && error.line == ParsedPlaceFile.maximumKinds + 2 && error.column == "kind", "\(error)")
            #expect(error.parameter == "kind")  // as the index's own limit says it: the command's hint is about kinds
            #expect(error.message.contains("would be the file's 65536th distinct kind; an index stores up to 65535"), "\(error)")
            #expect(try everything(index).isEmpty)
        }
    }

    @Test("A CSV header that names one field twice under two names (lat and latitude) is refused: which one is meant is a guess")
    func aliasTwice() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            for header in ["id,name,lat,latitude,lon", "id,name,latitude,lat,lon", "id,name,lat,lon,lng"] {
                let path = directory.file("a.csv")
                try "\(header)\na,A,1,50,2\n".write(toFile: path, atomically: true, encoding: .utf8)
                let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path) }
                #expect(error.code == .badHeader && error.message.contains("names one field twice"), "\(header): \(error)")
            }
        }
    }

    @Test("Lenient, a file whose every row is bad is wrongFormat naming the first, and the index keeps what it held")
    func everyRowBad() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("bad.csv")
            try "id,name,lat,lon\na,Far,999,1\nb,Text,north,2\n".write(toFile: path, atomically: true, encoding: .utf8)
            let good = directory.file("good.csv")
            try "id,name,lat,lon\nkept,Kept,10,20\n".write(toFile: good, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            _ = try index.importPlaces(fromFile: good)
            let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path, options: .init(isLenient: true)) }
            #expect(error.code == .wrongFormat && error.path == path, "\(error)")
            #expect(error.message.hasPrefix("every one of its 2 rows was skipped as bad, so nothing was imported; the first: \(path):2: column \"lat\""), "\(error)")
            #expect(try everything(index).map(\.id) == ["kept"])
        }
    }

    @Test("A NUL character (U+0000) in an id, name or kind is a row error naming its column, as PostgreSQL cannot store it")
    func nulCharacter() throws {
        try withTemporaryDirectory { directory in
            let csv = directory.file("nul.csv")
            try "id,name,lat,lon,kind\nok,Fine,10,20,\nbad,Caf\u{0}e,11,21,shop\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let json = directory.file("nul.geojson")
            try #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[20,10]},"#
                .appending(#""properties":{"id":"k","name":"K","kind":"a\u0000b"}}]}"#)
                .write(toFile: json, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let strict = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: csv) }
            #expect(strict.code == .malformedRow && strict.line == 3 && strict.column == "name", "\(strict)")
            #expect(strict.message.contains("NUL"), "\(strict)")
            // The command's hint offers --lenient where it helps; the message, which a lenient
            // import's report repeats for the row it skipped, does not.
            #expect(!strict.message.contains("--lenient"), "\(strict)")
            let fromJSON = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: json) }
            #expect(fromJSON.column == "features[0].properties.kind", "\(fromJSON)")
            #expect(try everything(index).isEmpty, "nothing half-written")
            let report = try index.importPlaces(fromFile: csv, options: .init(isLenient: true))
            #expect(report.inserted == 1 && report.skipped == 1)
            #expect(try everything(index).map(\.id) == ["ok"])
        }
    }

    @Test("A place whose id and name exceed what one tile row holds is a row error, not a crash")
    func oversizedText() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let spot = try Coordinate(latitude: 10, longitude: 20)
            let long = Place(id: "long", name: String(repeating: "n", count: 70_000), coordinate: spot)
            let fine = Place(id: "fine", name: "Fine", coordinate: spot)
            let error = try #require(throws: IndexError.self) { try index.importPlaces([fine, long]) }
            #expect(error.code == .malformedRow && error.column == "name" && error.message.contains("70004")
                && error.message.contains("place 1"), "\(error)")
            #expect(try everything(index).isEmpty)
            let report = try index.importPlaces([fine, long], options: .init(isLenient: true))
            #expect(report.inserted == 1 && report.skipped == 1)

            // The longer of the two is named, in a file by its column; the line is the error's
            // location, not said again in its message.
            let csv = directory.file("long-id.csv")
            try "id,name,lat,lon\n\(String(repeating: "i", count: 70_000)),Cafe,10,20\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let fromFile = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: csv) }
            #expect(fromFile.line == 2 && fromFile.column == "id", "\(fromFile)")
            #expect(
                fromFile.message == "id and name together take 70004 bytes of UTF-8 (the id 70000); a place may take up to \(PlaceRecord.maximumTextBytes)",
                "\(fromFile)")
            let longID = Place(id: String(repeating: "i", count: 70_000), name: "Cafe", coordinate: spot)
            let inCode = try #require(throws: IndexError.self) { try index.importPlaces([longID]) }
            #expect(inCode.column == "id" && inCode.message.hasPrefix("place 0: id and name together"), "\(inCode)")
        }
    }

    @Test("Numbers with more digits than Int64 holds parse like Double(String), or fail naming row and column")
    func longNumbers() throws {
        let csv = """
            id,name,lat,lon
            long,Many digits,35.68123456789012345678,139.7600000000000000000001
            huge,Far too big,35,1397600000000000000000
            """
        try withTemporaryDirectory { directory in
            let path = directory.file("long.csv")
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let strict = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: path) }
            #expect(strict.code == .malformedRow && strict.line == 3 && strict.column == "lon")
            let report = try index.importPlaces(fromFile: path, options: .init(isLenient: true))
            #expect(report.inserted == 1 && report.skipped == 1)
            let stored = try #require(try everything(index).first)
            let latitude = try #require(Double("35.68123456789012345678"))
            #expect(abs(stored.coordinate.latitude - latitude) < 1e-7)  // stored to 1e-7°
            #expect(abs(stored.coordinate.longitude - 139.76) < 1e-7)
        }
    }

    @Test("A file whose kind would be the index's 65,536th is refused naming the file, the line and the kind; nothing is imported")
    func kindLimit() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("i.sqlite")
            let index = try NearbyIndex(path: path)
            try index.importPlaces([Place(id: "p", name: "Park", coordinate: try Coordinate(latitude: 1, longitude: 1), kind: "park")])
            // The codes 2...65535 taken, as many earlier imports would have (in SQL: 65,534 imports are slow).
            let connection = try SQLiteConnection(path: path, readOnly: false, create: false)
            try connection.execute(
                "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 65535) INSERT INTO placeKind(code, name) SELECT i, 'k' || i FROM n")
            let file = directory.file("more.csv")
            try "id,name,lat,lon,kind\na,A,1,1,park\nb,B,1,1,k7\nc,C,1,1,brand-new\n".write(toFile: file, atomically: true, encoding: .utf8)
            let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: file) }
            #expect(error.code == .invalidArgument && error.parameter == "kind" && error.path == file)
            #expect(error.message.hasPrefix("line 4: kind 'brand-new' would be the index's 65,536th distinct kind"), "\(error.message)")
            #expect(try index.statistics().placeCount == 1)
            // Known kinds still import.
            try "id,name,lat,lon,kind\na,A,1,1,park\nb,B,1,1,k7\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try index.importPlaces(fromFile: file).inserted == 2)
        }
    }

    @Test("Input problems: missing column, unterminated quote, empty file, unknown format, missing file")
    func inputProblems() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            func write(_ name: String, _ text: String) throws -> String {
                let path = directory.file(name)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            let noLon = try write("nolon.csv", "id,name,lat\n1,a,2\n")
            let missing = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: noLon) }
            #expect(missing.code == .badHeader && missing.column == "lon" && missing.line == 1)
            // A column named twice is refused (in any case or spacing), whichever format: not a guess at which holds the value.
            let repeatedColumns: [(String, String, ImportFormat)] = [
                ("twice.csv", "id,name,lat,lon, Name\n1,a,2,3,b\n", ImportFormat.csv),
                ("twice-geonames.csv", "lat,lon,name,admin1,admin2,cc,lat\n1,2,a,,,JP,3\n", .geoNames),
            ]
            for (name, text, format) in repeatedColumns {
                let twice = try write(name, text)
                let repeated = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: twice, options: ImportOptions(format: format)) }
                #expect(repeated.code == .badHeader && repeated.line == 1 && repeated.message.contains("twice"), "\(repeated)")
            }
            #expect(try index.statistics().placeCount == 0)

            let open = try write("open.csv", "id,name,lat,lon\n1,\"unterminated,2,3\n")
            let quote = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: open) }
            #expect(quote.code == .malformedRow && quote.line == 2)

            // Read but not the format (its hint says fix the file), apart from unreadable (check the path).
            let empty = try write("empty.csv", "")
            #expect(try #require(throws: IndexError.self) { try index.importPlaces(fromFile: empty) }.code == .wrongFormat)

            let unknown = try write("places.txt", "id,name,lat,lon\n")
            let format = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: unknown) }
            #expect(format.parameter == "format")

            let absent = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: directory.file("nope.csv")) }
            #expect(absent.code == .unreadableInput)

            let notCollection = try write("p.geojson", #"{"type":"Feature"}"#)
            #expect(try #require(throws: IndexError.self) { try index.importPlaces(fromFile: notCollection) }.code == .wrongFormat)
            let badPoint = try write("q.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[200,10]},"properties":{}}]}"#)
            let point = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: badPoint) }
            #expect(point.code == .malformedRow && point.column == "features[0].geometry.coordinates[0]")
        }
    }

    @Test("One range of levels in every way in: CSV, GeoJSON and code take ±2147483647 and refuse -2147483648 (no level), saying the range")
    func levelRange() throws {
        try withTemporaryDirectory { directory in
            let csv = directory.file("levels.csv")
            try "id,name,lat,lon,level\nlow,Low,1,1,-2147483647\nhigh,High,1,1,2147483647\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let geojson = directory.file("levels.geojson")
            try """
                {"type":"FeatureCollection","features":[
                  {"type":"Feature","id":"low","geometry":{"type":"Point","coordinates":[1,1]},"properties":{"name":"Low","kind":"","level":-2147483647}},
                  {"type":"Feature","id":"high","geometry":{"type":"Point","coordinates":[1,1]},"properties":{"name":"High","kind":"","level":2147483647}}
                ]}
                """.write(toFile: geojson, atomically: true, encoding: .utf8)
            let coordinate = try Coordinate(latitude: 1, longitude: 1)
            for (number, source) in [csv, geojson].enumerated() {
                let index = try NearbyIndex(path: directory.file("in-range-\(number).sqlite"))
                #expect(try index.importPlaces(fromFile: source).inserted == 2, "\(source)")
                #expect(try everything(index).map(\.level) == [2_147_483_647, -2_147_483_647], "\(source)")
            }
            let inCode = try NearbyIndex(path: directory.file("in-range-code.sqlite"))
            let extremes = [Place(id: "low", name: "Low", coordinate: coordinate, level: -2_147_483_647),
                            Place(id: "high", name: "High", coordinate: coordinate, level: 2_147_483_647)]
            #expect(try inCode.importPlaces(extremes).inserted == 2)

            // Int32.min is the stored "no level": refused with the range, not "not in 32-bit range".
            let range = "a whole number from -2147483647 to 2147483647"
            try "id,name,lat,lon,level\nmin,Min,1,1,-2147483648\n".write(toFile: csv, atomically: true, encoding: .utf8)
            try """
                {"type":"FeatureCollection","features":[
                  {"type":"Feature","id":"min","geometry":{"type":"Point","coordinates":[1,1]},"properties":{"name":"Min","kind":"","level":-2147483648}}
                ]}
                """.write(toFile: geojson, atomically: true, encoding: .utf8)
            let index = try NearbyIndex(path: directory.file("out.sqlite"))
            let fromCSV = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: csv) }
            #expect(fromCSV.code == .malformedRow && fromCSV.line == 2 && fromCSV.column == "level")
            #expect(fromCSV.message == "\"-2147483648\" is not a level (\(range))")
            let fromGeoJSON = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: geojson) }
            #expect(fromGeoJSON.code == .malformedRow && fromGeoJSON.column == "features[0].properties.level")
            #expect(fromGeoJSON.message == "expected a level (\(range))")
            let fromCode = try #require(throws: IndexError.self) {
                try index.importPlaces([Place(id: "min", name: "Min", coordinate: coordinate, level: -2_147_483_648)])
            }
            #expect(fromCode.message == "place min has level -2147483648, not a level (\(range))")
        }
    }

    @Test("Imports made in code reject repeated ids unless lenient")
    func duplicateIDs() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let place = Place(id: "x", name: "a", coordinate: try Coordinate(latitude: 1, longitude: 1))
            let error = try #require(throws: IndexError.self) { try index.importPlaces([place, place]) }
            #expect(error.code == .duplicateID)
            #expect(try index.importPlaces([place, place], options: .init(isLenient: true)).inserted == 1)
        }
    }

    @Test("A UUID id in another case is the same place: a repeat within a file, an update across imports")
    func uuidIDsWhateverTheirCase() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let upper = "9F1C2A4E-0B7D-4C3A-8E21-5D6F7A8B9C0D"
            let lower = upper.lowercased()
            #expect(Place.identity(ofID: upper) == lower && Place.identity(ofID: lower) == lower)
            // Only a UUID: other ids keep their case, and a near-UUID is not one.
            #expect(Place.identity(ofID: "Shrine-0042") == "Shrine-0042")
            #expect(Place.identity(ofID: "9F1C2A4E-0B7D-4C3A-8E21-5D6F7A8B9C0G") == "9F1C2A4E-0B7D-4C3A-8E21-5D6F7A8B9C0G")

            let file = directory.file("twice.csv")
            try "id,name,lat,lng\n\(upper),Gate,35.0,139.0\n\(lower),Gate again,35.0,139.0\n".write(toFile: file, atomically: true, encoding: .utf8)
            let error = try #require(throws: IndexError.self) { try index.importPlaces(fromFile: file) }
            #expect(error.code == .duplicateID && error.line == 3 && error.column == "id")
            #expect(error.message.contains("id \"\(lower)\" is the UUID \"\(upper)\" of line 2"), "\(error.message)")

            let coordinate = try Coordinate(latitude: 35, longitude: 139)
            #expect(try index.importPlaces([Place(id: upper, name: "Gate", coordinate: coordinate)]).inserted == 1)
            let again = try index.importPlaces([Place(id: lower, name: "Gate, renamed", coordinate: coordinate)])
            #expect(again.inserted == 0 && again.updated == 1 && again.placeCount == 1)
            #expect(try everything(index).map(\.id) == [lower])
        }
    }

    @Test("A cancelled task's import writes nothing")
    func cancellation() async throws {
        try await withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("i.sqlite"))
            let places = NearbyIndexQueryTests.places(seed: 1)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try index.importPlaces(places, options: .init(progressInterval: 100))
            }
            await #expect(throws: IndexError.self) { _ = try await task.value }
            #expect(try everything(index).isEmpty)
        }
    }

    @Test("The GeoNames cities file (144,563 places) imports whole and answers like brute force",
        .enabled(if: SharedData.hasGeoNamesCities, "needs ../shared/data/places/geonames-cities1000.csv"))
    func geoNamesSharedData() throws {
        try withTemporaryDirectory { directory in
            let index = try NearbyIndex(path: directory.file("gn.sqlite"))
            let report = try index.importPlaces(fromFile: SharedData.geoNamesCities, options: .init(format: .geoNames))
            #expect(report.rowsRead == 144_563)
            #expect(report.placeCount == 144_563)
            #expect(report.skipped == 0)
            let all = try everything(index)
            #expect(all.count == 144_563)
            #expect(Set(all.map(\.id)).count == all.count)
            // Sparse real places share coarse rows: far fewer rows than places, and the issue's
            // size budget of 40 bytes per place beyond names holds.
            let statistics = try index.statistics()
            #expect(statistics.tileRowCount * 5 < all.count)
            #expect(statistics.rowsPerLevel[1...].reduce(0, +) > statistics.rowsPerLevel[0])
            #expect(try #require(statistics.bytesPerPlaceBeyondNames) <= 40)
            var random = SplitMix64(seed: 77)
            let reference = BruteForce(all)
            for _ in 0..<60 {
                let place = all[Int.random(in: 0..<all.count, using: &random)].coordinate
                let anchor = place.destination(distance: Double.random(in: 0...200, using: &random), bearing: Double.random(in: 0..<360, using: &random))
                let radius = [100.0, 1_000, 5_000, 50_000, 500_000, 2_000_000][Int.random(in: 0..<6, using: &random)]
                #expect(try index.places(near: anchor, within: radius) == reference.answer(center: anchor, radius: radius))
            }
            // Importing the file's rows again changes nothing: every 29th row (a spread across
            // the world) rather than all 144,563, which would double the test's cost to show it.
            let lines = try String(contentsOfFile: SharedData.geoNamesCities, encoding: .utf8).split(whereSeparator: \.isNewline)
            let sample = [lines[0]] + stride(from: 1, to: lines.count, by: 29).map { lines[$0] }
            let slice = directory.file("slice.csv")
            try (sample.joined(separator: "\n") + "\n").write(toFile: slice, atomically: false, encoding: .utf8)
            let again = try index.importPlaces(fromFile: slice, options: .init(format: .geoNames))
            #expect(again.rowsRead == sample.count - 1)
            #expect(again.unchanged == sample.count - 1 && again.updated == 0 && again.inserted == 0)
            #expect(again.placeCount == 144_563)
        }
    }
}
