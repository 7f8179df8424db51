import Foundation
@testable import GPXFormat
import LocationCore
import LocSimTestHelpers
import Testing

@Suite(.ownThread) struct GPXFeatureTests {
    let fixtures = Bundle.module.resourcePath! + "/Fixtures"

    @Test("GPX 1.0 speed, course, fix, sat and dilutions are read; offsets become UTC")
    func gpx10Elements() throws {
        let document = try GPXDocument(contentsOfFile: fixtures + "/bom-gpx10.gpx")
        #expect(document.creator == "locsim fixture & test")
        let first = try #require(document.tracks.first?.segments.first?.first)
        #expect(first.speed == 1.4)
        #expect(first.course == 45.5)
        #expect(first.fix == .threeDimensional)
        #expect(first.satellites == 9)
        #expect(first.horizontalDilution == 0.9)
        #expect(first.verticalDilution == 1.2)
        #expect(first.positionDilution == 1.5)
        let times = document.tracks[0].segments.flatMap { $0 }.compactMap(\.time)
        // 11:01:00+01:00 is 10:01:00Z, one minute after the first point.
        #expect(times[2].timeIntervalSince(times[0]) == 60)
    }

    @Test("Garmin TrackPointExtension speed and course are read; unknown extensions are skipped")
    func garminExtensions() throws {
        let document = try GPXDocument(contentsOfFile: fixtures + "/garmin-extensions.gpx")
        let points = document.tracks[0].segments[0]
        #expect(points[0].speed == 2.91)
        #expect(points[0].course == 270)
        #expect(points[1].speed == 3.05)
        #expect(points[1].course == nil)
        #expect(points[0].name == nil, "an extension's <name> is not the point's name")
        #expect(document.waypoints.map(\.name) == ["Opera House <start>", "Harbour & Bridge <north>"])
        #expect(document.routes.first?.name == "Plan")
        #expect(document.tracks.first?.name == "Run")
    }

    @Test("Reading in tiny chunks gives exactly the events of reading at once", arguments: [1, 2, 3, 7, 64])
    func chunkBoundaries(chunkSize: Int) throws {
        for name in ["bom-gpx10", "garmin-extensions", "antimeridian", "untimed-route"] {
            let path = fixtures + "/" + name + ".gpx"
            let whole = try GPXReader(bytes: try Data(contentsOf: URL(fileURLWithPath: path))).allEvents()
            let chunked = try GPXReader(contentsOfFile: path, options: .strict, chunkSize: chunkSize).allEvents()
            #expect(whole == chunked, "\(name) at chunk size \(chunkSize)")
            #expect(!whole.isEmpty)
        }
    }

    @Test("Points convert to fixes with the GPX fix type as mode")
    func pointToFix() throws {
        let document = try GPXDocument(contentsOfFile: fixtures + "/bom-gpx10.gpx")
        let points = document.tracks[0].segments[0]
        let fix = try #require(points[0].fix())
        #expect(fix.mode == .threeDimensional)
        #expect(fix.altitude == 12.5)
        #expect(fix.source == .gpx)
        #expect(try #require(points[1].fix()).mode == .twoDimensional)
        #expect(GPXPoint(coordinate: points[0].coordinate).fix() == nil, "no time, no fix")
    }

    @Test("Duration is the last time minus the first, in file order; none when the last is before the first (a clock that jumped back)")
    func durationAfterAClockJump() throws {
        let origin = try Coordinate(latitude: 55.8, longitude: 23.6)
        func point(_ seconds: Double) -> GPXPoint {
            GPXPoint(coordinate: origin, time: Date(timeIntervalSince1970: 1_260_000_000 + seconds))
        }
        let forward = GPXStatistics(trackSegments: [[point(0), point(3_000), point(10)]])
        #expect(forward.duration == 10)
        #expect(forward.timeReversals == 1)
        let back = GPXStatistics(trackSegments: [[point(3_000), point(3_001), point(0), point(1)]])
        #expect(back.duration == nil)
        #expect(back.timeReversals == 2)
        #expect(GPXStatistics(trackSegments: [[point(5)]]).duration == 0)
    }

    @Test("A file over 10 MB streams (XMLParser(data:) would fail here)")
    func largeFile() throws {
        try withScratchFolder("locsim-gpx-large") { folder in
            let path = folder + "/large.gpx"
            // 11,000 points, each with a description of about a kilobyte: the size of 110,000 bare
            // points at a tenth of the points, which in a debug build were 6 s of the reader's time.
            let count = 11_000
            let description = "<desc>" + String(repeating: "A walk along the river, past the old mill. ", count: 22) + "</desc>"
            var text = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"# + "\n"
            let start = try Coordinate(latitude: 35.0, longitude: 139.0)
            for i in 0..<count {
                let c = start.destination(distance: Double(i), bearing: 90)
                let time = UTCTimestamp.format(Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))
                text += #"<trkpt lat="\#(c.latitude)" lon="\#(c.longitude)"><ele>10</ele><time>\#(time)</time>\#(description)</trkpt>"# + "\n"
            }
            text += "</trkseg></trk></gpx>\n"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(size > 10_000_000)
            let stats = try GPXStatistics(reader: GPXReader(contentsOfFile: path))
            #expect(stats.points == count)
            #expect(stats.duration == Double(count - 1))
        }
    }
}
