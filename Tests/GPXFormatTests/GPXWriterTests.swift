import Foundation
import GPXFormat
import LocationCore
import LocSimTestHelpers
import Testing

@Suite(.ownThread) struct GPXWriterTests {
    let fixtures = Bundle.module.resourcePath! + "/Fixtures"

    @Test("A memory writer's string holds every point written so far, before finish()")
    func memoryStringBeforeFinish() throws {
        let writer = GPXWriter(layout: .track)
        try writer.write(GPXPoint(coordinate: Coordinate(latitude: 47.37, longitude: 8.54)))
        #expect(writer.string.contains("<trkpt lat=\"47.37\" lon=\"8.54\""))
    }

    @Test("A fix without a position is left out and ends the segment; the accuracies become <hdop> and <vdop> by the model given")
    func fixesWithLostFix() throws {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        func fix(_ i: Int) -> Fix {
            Fix(
                time: start.addingTimeInterval(Double(i)), coordinate: Coordinate(uncheckedLatitude: 47.37 + Double(i) * 1e-4, longitude: 8.54),
                horizontalAccuracy: 46.93, verticalAccuracy: i == 1 ? nil : 59.85, source: .gpsd)
        }
        let writer = GPXWriter(layout: .track)
        try writer.write(Fix.noFix(time: start, source: .gpsd))  // before any point: no empty segment
        try writer.write(fix(0), horizontalAccuracyPerHDOP: 19)
        try writer.write(fix(1), horizontalAccuracyPerHDOP: 19)
        try writer.write(Fix.noFix(time: start.addingTimeInterval(2), source: .gpsd))
        try writer.write(Fix.noFix(time: start.addingTimeInterval(3), source: .gpsd))
        try writer.write(fix(4))
        try writer.finish()
        let tracks = try GPXDocument(string: writer.string).tracks
        try #require(tracks.count == 1 && tracks[0].segments.count == 2)
        let segments = tracks[0].segments
        #expect(segments.map { $0.map(\.coordinate) } == [[fix(0), fix(1)], [fix(4)]].map { $0.map { $0.coordinate! } })
        // 46.93 / 19 = 2.4699999999999998 in binary; written as the 2.47 it stands for.
        #expect(segments[0].map(\.horizontalDilution) == [2.47, 2.47])
        // The vertical accuracy as <vdop> by the same model, where there is one.
        #expect(segments[0].map(\.verticalDilution) == [3.15, nil])
        #expect(segments[1][0].horizontalDilution == nil && segments[1][0].verticalDilution == nil, "no model given")
    }

    @Test("Writing a document and reading it back gives the same values",
          arguments: ["bom-gpx10", "garmin-extensions", "antimeridian", "untimed-route"])
    func documentRoundTrip(name: String) throws {
        var original = try GPXDocument(contentsOfFile: fixtures + "/" + name + ".gpx")
        let text = GPXWriter.string(original)
        let reread = try GPXDocument(string: text)
        original.creator = reread.creator
        #expect(reread == original)
    }

    @Test("Names and the creator keep their tabs, line breaks and markup characters through write and read")
    func textRoundTrip() throws {
        let awkward = "Tom's <café> & \"bar\"\tcolumn\r\nnext line\rold Mac\nlast"
        var point = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 47.37, longitude: 8.54))
        point.name = awkward
        let original = GPXDocument(
            creator: "locsim\ttest\nsecond line", tracks: [GPXTrack(name: awkward, segments: [[point]])],
            routes: [GPXRoute(name: awkward, points: [point])], waypoints: [point])
        let reread = try GPXDocument(string: GPXWriter.string(original))
        #expect(reread == original)
    }

    @Test("Random points with every field survive the streaming writer bit for bit")
    func randomRoundTrip() throws {
        var generator = SplitMix64(seed: 42)
        var points: [GPXPoint] = []
        for _ in 0..<2000 {
            let c = try Coordinate(
                latitude: Double.random(in: -90...90, using: &generator),
                longitude: Double.random(in: -180..<180, using: &generator))
            points.append(GPXPoint(
                coordinate: c,
                elevation: Bool.random(using: &generator) ? Double.random(in: -400...8800, using: &generator) : nil,
                time: Date(timeIntervalSince1970: (Double.random(in: 0...2e9, using: &generator) * 1e6).rounded() / 1e6),
                speed: Double.random(in: 0...50, using: &generator),
                course: Double.random(in: 0..<360, using: &generator),
                horizontalDilution: 1e-7, satellites: 12, fix: .dgps, name: "p<&>\"'",
                geoidHeight: Bool.random(using: &generator) ? Double.random(in: -110...90, using: &generator) : nil))
        }
        let writer = GPXWriter(layout: .track)
        for point in points { try writer.write(point) }
        try writer.finish()
        let reread = try GPXDocument(string: writer.string)
        let readPoints = reread.tracks[0].segments[0]
        #expect(readPoints.count == points.count)
        for (a, b) in zip(points, readPoints) {
            #expect(a.coordinate == b.coordinate)
            #expect(a.elevation == b.elevation)
            #expect(a.speed == b.speed && a.course == b.course)
            #expect(a.horizontalDilution == b.horizontalDilution)
            #expect(abs(a.time!.timeIntervalSince(b.time!)) < 1e-6)
            #expect(a.name == b.name && a.fix == b.fix && a.satellites == b.satellites)
            #expect(a.geoidHeight == b.geoidHeight)
        }
    }

    @Test("A fix's geoid separation is the point's <geoidheight>, written after <time> as GPX 1.1 orders them, and back")
    func geoidHeight() throws {
        var fix = Fix(
            time: Date(timeIntervalSince1970: 1_750_000_000), coordinate: Coordinate(uncheckedLatitude: 47.37, longitude: 8.54),
            altitude: -14.1, source: .nmea)
        fix.geoidSeparation = 32
        let writer = GPXWriter(layout: .track)
        try writer.write(fix)
        try writer.finish()
        #expect(writer.string.contains("<ele>-14.1</ele><time>2025-06-15T15:06:40Z</time><geoidheight>32</geoidheight>"), "\(writer.string)")
        let point = try #require(try GPXDocument(string: writer.string).tracks.first?.segments.first?.first)
        #expect(point.geoidHeight == 32)
        let reread = try #require(point.fix())
        #expect(reread.altitude == -14.1 && reread.geoidSeparation == 32)
    }

    @Test("The Xcode layout writes wpt elements with time, and segments split tracks")
    func layouts() throws {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let a = GPXPoint(coordinate: try Coordinate(latitude: 37.33, longitude: -122.03), time: base)
        let b = GPXPoint(coordinate: try Coordinate(latitude: 37.34, longitude: -122.02), time: base + 1)
        let xcode = GPXWriter(layout: .waypoints)
        try xcode.write(a)
        try xcode.write(b)
        try xcode.finish()
        let document = try GPXDocument(string: xcode.string)
        #expect(document.tracks.isEmpty && document.routes.isEmpty)
        #expect(document.waypoints.map(\.time) == [base, base + 1])

        let track = GPXWriter(layout: .track)
        try track.write(a)
        try track.startSegment()
        try track.write(b)
        try track.finish()
        #expect(try GPXDocument(string: track.string).tracks[0].segments.count == 2)
    }

    @Test("A file is only in place after finish(); a failed destination leaves nothing behind")
    func atomicFile() throws {
        try withScratchFolder("locsim-gpx-writer") { dir in
            let path = dir + "/out.gpx"
            do {
                let writer = try GPXWriter(path: path)
                try writer.write(GPXPoint(coordinate: try Coordinate(latitude: 1, longitude: 2)))
                #expect(!FileManager.default.fileExists(atPath: path))
                try writer.finish()
            }
            #expect(try GPXDocument(contentsOfFile: path).tracks[0].segments[0].count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.gpx"])
            do {
                let abandoned = try GPXWriter(path: dir + "/abandoned.gpx")
                try abandoned.write(GPXPoint(coordinate: try Coordinate(latitude: 1, longitude: 2)))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.gpx"])
            #expect(throws: GPXWriteError.self) { _ = try GPXWriter(path: dir + "/missing/dir/out.gpx") }
        }
    }
}

