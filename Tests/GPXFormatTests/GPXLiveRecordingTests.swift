import Foundation
import GPXFormat
import LocationCore
import Testing
import LocSimTestHelpers

/// ``GPXWriter/init(recordingTo:layout:creator:)``: a GPX file that is complete after every point,
/// and ``GPXStatistics/init(trackSegments:)``, the summary of a recording made of points.
@Suite(.ownThread) struct GPXLiveRecordingTests {
    static func point(_ i: Int) -> GPXPoint {
        GPXPoint(
            coordinate: Coordinate(uncheckedLatitude: 35.68 + Double(i) * 1e-4, longitude: 139.76 - Double(i) * 1.7e-4),
            elevation: Double(i) / 4, time: Date(timeIntervalSince1970: 1_750_000_000 + Double(i)), horizontalDilution: 0.5 + Double(i) / 8)
    }

    @Test("A live recording reads as a whole GPX document after every point and segment break, never finished")
    func completeAfterEveryPoint() throws {
        try withScratchFolder("locsim-gpx-live") { folder in
            let path = folder + "/live.gpx"
            var writer: GPXWriter? = try GPXWriter(recordingTo: path, creator: "test")
            var expected: [[GPXPoint]] = [[]]
            #expect(try GPXDocument(contentsOfFile: path).tracks.first?.segments.isEmpty == true)
            for i in 0..<12 {
                if i == 5 {
                    try writer?.startSegment()
                    expected.append([])
                }
                try writer?.write(Self.point(i))
                expected[expected.count - 1].append(Self.point(i))
                // What a reader finds in the file at this moment: every point so far, in its segment.
                let document = try GPXDocument(contentsOfFile: path)
                #expect(document.tracks.count == 1)
                #expect(document.tracks.first?.segments == expected)
            }
            writer = nil  // dropped without finish(), as a killed process would leave it
            #expect(try GPXDocument(contentsOfFile: path).tracks.first?.segments == expected)
        }
    }

    @Test("finish() leaves the same document the in-memory writer makes, byte for byte")
    func finishedEqualsMemoryWriter() throws {
        try withScratchFolder("locsim-gpx-live") { folder in
            let path = folder + "/live.gpx"
            let live = try GPXWriter(recordingTo: path)
            let memory = GPXWriter()
            for writer in [live, memory] {
                for i in 0..<4 { try writer.write(Self.point(i)) }
                try writer.startSegment()
                try writer.write(Self.point(9))
                try writer.finish()
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == memory.string)
        }
    }

    @Test("Statistics of points given as segments equal those of the same track read from GPX")
    func statisticsOfSegments() throws {
        let segments = [(0..<7).map(Self.point), [], (7..<20).map(Self.point)]
        let text = GPXWriter.string(GPXDocument(tracks: [GPXTrack(segments: segments)]))
        let read = try GPXStatistics(reader: GPXReader(string: text))
        #expect(GPXStatistics(trackSegments: segments) == read)
    }
}
