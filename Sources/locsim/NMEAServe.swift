import ArgumentParser
import GPXFormat
import LocationCore
import NMEAFormat

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `locsim nmea`: NMEA 0183 tools.
struct NMEACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea",
        abstract: "NMEA 0183 tools.",
        subcommands: [NMEAServe.self]
    )
}

/// `locsim nmea serve`: a simulated receiver on a TCP port, for gpsd or any NMEA client.
struct NMEAServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve paced NMEA (RMC, GGA, VTG, GSA) from a GPX track or straight-line motion over TCP.",
        discussion: """
            Every connected client receives the same sentences as they are produced, like devices \
            sharing one receiver. The clock starts when the first client connects. A real gpsd takes \
            the motion as if it came from a receiver:

              locsim nmea serve --port 4001 walk.gpx --speed 10 &
              gpsd -N -n -S 2947 tcp://127.0.0.1:4001
              locsim gpsd

            Fix times are the wall-clock time when each fix is sent (a live receiver), unless \
            --original-times keeps the track's own (gpsd 3.22 moves dates before its release forward \
            by 1024 weeks). Exits 0 after the last fix, or on Ctrl-C.
            """
    )

    @Argument(help: "A GPX file; its track points (or route points, or waypoints) are served in order.")
    var track: String?

    @Option(help: "Straight-line motion instead of a track: the start, as LAT,LON in degrees.")
    var from: String?

    @Option(help: "Straight-line motion: direction in degrees from true north.")
    var bearing: Double = 0

    @Option(help: "Straight-line motion: ground speed in metres per second.")
    var walkSpeed: Double = 1.4

    @Option(help: "Straight-line motion: seconds between fixes.")
    var interval: Double = 1

    @Option(help: "Straight-line motion: number of fixes.")
    var count: Int = 600

    @Option(help: "Straight-line motion: altitude in metres above mean sea level (a 3D fix); omit for 2D.")
    var altitude: Double?

    @Option(help: "Playback speed factor (10 = ten times faster than the track's own timing).")
    var speed: Double = 1

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "TCP port to listen on.")
    var port: Int

    @Option(help: "Satellites in use to report in GGA (gpsd treats an empty count as no fix).")
    var satellites: Int = 8

    @Flag(help: "Keep the track's own fix times instead of the wall-clock time of sending.")
    var originalTimes = false

    func validate() throws {
        guard (track == nil) != (from == nil) else {
            throw ValidationError("give either a GPX file or --from LAT,LON (straight-line motion), not both or neither")
        }
        guard (1...65_535).contains(port) else { throw ValidationError("--port \(port) is outside 1...65535") }
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be a number > 0, got \(speed)") }
        guard (0...99).contains(satellites) else { throw ValidationError("--satellites must be 0...99") }
        if from != nil {
            guard walkSpeed.isFinite, walkSpeed >= 0 else { throw ValidationError("--walk-speed must be ≥ 0") }
            guard interval.isFinite, interval > 0 else { throw ValidationError("--interval must be > 0") }
            guard count > 0 else { throw ValidationError("--count must be > 0") }
            guard bearing.isFinite else { throw ValidationError("--bearing must be a number") }
            if let altitude, !altitude.isFinite { throw ValidationError("--altitude must be a number") }
            _ = try startCoordinate()
        }
    }

    func run() async throws {
        let fixes = try plannedFixes()
        guard !fixes.isEmpty else { throw ValidationError("\(track ?? "the motion") has no points with a time to serve") }
        let server = try NMEAServer(host: host, port: port)
        defer { server.close() }
        Terminal.err("locsim: serving \(fixes.count) fixes as NMEA on \(host):\(server.port) at \(speed)× (waiting for a client)")
        let writer = NMEAWriter(options: .init(satellitesInUse: satellites))
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        defer { signals.stop() }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await signals.wait()
            }
            group.addTask {
                try await server.waitForFirstClient()
                let clock = ContinuousClock()
                let started = clock.now
                let wallStart = Date()
                let trackStart = fixes[0].time
                for fix in fixes {
                    let offset = fix.time.timeIntervalSince(trackStart) / speed
                    try await clock.sleep(until: started.advanced(by: .seconds(offset)))
                    var sent = fix
                    if !originalTimes { sent.time = wallStart.addingTimeInterval(offset) }
                    server.broadcast(try writer.string(for: sent))
                }
            }
            // Whichever ends first (the last fix, or a signal) ends the command.
            try await group.next()
            group.cancelAll()
        }
        Terminal.err("locsim: served \(server.broadcasts) of \(fixes.count) fixes to \(server.clientsServed) client(s)")
    }

    /// The fixes to serve, in order, with speed and course filled in from neighbours when the
    /// source lacks them (receivers report both, and gpsd passes them on).
    func plannedFixes() throws -> [Fix] {
        var fixes: [Fix]
        if let track {
            let document: GPXDocument
            do {
                document = try GPXDocument(contentsOfFile: track, options: .lenient)
            } catch {
                throw ValidationError("\(error)")
            }
            let points =
                document.tracks.flatMap { $0.segments.flatMap { $0 } } + document.routes.flatMap(\.points)
                + document.waypoints
            fixes = points.compactMap { $0.fix(source: .gpx) }.filter(\.hasPosition)
            fixes.sort { $0.time < $1.time }
        } else {
            let start = try startCoordinate()
            // Synthetic motion's own times begin now (they matter only with --original-times).
            let epoch = Date()
            fixes = (0..<count).map { index in
                let seconds = Double(index) * interval
                return Fix(
                    time: epoch.addingTimeInterval(seconds),
                    coordinate: start.destination(distance: walkSpeed * seconds, bearing: bearing),
                    altitude: altitude, speed: walkSpeed, course: walkSpeed > 0 ? bearing : nil, source: .synthetic)
            }
        }
        for index in fixes.indices.dropFirst() {
            let previous = fixes[index - 1]
            let elapsed = fixes[index].time.timeIntervalSince(previous.time)
            guard let from = previous.coordinate, let to = fixes[index].coordinate, elapsed > 0 else { continue }
            if fixes[index].speed == nil { fixes[index].speed = from.distance(to: to) / elapsed }
            if fixes[index].course == nil, from != to { fixes[index].course = from.bearing(to: to) }
        }
        return fixes
    }

    private func startCoordinate() throws -> Coordinate {
        let parts = (from ?? "").split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1] else {
            throw ValidationError("--from must be LAT,LON in degrees, got '\(from ?? "")'")
        }
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw ValidationError("--from: \(error)")
        }
    }
}
