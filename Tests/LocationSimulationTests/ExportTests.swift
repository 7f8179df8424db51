import Foundation
import GPXFormat
import LocSimTestHelpers
import LocationCore
import LocationSimulation
import LocationTestSupport
import NMEAFormat
import Testing

@Suite("Exporting provider streams", .timeLimit(.minutes(1))) struct ExportTests {
    static let tokyo = coordinate(35.6812, 139.7671)

    func walk(clock: VirtualClock = VirtualClock()) throws -> SyntheticMotion<VirtualClock> {
        try SyntheticMotion(
            path: .circle(center: Self.tokyo, radius: 120), speed: .walk, seed: 3,
            configuration: .init(pacing: .virtual, duration: 300, startTime: wallStart, altitude: 40,
                                 noise: NoiseModel(seed: 8)),
            clock: clock, now: fixedNow)
    }

    /// The text an export writes to a file named `name` in a fresh folder.
    static func exported(_ name: String, _ write: (String) async throws -> Void) async throws -> String {
        try await withScratchFolder("locsim-export") { directory in
            let path = directory + "/" + name
            try await write(path)
            return try String(contentsOfFile: path, encoding: .utf8)
        }
    }

    @Test("GPX 1.1 track: reading it back gives the stream's positions, times, speeds and courses")
    func track() async throws {
        let fixes = try await collect(walk(), on: VirtualClock()).map(\.fix)
        let text = try await Self.exported("walk.gpx") { try await walk().writeGPX(toFile: $0, form: .track) }
        let document = try GPXDocument(string: text)
        #expect(text.contains("version=\"1.1\""))
        let points = try #require(document.tracks.first?.segments.first)
        #expect(document.tracks.count == 1 && document.tracks[0].segments.count == 1)
        #expect(points.map(\.coordinate) == fixes.map { $0.coordinate! })
        #expect(points.map(\.time) == fixes.map(\.time))
        #expect(points.map(\.speed) == fixes.map(\.speed))
        #expect(points.map(\.course) == fixes.map(\.course))
        #expect(points.map(\.elevation) == fixes.map(\.altitude))
    }

    @Test("Xcode simulator form: top-level wpt elements with time, nothing else")
    func xcodeSimulator() async throws {
        let fixes = try await collect(walk(), on: VirtualClock()).map(\.fix)
        let text = try await Self.exported("walk.gpx") { try await walk().writeGPX(toFile: $0, form: .xcodeSimulator) }
        #expect(!text.contains("<trk") && !text.contains("<rte") && !text.contains("<extensions"))
        let document = try GPXDocument(string: text)
        #expect(document.tracks.isEmpty && document.routes.isEmpty)
        #expect(document.waypoints.map(\.coordinate) == fixes.map { $0.coordinate! })
        #expect(document.waypoints.map(\.time) == fixes.map(\.time))
        // And it replays: a waypoint list with times is played like a track.
        let clock = VirtualClock(autoAdvance: true)
        let replay = try GPXReplay(path: ReplayPath(document: document), configuration: .init(), clock: clock, now: fixedNow)
        #expect(replay.analysis.isTimed)
        #expect(try await collect(replay, on: clock).map(\.at).last == .seconds(300))
    }

    @Test("Writing a file: an endless provider bounded by a limit, renamed into place when complete")
    func file() async throws {
        try await withScratchFolder("locsim-export") { directory in
            let path = directory + "/circle.gpx"
            let endless = try SyntheticMotion(
                path: .circle(center: Self.tokyo, radius: 50), seed: 1, configuration: .init(pacing: .virtual),
                clock: VirtualClock(), now: fixedNow)
            #expect(try await endless.writeGPX(toFile: path, form: .xcodeSimulator, limit: 600) == 600)
            #expect(try GPXDocument(contentsOfFile: path).waypoints.count == 600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["circle.gpx"])
        }
    }

    @Test("A lost fix splits the track into segments")
    func lostFix() async throws {
        var points = (0..<6).map { point($0, at: Double($0)) }
        points[2].fix = GPXFixType.none
        points[3].fix = GPXFixType.none
        let replay = try GPXReplay(
            path: ReplayPath(track: GPXTrack(segments: [points])), configuration: .init(pacing: .virtual),
            clock: VirtualClock(), now: fixedNow)
        let document = try GPXDocument(string: try await Self.exported("replay.gpx") { try await replay.writeGPX(toFile: $0) })
        #expect(document.tracks.first?.segments.map(\.count) == [2, 2])
    }

    @Test("A replayed project walk exports to the same points")
    func projectWalkRoundTrip() async throws {
        let original = try GPXDocument(contentsOfFile: PackagePaths.path("tracks/tokyo-marunouchi-walk.gpx"))
        let replay = try GPXReplay(
            path: ReplayPath(document: original), configuration: .init(pacing: .virtual), clock: VirtualClock(),
            now: fixedNow)
        let copy = try GPXDocument(string: try await Self.exported("replay.gpx") { try await replay.writeGPX(toFile: $0) })
        let before = original.tracks.flatMap(\.segments).flatMap { $0 }
        let after = copy.tracks.flatMap(\.segments).flatMap { $0 }
        #expect(after.map(\.coordinate) == before.map(\.coordinate))
        #expect(after.map(\.time) == before.map(\.time))
        #expect(after.map(\.elevation) == before.map(\.elevation))
    }

    @Test("NMEA 0183: reading the sentences back gives the stream to NMEA's precision")
    func nmea() async throws {
        let fixes = try await collect(walk(), on: VirtualClock()).map(\.fix)
        let text = try await Self.exported("walk.nmea") { try await walk().writeNMEA(toFile: $0) }
        #expect(text.hasPrefix("$GPRMC,"))
        #expect(text.components(separatedBy: "\r\n").count - 1 == 4 * fixes.count)  // RMC, GGA, VTG, GSA
        var reader = NMEAReader(options: .strict)
        let decoded = try reader.read(Array(text.utf8)) + reader.finish()
        #expect(decoded.count == fixes.count)
        for (read, fix) in zip(decoded, fixes) {
            // NMEA writes ddmm.mmmmm (1e-5 arc-minute, ~1.9 cm), time to 10 ms, knots to 1e-3,
            // course to 1e-2 degree, altitude to 1e-2 m.
            #expect(read.coordinate!.distance(to: fix.coordinate!) < 0.03)
            #expect(abs(read.time.timeIntervalSince(fix.time)) <= 0.005 + 1e-6)
            #expect(abs(read.speed! - fix.speed!) <= 0.0005 * 1852 / 3600 + 1e-9)
            #expect(abs(read.course! - fix.course!) <= 0.005 + 1e-9 || abs(abs(read.course! - fix.course!) - 360) <= 0.005)
            #expect(abs(read.altitude! - fix.altitude!) <= 0.005 + 1e-9)
            #expect(read.mode == .threeDimensional)
        }
    }

    @Test("NMEA file: an endless provider bounded by a limit, renamed into place when complete")
    func nmeaFile() async throws {
        try await withScratchFolder("locsim-nmea") { directory in
            let path = directory + "/circle.nmea"
            let endless = try SyntheticMotion(
                path: .circle(center: Self.tokyo, radius: 50), seed: 1,
                configuration: .init(pacing: .virtual, startTime: wallStart), clock: VirtualClock(), now: fixedNow)
            #expect(try await endless.writeNMEA(toFile: path, limit: 120) == 120)
            var reader = NMEAReader(options: .strict)
            let decoded = try reader.read(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) + reader.finish()
            #expect(decoded.count == 120)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["circle.nmea"])
        }
    }

    @Test("Cancelled before its first fix (Ctrl-C at once), an export writes nothing: the file there keeps what it held")
    func cancelledBeforeTheFirstFix() async throws {
        try await withScratchFolder("locsim-cancelled") { directory in
            for name in ["walk.nmea", "walk.gpx"] {
                let path = directory + "/" + name
                try Data("yesterday's walk\n".utf8).write(to: URL(fileURLWithPath: path))
                let walk = try walk()
                let written = try await Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return name.hasSuffix(".nmea") ? try await walk.writeNMEA(toFile: path) : try await walk.writeGPX(toFile: path)
                }.value
                #expect(written == 0, "\(name)")
                #expect(try String(contentsOfFile: path, encoding: .utf8) == "yesterday's walk\n", "\(name)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".partial-") }.isEmpty)
            }
        }
    }

    @Test("An export that cannot be written throws the format's error naming the path")
    func unwritable() async throws {
        let provider = try SyntheticMotion(
            path: .stationary(at: Self.tokyo), seed: 1, configuration: .init(pacing: .virtual, duration: 1),
            clock: VirtualClock(), now: fixedNow)
        let path = "/nonexistent-locsim-directory/out.nmea"
        let error = await #expect(throws: NMEAError.self) { try await provider.writeNMEA(toFile: path) }
        #expect(error?.code == .io)
        #expect(error?.source == path)
        await #expect(throws: GPXWriteError.self) { try await provider.writeGPX(toFile: "/nonexistent-locsim-directory/out.gpx") }
    }

    @Test("A lost fix is written as void NMEA sentences, as a receiver reports it")
    func nmeaNoFix() async throws {
        var points = (0..<4).map { point($0, at: Double($0)) }
        points[1].fix = GPXFixType.none
        let replay = try GPXReplay(
            path: ReplayPath(track: GPXTrack(segments: [points])), configuration: .init(pacing: .virtual),
            clock: VirtualClock(), now: fixedNow)
        var reader = NMEAReader(options: .strict)
        let text = try await Self.exported("replay.nmea") { try await replay.writeNMEA(toFile: $0) }
        let decoded = try reader.read(Array(text.utf8)) + reader.finish()
        #expect(decoded.map(\.hasPosition) == [true, false, true, true])
    }
}
