#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import CommandTestHelpers
import LocSimTestHelpers
import LocationCore
import NMEAFormat
import Testing

/// Record a field test, replay it later (issue 17, item 4): `gpsd --record`, `replay --gpsd
/// --record`, and NMEA logs read by `replay`, `track stats` and `nmea serve`. The live tests run
/// a real gpsd on private loopback ports, fed by `locsim nmea serve`, and stop everything they
/// start in a `defer`.
@Suite(.timeLimit(.minutes(1))) struct NMEALogCommandTests {
    /// NMEA writes positions to 10⁻⁵ minute: a value read back is within half of that (8.3e-8°);
    /// two independently rounded copies of one position within one unit.
    static let positionTolerance = 1.0e-5 / 60 + 1e-9

    // MARK: Live: a receiver's log → nmea serve → gpsd

    @Test(
        "nmea serve of a real receiver's log (../shared/data): a gpsd fed it reports the log's own sky, every constellation and signal, and its DOPs",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"),
        .enabled(if: GPSDLogs.isPresent, SharedData.absentReason),
        // GPS alone; GPS, SBAS and GLONASS; GPS, GLONASS, Galileo, QZSS and BeiDou on two signals.
        arguments: ["mt3339", "ublox-8", "quectelLC79D"])
    func servesTheLogsSky(log: String) async throws {
        let path = GPSDLogs.url(log + ".log").path
        // Each sky the reader reads from the log, as GSA and GSV can tell it.
        let read = try NMEAReader.fixes(contentsOfFile: path, options: .lenient).fixes
        let skies = Set(read.compactMap { $0.receiver?.sky }.map { Self.told(NMEAWriter.tellable($0.satellites), $0.dilutions) })
        let constellations = Set(read.compactMap { $0.receiver?.sky }.flatMap(\.satellites).compactMap(\.signalIdentity?.gnssID))
        #expect(!skies.isEmpty, "the log has GSV")

        // The client sees the log from its first epoch (quectelLC79D tells BeiDou in that one alone).
        try await Self.withServedLog(path) { raw in
            // gpsd reports a SKY after each GSV group, the epoch's sky so far: one of them is whole,
            // and one has every constellation the log tells.
            @Sendable func wholeSky(_ line: String) -> Bool {
                guard Self.isSkyWithSatellites(line), let told = try? Self.told(sky: line), skies.contains(told) else { return false }
                return Set(told.satellites.map { $0[1] }).count == constellations.count
            }
            do {
                try await raw.wait(for: "a SKY the reader read, with every constellation the log tells") { raw in
                    raw.received.contains { wholeSky($0.text) }
                }
            } catch {
                let sent = raw.received.map(\.text).filter(Self.isSkyWithSatellites)
                throw HarnessError(
                    "\(error)\nconstellations \(constellations.sorted()); gpsd's last SKY of \(sent.count): \(sent.last ?? "none")\n"
                        + "the reader's first: \(skies.first.map { "\($0)" } ?? "none")")
            }
        }
    }

    @Test(
        "nmea serve of a log whose receiver names its map datum (DTM): a gpsd fed it reports that datum",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func servesTheLogsDatum() async throws {
        // A receiver on WGS 72 (no log in ../shared/data has a DTM): each epoch names it after its RMC.
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let sentences = (0..<20).flatMap { index in
            let epoch = TestNMEA.epoch(
                time: start.addingTimeInterval(Double(index)), latitude: 51.5 + Double(index) * 0.0001, longitude: -0.12)
            return [epoch.sentences[0], TestNMEA.checksummed("GPDTM,W72,,,,,,,W84")] + epoch.sentences.dropFirst()
        }
        try await withScratchFolder("locsim-datum") { folder in
            let path = folder + "/walk.nmea"
            try (sentences.joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
            let named = try #require(NMEAReader.fixes(contentsOfFile: path).fixes.first?.receiver?.datum)

            try await Self.withServedLog(path) { raw in
                try await raw.wait(for: "a TPV naming the log's datum, \(named)") { raw in
                    raw.received.contains { $0.text.contains(#""class":"TPV""#) && $0.text.contains(#""datum":"\#(named)""#) }
                }
            }
        }
    }

    /// `locsim nmea serve PATH --speed 4`, a real gpsd fed by it and a raw client of that gpsd for
    /// `body`; all stopped after it. gpsd connects to the feed (which then starts the log) only when
    /// the client watches, so the client sees the log from its first epoch.
    private static func withServedLog(_ path: String, _ body: (RawGPSDClient) async throws -> Void) async throws {
        let (serve, feedPort) = try await NMEAServe.start([path, "--speed", "4"])
        defer { serve.stop() }
        let daemon = try await GPSDDaemon.start(feedPort: feedPort, opensOnWatch: true)
        defer { daemon.stop() }
        let raw = try RawGPSDClient(port: daemon.port)
        defer { raw.stop() }
        try await body(raw)
    }

    private static func isSkyWithSatellites(_ line: String) -> Bool { line.contains(#""class":"SKY""#) && line.contains(#""PRN""#) }

    /// A sky as NMEA carries it and gpsd 3.22 reports it: each satellite's `PRN`, `gnssid`,
    /// `svid`, `sigid`, whole degrees and dB-Hz (an empty field 0) and used flag, in `PRN` and
    /// signal order; the PDOP, HDOP and VDOP.
    private struct Told: Hashable, CustomStringConvertible {
        var satellites: [[Double]]
        var dops: [Double?]
        var description: String { "\(satellites.count) satellites \(satellites.prefix(3))…, DOPs \(dops)" }
    }

    private static func told(_ satellites: [Satellite], _ dilutions: [ReceiverReport.Sky.Dilution: Double]) -> Told {
        let rows = satellites.map { satellite -> [Double] in
            let identity = satellite.signalIdentity
            return [
                Double(satellite.id), Double(identity?.gnssID ?? 0), Double(identity?.svID ?? satellite.id), Double(identity?.signalID ?? 0),
                satellite.elevation ?? 0, satellite.azimuth ?? 0, satellite.signal ?? 0, satellite.used ? 1 : 0,
            ]
        }
        return Told(satellites: rows.sorted { ($0[0], $0[3]) < ($1[0], $1[3]) }, dops: [dilutions[.pdop], dilutions[.hdop], dilutions[.vdop]])
    }

    private static func told(sky line: String) throws -> Told {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let satellites = try #require(object["satellites"] as? [[String: Any]]).map { member in
            Satellite(
                id: member["PRN"] as? Int ?? -1, elevation: member["el"] as? Double, azimuth: member["az"] as? Double,
                signal: member["ss"] as? Double, used: member["used"] as? Bool ?? false,
                signalIdentity: Satellite.SignalIdentity(
                    gnssID: member["gnssid"] as? Int ?? -1, svID: member["svid"] as? Int ?? -1, signalID: member["sigid"] as? Int ?? 0))
        }
        var dilutions: [ReceiverReport.Sky.Dilution: Double] = [:]
        for dilution in [ReceiverReport.Sky.Dilution.pdop, .hdop, .vdop] { dilutions[dilution] = object[dilution.rawValue] as? Double }
        return told(satellites, dilutions)
    }

    // MARK: Live: gpsd → --record

    @Test(
        "gpsd --record FILE.gpx: every fix printed before Ctrl-C is in the file, a complete GPX; HDOP comes back as it was served",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func gpsdRecordsGPX() async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            // The source: a walk with an elevation and an HDOP per point (two decimals, as NMEA carries it).
            let start = Date(timeIntervalSince1970: 1_750_000_000)  // 2025-06-15T15:06:40Z
            // Long enough (10 min at 4×: 150 s) that a loaded machine's slow start cannot outlast it.
            let source = (0..<600).map { i -> SourcePoint in
                let step = Double(i)
                let elevation: Double = 12 + Double(i % 9) * 0.25
                let hdop: Double = (80 + Double(i % 7) * 15) / 100
                return SourcePoint(
                    time: start.addingTimeInterval(step), latitude: 51.5 + step * 1e-5, longitude: -0.12 + step * 1.3e-5,
                    elevation: elevation, hdop: hdop)
            }
            let sourcePath = folder + "/walk.gpx"
            try Self.gpx(source).write(toFile: sourcePath, atomically: true, encoding: .utf8)

            let (serve, feedPort) = try await NMEAServe.start([sourcePath, "--speed", "4", "--original-times"])
            defer { serve.stop() }
            let daemon = try await GPSDDaemon.start(feedPort: feedPort)
            defer { daemon.stop() }
            let recordingPath = folder + "/field-test.gpx"
            let command = try await LiveCommand([
                "gpsd", "--port", String(daemon.port), "--format", "jsonl", "--record", recordingPath,
            ])
            defer { command.stop() }
            try await command.wait(for: "eight fix lines") { $0.filter { $0.json?.type == "fix" }.count >= 8 }

            command.interrupt()
            #expect(try await command.waitForExit() == .exited(0), "\(command.child.errors)")
            let printed = Self.lastPerTime(command.objects.filter { $0.type == "fix" })
            #expect(command.child.errors.contains("locsim: recorded \(printed.count) fixes to \(recordingPath)"), "\(command.child.errors)")

            // A complete document, with one point per epoch printed: the epoch in progress at Ctrl-C too.
            let text = try String(contentsOfFile: recordingPath, encoding: .utf8)
            #expect(text.hasSuffix("    </trkseg>\n  </trk>\n</gpx>\n"), "\(text.suffix(200))")
            let recorded = Self.trackPoints(text)
            #expect(recorded.map(\.time) == printed.map { $0.time ?? .distantPast }, "\(recorded.count) points, \(printed.count) printed")
            for (point, fix) in zip(recorded, printed) {
                // What gpsd reported, as printed (9 decimals) and recorded.
                #expect(Self.near(point.latitude, fix.latitude, 1e-9))
                #expect(Self.near(point.longitude, fix.longitude, 1e-9))
                let hdop = try #require(point.hdop, "an HDOP at \(point.time)")
                #expect(Self.near(hdop * 19, fix.accuracy, 1e-6))
                // And what was served, field by field: gpsd's accuracy is 19 m × the HDOP sent.
                let served = try #require(source.first { $0.time == point.time }, "no source point at \(point.time)")
                #expect(abs(point.latitude - served.latitude) <= Self.positionTolerance)
                #expect(abs(point.longitude - served.longitude) <= Self.positionTolerance)
                #expect(abs(hdop - served.hdop) <= 1e-6, "HDOP \(hdop) for \(served.hdop) at \(point.time)")
                if let elevation = point.elevation { #expect(abs(elevation - served.elevation) <= 0.005 + 1e-9) }
            }
            #expect(recorded.contains { $0.elevation != nil }, "3D fixes carry the altitude")
        }
    }

    @Test(
        "gpsd --record past the file-size limit: status 1 naming the reason, the file a complete GPX of the points before; with no room for one, no file",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func gpsdRecordFailsWhole() async throws {
        try await Self.withStraightWalkThroughGPSD(speed: 20) { folder, daemon in
            let recordingPath = folder + "/field-test.gpx"
            // 8 blocks (4 or 8 KiB): a few dozen points, then a write fails part-way.
            let command = try await LiveCommand(
                ["gpsd", "--port", String(daemon.port), "--format", "jsonl", "--record", recordingPath], fileSizeLimit: 8)
            defer { command.stop() }
            #expect(try await command.waitForExit() == .exited(1))
            #expect(command.child.errors.contains("cannot record to \(recordingPath): File too large"), "\(command.child.errors)")
            let text = try String(contentsOfFile: recordingPath, encoding: .utf8)
            #expect(text.hasSuffix("    </trkseg>\n  </trk>\n</gpx>\n"), "\(text.suffix(200))")
            let stats = try await CLI.run(["track", "stats", recordingPath, "--format", "json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            let points = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])["points"] as? Int
            #expect((points ?? 0) > 5, "\(stats.stdout)")
            // No room for the first fix: an error, and no empty file left to look like a recording.
            let emptyPath = folder + "/no-room.nmea"
            let none = try await LiveCommand(["gpsd", "--port", String(daemon.port), "--record", emptyPath], fileSizeLimit: 0)
            defer { none.stop() }
            #expect(try await none.waitForExit() == .exited(1))
            #expect(none.child.errors.contains("cannot record to \(emptyPath): File too large"), "\(none.child.errors)")
            #expect(none.child.errors.contains("hint: check that the folder exists, is writable and has room"), "\(none.child.errors)")
            #expect(!FileManager.default.fileExists(atPath: emptyPath))
        }
    }

    @Test(
        "gpsd --reconnect --record across gpsd killed and restarted: the GPX ends its track segment at the outage, the NMEA logs a no-fix epoch there, the output marks the gap with one status line",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func gpsdRecordAcrossOutage() async throws {
        try await Self.withStraightWalkThroughGPSD(speed: 4) { folder, daemon in
            let recordingPath = folder + "/field-test.gpx"
            let nmeaPath = folder + "/field-test.nmea"
            let command = try await LiveCommand([
                "gpsd", "--port", String(daemon.port), "--format", "jsonl", "--reconnect", "--record", recordingPath,
            ])
            defer { command.stop() }
            let nmeaCommand = try await LiveCommand(["gpsd", "--port", String(daemon.port), "--format", "jsonl", "--reconnect", "--record", nmeaPath])
            defer { nmeaCommand.stop() }
            for live in [command, nmeaCommand] {
                try await live.wait(for: "four fix lines") { _ in live.objects.filter { $0.type == "fix" }.count >= 4 }
            }
            try await daemon.kill(SIGKILL)
            for live in [command, nmeaCommand] {
                try await live.wait(for: "the loss") { _ in live.objects.contains { $0.event == "disconnected" } }
            }
            let restarted = try await daemon.restarted()
            defer { restarted.stop() }
            for live in [command, nmeaCommand] {
                try await live.wait(for: "four fix lines after the reconnection") { _ in
                    let objects = live.objects
                    guard let lost = objects.firstIndex(where: { $0.event == "disconnected" }) else { return false }
                    return objects[lost...].filter { $0.type == "fix" }.count >= 4
                }
                live.interrupt()
                #expect(try await live.waitForExit() == .exited(0), "\(live.child.errors)")
            }
            // The NMEA recording holds the gap as the receiver's no-fix epoch: two segments read back.
            let stats = try await CLI.run(["track", "stats", nmeaPath, "--format", "json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            let segments = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])["segments"] as? Int
            #expect(segments == 2, "\(stats.stdout)")

            // The gap is one status line between the loss and the next fix, as replay --gpsd sees it.
            let objects = command.objects
            let lost = try #require(objects.firstIndex { $0.event == "disconnected" })
            let nextFix = try #require(objects[lost...].firstIndex { $0.type == "fix" })
            #expect(objects[lost..<nextFix].filter { $0.type == "status" }.count == 1, "\(objects[lost..<nextFix].map(\.keys))")
            // Two track segments: the points before the outage, and those after it.
            let text = try String(contentsOfFile: recordingPath, encoding: .utf8)
            #expect(text.components(separatedBy: "<trkseg>").count - 1 == 2, "\(text.prefix(2_000))")
            #expect(text.hasSuffix("    </trkseg>\n  </trk>\n</gpx>\n"), "\(text.suffix(200))")
        }
    }

    @Test(
        "gpsd --record FILE | head: the reader leaving stops the run as Ctrl-C does: the recording finished and said, status 141",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func gpsdRecordIntoHead() async throws {
        try await Self.withStraightWalkThroughGPSD(speed: 4) { folder, daemon in
            let recordingPath = folder + "/field-test.gpx"
            // As a user types it; bash reports locsim's own status beside head's.
            let script = #""$0" gpsd --port "$1" --format jsonl --record "$2" | head -n 8; echo "locsim status ${PIPESTATUS[0]}" >&2"#
            let outcome = try await ChildProcess.run(
                ["/bin/bash", "-c", script, CLI.binary, String(daemon.port), recordingPath],
                environment: ["LOCSIM_CACHE_DIR": CLI.cacheDirectory])
            #expect(outcome.errors.contains("locsim status 141"), "\(outcome.errors)")
            let said = try #require(outcome.errors.firstMatch(of: #/locsim: recorded (\d+) fix(es)? to /#), "\(outcome.errors)")
            let text = try String(contentsOfFile: recordingPath, encoding: .utf8)
            let points = Self.trackPoints(text)
            #expect(points.count == Int(said.1), "\(text.suffix(300))")
            // Every fix head printed is in the recording, and the one whose line met the closed pipe.
            let printed = outcome.output.split(separator: "\n").filter { $0.contains(#""type":"fix""#) }.count
            #expect(points.count > printed, "printed \(printed), recorded \(points.count)")
            #expect(text.hasSuffix("    </trkseg>\n  </trk>\n</gpx>\n"), "\(text.suffix(200))")
        }
    }

    @Test(
        "replay --gpsd --record FILE.nmea: Ctrl-C loses nothing, and replaying the recording gives the source's fixes, field by field",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func replayRecordsNMEAAndReplaysIt() async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            // The source is locsim's own NMEA (which must give gpsd a fix), with accuracies from the noise model.
            let sourcePath = folder + "/walk.nmea"
            let made = try await CLI.run([
                // 25 minutes of walking: longer than any wait below.
                "simulate", "line", "--from", "51.5007,-0.1246", "--to", "51.5107,-0.1046", "--start-time", "2025-06-15T12:00:00Z",
                "--noise", "3", "--seed", "4", "--out", sourcePath,
            ])
            #expect(made.status == 0, "\(made.stderr)")

            let (serve, feedPort) = try await NMEAServe.start([sourcePath, "--speed", "4", "--original-times"])
            defer { serve.stop() }
            let daemon = try await GPSDDaemon.start(feedPort: feedPort)
            defer { daemon.stop() }
            let recordingPath = folder + "/field-test.nmea"
            let live = try await LiveCommand([
                "replay", "--gpsd", "127.0.0.1:\(daemon.port)", "--record", recordingPath, "--format", "jsonl", "--flush",
                "--geodata", PackagePaths.path("geodata"),
            ])
            defer { live.stop() }
            try await live.wait(for: "eight fix lines") { $0.filter { $0.json?.type == "fix" }.count >= 8 }
            live.interrupt()
            #expect(try await live.waitForExit() == .exited(0), "\(live.child.errors)")
            // The map logic saw each epoch once, at its own time, though gpsd reported most of them
            // several times (GPSDEpochs), and the recording holds the same epochs.
            let printed = live.objects.filter { $0.type == "fix" }
            #expect(printed.map(\.timestamp) == Self.lastPerTime(printed).map(\.timestamp), "one fix line per epoch")
            #expect(!live.lines.contains { $0.text.contains(#""delivered""#) }, "every fix delivered at its own time")

            // The recording carries a satellite count, so gpsd would take it as a fix too.
            let text = try String(contentsOfFile: recordingPath, encoding: .utf8)
            let gga = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("$GPGGA") })
            let satellites = String(gga.split(separator: ",", omittingEmptySubsequences: false)[7])
            #expect(satellites == "08", "\(gga)")

            let replayed = try await Self.replayFixes(recordingPath)
            let original = try await Self.replayFixes(sourcePath)
            #expect(live.child.errors.contains("locsim: recorded \(replayed.count) fixes to \(recordingPath)"), "\(live.child.errors)")
            // Every fix the field test printed is in the recording, and the epoch in progress at
            // Ctrl-C too: the map logic sees an epoch with the next one's first report, so it may
            // have stopped before that one (it would have come a second later), the recording not.
            #expect(Array(replayed.map(\.timestamp).prefix(printed.count)) == printed.map(\.timestamp))
            #expect((0...1).contains(replayed.count - printed.count), "\(replayed.count) recorded, \(printed.count) shown")
            for (fix, seen) in zip(replayed, printed) {
                #expect(Self.near(fix.latitude, seen.latitude, Self.positionTolerance))
                #expect(Self.near(fix.longitude, seen.longitude, Self.positionTolerance))
                // The accuracy went out as HDOP with two decimals (19 m × 0.005 at most); both printed
                // with two decimals.
                #expect(Self.near(fix.accuracy, seen.accuracy, 19 * 0.005 + 0.01 + 1e-9))
            }
            // And field by field what was served, at the same times.
            for fix in replayed {
                let source = try #require(original.first { $0.timestamp == fix.timestamp }, "no source fix at \(fix.timestamp ?? "-")")
                #expect(Self.near(fix.latitude, source.latitude, Self.positionTolerance))
                #expect(Self.near(fix.longitude, source.longitude, Self.positionTolerance))
                #expect(Self.near(fix.accuracy, source.accuracy, 1e-6), "accuracy at \(fix.timestamp ?? "-")")
                #expect(fix.mode == source.mode)
            }
        }
    }

    @Test("--record never truncates an existing file when no fix arrives: gpsd not listening leaves it byte for byte, and says so")
    func refusedConnectionKeepsTheRecording() async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            let kept = try Self.earlierRecordings(in: folder)
            try await LoopbackSocket.withRefusingPort { port in
                let runs: [[String]] = [
                    ["gpsd", "--port", String(port), "--record", kept.gpx],
                    ["replay", "--gpsd", "127.0.0.1:\(port)", "--record", kept.nmea, "--geodata", PackagePaths.path("geodata")],
                    ["gpsd", "--port", String(port), "--record", folder + "/new.nmea"],
                ]
                for arguments in runs {
                    let result = try await CLI.run(arguments)
                    #expect(result.status == 1, "\(arguments): \(result.stderr)")
                    #expect(result.stderr.contains("connection refused"), "\(result.stderr)")
                    // The error says why; "no fix received" would send the user looking at the receiver.
                    #expect(result.stderr.contains("locsim: nothing recorded before the error below; "), "\(result.stderr)")
                    #expect(!result.stderr.contains("no fix received"), "\(result.stderr)")
                }
            }
            try Self.expectUntouched(kept)
            #expect(!FileManager.default.fileExists(atPath: folder + "/new.nmea"), "no file made for nothing recorded")
        }
    }

    @Test(
        "--record never truncates an existing file when no fix arrives: a --device gpsd does not have leaves it byte for byte",
        .enabled(if: GPSDDaemon.isInstalled, "needs gpsd (apt-get install gpsd)"))
    func unknownDeviceKeepsTheRecording() async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            let kept = try Self.earlierRecordings(in: folder)
            let feed = try NMEAFeed()
            defer { feed.close() }
            let daemon = try await GPSDDaemon.start(feedPort: feed.port)
            defer { daemon.stop() }
            for path in [kept.gpx, kept.nmea] {
                let result = try await CLI.run(["gpsd", "--port", String(daemon.port), "--device", "/dev/locsim-nope", "--record", path])
                #expect(result.status == 1, "\(result.stderr)")
                #expect(result.stderr.contains("No such device as /dev/locsim-nope"), "\(result.stderr)")
                #expect(result.stderr.contains("locsim: nothing recorded before the error below; \(path) was left as it was"), "\(result.stderr)")
            }
            try Self.expectUntouched(kept)
        }
    }

    /// A GPX and an NMEA recording made earlier, in `folder`, with their bytes.
    private static func earlierRecordings(in folder: String) throws -> (gpx: String, nmea: String, bytes: [String: Data]) {
        let (gpx, nmea) = (folder + "/keep.gpx", folder + "/keep.nmea")
        try FileManager.default.copyItem(atPath: PackagePaths.path("tracks/sf-mission-walk.gpx"), toPath: gpx)
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let sentences = (0..<5).flatMap { TestNMEA.epoch(time: start.addingTimeInterval(Double($0)), latitude: 51.5, longitude: -0.12).sentences }
        try (sentences.joined(separator: "\r\n") + "\r\n").write(toFile: nmea, atomically: true, encoding: .utf8)
        let bytes = try [gpx: Data(contentsOf: URL(fileURLWithPath: gpx)), nmea: Data(contentsOf: URL(fileURLWithPath: nmea))]
        return (gpx, nmea, bytes)
    }

    private static func expectUntouched(_ kept: (gpx: String, nmea: String, bytes: [String: Data])) throws {
        for (path, bytes) in kept.bytes {
            #expect(!bytes.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "\(path) was changed")
        }
    }

    // MARK: Reading NMEA logs

    @Test("An NMEA log's VDOP is the replay's vertical accuracy (19 m × VDOP, as HDOP is the horizontal)")
    func verticalAccuracyFromVDOP() async throws {
        try await withScratchFolder("locsim-nmea-vdop") { folder in
            let start = Date(timeIntervalSince1970: 1_714_550_400)
            let epochs = (0..<3).map { TestNMEA.epoch(time: start.addingTimeInterval(Double($0)), latitude: 35.68 + Double($0) * 1e-4, longitude: 139.76) }
            let path = folder + "/log.nmea"
            try epochs.flatMap(\.sentences).joined(separator: "\r\n").appending("\r\n").write(toFile: path, atomically: true, encoding: .utf8)
            // GSA: …,PDOP,HDOP,VDOP*checksum
            let gsa = try #require(epochs[0].sentences.first { $0.hasPrefix("$GPGSA") })
            let fields = gsa.split(separator: "*")[0].split(separator: ",", omittingEmptySubsequences: false)
            let (hdop, vdop) = (try #require(Double(fields[fields.count - 2])), try #require(Double(fields[fields.count - 1])))
            func accuracies(_ path: String) async throws -> [(Double?, Double?)] {
                let result = try await CLI.run(["replay", path, "--fast", "--format", "jsonl", "--geodata", PackagePaths.path("geodata")])
                #expect(result.status == 0, "\(result.stderr)")
                return try result.stdout.split(separator: "\n").compactMap { line in
                    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["type"] as? String == "fix"
                    else { return nil }
                    return (object["accuracy"] as? Double, object["vaccuracy"] as? Double)
                }
            }
            let replayed = try await accuracies(path)
            #expect(replayed.count == 3)
            for (horizontal, vertical) in replayed {
                #expect(horizontal.map { abs($0 - 19 * hdop) < 1e-9 } == true, "\(String(describing: horizontal))")
                #expect(vertical.map { abs($0 - 19 * vdop) < 1e-9 } == true, "\(String(describing: vertical))")
            }
        }
    }

    @Test("replay and track stats read locsim's own .nmea: the fixes simulate printed, to NMEA's precision")
    func ownOutputReadsBack() async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            let arguments = [
                "simulate", "route", "--from", "35.6812,139.7671", "--via", "35.6830,139.7650", "--to", "35.6852,139.7528",
                "--start-time", "2024-05-01T08:00:00Z", "--noise", "4", "--seed", "9",
            ]
            let path = folder + "/walk.nmea"
            #expect(try await CLI.run(arguments + ["--out", path]).status == 0)
            let printed = try await CLI.run(arguments + ["--format", "jsonl"])
            let expected = printed.stdout.split(separator: "\n").compactMap { LiveCommand.parse(String($0)) }.filter { $0.type == "fix" }
            let replayed = try await Self.replayFixes(path)
            #expect(!expected.isEmpty)
            #expect(replayed.map(\.timestamp) == expected.map(\.timestamp))
            for (fix, source) in zip(replayed, expected) {
                #expect(Self.near(fix.latitude, source.latitude, Self.positionTolerance))
                #expect(Self.near(fix.longitude, source.longitude, Self.positionTolerance))
                // HDOP has two decimals (19 m × 0.005); replay prints two decimals, simulate three.
                #expect(Self.near(fix.accuracy, source.accuracy, 19 * 0.005 + 0.0055 + 1e-9))
            }
            let stats = try await CLI.run(["track", "stats", path, "--format", "json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(object["points"] as? Int == expected.count)
        }
    }

    @Test(
        "replay of gpsd's receiver logs: every fix at a time gpsd reported is where gpsd put it",
        .enabled(if: SharedData.isPresent, SharedData.absentReason))
    func receiverLogsReplayAsGPSDReadThem() async throws {
        let logs = SharedData.files(in: "gpsd", withExtension: "log")
        #expect(logs.count >= 30)
        var (compared, reported) = (0, 0)
        for log in logs where !log.hasSuffix("/bundg_zeus_9.log") {  // its GGA and RMC disagree (docs/reference/nmea.md)
            let tpvs = try Self.positionedTPVs(log.replacingOccurrences(of: ".log", with: ".tpv.jsonl"))
            var matched = 0
            for fix in try await Self.replayFixes(log) {
                guard let time = fix.time, let tpv = tpvs[time.timeIntervalSince1970] else { continue }
                #expect(Self.near(fix.latitude, tpv.latitude, 1e-6), "\(log) at \(fix.timestamp ?? "-")")
                #expect(Self.near(fix.longitude, tpv.longitude, 1e-6), "\(log) at \(fix.timestamp ?? "-")")
                matched += 1
            }
            #expect(matched > 0 || tpvs.isEmpty, "\(log): no fix at a time gpsd reported")
            (compared, reported) = (compared + matched, reported + tpvs.count)
        }
        // Most of gpsd's epochs are the replay's too: docs/reference/nmea.md lists the few gpsd reports
        // differently, and a replay drops fixes whose time goes backwards (bt451's clock jumps back).
        #expect(compared * 10 >= reported * 9, "only \(compared) of gpsd's \(reported) positioned times replayed")
    }

    /// Logs where GPSBabel keeps other epochs or other positions than locsim (and gpsd: the
    /// previous test compares locsim's positions with gpsd's), each for the reason in docs/reference/nmea.md.
    static let gpsbabelDiffers: Set<String> = [
        "bt451", "bundg_zeus_9", "ch-4701", "garmin15x", "gp-320fw-2019-04-06-overflow", "iTrek", "quectel-L70", "rx210",
        "sl869", "st-teseo-liv4f", "ublox-8", "ublox-lea-5h", "ublox-zed-f9p-nmea",
    ]

    @Test(
        "track stats of a receiver log equals GPSBabel's conversion read by gpxpy and measured by GeographicLib",
        .enabled(if: SharedData.isPresent, SharedData.absentReason))
    func trackStatsMatchGPSBabel() async throws {
        // scripts/reference/make_nmea_track_reference.py wrote these figures.
        let data = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.path("Tests/locsimTests/Golden/reference-nmea-track-stats.json")))
        let reference = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let logs = try #require(reference["logs"] as? [String: [String: Any]])
        #expect(logs.count == SharedData.files(in: "gpsd", withExtension: "log").count)
        var agreeing = 0
        for (name, expected) in logs.sorted(by: { $0.key < $1.key }) {
            let result = try await CLI.run(["track", "stats", SharedData.path("gpsd/\(name).log"), "--format", "json"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let points = stats["points"] as? Int, distance = stats["distance_m"] as? Double ?? .nan
            let duration = stats["duration_s"] as? Double, expectedDuration = expected["duration_s"] as? Double
            // Distances are printed to the millimetre; GPSBabel writes 9 decimals of a degree.
            let same =
                points == expected["points"] as? Int && abs(distance - (expected["distance_m"] as? Double ?? .nan)) <= 0.002
                && (duration == nil) == (expectedDuration == nil)
                && abs((duration ?? 0) - (expectedDuration ?? 0)) <= 0.0005
            if Self.gpsbabelDiffers.contains(name) {
                #expect(!same, "\(name) now agrees with GPSBabel: take it off the list of differences")
            } else {
                #expect(same, "\(name): locsim \(stats) vs GPSBabel \(expected)")
                agreeing += 1
            }
        }
        #expect(agreeing == logs.count - Self.gpsbabelDiffers.count)
    }

    @Test("nmea serve lists points whose time goes backwards instead of dropping them silently")
    func serveReportsBackwardsTimes() async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            let start = Date(timeIntervalSince1970: 1_750_000_000)
            var points = (0..<6).map { i in
                SourcePoint(time: start.addingTimeInterval(Double(i)), latitude: 35.68, longitude: 139.76 + Double(i) * 1e-4, elevation: 3, hdop: 1)
            }
            points[4].time = start.addingTimeInterval(1.5)  // after 3 s comes 1.5 s
            let path = folder + "/backwards.gpx"
            try Self.gpx(points).write(toFile: path, atomically: true, encoding: .utf8)
            let (serve, _) = try await NMEAServe.start([path])
            defer { serve.stop() }
            let errors = serve.child.errors
            #expect(errors.contains("locsim: warning: dropped 1 point whose time goes backwards"), "\(errors)")
            #expect(errors.contains("backwards.gpx:"), "the point is named by file:line:column: \(errors)")
            #expect(errors.contains("served 5 points") || errors.contains("serving 5 points"), "\(errors)")
            serve.interrupt()
            #expect(try await serve.waitForExit() == .exited(0))
        }
    }

    @Test("A file whose extension says neither GPX nor NMEA is a usage error that names the extensions locsim knows", arguments: [
        ["replay", "walk.txt", "--fast"],
        ["track", "stats", "walk.csv"],
        ["nmea", "serve", "--port", "0", "walk"],
        ["gpsd", "--record", "field.kml"],
        ["replay", "--gpsd", "127.0.0.1:2947", "--record", "field.txt"],
    ])
    func unknownExtension(arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("locsim: error: "), "\(result.stderr)")
        #expect(result.stderr.contains(".gpx") && result.stderr.contains(".nmea"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 2, "one line and a hint: \(result.stderr)")
    }

    // MARK: Helpers

    struct SourcePoint {
        var time: Date
        var latitude: Double
        var longitude: Double
        var elevation: Double
        var hdop: Double
    }

    static func gpx(_ points: [SourcePoint]) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let body = points.map { p in
            "<trkpt lat=\"\(p.latitude)\" lon=\"\(p.longitude)\"><ele>\(p.elevation)</ele>"
                + "<time>\(formatter.string(from: p.time))</time><hdop>\(String(format: "%.2f", p.hdop))</hdop></trkpt>"
        }
        return "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><trkseg>\n"
            + body.joined(separator: "\n") + "\n</trkseg></trk>\n</gpx>\n"
    }

    struct RecordedPoint {
        var time: Date
        var latitude: Double
        var longitude: Double
        var elevation: Double?
        var hdop: Double?
    }

    /// The `<trkpt>` lines of a GPX locsim wrote (one point per line).
    /// Runs `body` with a scratch folder and a gpsd whose device is `nmea serve` of a 600-point
    /// walk due north (``straightWalkThroughGPSD(in:speed:)``), both stopped after it.
    static func withStraightWalkThroughGPSD(
        speed: Int, _ body: (_ folder: String, _ daemon: GPSDDaemon) async throws -> Void
    ) async throws {
        try await withScratchFolder("locsim-nmea") { folder in
            let (serve, daemon) = try await straightWalkThroughGPSD(in: folder, speed: speed)
            defer { serve.stop() }
            defer { daemon.stop() }
            try await body(folder, daemon)
        }
    }

    /// A gpsd whose device is `nmea serve` of a 600-point walk due north (one point a second,
    /// 12 m up, HDOP 0.9) at `speed`, with its original times.
    private static func straightWalkThroughGPSD(in folder: String, speed: Int) async throws -> (serve: LiveCommand, daemon: GPSDDaemon) {
        let source = (0..<600).map { i -> SourcePoint in
            SourcePoint(
                time: Date(timeIntervalSince1970: 1_750_000_000 + Double(i)), latitude: 51.5 + Double(i) * 1e-5,
                longitude: -0.12, elevation: 12, hdop: 0.9)
        }
        let sourcePath = folder + "/walk.gpx"
        try Self.gpx(source).write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let (serve, feedPort) = try await NMEAServe.start([sourcePath, "--speed", String(speed), "--original-times"])
        do {
            return (serve, try await GPSDDaemon.start(feedPort: feedPort))
        } catch {
            serve.stop()
            throw error
        }
    }

    static func trackPoints(_ text: String) -> [RecordedPoint] {
        text.split(separator: "\n").compactMap { line -> RecordedPoint? in
            guard let position = line.firstMatch(of: /<trkpt lat="([^"]+)" lon="([^"]+)">/),
                let time = line.firstMatch(of: /<time>([^<]+)<\/time>/)
            else { return nil }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = time.1.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
            guard let date = formatter.date(from: String(time.1)), let latitude = Double(position.1),
                let longitude = Double(position.2)
            else { return nil }
            return RecordedPoint(
                time: date, latitude: latitude, longitude: longitude,
                elevation: line.firstMatch(of: /<ele>([^<]+)<\/ele>/).flatMap { Double($0.1) },
                hdop: line.firstMatch(of: /<hdop>([^<]+)<\/hdop>/).flatMap { Double($0.1) })
        }
    }

    /// The last fix line of each time, in order.
    static func lastPerTime(_ fixes: [LiveCommand.JSONLine]) -> [LiveCommand.JSONLine] {
        var result: [LiveCommand.JSONLine] = []
        for fix in fixes {
            if result.last?.timestamp == fix.timestamp { result.removeLast() }
            result.append(fix)
        }
        return result
    }

    /// The fix lines of `locsim replay PATH --fast --format jsonl`.
    static func replayFixes(_ path: String) async throws -> [LiveCommand.JSONLine] {
        let result = try await CLI.run(["replay", path, "--fast", "--format", "jsonl", "--geodata", PackagePaths.path("geodata")])
        guard result.status == 0 else { throw HarnessError("replay \(path) failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").compactMap { LiveCommand.parse(String($0)) }.filter { $0.type == "fix" }
    }

    /// gpsd's positioned TPV reports by time (seconds since 1970): the last of each time.
    static func positionedTPVs(_ path: String) throws -> [Double: (latitude: Double, longitude: Double)] {
        var result: [Double: (latitude: Double, longitude: Double)] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline) {
            // Read by pattern: gpsd writes some members as a bare `nan`, which is not JSON.
            guard let mode = line.firstMatch(of: /"mode":(\d)/).flatMap({ Int($0.1) }), mode >= 2,
                let time = line.firstMatch(of: /"time":"([^"]+)"/).flatMap({ LiveCommand.parseTimestamp(String($0.1)) }),
                let latitude = line.firstMatch(of: /"lat":(-?[0-9.]+)/).flatMap({ Double($0.1) }),
                let longitude = line.firstMatch(of: /"lon":(-?[0-9.]+)/).flatMap({ Double($0.1) })
            else { continue }
            result[time.timeIntervalSince1970] = (latitude, longitude)
        }
        return result
    }

    /// Whether both values are there and within `tolerance`.
    static func near(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
        guard let a, let b else { return false }
        return abs(a - b) <= tolerance
    }
}
