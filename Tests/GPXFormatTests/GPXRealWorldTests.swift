import Foundation
@testable import GPXFormat
import LocationCore
import Testing
import LocSimTestHelpers

/// Expected values made by `scripts/reference/make_gpx_realworld_reference.py` (gpxpy for the
/// points, xml.etree/expat for decoding and positions), beside the files it made, in
/// Fixtures/realworld.
struct RealWorldReference: Decodable, CustomTestStringConvertible {
    struct Point: Decodable {
        var lat: Double
        var lon: Double
        var ele: Double?
        var time: Double?
        var name: String?
        var speed: Double?
        var course: Double?
        var hdop: Double?
        var vdop: Double?
        var pdop: Double?
        var sat: Int?
        var fix: String?
    }
    struct Problem: Decodable {
        var line: Int
        var column: Int
        var code: String
    }
    struct Position: Decodable {
        var line: Int
        var column: Int
    }
    struct Reversal: Decodable {
        var kind: String
        var line: Int
        var column: Int
        var time: Double
        var latest: Double
    }

    var file: String
    var strict: Bool
    var track_names: [String?]
    var route_names: [String?]
    var segments: [[Point]]
    var route_points: [[Point]]
    var waypoints: [Point]
    var problems: [Problem]?
    var skipped_points: Int?
    var dropped_values: Int?
    var encoding: String?
    var etree_names: [String]?
    var error_at: Position?
    var reversals: [Reversal]?
    var track_reversals: Int?
    var duration_s: Double?
    var truncation: Position?

    var testDescription: String { file }

    static let directory = Bundle.module.resourcePath! + "/Fixtures/realworld"

    static func load(_ name: String) throws -> RealWorldReference {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name + ".json"))
        return try JSONDecoder().decode(RealWorldReference.self, from: data)
    }

    var path: String { Self.directory + "/" + file }
    var options: GPXReader.Options { strict ? .strict : .lenient }

    static let encodings = [
        "latin1-declared", "windows1252-declared", "windows1252-undeclared", "latin1-undeclared-early", "utf16le-bom",
        "utf16be-bom", "utf16le-no-bom", "utf8-bom", "utf8-undeclared",
    ]
    static let all = ["empty-elements", "bad-values", "backwards-times", "truncated"] + encodings
}

@Suite("GPX reader: files people really have", .ownThread)
struct GPXRealWorldTests {
    /// Reads every event; `chunkSize` nil reads the file the public way.
    func read(_ reference: RealWorldReference, chunkSize: Int? = nil) throws -> (GPXDocument, GPXReader) {
        let reader =
            if let chunkSize {
                try GPXReader(contentsOfFile: reference.path, options: reference.options, chunkSize: chunkSize)
            } else {
                try GPXReader(contentsOfFile: reference.path, options: reference.options)
            }
        return (try GPXDocument(reader: reader), reader)
    }

    func expectSame(
        _ point: GPXPoint, _ expected: RealWorldReference.Point, kind: GPXPointKind, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(point.coordinate.latitude == expected.lat, "\(context)", sourceLocation: sourceLocation)
        #expect(point.coordinate.longitude == expected.lon, "\(context)", sourceLocation: sourceLocation)
        #expect(point.elevation == expected.ele, "\(context)", sourceLocation: sourceLocation)
        if let time = expected.time {
            #expect(abs((point.time?.timeIntervalSince1970 ?? .nan) - time) < 1e-6, "\(context)", sourceLocation: sourceLocation)
        } else {
            #expect(point.time == nil, "\(context)", sourceLocation: sourceLocation)
        }
        #expect(point.name == expected.name, "\(context)", sourceLocation: sourceLocation)
        #expect(point.horizontalDilution == expected.hdop, "\(context)", sourceLocation: sourceLocation)
        #expect(point.verticalDilution == expected.vdop, "\(context)", sourceLocation: sourceLocation)
        #expect(point.positionDilution == expected.pdop, "\(context)", sourceLocation: sourceLocation)
        #expect(point.satellites == expected.sat, "\(context)", sourceLocation: sourceLocation)
        #expect(point.fix?.rawValue == expected.fix, "\(context)", sourceLocation: sourceLocation)
        // gpxpy reads GPX 1.0's <speed> and <course> on track points only.
        if kind == .trackPoint {
            #expect(point.speed == expected.speed, "\(context)", sourceLocation: sourceLocation)
            #expect(point.course == expected.course, "\(context)", sourceLocation: sourceLocation)
        }
    }

    func expectMatches(_ document: GPXDocument, _ reference: RealWorldReference, _ label: String) {
        #expect(document.tracks.map(\.name) == reference.track_names, "\(label)")
        #expect(document.routes.map(\.name) == reference.route_names, "\(label)")
        let segments = document.tracks.flatMap(\.segments)
        #expect(segments.map(\.count) == reference.segments.map(\.count), "\(label)")
        for (s, (points, expected)) in zip(segments, reference.segments).enumerated() {
            for (i, (point, record)) in zip(points, expected).enumerated() {
                expectSame(point, record, kind: .trackPoint, "\(label) track segment \(s) point \(i)")
            }
        }
        #expect(document.routes.map(\.points.count) == reference.route_points.map(\.count), "\(label)")
        for (r, (route, expected)) in zip(document.routes, reference.route_points).enumerated() {
            for (i, (point, record)) in zip(route.points, expected).enumerated() {
                expectSame(point, record, kind: .routePoint, "\(label) route \(r) point \(i)")
            }
        }
        #expect(document.waypoints.count == reference.waypoints.count, "\(label)")
        for (i, (point, record)) in zip(document.waypoints, reference.waypoints).enumerated() {
            expectSame(point, record, kind: .waypoint, "\(label) waypoint \(i)")
        }
    }

    @Test("Each case reads as gpxpy reads it, whole and in tiny chunks", arguments: RealWorldReference.all)
    func matchesReference(name: String) throws {
        let reference = try RealWorldReference.load(name)
        let (document, _) = try read(reference)
        expectMatches(document, reference, name)
        for chunkSize in [1, 2, 3, 7, 64] {
            let (chunked, _) = try read(reference, chunkSize: chunkSize)
            #expect(chunked == document, "\(name) at chunk size \(chunkSize)")
        }
        // In memory too (the bytes, declaration and all).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: reference.path))
        #expect(try GPXDocument(reader: GPXReader(bytes: bytes, options: reference.options)) == document)
    }

    @Test("Empty optional elements are absent values, in strict mode too")
    func emptyElementsAreAbsent() throws {
        let reference = try RealWorldReference.load("empty-elements")
        #expect(reference.strict)
        let (document, reader) = try read(reference)
        #expect(reader.problems.isEmpty && reader.droppedValues == 0 && reader.skippedPoints == 0)
        // Every form of every element is there: 9 elements × 4 forms on each kind of point.
        #expect(document.waypoints.count == 38 && document.routes[0].points.count == 36)
        #expect(document.tracks[0].segments[0].count == 36)
        // A direct <speed/> leaves the extension's speed in charge; an empty extension value is absent.
        let gpx = """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="1" lon="2"><extensions><x:TrackPointExtension xmlns:x="x"><x:speed>2.5</x:speed><x:course/></x:TrackPointExtension></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let point = try #require(GPXDocument(string: gpx).tracks.first?.segments.first?.first)
        #expect(point.speed == 2.5 && point.course == nil)
    }

    @Test("Lenient mode drops a bad optional value alone and says where; the point is kept", arguments: [nil, 1, 7])
    func badValuesAreDroppedAlone(chunkSize: Int?) throws {
        let reference = try RealWorldReference.load("bad-values")
        let (_, reader) = try read(reference, chunkSize: chunkSize)
        let expected = try #require(reference.problems)
        #expect(reader.problems.map(\.code.description) == expected.map(\.code))
        #expect(reader.problems.map(\.line) == expected.map(\.line))
        #expect(reader.problems.map(\.column) == expected.map(\.column))
        #expect(reader.problems.allSatisfy { $0.file == reference.path })
        #expect(reader.droppedValues == reference.dropped_values)
        #expect(reader.skippedPoints == reference.skipped_points)
        let stats = try GPXStatistics(reader: GPXReader(contentsOfFile: reference.path, options: .lenient))
        #expect(stats.points == reference.segments.flatMap { $0 }.count)
        #expect(stats.droppedValues == reference.dropped_values && stats.skippedPoints == reference.skipped_points)
        // Strict mode stops at the first bad value, where it is.
        #expect {
            _ = try GPXDocument(contentsOfFile: reference.path)
        } throws: { error in
            let error = error as? GPXParseError
            return error?.line == expected[0].line && error?.column == expected[0].column
        }
    }

    @Test("A recording cut off mid-write: lenient mode reads the points before the cut and says where it is; strict mode stops there", arguments: [nil, 1, 5])
    func cutOffRecording(chunkSize: Int?) throws {
        let reference = try RealWorldReference.load("truncated")
        let at = try #require(reference.truncation)
        let (document, reader) = try read(reference, chunkSize: chunkSize)
        expectMatches(document, reference, "truncated")
        let cut = try #require(reader.truncation)
        #expect(cut.code == .truncated && cut.file == reference.path && cut.line == at.line && cut.column == at.column, "\(cut)")
        #expect(reader.skippedPoints == 0 && reader.problems.isEmpty, "a cut is not a bad point")
        #expect(try reader.next() == nil, "the reader stays at the end")
        let stats = try GPXStatistics(reader: GPXReader(contentsOfFile: reference.path, options: .lenient))
        #expect(stats.points == reference.segments.flatMap { $0 }.count && stats.segments == reference.segments.count)
        #expect {
            _ = try GPXDocument(contentsOfFile: reference.path)
        } throws: { error in
            let error = error as? GPXParseError
            return error?.code == .truncated && error?.line == at.line && error?.column == at.column && error?.endedAfterRootBegan == true
        }
        // Cut before <gpx> began: nothing to read, lenient or not, and the error says so.
        for text in ["", "<?xml version=\"1.0\"?>\n<!-- cut"] {
            #expect {
                _ = try GPXDocument(reader: GPXReader(string: text, options: .lenient))
            } throws: { error in
                let error = error as? GPXParseError
                return error?.code == .truncated && error?.endedAfterRootBegan == false
            }
        }
    }

    @Test("Cut anywhere after <gpx> began, a lenient read gives the points whose end tag came before the cut, in the same tracks and routes")
    func everyCut() throws {
        let whole = """
            <gpx version="1.1"><wpt lat="1" lon="1"><name>a</name></wpt>
            <rte><name>r</name><rtept lat="2" lon="2"/><rtept lat="2.1" lon="2"></rtept></rte>
            <trk><name>t</name><trkseg><trkpt lat="3" lon="3"><ele>1</ele></trkpt><trkpt lat="3.1" lon="3"/></trkseg>
            <trkseg><trkpt lat="4" lon="4"><time>2024-01-01T00:00:00Z</time></trkpt><!-- note --><trkpt lat="4.1" lon="4"/></trkseg></trk>
            </gpx>
            """
        let bytes = Array(whole.utf8)
        let full = try GPXDocument(string: whole)
        // Where each point ends (after its end tag, or after the `/>` of a self-closing one), by kind.
        let pattern = try NSRegularExpression(pattern: #"<(wpt|rtept|trkpt)\b(?:[^>]*/>|.*?</\1>)"#)
        var ends: [String: [Int]] = [:]
        for match in pattern.matches(in: whole, range: NSRange(whole.startIndex..., in: whole)) {
            let kind = String(whole[Range(match.range(at: 1), in: whole)!])
            ends[kind, default: []].append(whole.utf8.distance(from: whole.startIndex, to: Range(match.range, in: whole)!.upperBound))
        }
        #expect(ends["trkpt"]?.count == 4 && ends["rtept"]?.count == 2 && ends["wpt"]?.count == 1)
        let rootEnd: Int = try #require(bytes.firstIndex(of: UInt8(ascii: ">")))
        let allTrackPoints: [GPXPoint] = full.tracks.flatMap(\.segments).flatMap { $0 }
        let allRoutePoints: [GPXPoint] = full.routes.flatMap(\.points)
        for length in (rootEnd + 1)..<bytes.count {
            let prefix = String(decoding: bytes[..<length], as: UTF8.self)
            func ended(_ kind: String) -> Int { ends[kind, default: []].filter { $0 <= length }.count }
            func begun(_ tag: String) -> Int { prefix.components(separatedBy: tag).count - 1 }
            let reader = GPXReader(string: prefix, options: .lenient)
            let document = try GPXDocument(reader: reader)
            let segments: [[GPXPoint]] = document.tracks.flatMap(\.segments)
            let trackPoints: [GPXPoint] = segments.flatMap { $0 }
            let routePoints: [GPXPoint] = document.routes.flatMap(\.points)
            let expectedTrackPoints = Array(allTrackPoints.prefix(ended("trkpt")))
            let expectedRoutePoints = Array(allRoutePoints.prefix(ended("rtept")))
            let expectedWaypoints = Array(full.waypoints.prefix(ended("wpt")))
            #expect(trackPoints == expectedTrackPoints, "cut at \(length)")
            #expect(routePoints == expectedRoutePoints, "cut at \(length)")
            #expect(document.waypoints == expectedWaypoints, "cut at \(length)")
            let counts = [document.tracks.count, segments.count, document.routes.count]
            let begunCounts = [begun("<trk>"), begun("<trkseg>"), begun("<rte>")]
            #expect(counts == begunCounts, "cut at \(length)")
            #expect(reader.truncation?.code == .truncated, "cut at \(length)")
        }
        // Elements nested where GPX has none end as their end tags would end them, whatever the depth.
        let nested = #"<gpx><trk><trkseg><trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="2"><ele>"#
        let cut = try GPXDocument(reader: GPXReader(string: nested, options: .lenient))
        let closed = try GPXDocument(string: #"<gpx><trk><trkseg><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></trkseg></trk></gpx>"#)
        #expect(cut == closed)
    }

    @Test("Files in ISO-8859-1, windows-1252 and UTF-16 decode as xml.etree decodes them", arguments: RealWorldReference.encodings)
    func encodings(name: String) throws {
        let reference = try RealWorldReference.load(name)
        let (document, reader) = try read(reference)
        #expect(reader.encoding?.rawValue == reference.encoding)
        let names = [document.waypoints[0].name] + document.tracks.map(\.name) + document.tracks[0].segments[0].map(\.name)
        #expect(names == (reference.etree_names ?? []).map { Optional($0) })
    }

    @Test("Errors in transcoded files are at the line and character xml.etree reports", arguments: RealWorldReference.encodings)
    func errorPositions(name: String) throws {
        let reference = try RealWorldReference.load(name)
        let at = try #require(reference.error_at)
        let path = RealWorldReference.directory + "/" + name + "-broken.gpx"
        for chunkSize in [1, 3, 1 << 18] {
            #expect {
                _ = try GPXDocument(reader: GPXReader(contentsOfFile: path, options: .strict, chunkSize: chunkSize))
            } throws: { error in
                let error = error as? GPXParseError
                return error?.code == .malformedXML && error?.line == at.line && error?.column == at.column
                    && error?.file == path
            }
        }
    }

    @Test("Undeclared input switches to windows-1252 at its first byte that is not UTF-8, and says so")
    func sniffedEncoding() throws {
        let head = Array("<gpx version=\"1.1\">\n<wpt lat=\"1\" lon=\"2\"/>\n<!-- \(String(repeating: "ascii ", count: 400)) -->\n".utf8)
        let bytes = head + Array("<wpt lat=\"3\" lon=\"4\"><name>Caf".utf8) + [0xE9, 0x20, 0x80] + Array("</name></wpt></gpx>\n".utf8)
        let reader = GPXReader(bytes: bytes, readsDeclaration: true, options: .strict, chunkSize: 256)
        #expect(reader.encoding == nil, "nothing read yet")
        _ = try reader.next()
        // The first byte that is not UTF-8 is 2 KB in: still UTF-8 after the first point.
        #expect(reader.encoding == .utf8)
        guard case .point(let point, .waypoint) = try reader.next() else {
            Issue.record("expected the second waypoint")
            return
        }
        #expect(reader.encoding == .windows1252)
        #expect(point.name == "Caf\u{E9} \u{20AC}")
    }

    @Test("A byte order mark beats the declaration; a UTF-16 label on 8-bit bytes is read as undeclared")
    func markBeatsDeclaration() throws {
        let name = "Zo\u{EB} \u{6771}\u{4EAC} \u{1F3D4}"
        func gpx(_ encoding: String) -> String {
            "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<gpx version=\"1.1\"><wpt lat=\"1\" lon=\"2\"><name>\(name)</name></wpt></gpx>\n"
        }
        func utf16LE(_ text: String) -> [UInt8] { [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        let cases: [(label: String, bytes: [UInt8], encoding: GPXTextEncoding)] = [
            ("UTF-16LE mark, declared UTF-8", utf16LE(gpx("UTF-8")), .utf16LittleEndian),
            ("UTF-8 mark, declared ISO-8859-1", [0xEF, 0xBB, 0xBF] + Array(gpx("ISO-8859-1").utf8), .utf8),
            ("no mark, 8-bit bytes, declared UTF-16", Array(gpx("UTF-16").utf8), .utf8),
        ]
        for example in cases {
            let reader = GPXReader(bytes: example.bytes)
            let document = try GPXDocument(reader: reader)
            #expect(document.waypoints.first?.name == name, "\(example.label)")
            #expect(reader.encoding == example.encoding, "\(example.label)")
        }
    }

    @Test("A declared encoding the reader cannot decode is a typed error naming it, at its name")
    func unsupportedEncoding() throws {
        let cases: [(bytes: [UInt8], name: String, line: Int, column: Int)] = [
            (Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<gpx/>".utf8), "Shift_JIS", 1, 31),
            (Array("<?xml version=\"1.0\"\n   encoding='KOI8-R'?><gpx/>".utf8), "KOI8-R", 2, 14),
            ([0xFF, 0xFE, 0x00, 0x00] + Array("<\0\0\0".utf8), "UTF-32", 1, 1),
            ([0x00, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x3F], "UTF-32", 1, 1),
        ]
        for example in cases {
            #expect {
                _ = try GPXDocument(reader: GPXReader(bytes: example.bytes))
            } throws: { error in
                let error = error as? GPXParseError
                return error?.code == .unsupportedEncoding && error?.line == example.line && error?.column == example.column
                    && error?.message.contains("\"\(example.name)\"") == true
                    && error?.message.contains("iconv -f \(example.name) -t UTF-8") == true
            }
        }
    }

    @Test("Broken UTF-16 is malformed where it breaks; text handed over as a String ignores its declaration")
    func utf16ProblemsAndStrings() throws {
        // "<gpx>" then a lone low surrogate on line 2, column 3.
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in Array("<gpx>\n<a".utf16) + [0xDC00] + Array("/></gpx>".utf16) {
            bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        #expect {
            _ = try GPXDocument(reader: GPXReader(bytes: bytes))
        } throws: { error in
            let error = error as? GPXParseError
            return error?.code == .malformedXML && error?.line == 2 && error?.column == 3
        }
        // An odd number of bytes: the input ends inside a character.
        #expect {
            _ = try GPXDocument(reader: GPXReader(bytes: [0xFF, 0xFE] + Array("<\0g\0p\0x\0/\0>\0\n".utf8)))
        } throws: { error in (error as? GPXParseError)?.code == .truncated }

        let text = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx><wpt lat=\"1\" lon=\"2\"><name>Zoë</name></wpt></gpx>"
        #expect(try GPXDocument(string: text).waypoints.first?.name == "Zoë")
        let reader = GPXReader(string: text)
        _ = try reader.next()
        #expect(reader.encoding == .utf8)
    }

    @Test("Points whose time goes backwards are returned in file order and listed with where they are", arguments: [nil, 1, 7])
    func timeReversals(chunkSize: Int?) throws {
        let reference = try RealWorldReference.load("backwards-times")
        let (document, reader) = try read(reference, chunkSize: chunkSize)
        let expected = try #require(reference.reversals)
        #expect(document.tracks[0].segments.flatMap { $0 }.count == reference.segments.flatMap { $0 }.count, "none dropped")
        #expect(reader.timeReversalCount == expected.count)
        #expect(reader.timeReversals.map(\.kind.rawValue) == expected.map(\.kind))
        #expect(reader.timeReversals.map(\.line) == expected.map(\.line))
        #expect(reader.timeReversals.map(\.column) == expected.map(\.column))
        #expect(reader.timeReversals.map(\.time.timeIntervalSince1970) == expected.map(\.time))
        #expect(reader.timeReversals.map(\.latestTime.timeIntervalSince1970) == expected.map(\.latest))
        for reversal in reader.timeReversals {
            #expect(reversal.file == reference.path)
            #expect(reversal.description.hasPrefix("\(reference.path):\(reversal.line):\(reversal.column): warning: <\(reversal.kind.rawValue)> time "))
        }
        let stats = try GPXStatistics(reader: GPXReader(contentsOfFile: reference.path))
        #expect(stats.timeReversals == reference.track_reversals)
        #expect(stats.duration == reference.duration_s)
    }

    @Test("The docs/reference/gpx.md example: one lenient read gives the encoding, the problems and the reversals")
    func documentationExample() throws {
        for name in ["bad-values", "backwards-times", "latin1-declared"] {
            let reference = try RealWorldReference.load(name)
            // As in docs/reference/gpx.md.
            let reader = try GPXReader(contentsOfFile: reference.path, options: .lenient)
            let document = try GPXDocument(reader: reader)
            let encoding = try #require(reader.encoding)
            #expect(encoding.rawValue == (reference.encoding ?? "UTF-8"))
            for problem in reader.problems {
                #expect("\(problem)".hasPrefix("\(reference.path):\(problem.line):\(problem.column): error: "))
            }
            for reversal in reader.timeReversals {
                #expect("\(reversal)".contains(" s before "))
            }
            #expect(document.tracks.count == reference.track_names.count)
            #expect(reader.problems.count == (reference.problems?.count ?? 0))
            #expect(reader.timeReversalCount == (reference.reversals?.count ?? 0))
        }
    }
}
